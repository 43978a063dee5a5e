"""`sitbench run --workers N`: trials split over forked processes store the same responses as one
process; a worker's error stops the run as it would in one process, and a worker that dies stops it
with what was done kept, so `--resume` finishes it."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from sitbench.candidates import CandidateRequest, CandidateResponse
from sitbench.candidates.mock import OracleCandidate
from sitbench.cli import main
from sitbench.errors import OutputError
from sitbench.lineage import IsolationAudit, IsolationError
from sitbench.runs import PARALLEL_MIN_TRIALS, Runner, RunOptions, run_workers

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="run workers are forked")

ALL = 9 * 22


def _comparable(path: Path) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        record.pop("evidence_ms")
        for turn in record["turns"]:
            turn["response"].pop("latency_s")
    return records


@pytest.fixture(scope="module")
def one_process(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("one") / "run"
    assert main(["run", str(pilot), "--config", "all", "--model", "mock/oracle", "--out", str(run),
                 "--workers", "1"]) == 0
    return run


def test_workers_store_the_same_responses(pilot: Path, one_process: Path, tmp_path: Path) -> None:
    run = tmp_path / "three"
    assert main(["run", str(pilot), "--config", "all", "--model", "mock/oracle", "--out", str(run),
                 "--workers", "3", "--max-connections", "2"]) == 0
    assert len(_comparable(run / "responses.jsonl")) == ALL
    assert _comparable(run / "responses.jsonl") == _comparable(one_process / "responses.jsonl")
    # The workers' own counts, added up, are what one process counts.
    manifest = json.loads((run / "manifest.json").read_text())
    single = json.loads((one_process / "manifest.json").read_text())
    for key in ("counts", "models_sent", "returned_models", "system_fingerprints"):
        assert manifest[key] == single[key], key
    assert manifest["counts"]["attempted"] == ALL and manifest["models_sent"] == ["mock/oracle"]
    assert main(["score", str(run)]) == 0
    assert main(["score", str(one_process)]) == 0
    assert (run / "scores.jsonl").read_bytes() == (one_process / "scores.jsonl").read_bytes()


class _Uneven(OracleCandidate):
    """The oracle, slow on some probes: trials finish out of order, and one worker falls behind."""

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        if request.trial_id.split(":")[1].endswith(("1", "4", "7")):
            await asyncio.sleep(0.01)
        return await super().complete(request)


@pytest.mark.parametrize("window", [1, 2, 64])
def test_lines_are_written_in_trial_order_however_the_trials_finish(
        pilot: Path, one_process: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int) -> None:
    from sitbench.runs import _workers

    monkeypatch.setattr(_workers, "_EMIT_WINDOW", window)  # finished trials a worker holds back, at most
    run = tmp_path / "run"
    options = RunOptions(configs=list("ABCDEFGHI"), workers=2, max_connections=3)
    manifest = asyncio.run(Runner(pilot, _Uneven(), "mock/oracle", run, options).run())
    assert manifest.counts == json.loads((one_process / "manifest.json").read_text())["counts"]
    # Written in trial order as it came (a fresh forked run is not rewritten), with the same content.
    assert _comparable(run / "responses.jsonl") == _comparable(one_process / "responses.jsonl")


def test_a_worker_error_stops_the_run(pilot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    real = IsolationAudit.check

    def leaky(self: IsolationAudit, trial_id: str, subject: str, messages: Any) -> None:
        if trial_id == "E:PR-05":
            raise IsolationError(f"isolation audit: trial {trial_id} message 0 contains a partner record")
        real(self, trial_id, subject, messages)

    monkeypatch.setattr(IsolationAudit, "check", leaky)  # the forked workers inherit the patch
    run = tmp_path / "run"
    code = main(["run", str(pilot), "--config", "all", "--model", "mock/oracle", "--out", str(run),
                 "--workers", "2"])
    assert code == 3
    assert "trial E:PR-05" in capsys.readouterr().err
    stored = [json.loads(line)["trial_id"] for line in (run / "responses.jsonl").read_text().splitlines()]
    assert "E:PR-05" not in stored
    assert len(stored) == len(set(stored)) < ALL


def test_a_failed_write_stops_a_forked_run_with_its_error(pilot: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from sitbench.runs import _group_commit

    real, writes = _group_commit._write_all, []

    def full_disk(fd: int, data: bytes) -> None:
        writes.append(len(data))
        if len(writes) > 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    monkeypatch.setattr(_group_commit, "_write_all", full_disk)  # this process writes the workers' lines
    run = tmp_path / "run"
    options = RunOptions(configs=list("ABCDEFGHI"), workers=2, max_connections=2)
    with pytest.raises(OutputError, match=r"responses.jsonl: cannot be written: No space left on device \(ENOSPC\)"):
        asyncio.run(Runner(pilot, OracleCandidate(), "mock/oracle", run, options).run())
    stored = [json.loads(line)["trial_id"] for line in (run / "responses.jsonl").read_text().splitlines()]
    assert 0 < len(stored) == len(set(stored)) < ALL


class _DiesInWorker(OracleCandidate):
    """The oracle, except that a forked worker asked this probe under D kills itself (as the OOM killer
    would); every worker writes its pid to ``pids``."""

    def __init__(self, parent: int, pids: Path) -> None:
        self.parent = parent
        self.pids = pids

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        if os.getpid() != self.parent:
            with self.pids.open("a") as out:
                out.write(f"{os.getpid()}\n")
            if request.trial_id.startswith("D:PR-03#"):
                os.kill(os.getpid(), signal.SIGKILL)
        return await super().complete(request)


def test_a_dead_worker_stops_the_run_and_resume_finishes_it(pilot: Path, one_process: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    pids = tmp_path / "pids.txt"
    candidate = _DiesInWorker(os.getpid(), pids)
    options = RunOptions(configs=list("ABCDEFGHI"), workers=2, max_connections=2)
    with pytest.raises(RuntimeError, match="stopped before finishing its trials"):
        asyncio.run(Runner(pilot, candidate, "mock/oracle", run, options).run())
    text = (run / "responses.jsonl").read_text()
    assert text.endswith("\n")  # only whole lines: every one a done trial
    stored = [json.loads(line)["trial_id"] for line in text.splitlines()]
    assert "D:PR-03" not in stored
    assert 0 < len(stored) == len(set(stored)) < ALL
    workers = {int(pid) for pid in pids.read_text().split()}
    assert len(workers) == 2
    assert not any(_unreaped(pid) for pid in workers)  # both workers were reaped, the dead one too

    resumed = RunOptions(configs=list("ABCDEFGHI"), workers=1)
    manifest = asyncio.run(Runner(pilot, candidate, "mock/oracle", run, resumed).run(resume=True))
    assert manifest.counts["completed"] == ALL
    assert _comparable(run / "responses.jsonl") == _comparable(one_process / "responses.jsonl")


class _LooksForTheLock(OracleCandidate):
    """The oracle, recording in each forked worker whether the worker holds a descriptor of the run's lock."""

    def __init__(self, parent: int, seen: Path, lock: Path) -> None:
        self.parent = parent
        self.seen = seen
        self.lock = lock.resolve()

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        if os.getpid() != self.parent:
            held = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
                    if os.path.exists(f"/proc/self/fd/{fd}")]
            with self.seen.open("a") as out:
                out.write(f"{int(str(self.lock) in held)}\n")
        return await super().complete(request)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/self/fd")
def test_workers_do_not_hold_the_run_lock(pilot: Path, tmp_path: Path) -> None:
    # After a kill -9 of the run, a worker still exiting must not refuse the --resume that follows.
    seen = tmp_path / "seen.txt"
    options = RunOptions(configs=["B", "C"], workers=2)
    candidate = _LooksForTheLock(os.getpid(), seen, tmp_path / "run" / ".lock")
    asyncio.run(Runner(pilot, candidate, "mock/oracle", tmp_path / "run", options).run())
    answers = seen.read_text().split()
    assert len(answers) >= 22  # every trial was answered in a worker
    assert set(answers) == {"0"}


def _unreaped(pid: int) -> bool:
    """Whether ``pid`` is a child of this process that nobody has reaped (running, or a zombie)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False  # not (or no longer) a child: it was reaped
    return True


def test_how_many_workers() -> None:
    assert run_workers(None, PARALLEL_MIN_TRIALS, cpu_bound=False) == 1  # a model behind an API
    assert run_workers(None, PARALLEL_MIN_TRIALS - 1, cpu_bound=True) == 1
    assert run_workers(None, PARALLEL_MIN_TRIALS, cpu_bound=True) == max(1, min(8, multiprocessing.cpu_count()))
    assert run_workers(2, 5, cpu_bound=False) == 2


def test_workers_do_not_apply_to_an_agent_run(pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", str(pilot), "--agent", "examples/keyword_agent.py:make", "--out", str(tmp_path / "a"),
                 "--workers", "2"])
    assert code == 2
    assert "--workers" in capsys.readouterr().err
