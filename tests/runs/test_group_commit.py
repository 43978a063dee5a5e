"""The group-commit writer of responses.jsonl: order, nothing lost on close, fsync before a trial is done.

A trial is done when ``GroupCommitWriter.append`` returns: its line is then written and fsynced,
so a resume reading the file sees it. These tests fake ``os.fsync`` to observe what was on disk
when each sync happened.
"""

from __future__ import annotations

import asyncio
import errno
import os
from pathlib import Path

import pytest

from sitbench.errors import OutputError
from sitbench.runs import RunStore, TrialRecord, _group_commit
from sitbench.runs._group_commit import GroupCommitWriter


def _trial(n: int) -> TrialRecord:
    return TrialRecord(trial_id=f"B:P{n}", config="B", probe_id=f"P{n}", model="m", status="completed")  # type: ignore[arg-type]


def _line(record: TrialRecord) -> bytes:
    return (record.model_dump_json() + "\n").encode("utf-8")


class _SyncLog:
    """Stands in for os.fsync: records the size of the file at every sync."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sizes: list[int] = []
        self._fsync = os.fsync

    def __call__(self, fd: int) -> None:
        self._fsync(fd)
        self.sizes.append(self.path.stat().st_size)


@pytest.fixture
def synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> _SyncLog:
    log = _SyncLog(tmp_path / "responses.jsonl")
    monkeypatch.setattr(_group_commit.os, "fsync", log)
    return log


def test_concurrent_appends_land_in_call_order_as_the_store_writes_them(tmp_path: Path, synced: _SyncLog) -> None:
    records = [_trial(n) for n in range(300)]
    path = tmp_path / "responses.jsonl"

    async def main() -> GroupCommitWriter:
        async with GroupCommitWriter(path, max_batch_lines=64) as writer:
            await asyncio.gather(*(writer.append(r) for r in records))
        return writer

    writer = asyncio.run(main())
    syncs = len(synced.sizes)
    reference = tmp_path / "reference"
    reference.mkdir()
    for record in records:
        RunStore(reference).append_trial(record)
    assert path.read_bytes() == (reference / "responses.jsonl").read_bytes() == b"".join(map(_line, records))
    assert writer.lines == 300
    assert writer.groups == syncs
    assert 300 // 64 <= writer.groups < 300  # grouped, and no group over the cap


def test_append_returns_only_once_its_line_is_synced_and_a_resume_sees_it(tmp_path: Path, synced: _SyncLog) -> None:
    path = tmp_path / "responses.jsonl"
    seen: list[tuple[int, list[str]]] = []

    async def main() -> None:
        async with GroupCommitWriter(path) as writer:
            for n in range(5):
                await writer.append(_trial(n))
                # What a resume would read now, and how much of the file had been synced.
                seen.append((synced.sizes[-1], [t.trial_id for t in RunStore(tmp_path).trials()]))

    asyncio.run(main())
    total = 0
    for n, (synced_size, ids) in enumerate(seen):
        total += len(_line(_trial(n)))
        assert synced_size == total
        assert ids == [f"B:P{k}" for k in range(n + 1)]


def test_close_commits_every_queued_line(tmp_path: Path, synced: _SyncLog) -> None:
    path = tmp_path / "responses.jsonl"
    records = [_trial(n) for n in range(50)]

    async def main() -> None:
        writer = GroupCommitWriter(path, max_batch_lines=7)
        await writer.__aenter__()
        tasks = [asyncio.create_task(writer.append(r)) for r in records]
        await asyncio.sleep(0)  # every append queued, none awaited yet
        await writer.close()
        assert all(t.done() and t.exception() is None for t in tasks)

    asyncio.run(main())
    assert path.read_bytes() == b"".join(map(_line, records))
    assert synced.sizes[-1] == path.stat().st_size


def test_appends_wait_for_room_when_the_disk_is_slow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "responses.jsonl"
    most = 0
    real = _group_commit._write_all

    def slow(fd: int, data: bytes) -> None:
        nonlocal most
        most = max(most, data.count(b"\n"))
        real(fd, data)

    monkeypatch.setattr(_group_commit, "_write_all", slow)

    async def main() -> None:
        async with GroupCommitWriter(path, max_batch_lines=100, max_queued_lines=5) as writer:
            await asyncio.gather(*(writer.append(_trial(n)) for n in range(40)))

    asyncio.run(main())
    assert most <= 5
    assert path.read_bytes() == b"".join(_line(_trial(n)) for n in range(40))


def test_a_failed_write_fails_its_trials_and_every_later_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each waiting append gets one OutputError naming the file, the cause and --resume (not a bare OSError)."""
    path = tmp_path / "responses.jsonl"

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_group_commit, "_write_all", full)

    async def main() -> list[BaseException | None]:
        async with GroupCommitWriter(path) as writer:
            results = await asyncio.gather(*(writer.append(_trial(n)) for n in range(3)), return_exceptions=True)
            with pytest.raises(OutputError, match="No space"):
                await writer.append(_trial(9))
        return list(results)

    results = asyncio.run(main())
    assert all(isinstance(r, OutputError) for r in results)
    assert all(str(r).startswith(f"{path}: cannot be written: No space left on device (ENOSPC); free space, then ")
               and "--resume" in str(r) for r in results)
    assert path.read_bytes() == b""
