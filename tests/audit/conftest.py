"""Shared fixtures: the demo runs and an audit sample of them, written once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest
from _audit_support import DEMO_RUNS

from sitbench.cli import main
from sitbench.data import demo_readings


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``sitbench demo --out DIR``."""
    out = tmp_path_factory.mktemp("audit-demo")
    assert main(["demo", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="session")
def sample_path(demo_dir: Path) -> Path:
    """60 responses of the three demo runs, development phase, seed 1."""
    path = demo_dir / "audit" / "sample.json"
    assert main(["audit", "sample", *(str(demo_dir / r) for r in DEMO_RUNS), "--n", "60", "--seed", "1",
                 "--phase", "dev", "--out", str(path)]) == 0
    return path


BLIND_DEMO = demo_readings()
"""Frozen readings of every distinct answer of the demo runs under the LLM extractor's prompt."""


@pytest.fixture(scope="session")
def two_reader_run(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's collapse run rescored by two readers (rules, then the replayed LLM reader): some contested."""
    out = tmp_path_factory.mktemp("two-readers") / "run-collapse-2r"
    assert main(["rescore", str(demo_dir / "run-collapse"), "--out", str(out),
                 "--extractor", f"rules+llm:replay/{BLIND_DEMO}"]) == 0
    return out
