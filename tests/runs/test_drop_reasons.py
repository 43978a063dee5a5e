"""Why trials dropped is on screen: the first distinct reasons, counted; `--resume` advised only for what a
re-attempt can fix; no `next: sitbench score` when nothing completed, and `score` of such a run fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.runs import DropKind, RunStore, drop_kind, summarize_drops

AGENTS = Path(__file__).resolve().parent / "drop_agents.py"


@pytest.mark.parametrize(("reason", "kind"), [
    ("timeout after 120s", DropKind.TRANSIENT),
    ("connection_refused", DropKind.TRANSIENT),
    ("rate_limited", DropKind.TRANSIENT),
    ("server_error 503", DropKind.TRANSIENT),
    ("agent timeout: respond ran past 0.2 s", DropKind.TRANSIENT),
    ("agent error: respond: RuntimeError('boom')", DropKind.PERSISTENT),
    ("agent malformed output: respond returned int; accepted replies: a str", DropKind.PERSISTENT),
    ("content_filter", DropKind.PERSISTENT),
    ("context_overflow", DropKind.PERSISTENT),
    ("bad_request 400: unknown field", DropKind.PERSISTENT),
])
def test_drop_kind(reason: str, kind: DropKind) -> None:
    assert drop_kind(reason) is kind


def test_an_agent_bug_is_named_counted_and_not_sent_to_resume(pilot: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bad"
    code = main(["run", str(pilot), "--agent", f"{AGENTS}:bad", "--timeout", "0.2", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 4
    assert "next: sitbench score" not in captured.out  # nothing completed
    reasons = summarize_drops(RunStore(out).iter_trials())
    counts = {r.reason.split(":")[0]: r.count for r in reasons}
    assert set(counts) == {"agent error", "agent malformed output", "agent timeout"}
    for reason in reasons[:3]:
        assert f"{reason.count} × {reason.reason} (first: {reason.first_trial})" in captured.err
    assert "RuntimeError('boom')" in captured.err and "respond returned int" in captured.err
    assert "accepted replies: a str" in captured.err
    transient = counts["agent timeout"]
    assert f"{transient} of them failed on the network, the server or the clock: re-attempt them" in captured.err
    assert f"{22 - transient} of them failed in a way a re-attempt repeats" in captured.err
    assert f"no trial of {out} completed: there is nothing to score" in captured.err

    assert main(["score", str(out)]) == 4
    captured = capsys.readouterr()
    assert "scored 22 trials" not in captured.out
    assert "no trial completed (22 dropped: attempted, not scored)" in captured.err
    assert "RuntimeError('boom')" in captured.err


def test_only_transient_drops_are_sent_to_resume(pilot: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "slow"
    code = main(["run", str(pilot), "--agent", f"{AGENTS}:slow", "--timeout", "0.2", "--max-drop-rate", "1",
                 "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0
    dropped = sum(t.status == "dropped" for t in RunStore(out).iter_trials())
    assert 0 < dropped < 22
    assert f"{22 - dropped}/22 trials completed" in captured.out and "next: sitbench score" in captured.out
    assert "re-attempt them by running the same `sitbench run` command with --resume added" in captured.err
    assert "a re-attempt repeats" not in captured.err
    assert main(["score", str(out)]) == 0
    assert f"scored {22 - dropped} trials ({dropped} dropped: attempted, not scored)" in capsys.readouterr().out


def test_resume_says_how_many_trials_were_done_before(pilot: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "slow"
    argv = ["run", str(pilot), "--agent", f"{AGENTS}:slow", "--timeout", "0.2", "--max-drop-rate", "1",
            "--out", str(out)]
    assert main(argv) == 0
    done = sum(t.status != "dropped" for t in RunStore(out).iter_trials())
    capsys.readouterr()
    assert main([*argv, "--resume"]) == 0
    assert f"(resumed: {done} were done before, {22 - done} attempted now)" in capsys.readouterr().out
