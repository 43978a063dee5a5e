"""Progress when stderr is not a terminal: plain, rate-limited lines with done/total, rate and ETA."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.runs import INTERVAL_ENV, LineProgress, progress_display


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_are_rate_limited_and_carry_rate_and_eta() -> None:
    clock, out = _Clock(), io.StringIO()
    with LineProgress("mock/oracle", interval=10.0, stream=out, clock=clock) as progress:
        task = progress.add_task("run", total=None)
        progress.update(task, total=100, completed=0)
        for _ in range(30):
            clock.now += 1.0
            progress.advance(task)
    lines = out.getvalue().splitlines()
    assert lines == [
        "mock/oracle: 10/100 trials (10.0 %), 1.00 trials/s, elapsed 10s, ETA 1m30s",
        "mock/oracle: 20/100 trials (20.0 %), 1.00 trials/s, elapsed 20s, ETA 1m20s",
        "mock/oracle: 30/100 trials (30.0 %), 1.00 trials/s, elapsed 30s, ETA 1m10s",
        "mock/oracle: 30/100 trials (30.0 %), 1.00 trials/s, elapsed 30s, finished",
    ]


def test_resumed_trials_do_not_inflate_the_rate() -> None:
    clock, out = _Clock(), io.StringIO()
    with LineProgress("r", interval=5.0, stream=out, clock=clock) as progress:
        progress.update(progress.add_task("run"), total=1000, completed=900)
        for _ in range(10):
            clock.now += 0.5
            progress.advance(0)
    assert out.getvalue().splitlines()[0] == "r: 910/1000 trials (91.0 %), 2.00 trials/s, elapsed 5s, ETA 45s"


def test_a_run_shorter_than_one_interval_prints_nothing() -> None:
    clock, out = _Clock(), io.StringIO()
    with LineProgress("r", interval=10.0, stream=out, clock=clock) as progress:
        progress.update(progress.add_task("run"), total=5)
        for _ in range(5):
            clock.now += 0.1
            progress.advance(0)
    assert out.getvalue() == ""


def test_not_a_terminal_or_ci_gets_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert isinstance(progress_display("x"), LineProgress)  # pytest captures stderr: not a terminal
    monkeypatch.setenv("CI", "true")
    assert isinstance(progress_display("x"), LineProgress)


def test_run_writes_progress_lines_to_stderr(pilot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(INTERVAL_ENV, "0.000001")
    assert main(["run", str(pilot), "--config", "B", "--model", "mock/oracle", "--out", str(tmp_path / "r")]) == 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.startswith("mock/oracle: ")]
    assert lines and lines[-1].startswith("mock/oracle: 22/22 trials (100.0 %), ") and lines[-1].endswith("finished")
    assert all("trials/s" in line for line in lines)
    assert "mock/oracle: " not in captured.out  # progress never mixes into the command's output


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan", "inf", "1e9"])
def test_a_bad_progress_interval_is_one_clean_error(value: str, pilot: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(INTERVAL_ENV, value)
    assert main(["run", str(pilot), "--config", "B", "--model", "mock/oracle", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: environment variable {INTERVAL_ENV}=")


def test_run_and_score_end_with_the_next_command(pilot: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["run", str(pilot), "--config", "B", "--model", "mock/oracle", "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip().endswith(f"next: sitbench score {out}")
    assert main(["score", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"next: sitbench metrics {out} (the table), then sitbench report {out} --out {out / 'report.html'}" in printed


def test_a_step_before_the_trials_is_named_and_left_out_of_the_rate() -> None:
    clock, out = _Clock(), io.StringIO()
    with LineProgress("r", interval=10.0, stream=out, clock=clock) as progress:
        task = progress.add_task("")
        progress.update(task, description="loading the dataset")
        clock.now += 60.0
        assert progress.line() == "r: preparing (loading the dataset), elapsed 1m00s"
        progress.update(task, total=100, completed=0)
        progress.update(task, description="embedding")
        clock.now += 11.0
        assert progress.line() == "r: 0/100 trials, preparing (embedding), elapsed 1m11s"
        progress.update(task, description="")  # the first trial starts now
        clock.now += 0.5
        progress.advance(task, 5)
        assert "ETA" not in progress.line(), "no ETA before a second of trials"
        clock.now += 1.5
        progress.advance(task, 5)
        # 10 trials in 2 s of trials, not in the 73 s since the start: 5/s, 90 left, 18 s.
        assert progress.line() == "r: 10/100 trials (10.0 %), 5.00 trials/s, elapsed 1m13s, ETA 18s"


def test_generate_counts_pairs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(INTERVAL_ENV, "0.000001")
    assert main(["generate", "--suite", "dev", "--seed", "1", "--out", str(tmp_path / "dev")]) == 0
    err = capsys.readouterr().err.splitlines()
    lines = [line for line in err if line.startswith("generate dev (seed 1): ")]
    assert lines and lines[-1].startswith("generate dev (seed 1): 5/5 pairs (100.0 %), ")
    assert lines[-1].endswith("finished")
    assert err[-1] == f"generate dev: writing {tmp_path / 'dev'} (stores, manifest and datasheet)"
