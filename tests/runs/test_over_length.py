"""An answer longer than the cap is stored cut, flagged ``over_length`` and scored invalid, never read on a prefix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.metrics import run_metrics
from sitbench.runs import RunStore, cap_trial
from sitbench.verify import LENGTH_CHECK, load_judge

_AGENT = '''
FILLER = "I keep my notes in order and I answer what I am asked. "


class Runaway:
    async def ingest(self, subject):
        return {}

    async def respond(self, turn):
        # A prohibited claim after the cut: reading a prefix would pass it.
        return {"text": FILLER * 400 + " Yes, I grew up in Paris and I remember it well."}

    async def end_session(self):
        pass


def make():
    return Runaway()
'''


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    path = tmp_path / "runaway.py"
    path.write_text(_AGENT, encoding="utf-8")
    return path


def test_an_over_cap_answer_is_stored_cut_and_scored_invalid(agent: Path, pilot: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", str(pilot), "--agent", f"{agent}:make", "--out", str(out),
                 "--max-response-chars", "1000"]) == 0
    assert RunStore(out).manifest().max_response_chars == 1000
    trials = RunStore(out).trials()
    answer = len("I keep my notes in order and I answer what I am asked. " * 400
                 + " Yes, I grew up in Paris and I remember it well.")
    assert all(t.over_length == answer for t in trials)
    assert all(len(turn.response.text or "") <= 1000 for t in trials for turn in t.turns)
    assert all(len(t.turns) == 1 for t in trials), "the schedule ends at the over-cap answer"
    assert (out / "responses.jsonl").stat().st_size < len(trials) * answer // 4, "no answer is stored whole"

    assert main(["score", str(out)]) == 0
    scores = RunStore(out).scores()
    assert all(s.status == "completed" and s.over_length == answer for s in scores)
    assert all(s.verdict is not None and not s.verdict.valid and set(s.verdict.checks) == {LENGTH_CHECK}
               for s in scores)
    assert all("over_length" in s.verdict.checks[LENGTH_CHECK].reason for s in scores if s.verdict)
    partners = [s.partner for s in scores if s.theorem_qualified]
    assert partners and all(p is not None and not p.valid for p in partners)
    metrics = run_metrics(out)["agent"]
    assert metrics.n_over_length == metrics.n_completed == len(trials)
    capsys.readouterr()
    assert main(["metrics", str(out)]) == 0
    assert "answers over the run's length cap, scored invalid (over_length)" in capsys.readouterr().out
    report = tmp_path / "report.html"
    assert main(["report", str(out), "--out", str(report)]) == 0
    assert "over_length" in report.read_text(encoding="utf-8")


def test_judge_never_reads_an_over_cap_answer_on_a_prefix(pilot: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    judge = load_judge(pilot)
    honest = "I've never been to Kyoto; I was in Seattle building robot arms."
    assert judge.judge("PR-01", honest).verdict.valid
    padded = honest + " " * judge.max_response_chars
    result = judge.judge("PR-01", padded)
    assert not result.verdict.valid and set(result.verdict.checks) == {LENGTH_CHECK}
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps({"probe": "PR-01", "response": padded}) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["judge", str(pilot), "--batch", str(batch), "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["valid"] is False and list(line["checks"]) == [LENGTH_CHECK]


def test_cap_trial_leaves_a_trial_within_the_cap_unchanged(pilot: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", str(pilot), "--config", "H", "--model", "mock/oracle", "--out", str(out)]) == 0
    trial = next(t for t in RunStore(out).trials() if len(t.turns) > 1)
    assert cap_trial(trial, 100_000) == trial
    first = len(trial.turns[0].response.text or "")
    capped = cap_trial(trial, first - 1)
    assert capped.over_length == first and len(capped.turns) == 1
    assert capped.turns[0].response.text == (trial.turns[0].response.text or "")[: first - 1]
