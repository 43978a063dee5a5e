"""``sitbench chi memory demo``: a good and a poor reference system, offline, with the figures the README gives."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sitbench.cli import main


def test_memory_demo_contrasts_a_good_and_a_poor_system(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chi", "memory", "demo", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[-2:] for line in out.splitlines() if re.match(r"M[1-8]\s{2,}", line)}
    assert rows["M8"] == ["1.000", "0.679"] and rows["M3"] == ["1.000", "0.390"] and rows["M6"] == ["1.000", "0.500"]
    assert rows["M1"] == ["1.000", "1.000"]
    assert "versioned  EIMC(tau=0.8): 1000 [lower_bound/right_censored]" in out
    assert "rag        EIMC(tau=0.8): null [no_passing_tested_load]" in out
    assert "why rag's M8 u and s probes failed: stale version 238" in out
    for name in ("versioned", "rag"):
        manifest = json.loads((tmp_path / name / "manifest.json").read_text())
        assert manifest["evidence_class"] == "capacity-only" and manifest["load_grid"] == [100, 300, 1000]
    assert (tmp_path / "report.html").stat().st_size > 1000
