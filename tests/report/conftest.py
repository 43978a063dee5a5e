"""Shared fixture: the three demo runs, written once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.cli import main


@pytest.fixture(scope="session")
def demo_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``sitbench demo --out DIR``: run-collapse, run-oracle and run-oracle-perfect under DIR."""
    out = tmp_path_factory.mktemp("demo")
    assert main(["demo", "--out", str(out)]) == 0
    return out
