"""Outputs that cannot be written: a read-only folder, a full disk, a full standard output.

Every command that writes gives exit code 2 and one ``error:`` line naming the file (or ``standard
output``) and the cause, with no traceback; files are written through a temporary file and a rename,
so a failed write leaves the previous file whole and no temporary file behind; a run whose append
fails keeps every trial done and finishes with ``--resume``.

The faults are injected, not staged with ``chmod`` or a small mount (root ignores the one and may
not be allowed the other): ``os.open`` refuses to create or write under a folder as a read-only
file system would (EROFS), and ``os.write``/``os.fsync`` of a file under a folder fail as on a full
disk (ENOSPC). A full standard output is ``/dev/full``, and a disk that fills in the middle of a
write is a file-size limit (EFBIG), each in a real process.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ._harness import Invocation, Outcome, Templates, Workspace, execute, problems


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(tmp_path_factory.mktemp("output-error-templates")).build()


@pytest.fixture
def ws(templates: Templates, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("SITBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return Workspace(tmp_path / "ws", templates)


# ---------------------------------------------------------------- faults


def _under(path: str | bytes | os.PathLike[str] | int, folder: Path) -> bool:
    if isinstance(path, int):
        return False
    real, root = os.path.realpath(os.fsdecode(os.fspath(path))), os.path.realpath(folder)
    return real == root or real.startswith(root + os.sep)


def _fd_path(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def read_only(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make ``folder`` behave as a read-only file system: creating or opening a file there for writing,
    and making a folder there, fail with EROFS (reading still works)."""
    real_open, real_mkdir = os.open, os.mkdir

    def guarded_open(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if flags & _WRITE_FLAGS and _under(path, folder):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    def guarded_mkdir(path: str, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
        if _under(path, folder) and not os.path.exists(path):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))
        real_mkdir(path, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", guarded_open)
    monkeypatch.setattr(os, "mkdir", guarded_mkdir)


def disk_full(monkeypatch: pytest.MonkeyPatch, folder: Path, name: str = "", after: int = 0) -> None:
    """Make writes to files under ``folder`` (whose name contains ``name``) fail with ENOSPC, as on a
    full disk, once ``after`` such writes have gone through: ``os.write`` and ``os.fsync`` (a buffered
    file's data reach the disk, and its lost writes are reported, by the fsync)."""
    real_write, real_fsync = os.write, os.fsync
    seen = [0]

    def hits(fd: int) -> bool:
        path = _fd_path(fd)
        if not (path and _under(path, folder) and name in os.path.basename(path)):
            return False
        seen[0] += 1
        return seen[0] > after

    def full_write(fd: int, data: bytes) -> int:
        if hits(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def full_fsync(fd: int) -> None:
        if hits(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "write", full_write)
    monkeypatch.setattr(os, "fsync", full_fsync)


def _one_line(outcome: Outcome, *names: str) -> str:
    found = problems(outcome, Invocation([], names))
    assert not found, "\n".join(found)
    return outcome.err.strip()


def _no_temporary_files(folder: Path) -> None:
    left = [p for p in folder.rglob("*") if p.name.endswith(".tmp")]
    assert not left, f"temporary files left behind: {left}"


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _run(ws: Workspace, out: Path, *extra: str) -> Invocation:
    return Invocation(["run", str(ws.dataset()), "--config", "B", "--model", "mock/oracle", "--workers", "1",
                       "--out", str(out), *extra])


def _call(invocation: Invocation) -> Outcome:
    return execute(invocation)


# ---------------------------------------------------------------- run, run --resume


def test_run_into_a_read_only_folder(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    out = ws.directory("ro")
    read_only(monkeypatch, out)
    line = _one_line(_call(_run(ws, out / "run")), str(out / "run"), "Read-only file system (EROFS)")
    assert "choose another --out" in line


def test_run_on_a_full_disk(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    out = ws.directory("full")
    disk_full(monkeypatch, out)
    _one_line(_call(_run(ws, out / "run")), str(out / "run" / "manifest.json"), "No space left on device (ENOSPC)",
              "free space")
    _no_temporary_files(out)


def test_a_failed_append_keeps_the_done_trials_and_resume_finishes_the_run(
        ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    out = ws.directory("appends")
    whole = ws.root / "whole"
    assert _call(_run(ws, whole)).code == 0
    with monkeypatch.context() as patch:
        # The disk fills after the first group of lines is on disk.
        disk_full(patch, out, name="responses.jsonl", after=2)
        from sitbench.runs import _group_commit

        patch.setattr(_group_commit.GroupCommitWriter.__init__, "__kwdefaults__",
                      {"max_batch_lines": 1, "max_queued_lines": 4096})  # a line per group
        outcome = _call(_run(ws, out / "run"))
    line = _one_line(outcome, str(out / "run" / "responses.jsonl"), "No space left on device (ENOSPC)", "--resume")
    assert line.startswith("error: ")
    kept = (out / "run" / "responses.jsonl").read_bytes()
    assert kept.endswith(b"\n") and kept.count(b"\n") >= 1
    assert all(json.loads(raw)["trial_id"] for raw in kept.splitlines())  # whole lines only
    assert _call(_run(ws, out / "run", "--resume")).code == 0
    done = (out / "run" / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    expected = (whole / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["trial_id"] for x in done] == [json.loads(x)["trial_id"] for x in expected]


def test_resume_in_a_read_only_folder(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    run = ws.directory("partial")
    assert _call(_run(ws, run / "run")).code == 0
    responses = run / "run" / "responses.jsonl"
    responses.write_bytes(b"".join(responses.read_bytes().splitlines(keepends=True)[:3]))
    before = _tree(run)
    read_only(monkeypatch, run)
    _one_line(_call(_run(ws, run / "run", "--resume")), str(run / "run"), "Read-only file system (EROFS)")
    assert _tree(run) == before


def test_resume_on_a_full_disk(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    run = ws.directory("partial-full")
    assert _call(_run(ws, run / "run")).code == 0
    responses = run / "run" / "responses.jsonl"
    lines = responses.read_bytes().splitlines(keepends=True)
    responses.write_bytes(b"".join(lines[:3]))
    disk_full(monkeypatch, run)
    _one_line(_call(_run(ws, run / "run", "--resume")), str(run / "run" / "manifest.json"),
              "No space left on device (ENOSPC)", "--resume")
    assert responses.read_bytes() == b"".join(lines[:3])
    _no_temporary_files(run)


# ---------------------------------------------------------------- score, report, generate, audit, res, chi


def test_score_on_a_full_disk_keeps_the_old_scores(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    run = ws.run()
    before = _tree(run)
    disk_full(monkeypatch, run)
    _one_line(_call(Invocation(["score", str(run), "--workers", "1"])), str(run / "scores.jsonl"),
              "No space left on device (ENOSPC)")
    assert _tree(run) == before
    _no_temporary_files(run)


def test_score_in_a_read_only_run(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    run = ws.run()
    before = _tree(run)
    read_only(monkeypatch, run)
    _one_line(_call(Invocation(["score", str(run), "--workers", "1"])), str(run / "scores.jsonl"),
              "Read-only file system (EROFS)")
    assert _tree(run) == before


@pytest.mark.parametrize("fault", ["full", "read-only"])
def test_report_leaves_the_old_page_whole(ws: Workspace, monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    run, out = ws.run(), ws.directory("report")
    assert _call(Invocation(["report", str(run), "--out", str(out / "report.html")])).code == 0
    before = _tree(out)
    (disk_full if fault == "full" else read_only)(monkeypatch, out)
    cause = "No space left on device (ENOSPC)" if fault == "full" else "Read-only file system (EROFS)"
    line = _one_line(_call(Invocation(["report", str(run), "--out", str(out / "report.html")])),
                     str(out / "report.html"), cause)
    assert line.endswith("choose another --out")
    assert _tree(out) == before
    _no_temporary_files(out)


@pytest.mark.parametrize("fault", ["full", "read-only"])
def test_generate(ws: Workspace, monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    out = ws.directory("gen")
    (disk_full if fault == "full" else read_only)(monkeypatch, out)
    cause = "No space left on device (ENOSPC)" if fault == "full" else "Read-only file system (EROFS)"
    _one_line(_call(Invocation(["generate", "--suite", "pilot", "--out", str(out / "data")])), str(out / "data"),
              cause)
    _no_temporary_files(out)


@pytest.mark.parametrize("fault", ["full", "read-only"])
def test_audit_sheet(ws: Workspace, monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    sample = ws.root / "sample.json"
    assert _call(Invocation(["audit", "sample", str(ws.run()), "--n", "5", "--seed", "1", "--phase", "dev",
                             "--out", str(sample)])).code == 0
    out = ws.directory("sheets")
    (disk_full if fault == "full" else read_only)(monkeypatch, out)
    cause = "No space left on device (ENOSPC)" if fault == "full" else "Read-only file system (EROFS)"
    _one_line(_call(Invocation(["audit", "sheet", str(sample), "--out", str(out / "pages")])),
              str(out / "pages"), cause)
    _no_temporary_files(out)


@pytest.mark.parametrize("fault", ["full", "read-only"])
def test_res_run(ws: Workspace, monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    out = ws.directory("res-out")
    (disk_full if fault == "full" else read_only)(monkeypatch, out)
    cause = "No space left on device (ENOSPC)" if fault == "full" else "Read-only file system (EROFS)"
    _one_line(_call(Invocation(["res", "run", "--model", "mock/oracle", "--out", str(out / "res")])),
              str(out / "res"), cause)
    _no_temporary_files(out)


def test_res_results_on_a_disk_that_fills_midway(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    out = ws.directory("res-results")
    disk_full(monkeypatch, out, name="results.jsonl")
    _one_line(_call(Invocation(["res", "run", "--model", "mock/oracle", "--out", str(out)])),
              str(out / "results.jsonl"),
              "No space left on device (ENOSPC)")
    assert not (out / "results.jsonl").exists()
    _no_temporary_files(out)


@pytest.mark.parametrize("argv", [["chi", "demo", "--out", "{out}/chi"], ["schema", "--out", "{out}/schemas"]],
                         ids=["chi-demo", "schema"])
@pytest.mark.parametrize("fault", ["full", "read-only"])
def test_other_writers(ws: Workspace, monkeypatch: pytest.MonkeyPatch, fault: str, argv: list[str]) -> None:
    out = ws.directory("other")
    (disk_full if fault == "full" else read_only)(monkeypatch, out)
    cause = "No space left on device (ENOSPC)" if fault == "full" else "Read-only file system (EROFS)"
    _one_line(_call(Invocation([a.replace("{out}", str(out)) for a in argv])), str(out), cause)
    _no_temporary_files(out)


# ---------------------------------------------------------------- a real process: /dev/full, a file-size limit


def _process(argv: list[str], tmp_path: Path, *, stdout: int | None = None,
             preexec: Callable[[], None] | None = None) -> Outcome:
    env = {**os.environ, "SITBENCH_CACHE_DIR": str(tmp_path / "cache")}
    with open(os.devnull, "w") if stdout is None else open("/dev/full", "w") as sink:
        result = subprocess.run([sys.executable, "-m", "sitbench", *argv], stdout=sink, stderr=subprocess.PIPE,
                                text=True, env=env, timeout=300, check=False, preexec_fn=preexec)
    return Outcome(result.returncode, "", result.stderr)


needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")


@needs_dev_full
@pytest.mark.parametrize("argv", [["metrics", "{run}", "--json"], ["metrics", "{run}"],
                                  ["judge", "{data}", "--batch", "{batch}"]],
                         ids=["metrics-json", "metrics", "judge-batch"])
def test_a_full_standard_output(ws: Workspace, tmp_path: Path, argv: list[str]) -> None:
    batch = ws.file("batch.jsonl", "".join(json.dumps({"probe": "PR-01", "response": "I was in Seattle."}) + "\n"
                                          for _ in range(3)))
    values = {"{run}": str(ws.run()), "{data}": str(ws.dataset()), "{batch}": str(batch)}
    outcome = _process([values.get(a, a) for a in argv], tmp_path, stdout=1)
    line = _one_line(outcome, "standard output", "No space left on device (ENOSPC)")
    assert "Exception ignored" not in outcome.err and line.count("error:") == 1


def test_a_closed_pipe_ends_quietly(ws: Workspace, tmp_path: Path) -> None:
    """``sitbench judge --batch ... | head -c 10``: the reader has gone, which is no error (click's own rule):
    exit code 1, nothing on stderr ("Exception ignored ... BrokenPipeError" included)."""
    batch = ws.file("many.jsonl", "".join(json.dumps({"probe": "PR-01", "response": "I was in Seattle."}) + "\n"
                                         for _ in range(3000)))
    env = {**os.environ, "SITBENCH_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.Popen([sys.executable, "-m", "sitbench", "judge", str(ws.dataset()), "--batch", str(batch)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=300) == 1
    assert err == ""


def _file_size_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # Python ignores SIGXFSZ: writes fail EFBIG

    return apply


def test_a_disk_that_fills_while_the_page_is_written_leaves_the_old_page(ws: Workspace, tmp_path: Path) -> None:
    """The page is larger than what the disk has left: the old report.html stays whole (not torn)."""
    run, out = ws.run(), ws.directory("report-limit")
    page = out / "report.html"
    assert _process(["report", str(run), "--out", str(page)], tmp_path).code == 0
    before = _tree(out)
    outcome = _process(["report", str(run), "--out", str(page)], tmp_path,
                       preexec=_file_size_limit(len(page.read_bytes()) // 2))
    _one_line(outcome, str(page), "File too large (EFBIG)")
    assert _tree(out) == before
    _no_temporary_files(out)


# ---------------------------------------------------------------- the response cache


def test_a_response_cache_that_cannot_be_written(tmp_path: Path) -> None:
    """SQLite's "attempt to write a readonly database" (or "database or disk is full") names the cache."""
    from sitbench.candidates import CandidateResponse, ResponseCache
    from sitbench.errors import OutputError

    path = tmp_path / "c.sqlite"
    with ResponseCache(path) as cache:
        cache._db.execute("PRAGMA query_only=ON")  # what a read-only file or a full disk answers
        with pytest.raises(OutputError) as raised:
            cache.put("k", CandidateResponse(text="x", status="ok", model_sent="m"))
    assert str(raised.value).startswith(f"{path}: the response cache cannot be written (")
    assert "--no-cache" in str(raised.value)
