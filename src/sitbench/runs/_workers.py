"""Where a run's trials are executed: in this process, or split over forked worker processes.

Either way each trial goes through the same ``run_one`` coroutine, at most ``connections`` at a time
per process, and its line reaches responses.jsonl through one :class:`GroupCommitWriter` in this
process: a trial is reported done only once its line is written and fsynced, and the file ends in
the trials' order (written so by forked workers, put so at the end otherwise), so it does not depend
on how the trials were split.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gc
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sitbench.runs._group_commit import GroupCommitWriter
from sitbench.runs._records import TrialRecord
from sitbench.runs._summary import TrialSummary

PARALLEL_MIN_TRIALS = 2_000
"""Below this many trials a run or a scoring stays in one process unless asked: forking the workers
would cost more than they save."""

RunOne = Callable[[str, str], Awaitable[TrialRecord]]
"""Runs one trial, ``(configuration, probe id) -> record``."""


@dataclass(frozen=True)
class TrialDone:
    """What a run's progress hook hears of a trial once it is done (its line written and fsynced)."""

    trial_id: str
    """``CONFIG:PROBE_ID``."""
    status: str
    """``completed`` or ``dropped``."""


OnDone = Callable[[TrialDone], None]


def run_workers(requested: int | None, trials: int, cpu_bound: bool) -> int:
    """How many processes work through ``trials`` trials (a run's, or a scoring's).

    Args:
        requested: ``--workers``; None chooses: one per CPU (at most 8) for at least
            :data:`PARALLEL_MIN_TRIALS` trials whose work is CPU work in this process (a mock
            candidate's answers, the rule extractor's readings), else 1. A model behind an API waits
            rather than computes, and one process keeps ``--max-connections`` calls in flight; a
            local model already uses every core.
        trials: The trials to work through.
        cpu_bound: Whether their work is CPU work in this process.

    Returns:
        At least 1 and never more than ``trials`` (a worker without a trial is not forked); 1 where
        processes cannot be forked (the workers inherit the loaded dataset).

    Raises:
        InputError: ``requested`` is below 1, or above :func:`sitbench._options.max_workers` (4 × the
            CPU count, never above 64).
    """
    from sitbench._options import check_workers

    if requested is not None:
        check_workers(requested)
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if requested is not None:
        return max(1, min(requested, trials))
    if not cpu_bound or trials < PARALLEL_MIN_TRIALS:
        return 1
    return max(1, min(os.cpu_count() or 1, 8))


async def run_here(trials: list[tuple[str, str]], run_one: RunOne, connections: int, writer: GroupCommitWriter,
                   on_done: OnDone | None, summary: TrialSummary | None = None) -> None:
    """Run ``trials`` in this process: ``connections`` workers take them in order from one iterator,
    so at most that many are in flight or waiting for the disk, however many the run holds (a
    finished trial is held until its line is written, so the writer's pace bounds memory). Each
    done trial is added to ``summary``."""
    pending = iter(trials)

    async def worker() -> None:
        for config, probe_id in pending:
            record = await run_one(config, probe_id)
            await writer.append(record)  # returns once the line is written and fsynced
            if summary is not None:
                summary.add(record)
            if on_done:
                on_done(TrialDone(record.trial_id, record.status))

    await asyncio.gather(*(worker() for _ in range(min(max(1, connections), max(1, len(trials))))))


async def run_forked(trials: list[tuple[str, str]], run_one: RunOne, connections: int, processes: int,
                     responses: Path, on_done: OnDone | None, close_in_workers: Sequence[int] = (),
                     summary: TrialSummary | None = None) -> None:
    """Run ``trials`` in ``processes`` forked workers; this process writes every line.

    Worker ``k`` takes every ``processes``-th trial from the ``k``-th and runs them as
    :func:`run_here` would, sending each finished record back as its JSON line. Everything this
    process has loaded (the dataset, the audit, prepared query vectors) is inherited, not rebuilt.
    Each worker sends its lines in the order of its share (holding at most :data:`_EMIT_WINDOW`
    finished trials for an earlier one), and this process interleaves the workers' streams, so the
    file comes out in the order of ``trials``. Each worker counts its own trials, and the counts are
    added to ``summary`` as each worker ends.

    A worker that fails stops the run with its exception, after the lines already received are
    written (the other workers are stopped; their unfinished trials are simply absent, and
    ``--resume`` runs them). A worker that dies without saying why stops the run with its exit
    status. If this process dies, its workers find their pipe closed and exit. ``close_in_workers``
    are descriptors the workers close at once (the run's lock: a worker still exiting after this
    process was killed must not hold it against a ``--resume``).

    Raises:
        Whatever a worker's trial raised (an isolation error, a candidate error that is not a drop).
        RuntimeError: a worker exited before finishing its trials.
    """
    workers = _fork(trials, run_one, connections, processes, close_in_workers)
    pipes = [_PipeReader(worker.fd, asyncio.get_running_loop()) for worker in workers]
    try:
        async with GroupCommitWriter(responses) as writer:
            try:
                await _merge(trials, workers, pipes, writer, on_done, summary)
            except BaseException:
                # The workers stop too. Lines already handed to the writer are written before it
                # closes; the rest are not done, and --resume runs them.
                for worker in workers:
                    worker.kill()
                raise
    finally:
        for pipe in pipes:
            pipe.close()
        for worker in workers:
            worker.stop()


async def _merge(trials: list[tuple[str, str]], workers: list[_Worker], pipes: list[_PipeReader],
                 writer: GroupCommitWriter, on_done: OnDone | None, summary: TrialSummary | None) -> None:
    """Write the workers' lines in the order of ``trials``: trial ``i`` is the next line of worker
    ``i % len(workers)``, whose lines come in the order of its share. Waiting for that worker never
    stalls the run: the others block on their full pipes until their turn."""
    room = asyncio.Semaphore(_LINES_IN_FLIGHT)
    appends: set[asyncio.Task[None]] = set()
    failed: list[asyncio.Task[None]] = []  # appends that raised, seen before the next line is handed on

    def finished(task: asyncio.Task[None]) -> None:
        appends.discard(task)
        if not task.cancelled() and task.exception() is not None:
            failed.append(task)

    async def append(body: memoryview, status: str) -> None:
        try:
            await writer.append_line(body)  # returns once the line is written and fsynced
        finally:
            room.release()
        if on_done:
            on_done(TrialDone(_trial_id(body), status))

    try:
        for index in range(len(trials)):
            k = index % len(workers)
            line = await _frame(workers[k], pipes[k])
            first = line.find(b"\t")
            if line[:first] == b"$":
                raise RuntimeError(f"run worker {workers[k].pid} ended before sending every trial of its share")
            # The line is passed on as a view (no copy of a long record): it ends at the frame's end.
            await room.acquire()
            if failed:
                failed[0].result()  # a failed write stops the run here
            task = asyncio.create_task(append(memoryview(line)[first + 1:], line[:first].decode()))
            appends.add(task)
            task.add_done_callback(finished)
        for worker, pipe in zip(workers, pipes, strict=True):
            line = await _frame(worker, pipe)
            first = line.find(b"\t")
            if line[:first] != b"$":
                raise RuntimeError(f"run worker {worker.pid} sent more trials than its share")
            code = await asyncio.to_thread(worker.wait)
            if code != 0:
                raise RuntimeError(f"run worker {worker.pid} exited with code {code} after its last trial")
            if summary is not None:
                summary.merge(TrialSummary.from_json(line[first + 1:]))
        await asyncio.gather(*appends)
        if failed:
            failed[0].result()
    finally:
        for task in failed[1:]:
            task.exception()  # retrieved: the first failure is the one raised
        for task in appends:
            task.cancel()


async def _frame(worker: _Worker, pipe: _PipeReader) -> bytes:
    """The worker's next frame: a trial's ``STATUS\tJSON`` line or its ``$`` line; its error raised."""
    line = await pipe.next_line()
    if not line.endswith(b"\n"):
        code = await asyncio.to_thread(worker.wait)
        raise RuntimeError(f"run worker {worker.pid} stopped before finishing its trials (exit code "
                           f"{code}); the trials it finished are kept: continue with --resume")
    if line.startswith(b"!\t"):
        await asyncio.to_thread(worker.wait)
        raise pickle.loads(base64.b64decode(line[2:]))
    return line


@dataclass
class _Worker:
    pid: int
    fd: int
    """Read end of the worker's pipe; :func:`_collect`'s reader thread reads and closes it."""
    _code: int | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def kill(self) -> None:
        """Kill the worker if it still runs."""
        if self._code is None:
            # A pid is not reused before its child is reaped (only a reap racing this line could miss it).
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def stop(self) -> None:
        """Kill the worker if it still runs, and reap it (no zombie outlives the run)."""
        self.kill()
        self.wait()

    def wait(self) -> int:
        """Reap the worker (once, whoever asks first); its exit code (negative: the signal that killed it)."""
        with self._lock:
            if self._code is None:
                _, status = os.waitpid(self.pid, 0)
                self._code = os.waitstatus_to_exitcode(status)
            return self._code


def _fork(trials: list[tuple[str, str]], run_one: RunOne, connections: int, processes: int,
          close_in_workers: Sequence[int]) -> list[_Worker]:
    # Buffered output would otherwise be written once more by every worker that flushed it.
    sys.stdout.flush()
    sys.stderr.flush()
    # Frozen objects are left out of the workers' collections, so collecting never writes to (and so
    # copies) the pages they share with this process.
    gc.freeze()
    workers: list[_Worker] = []
    for k in range(processes):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # ends quietly; the parent reports it
            os.close(read_fd)
            for fd in [*close_in_workers, *(earlier.fd for earlier in workers)]:
                with contextlib.suppress(OSError):
                    os.close(fd)
            code = 1
            try:
                code = _worker_main(trials[k::processes], run_one, connections, write_fd)
            finally:
                os._exit(code)  # never return into the parent's stack, flush its buffers or run its atexit
        os.close(write_fd)
        workers.append(_Worker(pid, read_fd))
    return workers


def _worker_main(trials: list[tuple[str, str]], run_one: RunOne, connections: int, fd: int) -> int:
    """Run this worker's trials; returns its exit code. Frames on ``fd``, one line each:
    ``STATUS\tJSON`` per finished trial (JSON lines hold no tab and no newline), then
    ``$\tSUMMARY`` at the end, or ``!\tBASE64(pickle(exception))`` if a trial failed."""
    failure: list[BaseException] = []
    summary = TrialSummary()

    async def main() -> None:
        # Lines go out in the order of this worker's trials, so the parent can interleave the workers'
        # streams into the run's order. A trial starts only while fewer than _EMIT_WINDOW trials lie
        # between it and the oldest unfinished one: a finished trial waits here for at most that many,
        # and the oldest one is always running, so the worker never stalls.
        finished: dict[int, TrialRecord] = {}
        state = {"next_start": 0, "next_send": 0}
        moved = asyncio.Condition()

        async def worker() -> None:
            while True:
                async with moved:
                    await moved.wait_for(lambda: state["next_start"] < state["next_send"] + _EMIT_WINDOW)
                    position = state["next_start"]
                    if position >= len(trials):
                        return
                    state["next_start"] += 1
                config, probe_id = trials[position]
                record = await run_one(config, probe_id)
                summary.add(record)
                async with moved:
                    finished[position] = record
                    while state["next_send"] in finished:
                        done = finished.pop(state["next_send"])
                        state["next_send"] += 1
                        _send(fd, b"%s\t%s\n" % (done.status.encode(), _json_bytes(done)))
                    moved.notify_all()

        await asyncio.gather(*(worker() for _ in range(min(max(1, connections), max(1, len(trials))))))

    def thread() -> None:
        # The parent's event loop was running when it forked, and this thread's copy still says so:
        # the worker's own loop runs in a new thread, which has none.
        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises it
            failure.append(exc)

    runner = threading.Thread(target=thread, name="sitbench-run-worker")
    runner.start()
    runner.join()
    try:
        if failure:
            _send(fd, b"!\t" + base64.b64encode(_pickled(failure[0])) + b"\n")
            return 1
        _send(fd, b"$\t" + summary.to_json() + b"\n")
    except OSError:
        return 1  # the parent is gone
    return 0


def _pickled(exc: BaseException) -> bytes:
    try:
        data = pickle.dumps(exc)
        pickle.loads(data)
        return data
    except Exception:  # noqa: BLE001 - an exception that does not survive pickling is sent as its text
        return pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))


def _send(fd: int, frame: bytes) -> None:
    view = memoryview(frame)
    while view:
        view = view[os.write(fd, view):]


class _PipeReader:
    """The lines of one worker's pipe, read by a thread with blocking, buffered reads (any line
    length, nothing copied twice) and handed to the event loop.

    The thread waits while :data:`_QUEUED_FRAMES` lines wait here: the worker then blocks on a full
    pipe, so what is held stays bounded however fast the workers are.
    """

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self._lines: asyncio.Queue[bytes] = asyncio.Queue()
        self._slots = threading.Semaphore(_QUEUED_FRAMES)
        self._closed = threading.Event()
        self._loop = loop
        self._thread = threading.Thread(target=self._read, args=(fd,), name="sitbench-run-pipe", daemon=True)
        self._thread.start()

    async def next_line(self) -> bytes:
        """The next line; ``b""`` once the pipe is closed (a partial last line is returned as it is)."""
        line = await self._lines.get()
        self._slots.release()
        return line

    def close(self) -> None:
        """Stop handing lines over; the thread ends when its read returns (the worker is stopped)."""
        self._closed.set()
        self._slots.release()

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=1 << 20) as pipe:
            while True:
                line = pipe.readline()
                self._slots.acquire()
                if self._closed.is_set():
                    return
                try:
                    self._loop.call_soon_threadsafe(self._lines.put_nowait, line)
                except RuntimeError:
                    return  # the event loop is gone
                if not line or line == b"$\n" or line.startswith(b"!\t"):
                    return


def _trial_id(line: memoryview) -> str:
    # model_dump_json writes trial_id first (see RunStore); the id is a plain CONFIG:PROBE_ID string.
    head = bytes(line[:512])
    start = head.index(b'"trial_id":"') + len(b'"trial_id":"')
    return head[start:head.index(b'"', start)].decode("utf-8")


def _json_bytes(record: TrialRecord) -> bytes:
    """``record.model_dump_json()``, encoded: the same bytes, made once (no str in between)."""
    return record.__pydantic_serializer__.to_json(record)


_QUEUED_FRAMES = 64  # lines read from one worker's pipe and not yet handed on
_LINES_IN_FLIGHT = 512  # lines handed to the writer and not yet fsynced
_EMIT_WINDOW = 64  # a worker's finished trials waiting for an earlier one of its share, at most
