"""SIGTERM to ``score`` while forked workers score: no traceback from any process, no temporary file left,
and the scores file is the earlier one or none (never a torn one)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sitbench.cli import main


@pytest.fixture(scope="module")
def big_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sigterm")
    assert main(["generate", "--suite", "dev", "--seed", "1", "--out", str(root / "dev")]) == 0
    assert main(["run", str(root / "dev"), "--config", "B,C", "--model", "mock/oracle", "--out", str(root / "run")]) == 0
    return root / "run"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forked workers need fork()")
def test_sigterm_while_forked_workers_score(big_run: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-m", "sitbench", "score", str(big_run), "--workers", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 120
    while not list(big_run.glob(".scores.jsonl.*.tmp")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert process.poll() is None, "scoring ended before it could be stopped: make the run larger"
    time.sleep(0.3)  # the workers are scoring
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text and "BrokenPipeError" not in text, text
    assert process.returncode == 143, text
    assert text.strip().splitlines() == [text.strip().splitlines()[0]] and "terminated" in text, text
    assert not [p.name for p in big_run.iterdir() if p.name.endswith(".tmp")]
    assert not (big_run / "scores.jsonl").exists()
