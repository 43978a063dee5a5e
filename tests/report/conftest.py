"""Shared fixtures: the three demo runs, one of them scored by two readers, and the keyword example agent's run of
the demo's pilot, written once per test session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.data import demo_readings
from sitbench.report import write_report
from sitbench.stats import analyze_runs

KEYWORD_AGENT = Path(__file__).resolve().parents[2] / "examples" / "keyword_agent.py"


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


@pytest.fixture(scope="session")
def agent_run(demo_runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``examples/keyword_agent.py:make`` run on the demo's pilot and scored (one row, ``agent``)."""
    run = tmp_path_factory.mktemp("agent") / "kw"
    assert main(["run", str(demo_runs / "pilot"), "--agent", f"{KEYWORD_AGENT}:make", "--out", str(run)]) == 0
    assert main(["score", str(run)]) == 0
    return run


@pytest.fixture(scope="session")
def agent_report(agent_run: Path) -> Path:
    """The HTML report of :func:`agent_run` with its own E1–E8 analysis."""
    return write_report([agent_run], agent_run.parent / "report" / "report.html", analysis=analyze_runs([agent_run]))
