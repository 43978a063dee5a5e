"""Printing never raises: with an output encoding that lacks sitbench's symbols (PYTHONIOENCODING=ascii),
each is printed as its ASCII fallback (``—`` as ``-``, ``…`` as ``...``, ``τ`` as ``tau``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ._harness import Templates, Workspace


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(tmp_path_factory.mktemp("encoding-templates")).build()


@pytest.mark.parametrize("command", [["metrics"], ["analyze"], ["metrics", "--help"], ["compare", "--help"]])
def test_an_ascii_output_prints_every_figure(command: list[str], templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    argv = [*command, str(ws.run())] if "--help" not in command else command
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "SITBENCH_CACHE_DIR": str(tmp_path / "cache"),
           "COLUMNS": "100"}
    result = subprocess.run([sys.executable, "-m", "sitbench", *argv], capture_output=True, env=env, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stderr.decode("ascii", "replace")[-1500:]
    assert b"Traceback" not in result.stderr
    if "--help" not in command:  # click writes its help pages itself (as UTF-8, when it finds ASCII)
        result.stdout.decode("ascii")  # nothing but ASCII reached the stream
        assert b"..." in result.stdout and "…".encode() not in result.stdout


def test_the_fallbacks() -> None:
    from sitbench.cli._main import FALLBACK_ERRORS

    text = "A_pos … A_session — τ = 0.5, Γ̂ ≥ 1 ☃"
    assert text.encode("ascii", FALLBACK_ERRORS) == b"A_pos ... A_session - tau = 0.5, Gamma-hat >= 1 \\u2603"
