"""Group-committed appends to responses.jsonl: many trials per write and fsync, off the event loop."""

from __future__ import annotations

import asyncio
import os
from collections import deque
from pathlib import Path
from types import TracebackType

from sitbench.errors import OutputError
from sitbench.runs._records import TrialRecord
from sitbench.runs._store import RESUME_HINT
from sitbench.stores import output_error


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


class GroupCommitWriter:
    """Appends trial records to a run's responses.jsonl, committing them in groups.

    Each record becomes one whole JSON line, exactly as :meth:`RunStore.append_trial` writes it
    (the file format does not change). Lines are written in the order :meth:`append` was called.
    A background flush takes every line queued so far (at most ``max_batch_lines``), writes them
    with one ``write`` and one ``fsync`` in a worker thread, so the event loop never blocks on the
    disk, and starts the next group as soon as the previous one is on disk: a group is whatever
    arrived during the previous fsync, so the disk is synced at most once per fsync time and no
    trial waits for a timer.

    **Done.** A trial is *done* when its line has been written and fsynced: :meth:`append` returns
    only then, and the runner reports a trial (progress, ``on_trial``) only after :meth:`append`
    returned. Resume counts as done exactly the trials whose whole line is in the file. After a
    kill -9 (or a power cut) the file holds every done trial, possibly some trials of the group
    being written (whole lines: they count as done on resume, they were complete records) and at
    most one torn last line (cut off by resume, so that trial runs again); trials completed but
    not yet written are simply absent and resume runs them. Nothing done is lost and nothing is
    stored twice. :meth:`close` (leaving the ``async with`` block, also on an error) writes and
    syncs every queued line before the file is closed, so the runner's final read and the
    manifest see every trial.

    A failed write (a full disk) fails the :meth:`append` calls of its group and of every later
    one with the same exception, an :class:`~sitbench.errors.OutputError` naming the file and the
    cause (an OSError becomes one); none of them is done, and every trial done before stays in the
    file for ``--resume``.
    """

    def __init__(self, path: Path, *, max_batch_lines: int = 256, max_queued_lines: int = 4096) -> None:
        """Open ``path`` for appending (created if missing) when entering the ``async with`` block.

        Args:
            path: The responses file.
            max_batch_lines: The most lines one write and fsync commits.
            max_queued_lines: :meth:`append` waits while this many lines wait for the disk, so a
                slow disk bounds the memory the queue holds.
        """
        self.path = Path(path)
        self.max_batch_lines = max(1, max_batch_lines)
        self.max_queued_lines = max(1, max_queued_lines)
        self.groups = 0
        """Write-and-fsync groups committed so far."""
        self.lines = 0
        """Lines committed so far."""
        self._fd: int | None = None
        self._queue: deque[tuple[bytes | memoryview, asyncio.Future[None]]] = deque()
        self._wake = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._closing = False
        self._failed: Exception | None = None
        self._flusher: asyncio.Task[None] | None = None

    async def __aenter__(self) -> GroupCommitWriter:
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise self._error(exc) from None
        self._flusher = asyncio.create_task(self._flush_loop())
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    async def append(self, record: TrialRecord) -> None:
        """Queue ``record``'s line and return once it is written and fsynced (the trial is done).

        Raises:
            OutputError: the group holding this line (or an earlier one) could not be written
                (or whatever else the write raised).
            RuntimeError: the writer is not open.
        """
        # The bytes model_dump_json() would give, encoded, made once (no str in between).
        await self.append_line(record.__pydantic_serializer__.to_json(record) + b"\n")

    async def append_line(self, line: bytes | memoryview) -> None:
        """:meth:`append` for a record already serialised: one whole JSON line, ending in a newline."""
        await self.room()
        await self.enqueue(line)

    async def room(self) -> None:
        """Wait while ``max_queued_lines`` lines wait for the disk (returns at once after a failure)."""
        while len(self._queue) >= self.max_queued_lines and self._failed is None:
            self._room.clear()
            await self._room.wait()

    def enqueue(self, line: bytes | memoryview) -> asyncio.Future[None]:
        """Queue ``line`` now, after every line queued before it; the future is done once it is
        written and fsynced (the trial is done), or carries the write's error.

        Raises:
            OutputError: an earlier group could not be written.
            RuntimeError: the writer is not open.
        """
        if self._failed is not None:
            raise self._failed
        if self._fd is None or self._closing:
            raise RuntimeError(f"{self.path}: the writer is not open")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((line, done))
        self._wake.set()
        return done

    def _error(self, exc: OSError) -> OutputError:
        """The one line for a write of the file that failed: its path, the cause, and --resume."""
        return output_error(self.path, exc, RESUME_HINT)

    async def close(self) -> None:
        """Commit every queued line, stop the flush task and close the file (idempotent)."""
        if self._fd is None:
            return
        self._closing = True
        self._wake.set()
        if self._flusher is not None:
            await asyncio.shield(self._flusher)
        os.close(self._fd)
        self._fd = None

    async def _flush_loop(self) -> None:
        try:
            await self._flush_groups()
        finally:
            # Only reached early if this task itself is cancelled: no append may wait forever.
            while self._queue:
                _, done = self._queue.popleft()
                if not done.done():
                    done.set_exception(self._failed or RuntimeError(f"{self.path}: the writer stopped"))
            self._room.set()

    async def _flush_groups(self) -> None:
        assert self._fd is not None
        while True:
            if not self._queue:
                if self._closing:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            batch = [self._queue.popleft() for _ in range(min(self.max_batch_lines, len(self._queue)))]
            if self._failed is None:
                try:
                    await asyncio.to_thread(_write_all, self._fd, b"".join(line for line, _ in batch))
                except Exception as exc:  # noqa: BLE001 - handed to every waiting append
                    self._failed = self._error(exc) if isinstance(exc, OSError) else exc
                else:
                    self.groups += 1
                    self.lines += len(batch)
            for _, done in batch:
                if done.done():
                    continue  # its append was cancelled; the line is written all the same
                if self._failed is None:
                    done.set_result(None)
                else:
                    done.set_exception(self._failed)
            if len(self._queue) < self.max_queued_lines:
                self._room.set()
