"""kill -9 in the middle of `sitbench run --agent`, then --resume: every trial once, the same answers as an
uninterrupted run, and no finished trial asked again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agents_support import EXAMPLES

SLOW = f'''
import asyncio, importlib.util, pathlib
spec = importlib.util.spec_from_file_location("kw", {str(EXAMPLES / "keyword_agent.py")!r})
kw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kw)
LOG = pathlib.Path(__file__).with_name("asked.log")


class Slow(kw.KeywordAgent):
    async def respond(self, turn):
        await asyncio.sleep(0.05)
        with LOG.open("a") as handle:
            handle.write(turn.envelope + "\\n")
        return await super().respond(turn)


def make():
    return Slow()
'''


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _run(pilot: Path, agent: str, out: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "sitbench", "run", str(pilot), "--agent", agent, "--out", str(out),
                             "--max-connections", "2", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "CI": "true"})


def test_kill_nine_then_resume_ends_like_an_uninterrupted_run(pilot: Path, tmp_path: Path) -> None:
    (tmp_path / "slow_agent.py").write_text(SLOW)
    agent = f"{tmp_path / 'slow_agent.py'}:make"
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert _run(pilot, agent, whole).wait(120) == 0
    (tmp_path / "asked.log").unlink()
    process = _run(pilot, agent, killed)
    deadline = time.monotonic() + 60
    while len(_lines(killed / "responses.jsonl")) < 8:
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    done = [json.loads(line) for line in _lines(killed / "responses.jsonl") if line.endswith("}")]
    asked_before = len(_lines(tmp_path / "asked.log"))
    resumed = _run(pilot, agent, killed, "--resume")
    assert resumed.wait(120) == 0, resumed.stderr.read()  # type: ignore[union-attr]
    records = [json.loads(line) for line in _lines(killed / "responses.jsonl")]
    assert [r["trial_id"] for r in records] == [json.loads(line)["trial_id"] for line in _lines(whole / "responses.jsonl")]
    answers = {r["trial_id"]: r["turns"][-1]["response"]["text"] for r in records}
    assert answers == {json.loads(line)["trial_id"]: json.loads(line)["turns"][-1]["response"]["text"]
                       for line in _lines(whole / "responses.jsonl")}
    # The resume asked only the turns of trials that had not finished.
    finished_turns = sum(len(r["turns"]) for r in done)
    total_turns = sum(len(r["turns"]) for r in records)
    assert len(_lines(tmp_path / "asked.log")) - asked_before == total_turns - finished_turns
