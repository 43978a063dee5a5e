"""`sitbench res run` end to end with a deterministic test candidate."""

from __future__ import annotations

import hashlib
import json
import random
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from sitbench.candidates import CandidateRequest, CandidateResponse, candidate
from sitbench.cli import main
from sitbench.res import CONDITIONS, load_scenarios

SCENARIOS = {s.scenario_id: s for s in load_scenarios()}


class _ResTest:
    """Answers from the request alone; behaviour chosen by the spec's name."""

    def __init__(self, name: str) -> None:
        self.name = f"restest/{name}"
        self.mode = name
        self.calls: list[str] = []

    def describe(self) -> dict[str, Any]:
        return {"provider": "test", "mode": self.mode}

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        _, _, scenario_id, condition = request.trial_id.rsplit(":", 3)
        tokens = request.view["action_tokens"] if request.view else []
        base = {"model_sent": self.mode, "provider": "test"}
        if self.mode == "first":
            return CandidateResponse(text=tokens[0], **base)
        if self.mode == "ideal":
            # Test-only shortcut: look the ideal up from the trial id.
            return CandidateResponse(
                text=f"**{SCENARIOS[scenario_id].ideal(condition)}**", **base
            )
        if self.mode == "flaky":
            if scenario_id == "res-cm-01" and condition == "self":
                raise RuntimeError("connection reset")
            if scenario_id.startswith("res-ls") and condition == "fiction":
                return CandidateResponse(
                    text=None, status="drop", drop_reason="timeout after 60s", **base
                )
            if scenario_id == "res-tc-01" and condition == "peer":
                return CandidateResponse(text=f"{tokens[0]} or {tokens[1]}", **base)
            return CandidateResponse(text=tokens[1], **base)
        raise AssertionError(self.mode)


@candidate("restest")
def _factory(name: str, **_: Any) -> _ResTest:
    return _ResTest(name)


def _rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_run_ideal_model_writes_72_rows_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert main(["res", "run", "--model", "restest/ideal", "--out", str(out)]) == 0
    rows = _rows(out)
    assert len(rows) == 72
    assert {(r["scenario_id"], r["condition"]) for r in rows} == {
        (s, c) for s in SCENARIOS for c in CONDITIONS
    }
    for row in rows:
        assert set(row) >= {"model", "scenario_id", "condition", "response", "parsed_action", "status"}
        assert row["status"] == "ok"
        assert row["parsed_action"] == SCENARIOS[row["scenario_id"]].ideal(row["condition"])
    summary = json.loads((out / "summary.json").read_text())
    m = summary["models"]["restest/ideal"]
    assert m["strict_triplets"] == 18 and m["complete_triplets"] == 18
    assert m["classification"] == "SPECIFICITY_DETECTED"
    assert m["role_rival"] == "ROLE_RIVAL_REPRODUCES"
    assert "Claim ceiling" in capsys.readouterr().out
    # the score command on the written file gives the same summary
    assert main(["res", "score", str(out / "results.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == summary
    manifest = json.loads((out / "manifest.json").read_text())
    packaged = resources.files("sitbench.res").joinpath("scenarios.jsonl").read_bytes()
    assert manifest["seed"] == 20260910
    assert manifest["scenarios_sha256"] == hashlib.sha256(packaged).hexdigest()
    assert manifest["models"] == ["restest/ideal"]
    assert manifest["candidates"]["restest/ideal"] == {"provider": "test", "mode": "ideal"}
    assert manifest["n_cells"] == 72
    assert manifest["decoding"]["temperature"] == 0.0
    assert manifest["sitbench_version"]
    assert manifest["started_at"] and manifest["finished_at"]
    assert manifest["status_counts"] == {"ok": 72, "invalid": 0, "error": 0}


def test_two_models_follow_the_seeded_order(tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["res", "run", "--model", "restest/first", "--model", "restest/ideal"]
    assert main([*argv, "--out", str(out), "--concurrency", "1"]) == 0
    rows = _rows(out)
    assert len(rows) == 144
    canonical = [
        (m, s, c) for m in ("restest/first", "restest/ideal") for s in SCENARIOS for c in CONDITIONS
    ]
    random.Random(20260910).shuffle(canonical)
    assert [(r["model"], r["scenario_id"], r["condition"]) for r in rows] == canonical
    assert [r["execution_index"] for r in rows] == list(range(144))
    summary = json.loads((out / "summary.json").read_text())["models"]
    first = summary["restest/first"]
    # Always the first-listed token: self-consistent first in 9 of 18.
    assert first["accuracy"] == {"self": 0.5, "peer": 0.5, "fiction": 0.5, "role": 0.5}
    assert first["strict_triplets"] == 0 and first["owner_sensitive"] == 0
    assert first["peer_fiction_agreement"] == 18 and first["role_matches"] == 9
    assert first["classification"] == "SPECIFICITY_NOT_DETECTED"
    assert first["role_rival"] == "ROLE_RIVAL_INCOMPLETE"
    # same seed, same order on a second run
    out2 = tmp_path / "run2"
    assert main([*argv, "--out", str(out2), "--concurrency", "3"]) == 0
    manifest1 = json.loads((out / "manifest.json").read_text())
    manifest2 = json.loads((out2 / "manifest.json").read_text())
    assert manifest1["execution_order_sha256"] == manifest2["execution_order_sha256"]
    assert sorted(r["execution_index"] for r in _rows(out2)) == list(range(144))


def test_failures_stay_in_results_with_reason(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["res", "run", "--model", "restest/flaky", "--out", str(out)]) == 0
    rows = {(r["scenario_id"], r["condition"]): r for r in _rows(out)}
    assert len(rows) == 72
    crashed = rows[("res-cm-01", "self")]
    assert crashed["status"] == "error" and crashed["error"] == "RuntimeError: connection reset"
    assert crashed["response"] is None and crashed["parsed_action"] is None
    dropped = [r for r in rows.values() if r["status"] == "error" and r["scenario_id"] != "res-cm-01"]
    assert len(dropped) == 6
    assert all(r["error"] == "timeout after 60s" and r["condition"] == "fiction" for r in dropped)
    both = rows[("res-tc-01", "peer")]
    assert both["status"] == "invalid" and both["invalid_reason"] == "both action tokens"
    m = json.loads((out / "summary.json").read_text())["models"]["restest/flaky"]
    # 6 ls triplets lose fiction, cm-01 loses self -> 11 complete
    assert m["complete_triplets"] == 11
    assert m["classification"] == "UNCLASSIFIED"
    assert m["accuracy_counts"]["fiction"]["error"] == 6
    assert m["accuracy_counts"]["self"]["error"] == 1
    assert m["accuracy_counts"]["peer"]["invalid"] == 1


def test_refuses_to_overwrite_and_unknown_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert main(["res", "run", "--model", "restest/first", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["res", "run", "--model", "restest/first", "--out", str(out)]) == 2
    assert "already exists; choose a new --out or pass --overwrite" in capsys.readouterr().err
    assert main(["res", "run", "--model", "restest/first", "--out", str(out), "--overwrite"]) == 0
    capsys.readouterr()
    assert main(["res", "run", "--model", "nosuch/x", "--out", str(tmp_path / "n")]) == 2
    assert "unknown candidate" in capsys.readouterr().err
    argv = ["res", "run", "--model", "restest/first", "--model", "restest/first"]
    assert main([*argv, "--out", str(tmp_path / "d")]) == 2
    assert "given twice" in capsys.readouterr().err


def test_show_prints_the_exact_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["res", "show", "res-cm-03", "--condition", "fiction"]) == 0
    out = capsys.readouterr().out
    assert "a fictional assistant in an unrelated training example" in out
    assert SCENARIOS["res-cm-03"].episode in out
    assert main(["res", "show", "nope"]) == 2
