"""Shared fixtures: the three demo runs, and one of them scored by two readers, written once per test session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.data import demo_readings
from sitbench.report import write_report


@pytest.fixture(scope="session")
def demo_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``sitbench demo --out DIR``: run-collapse, run-oracle and run-oracle-perfect under DIR."""
    out = tmp_path_factory.mktemp("demo")
    assert main(["demo", "--out", str(out)]) == 0
    return out


READINGS = demo_readings()
"""The frozen blind readings of every distinct answer of the demo runs, shipped in the package."""


@pytest.fixture(scope="session")
def two_reader_run(demo_runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's run-collapse scored again by two readers: rules first, the replayed blind LLM reader second."""
    run = tmp_path_factory.mktemp("two-readers") / "run-collapse-2r"
    shutil.copytree(demo_runs / "run-collapse", run)
    (run / "scores.jsonl").unlink()
    assert main(["score", str(run), "--extractor", f"rules+llm:replay/{READINGS}"]) == 0
    return run


@pytest.fixture(scope="session")
def two_reader_report(two_reader_run: Path) -> Path:
    """The HTML report of :func:`two_reader_run` (with metrics.json and trials.csv beside it)."""
    return write_report([two_reader_run], two_reader_run.parent / "report" / "report.html")
