"""kill -9 in the middle of `sitbench run`, twice, then `--resume`: the run ends identical to an
uninterrupted one — every trial once, no torn line, no finished trial called again, same scores."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from sitbench.candidates import get_candidate
from sitbench.candidates._stub_server import StubChatServer
from sitbench.cli._runs import score_run
from sitbench.errors import InputError
from sitbench.runs import Runner, RunOptions, trial_ids

ALL = 9 * 22


def _lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    return path.read_bytes().decode().splitlines()


def _start(pilot: Path, out: Path, base_url: str, *extra: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "sitbench", "run", str(pilot), "--config", "all", "--model", "openai/stub",
               "--base-url", base_url, "--out", str(out), "--max-connections", "4", *extra]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "CI": "true"})


def _kill_after(process: subprocess.Popen[bytes], responses: Path, lines: int) -> int:
    deadline = time.monotonic() + 60
    while len(_lines(responses)) < lines:
        assert process.poll() is None, f"the run ended before {lines} trials: {process.stderr.read()!r}"  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    assert process.returncode == -signal.SIGKILL
    return len(_lines(responses))


def _comparable(path: Path) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in _lines(path)]
    for record in records:
        record.pop("evidence_ms")
        for turn in record["turns"]:
            turn["response"].pop("latency_s")
    return records


def _stored(responses: Path) -> dict[str, int]:
    """trial id → number of calls its record holds."""
    return {r["trial_id"]: len(r["turns"]) for r in map(json.loads, _lines(responses))}


@pytest.mark.slow
def test_kill_9_twice_then_resume_matches_an_uninterrupted_run(pilot: Path, tmp_path: Path) -> None:
    killed = tmp_path / "killed"
    responses = killed / "responses.jsonl"
    with StubChatServer(delay_s=0.03) as server:
        at_first_kill = _kill_after(_start(pilot, killed, server.base_url), responses, 30)
        assert responses.read_bytes().endswith(b"\n")  # whole lines only: each append is one write
        time.sleep(0.2)  # let requests of the dead client finish on the server side
        calls_first = server.calls
        stored_first = _stored(responses)
        assert calls_first >= sum(stored_first.values())

        at_second_kill = _kill_after(_start(pilot, killed, server.base_url, "--resume"), responses,
                                     at_first_kill + 60)
        assert at_first_kill < at_second_kill < ALL
        assert responses.read_bytes().endswith(b"\n")
        time.sleep(0.2)
        calls_second = server.calls - calls_first
        stored_second = _stored(responses)
        assert set(stored_first) < set(stored_second)
        new = {t: n for t, n in stored_second.items() if t not in stored_first}
        # The resumed process called the trials it stored, plus at most the 4 in flight when it died.
        assert sum(new.values()) <= calls_second <= sum(new.values()) + 4 * 3

        final = _start(pilot, killed, server.base_url, "--resume")
        _, err = final.communicate(timeout=120)
        assert final.returncode == 0, err.decode()
        calls_third = server.calls - calls_first - calls_second

    stored = _stored(responses)
    # The last process called exactly the trials missing at the second kill, nothing already stored.
    assert calls_third == sum(n for t, n in stored.items() if t not in stored_second)
    ids = [json.loads(line)["trial_id"] for line in _lines(responses)]
    assert len(ids) == len(set(ids)) == ALL
    assert responses.read_bytes().endswith(b"\n")

    # The same run, uninterrupted, against an identical deterministic server.
    clean = tmp_path / "clean"
    with StubChatServer() as server:
        candidate = get_candidate("openai/stub", base_url=server.base_url)
        options = RunOptions(configs=list("ABCDEFGHI"))
        manifest = asyncio.run(Runner(pilot, candidate, "openai/stub", clean, options).run())
        assert server.calls == sum(stored.values()) == 9 * 28
    assert manifest.counts["completed"] == ALL

    # Canonical order and identical content, latencies aside.
    from sitbench.stores import load_dataset

    assert ids == [f"{c}:{p}" for c, p in trial_ids(load_dataset(pilot), list("ABCDEFGHI"), None)]
    assert _comparable(responses) == _comparable(clean / "responses.jsonl")
    score_run(killed)
    score_run(clean)
    assert (killed / "scores.jsonl").read_bytes() == (clean / "scores.jsonl").read_bytes()
    counts = json.loads((killed / "manifest.json").read_text())["counts"]
    assert (counts["attempted"], counts["completed"], counts["calls"]) == (ALL, ALL, 9 * 28)


def test_a_second_writer_is_refused(pilot: Path, tmp_path: Path) -> None:
    out = tmp_path / "locked"
    out.mkdir()
    fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        runner = Runner(pilot, get_candidate("mock/oracle"), "mock/oracle", out, RunOptions(configs=["B"]))
        with pytest.raises(InputError, match="another sitbench process is writing this run"):
            asyncio.run(runner.run())
    finally:
        os.close(fd)
    assert asyncio.run(runner.run()).counts["completed"] == 22
