"""The example agents (in process and over HTTP) run the pilot end to end: run, score, metrics, report."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from agents_support import EXAMPLES

from sitbench.agents import AgentTrialRecord, StatePolicy
from sitbench.cli import main
from sitbench.runs import RunStore

KEYWORD = f"{EXAMPLES / 'keyword_agent.py'}:make"


def _texts(run: Path) -> dict[str, str | None]:
    return {t.trial_id: t.response_text for t in RunStore(run).trials()}


def _run_score_metrics_report(pilot: Path, out: Path, agent: str, *extra: str) -> dict:
    assert main(["run", str(pilot), "--agent", agent, "--out", str(out), *extra]) == 0
    assert main(["score", str(out)]) == 0
    assert main(["metrics", str(out), "--json"]) == 0
    assert main(["report", str(out), "--out", str(out / "report.html")]) == 0
    assert (out / "report.html").stat().st_size > 0
    return json.loads((out / "metrics.json").read_text()) if (out / "metrics.json").exists() else {}


def test_example_agent_runs_the_pilot_end_to_end(pilot: Path, tmp_path: Path) -> None:
    out = tmp_path / "kw"
    _run_score_metrics_report(pilot, out, KEYWORD)
    trials = RunStore(out).trials()
    assert len(trials) == 22 and {t.status for t in trials} == {"completed"}
    assert {t.config for t in trials} == {"agent"}
    manifest = RunStore(out).manifest()
    assert manifest.agent is not None and manifest.agent.state_policy is StatePolicy.REINGEST
    assert manifest.agent.info.name == "keyword-baseline"
    assert manifest.counts == {"attempted": 22, "completed": 22, "dropped": 0, "retries": 0, "calls": 28,
                               "cache_hits": 0}
    for trial in trials:
        accounting = trial.agent
        assert isinstance(accounting, AgentTrialRecord)
        assert accounting.ingest_ms > 0 and accounting.answer_ms > 0
        assert accounting.ingest_ops[0].op.value == "add"
        assert len(accounting.turn_ops) == len(trial.turns)
        assert all(turn.response.latency_s > 0 for turn in trial.turns)
    # A two-session schedule: one reset, and its replayed session record was withheld from ingest.
    multi = [t for t in trials if len({turn.session for turn in t.turns}) > 1]
    assert multi and all(t.agent.end_sessions == 1 and t.agent.withheld_records == 1 for t in multi)
    assert all("end_session()" in t.persisted[0] for t in multi)
    scores = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert len(scores) == 22 and all(s["verdict"] is not None for s in scores)
    assert all(s["ingest_ms"] > 0 and s["answer_ms"] > 0 and s["memory_ops"] > 0 for s in scores)
    # The report shows per-trial timings; trials.csv carries them.
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<section id='agents'>" in html and "keyword-baseline" in html and "agent:PR-22" in html
    rows = list(csv.DictReader((out / "trials.csv").open(encoding="utf-8")))
    assert len(rows) == 22 and all(float(r["ingest_ms"]) > 0 and float(r["answer_ms"]) > 0 for r in rows)


def test_http_agent_runs_the_same_pilot_with_forked_states(pilot: Path, tmp_path: Path, http_agent: str) -> None:
    python_run, http_run = tmp_path / "py", tmp_path / "http"
    assert main(["run", str(pilot), "--agent", KEYWORD, "--out", str(python_run)]) == 0
    _run_score_metrics_report(pilot, http_run, http_agent)
    manifest = RunStore(http_run).manifest()
    assert manifest.agent is not None and manifest.agent.transport == "http"
    assert manifest.agent.state_policy is StatePolicy.FORK
    trials = RunStore(http_run).trials()
    assert all(t.agent.fork_ms is not None for t in trials)
    # Same baseline, other transport and state policy: the same answers.
    assert _texts(http_run) == _texts(python_run)


def test_reingest_and_fork_give_the_same_answers_over_http(pilot: Path, tmp_path: Path, http_agent: str) -> None:
    fork, reingest = tmp_path / "fork", tmp_path / "reingest"
    assert main(["run", str(pilot), "--agent", http_agent, "--out", str(fork), "--agent-state", "fork"]) == 0
    assert main(["run", str(pilot), "--agent", http_agent, "--out", str(reingest), "--agent-state", "reingest"]) == 0
    assert _texts(fork) == _texts(reingest)
    assert RunStore(reingest).manifest().agent.state_policy is StatePolicy.REINGEST


def test_shards_of_an_agent_run_merge_into_the_whole(pilot: Path, tmp_path: Path) -> None:
    whole, one, two, merged = (tmp_path / n for n in ("whole", "s1", "s2", "merged"))
    assert main(["run", str(pilot), "--agent", KEYWORD, "--out", str(whole)]) == 0
    assert main(["run", str(pilot), "--agent", KEYWORD, "--out", str(one), "--shard", "1/2"]) == 0
    assert main(["run", str(pilot), "--agent", KEYWORD, "--out", str(two), "--shard", "2/2"]) == 0
    assert len(RunStore(one).trials()) == 11 and len(RunStore(two).trials()) == 11
    assert main(["merge", str(one), str(two), "--out", str(merged)]) == 0
    assert _texts(merged) == _texts(whole)


@pytest.mark.parametrize(("args", "needle"), [
    (["--agent", "no_such_module_xyz:make"], "cannot import no_such_module_xyz"),
    (["--agent", "examples/nowhere.py:make"], "is not a file"),
    (["--agent", f"{EXAMPLES / 'keyword_agent.py'}:nothing"], "has no callable 'nothing'"),
    (["--agent", "sitbench.agents:AgentInfo"], "lacks ingest, respond, end_session"),
    (["--agent", KEYWORD, "--model", "mock/oracle"], "give one"),
    (["--agent", KEYWORD, "--config", "B"], "--config do not apply"),
    (["--agent", "http://127.0.0.1:9"], "cannot reach the agent"),
    ([], "give --model"),
])
def test_bad_agent_options_exit_2_with_one_line(pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               args: list[str], needle: str) -> None:
    assert main(["run", str(pilot), "--out", str(tmp_path / "r"), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "r" / "responses.jsonl").exists()


def test_fork_refused_for_an_agent_without_fork(pilot: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(pilot), "--agent", KEYWORD, "--agent-state", "fork", "--out", str(tmp_path / "r")]) == 2
    assert "use --agent-state reingest" in capsys.readouterr().err


def test_the_readme_example_agent_runs_the_pilot(pilot: Path, tmp_path: Path) -> None:
    readme = (EXAMPLES.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Bring your own agent", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.splitlines()) <= 40
    (tmp_path / "my_agent.py").write_text(code, encoding="utf-8")
    out = tmp_path / "mine"
    _run_score_metrics_report(pilot, out, f"{tmp_path / 'my_agent.py'}:make")
    trials = RunStore(out).trials()
    assert len(trials) == 22 and all(t.status == "completed" for t in trials)
    assert RunStore(out).manifest().agent.info.name == "my-agent"
    assert any(t.agent.turn_ops and t.agent.turn_ops[-1] for t in trials)


class _BadDescribe:
    async def ingest(self, subject: object) -> None: ...

    async def respond(self, turn: object) -> str:
        return ""

    async def end_session(self) -> None: ...

    def describe(self) -> dict:
        return {"name": "x", "colour": "blue"}


def make_bad_describe() -> _BadDescribe:
    return _BadDescribe()


def test_a_describe_that_does_not_validate_is_bad_input(pilot: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(pilot), "--agent", f"{__name__}:make_bad_describe", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "describe() must return an AgentInfo" in err and "colour" in err
