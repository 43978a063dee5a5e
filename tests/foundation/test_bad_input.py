"""Unreadable datasets: one error line naming file, line and field; exit 2; traceback only with --debug."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from sitbench.cli import main

from ._pilot_dir import PilotDir

PROBES = "hidden/probes.jsonl"
QUERIES = "visible/queries.jsonl"


def _validate(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, str]:
    code = main([*flags, "validate", str(pilot_dir.root), "--json"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_error_line(code: int, out: str, err: str) -> str:
    """Assert the one-line error contract and return that line."""
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    return lines[0]


# ---------------------------------------------------------------- malformed JSON


def test_malformed_jsonl_line(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    line = (pilot_dir.root / PROBES).read_text(encoding="utf-8").splitlines()[6]
    pilot_dir.replace_line(PROBES, 7, line[:40])
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert f"{PROBES} line 7: malformed JSON" in message


def test_malformed_json_document_names_the_line(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    # registry.json is pretty-printed; break line 5 and expect that line number back.
    rel = "hidden/registry.json"
    lines = (pilot_dir.root / rel).read_text(encoding="utf-8").splitlines()
    assert lines[4].endswith(",")
    pilot_dir.replace_line(rel, 5, lines[4].rstrip(","))
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert f"{rel} line 6: malformed JSON" in message
    assert "column" in message


def test_malformed_json_in_a_real_process(pilot_dir: PilotDir) -> None:
    pilot_dir.replace_line(QUERIES, 4, "{not json")
    result = subprocess.run([sys.executable, "-m", "sitbench", "validate", str(pilot_dir.root)],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert f"{QUERIES} line 4: malformed JSON" in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- missing files


def test_missing_registry(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    (pilot_dir.root / "hidden/registry.json").unlink()
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert "hidden/registry.json: file not found" in message
    assert "sitbench generate" in message


def test_missing_probe_store(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    (pilot_dir.root / PROBES).unlink()
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert f"{PROBES}: file not found" in message


def test_missing_dataset_directory(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere"
    code = main(["validate", str(missing)])
    captured = capsys.readouterr()
    message = _one_error_line(code, captured.out, captured.err)
    assert f"{missing}: no such directory" in message


# ---------------------------------------------------------------- wrong types


@pytest.mark.parametrize(("edit", "field", "bad"), [
    (lambda q: q["turns"][0].update(t="not-a-date"), "turns[0].t", "'not-a-date'"),
    (lambda q: q.update(tau=42), "tau", ""),
    (lambda q: q["turns"][0].update(session="first"), "turns[0].session", "'first'"),
    (lambda q: q.update(turns=[]), "turns", ""),
    (lambda q: q["interlocutor"].pop("description"), "interlocutor.description", "Field required"),
], ids=["turn-date-not-a-date", "tau-integer", "session-not-an-int", "no-turns", "missing-description"])
def test_wrong_type_in_a_query(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str], edit: Any, field: str,
                               bad: str) -> None:
    pilot_dir.edit_query("q-003", edit)
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert f"error: {QUERIES} line 3: {field}: " in message
    assert bad in message


def test_wrong_type_in_a_lineage(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    def edit(lin: dict[str, Any]) -> None:
        lin["checkpoints"] = lin["checkpoints"][:4]

    pilot_dir.edit_lineage("L-2B", edit)
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert "error: hidden/lineages/L-2B.json: checkpoints: " in message
    assert "at least 5" in message


def test_several_errors_are_counted_on_the_one_line(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    def edit(query: dict[str, Any]) -> None:
        query["tau"] = "soon"
        query["turns"][0]["t"] = "later"

    pilot_dir.edit_query("q-003", edit)
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert f"{QUERIES} line 3: tau: " in message
    assert message.endswith("(+1 more error)")


def test_integer_dates_are_rejected_not_read_as_unix_time(pilot_dir: PilotDir,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A JSON number is the wrong type for an ISO date, even one that is a whole number of days.

    86400 is midnight of 1970-01-02 in Unix time; lax date parsing would load it silently.
    """
    pilot_dir.edit_query("q-003", lambda q: q.update(tau=86400))
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert f"{QUERIES} line 3: tau: " in message


def test_scored_turn_out_of_range_is_an_input_error(pilot_dir: PilotDir,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """q-001 has one turn; scored_turn 3 points at nothing (today: IndexError traceback in inv10)."""
    pilot_dir.edit_query("q-001", lambda q: q.update(scored_turn=3))
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert f"{QUERIES} line 1: scored_turn" in message


# ---------------------------------------------------------------- unknown enum values and fields


@pytest.mark.parametrize(("edit", "where", "value"), [
    (lambda d: d.edit_probe("PR-02", lambda p: p.update(category="Z")), f"{PROBES} line 2: category: ", "'Z'"),
    (lambda d: d.edit_lineage("L-1A", lambda lin: lin["events"][3].update(kind="dream")),
     "hidden/lineages/L-1A.json: events[3].kind: ", "'dream'"),
    (lambda d: d.edit_probe("PR-05", lambda p: p["contract"]["required_acts"].append("DANCE")),
     f"{PROBES} line 5: contract.required_acts[1]: ", "'DANCE'"),
    (lambda d: d.edit_query("q-009", lambda q: q.update(capability="OMNISCIENT")),
     f"{QUERIES} line 9: capability: ", "'OMNISCIENT'"),
    (lambda d: d.edit_subject("subj-b803", lambda s: s["records"][2].update(disclosure="secret")),
     "visible/subjects/subj-b803.json: records[2].disclosure: ", "'secret'"),
], ids=["category-Z", "kind-dream", "act-DANCE", "capability-OMNISCIENT", "tier-secret"])
def test_unknown_enum_value(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str], edit: Any, where: str,
                            value: str) -> None:
    edit(pilot_dir)
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert f"error: {where}Input should be " in message
    assert f"(got {value})" in message


def test_unknown_enum_names_field_and_value_exactly(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    pilot_dir.edit_lineage("L-1A", lambda lin: lin["events"][3].update(kind="dream"))
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert message.startswith("error: hidden/lineages/L-1A.json: events[3].kind: Input should be 'episodic', ")
    assert message.endswith("(got 'dream')")


def test_contract_field_smuggled_into_a_query_is_an_unknown_field(pilot_dir: PilotDir,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    pilot_dir.edit_query("q-001", lambda q: q.update(required_acts=["REJECT"]))
    message = _one_error_line(*_validate(pilot_dir, capsys))
    assert f"{QUERIES} line 1: required_acts: Extra inputs are not permitted" in message


# ---------------------------------------------------------------- --debug


def test_debug_shows_the_traceback(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    pilot_dir.edit_probe("PR-02", lambda p: p.update(category="Z"))
    code, out, err = _validate(pilot_dir, capsys, "--debug")
    assert code == 2
    assert out == ""
    assert "Traceback (most recent call last)" in err
    assert "InputError" in err
    assert err.splitlines()[-1].startswith(f"error: {PROBES} line 2: category: ")


def test_valid_dataset_prints_no_error(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _validate(pilot_dir, capsys)
    assert (code, err) == (0, "")
    assert json.loads(out)["counts"]["probes"] == 22
