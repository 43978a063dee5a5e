"""The offline RES demo (two reference agents through the agent protocol) and a summary whose counts say
what they count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.res import (
    CONDITIONS,
    ResultRow,
    build_user_prompt,
    load_scenarios,
    read_prompt,
    score_notes,
    score_results,
    score_rows,
)

AWARE, BLIND = "agent:sitbench.res:owner_aware", "agent:sitbench.res:owner_blind"


def test_res_demo_shows_a_good_and_a_poor_pattern(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["res", "demo", "--out", str(tmp_path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    good, poor = summary["models"][AWARE], summary["models"][BLIND]
    assert good["valid_answers"] == poor["valid_answers"] == 72
    assert (good["strict_triplets"], good["peer_fiction_agreement"], good["classification"]) == (
        17, 18, "SPECIFICITY_DETECTED")
    assert (poor["strict_triplets"], poor["owner_sensitive"], poor["classification"]) == (
        0, 0, "SPECIFICITY_NOT_DETECTED")
    assert poor["accuracy"]["self"] == good["accuracy"]["self"] and poor["accuracy"]["peer"] < 0.1
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["candidates"][AWARE]["provider"] == "agent"
    assert set(manifest["cache"].get("bypassed", {})) <= {AWARE, BLIND}


def test_the_reference_reading_uses_only_the_prompt() -> None:
    scenarios = load_scenarios(None)
    readings = {s.scenario_id: read_prompt(build_user_prompt(s, "self")) for s in scenarios}
    right = [sid for s in scenarios if (r := readings[sid := s.scenario_id]) and r.record_action == s.self_ideal]
    assert len(right) == 17 and "res-tc-04" not in right
    for s in scenarios:
        owners = {c: read_prompt(build_user_prompt(s, c)) for c in CONDITIONS}
        assert {c for c, r in owners.items() if r and r.own_record} == {"self", "role"}
    assert read_prompt("What is your name?") is None


def _all_invalid() -> list[ResultRow]:
    return [ResultRow(model="m", scenario_id=s.scenario_id, condition=c, status="invalid", response="no idea")
            for s in load_scenarios(None) for c in CONDITIONS]


def test_observed_triplets_beside_zero_valid_answers_say_what_each_counts() -> None:
    scored = score_results(_all_invalid(), load_scenarios(None))
    model = scored.models["m"]
    assert model.complete_triplets == 18 and model.valid_answers == 0
    rows = dict(score_rows(model, 18))
    assert rows["valid answers (named exactly one action token), of 72 cells"] == "0/72"
    observed = next(v for k, v in rows.items() if k.startswith("triplets observed (") and "valid or not" in k)
    assert observed == "18/18"
    assert rows["role rival"].startswith("ROLE_RIVAL_INCOMPLETE: role matched self and its ideal in 0/18")
    assert rows["classification"] == "SPECIFICITY_NOT_DETECTED: strict triplets 0 ≤ 10"
    notes = score_notes(model, 18)
    assert len(notes) == 1 and "reflects the answer format" in notes[0]


def test_res_score_prints_the_meanings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in _all_invalid()))
    assert main(["res", "score", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "valid answers" in out and "0/72" in out and "triplets observed" in out
    assert "note: only 0 of 72 answers named exactly one action token" in out


def test_res_run_without_a_key_points_at_the_offline_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["res", "run", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err and "`sitbench res demo` runs the battery offline" in err
    assert len(err.strip().splitlines()) == 1
