"""Within an address space of 1 GiB, ``/dev/zero``, a FIFO and endless stdin each get one error line (they
were once read to the end of memory, or forever); invalid UTF-8 and random bytes on standard input are
refused by the rule of a file."""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from ._harness import Templates, Workspace

GIB = 1 << 30


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(tmp_path_factory.mktemp("bounded-templates")).build()


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


def _sitbench(argv: list[str], tmp_path: Path, stdin: bytes | None = None, limit: bool = True) -> tuple[int, str]:
    env = {**os.environ, "SITBENCH_CACHE_DIR": str(tmp_path / "cache"), "OPENBLAS_NUM_THREADS": "1"}
    result = subprocess.run([sys.executable, "-m", "sitbench", *argv], input=stdin, capture_output=True, env=env,
                            timeout=120, check=False, preexec_fn=_limited if limit else None)
    return result.returncode, result.stderr.decode("utf-8", "replace")


def _one_line(code: int, err: str, *names: str) -> None:
    assert code == 2, err[-2000:]
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err[-2000:]
    for name in names:
        assert name in lines[0], lines[0]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("what", ["batch", "replay", "probes"])
def test_dev_zero_within_1_gib(what: str, templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    data = ws.dataset()
    argv = {"batch": ["judge", str(data), "--batch", "/dev/zero"],
            "replay": ["judge", str(data), "--probe", "PR-01", "--response", "x", "--extractor",
                       "llm:replay//dev/zero"],
            "probes": ["validate", str(data)]}[what]
    if what == "probes":
        (data / "hidden" / "probes.jsonl").unlink()
        (data / "hidden" / "probes.jsonl").symlink_to("/dev/zero")
    _one_line(*_sitbench(argv, tmp_path), "a device")


def test_a_fifo_within_1_gib(templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    fifo = tmp_path / "readings.jsonl"
    os.mkfifo(fifo)
    argv = ["judge", str(ws.dataset()), "--probe", "PR-01", "--response", "x", "--extractor", f"llm:replay/{fifo}"]
    _one_line(*_sitbench(argv, tmp_path), str(fifo), "FIFO")


def test_invalid_utf8_on_stdin_is_refused_as_in_a_file(templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    line = b'{"probe": "PR-01", "response": "I was in Seattle \xff\xfe."}\n'
    _one_line(*_sitbench(["judge", str(ws.dataset()), "--batch", "-"], tmp_path, stdin=line), "<stdin>", "line 1",
              "UTF-8")
    path = ws.file("answers.jsonl", line)
    _one_line(*_sitbench(["judge", str(ws.dataset()), "--batch", str(path)], tmp_path), str(path), "UTF-8")


def test_random_bytes_as_a_response_are_refused(templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    noise = random.Random(42).randbytes(4096)
    _one_line(*_sitbench(["judge", str(ws.dataset()), "--probe", "PR-01", "--response", "-"], tmp_path, stdin=noise),
              "--response -")
