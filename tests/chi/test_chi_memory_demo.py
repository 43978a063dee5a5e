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


def test_sweep_plan_counts_the_calls_and_extrapolates_measured_runs() -> None:
    from sitbench.chi import REFERENCE_SECONDS_PER_MILLION_CALLS, RunSpec, plan_sweep, plan_text, remaining_estimate

    spec = RunSpec(panels=["m8"], agent="rag", model="mock/memory-reader", condition="equal-budget", seed=1,
                   trajectories=5, grid=[100, 300])
    plan = plan_sweep(spec, 16)
    # Per trajectory: each load's corpus and its clean twin (2 x (240 + 720) turns); 240 probes per load,
    # 40 per twin, and 10 pre-exposure probes per arm.
    assert (plan.history_turns, plan.probes) == (1920, 600)
    assert plan.calls == 16 * 5 * 2520
    assert plan.reference_seconds == pytest.approx(plan.calls / 1e6 * REFERENCE_SECONDS_PER_MILLION_CALLS)
    assert "plus local/smollm2's own time for 48,000 probe calls" in plan_text(plan, "local/smollm2")
    assert remaining_estimate([10.0, 20.0], 16) == "2/16 runs done in 30 s; about 3.5 min left (measured: 15.0 s per run so far)"
