"""One agent protocol for SIT, the CHI memory axis and RES: every accepted reply form reaches the stored
results as text, and a reply in no accepted form is reported (agent, probe or cell, accepted forms) with
a non-zero exit, never stored as a silent null."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from sitbench.agents import ACCEPTED_REPLY_FORMS, AgentOutputError, AgentReply, normalize_reply
from sitbench.cli import main

HERE = Path(__file__).resolve().parent
AGENTS = HERE / "reply_form_agents.py"


class _Other(BaseModel):
    text: str


def test_normalize_reply_accepts_the_documented_forms() -> None:
    assert normalize_reply("hi") == AgentReply(text="hi")
    assert normalize_reply({"text": "hi"}) == AgentReply(text="hi")
    full = {"text": "hi", "usage": {"prompt_tokens": 3, "completion_tokens": 1}, "memory_ops": [{"op": "search"}],
            "model": "m"}
    assert normalize_reply(full).usage is not None and normalize_reply(full).memory_ops[0].op.value == "search"
    reply = AgentReply(text="hi")
    assert normalize_reply(reply) is reply
    assert normalize_reply(_Other(text="hi")) == AgentReply(text="hi")


@pytest.mark.parametrize(("value", "said"), [
    (42, "respond returned int"),
    (None, "respond returned NoneType"),
    ({"txt": "hi"}, "text: Field required"),
    ({"text": "hi", "extra": 1}, "extra: Extra inputs are not permitted"),
    ({"text": 7}, "text: Input should be a valid string"),
])
def test_normalize_reply_names_what_came_back_and_the_accepted_forms(value: object, said: str) -> None:
    with pytest.raises(AgentOutputError) as caught:
        normalize_reply(value)
    message = str(caught.value)
    assert said in message and ACCEPTED_REPLY_FORMS in message and "\n" not in message


def _chi(tmp_path: Path, factory: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[dict[str, object]]]:
    out = tmp_path / factory
    code = main(["chi", "memory", "run", "--panel", "m1", "--agent", f"{AGENTS}:{factory}", "--trajectories", "1",
                 "--pre-exposure", "0", "--out", str(out)])
    err = capsys.readouterr().err
    return code, err, [json.loads(line) for line in (out / "probes.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("factory", ["dict_form", "model_form"])
def test_chi_memory_run_stores_the_text_of_a_dict_or_model_reply(tmp_path: Path, factory: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, err, probes = _chi(tmp_path, factory, capsys)
    assert code == 0 and "error:" not in err
    assert probes and all(p["reply"] == json.dumps({"abstain": True, "answer": None}) for p in probes)
    assert {p["outcome"] for p in probes} == {"abstain"}


def test_chi_memory_run_reports_a_malformed_reply_and_exits_4(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, err, probes = _chi(tmp_path, "bad_form", capsys)
    assert code == 4
    first = err.splitlines()[-2]
    assert "bad_form" in first and "respond returned int" in first and probes[0]["probe_id"] in first
    assert ACCEPTED_REPLY_FORMS in first
    assert all(p["outcome"] == "invalid" and "accepted replies" in p["parsed"]["error"] for p in probes)
    manifest = json.loads((tmp_path / "bad_form" / "manifest.json").read_text())
    assert any("no accepted reply form" in e for e in manifest["exclusions"])


def test_chi_memory_run_says_at_the_first_plain_text_reply_what_the_rubric_reads(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.chi import REPLY_FORMAT

    code, err, probes = _chi(tmp_path, "plain_text", capsys)
    assert code == 0  # the rubric is as registered: a reply it cannot read is a task failure, scored invalid
    assert {p["outcome"] for p in probes} == {"invalid"}
    lines = err.splitlines()
    first = next(i for i, line in enumerate(lines) if "scored invalid: not one JSON object" in line)
    # Said when the first arm ends, before the report; with the probe, the reply, the format and an example.
    assert first < next(i for i, line in enumerate(lines) if line.startswith("wrote "))
    assert probes[0]["probe_id"] in lines[first] and "'I hold no record of that.'" in lines[first]
    assert REPLY_FORMAT in lines[first]
    assert '{"abstain": false, "answer": "CM-47162"} or {"abstain": true, "answer": null}' in lines[first]
    assert f"{len(probes)} replies were not in the reply format and scored invalid (not one JSON object ×" \
        f"{len(probes)})" in err


def _res(tmp_path: Path, factory: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[dict[str, object]]]:
    out = tmp_path / f"res-{factory}"
    code = main(["res", "run", "--agent", f"{AGENTS}:{factory}", "--out", str(out), "--json"])
    err = capsys.readouterr().err
    return code, err, [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("factory", ["dict_form", "model_form"])
def test_res_run_stores_the_text_of_a_dict_or_model_reply(tmp_path: Path, factory: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, err, rows = _res(tmp_path, factory, capsys)
    assert code == 0 and "error" not in err
    assert len(rows) == 72 and {r["status"] for r in rows} == {"ok"}
    assert all(r["model"] == f"agent:{AGENTS}:{factory}" and r["response"] == r["parsed_action"] for r in rows)


def test_res_run_reports_a_malformed_reply_and_exits_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, rows = _res(tmp_path, "bad_form", capsys)
    assert code == 4
    assert {r["status"] for r in rows} == {"error"}
    assert all(str(r["error"]).startswith("agent malformed output: respond returned int") for r in rows)
    line = next(x for x in err.splitlines() if "respond returned int" in x)
    assert "bad_form" in line and f"{rows[0]['scenario_id']}/{rows[0]['condition']}" in line
    assert ACCEPTED_REPLY_FORMS in line


def test_res_run_says_what_a_reply_must_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, rows = _res(tmp_path, "plain_text", capsys)
    assert code == 0 and {r["status"] for r in rows} == {"invalid"}
    line = next(x for x in err.splitlines() if "replies are invalid" in x)
    assert f"72 of 72 replies are invalid (no action token ×72; the first, {rows[0]['scenario_id']}/" in line
    assert "exactly one of the two action tokens" in line and "'I hold no record of that.'" in line


def test_sit_run_accepts_a_dict_reply_and_names_the_forms_of_a_malformed_one(pilot: Path, tmp_path: Path) -> None:
    from sitbench.runs import RunStore

    assert main(["run", str(pilot), "--agent", f"{AGENTS}:dict_form", "--out", str(tmp_path / "ok")]) == 0
    trials = list(RunStore(tmp_path / "ok").iter_trials())
    assert trials and all(t.status == "completed" and t.turns[0].response.text for t in trials)
    assert main(["run", str(pilot), "--agent", f"{AGENTS}:bad_form", "--out", str(tmp_path / "bad")]) == 4
    reasons = {t.drop_reason for t in RunStore(tmp_path / "bad").iter_trials()}
    assert reasons and all(r and r.startswith("agent malformed output: respond returned int") for r in reasons)
    assert all(r and "accepted replies: a str" in r for r in reasons)


def test_res_run_drives_an_http_agent(http_agent: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res-http"
    assert main(["res", "run", "--agent", http_agent, "--out", str(out), "--json"]) == 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 72 and all(r["status"] != "error" and r["response"] for r in rows)
    assert json.loads((out / "manifest.json").read_text())["candidates"][f"agent:{http_agent}"]["transport"] == "http"
