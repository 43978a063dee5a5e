"""``analyze`` end to end on a real run: the pilot under mock/oracle, configurations B–I.

The pilot has two pairs, so every computed contrast has n ≤ 2 and the exact test has
at most 4 sign assignments; E6 has no budgeted-G trials in an ordinary run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.cli._runs import execute_run, score_run
from sitbench.data import pilot_content, write_dataset
from sitbench.metrics import compute_metrics, load_scores
from sitbench.stats import AnalysisReport, analyze_runs


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("analyze-pilot")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SITBENCH_CACHE_DIR", str(root / "cache"))
        write_dataset(pilot_content(), root / "pilot")
        attempted, completed = execute_run(root / "pilot", "mock/oracle", root / "run", "B,C,D,E,F,G,H,I")
    assert (attempted, completed) == (176, 176)
    score_run(root / "run")
    return root / "run"


@pytest.fixture(scope="module")
def report(run: Path) -> AnalysisReport:
    return analyze_runs([run], seed=9, lineage_rule="present")


def test_e1_on_the_pilot(run: Path, report: AnalysisReport) -> None:
    e1 = report.experiments[0]
    assert e1.id == "E1" and e1.status == "computed" and e1.n_pairs == 2
    assert e1.signflip is not None and e1.signflip.n_assignments == 4 and e1.signflip.method == "exact"
    # Both differences positive, so only the all-plus and all-minus assignments reach |sum d|.
    assert all(p.d > 0 for p in e1.per_pair) and e1.p == 0.5
    # The pair values are the pair-balanced LAA that the metrics module computes per configuration.
    metrics = compute_metrics(load_scores(run))
    assert sum(p.first for p in e1.per_pair) / 2 == pytest.approx(metrics["C"].LAA)
    assert sum(p.second for p in e1.per_pair) / 2 == pytest.approx(metrics["D"].LAA)
    assert e1.attempted == {"C": 10, "D": 10} and e1.matched_trials == 10
    assert e1.sources == {"C": str(run), "D": str(run)}


def test_e7_and_the_incomplete_family(report: AnalysisReport) -> None:
    by_id = {c.id: c for c in report.experiments}
    e7 = by_id["E7"]
    assert [p.d for p in e7.per_pair] == [1.0, 1.0] and e7.p == 0.5
    assert e7.bootstrap is not None and e7.bootstrap.degenerate and e7.bootstrap.seed == 9
    assert by_id["E6"].status == "incomplete" and "G_budget" in (by_id["E6"].reason or "")
    # Each pilot lineage has a single attack level, so E5 has no complete pair.
    assert by_id["E5"].status == "incomplete" and set(by_id["E5"].incomplete_pairs) == {"PAIR-1", "PAIR-2"}
    assert not report.family.complete and {"E5", "E6"} <= set(report.family.missing)
    assert all(c.p_holm is None and c.decision == "no_decision" for c in report.experiments)
    assert report.runs[0].model == "mock/oracle" and report.runs[0].records == 176


def test_plan_rule_needs_both_lineages(run: Path) -> None:
    strict = {c.id: c for c in analyze_runs([run], seed=9, lineage_rule="both").experiments}
    assert strict["E1"].n_pairs == 2  # both members carry every theorem-qualified probe
    assert strict["E3"].status == "incomplete"  # the pilot's D probes are for one member only
    assert "only 1 of 2 lineages" in strict["E3"].incomplete_pairs["PAIR-1"]


def test_cli_on_the_run(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(run), "--lineages", "present", "--seed", "9", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["experiments"][0]["p"] == 0.5
    assert data["family"]["adjusted"] is None and data["family"]["complete"] is False
    assert main(["analyze", str(run)]) == 0
    assert "E1" in capsys.readouterr().out


def test_default_computes_what_the_pilot_supports(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(run), "--seed", "9"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "computed 6 of 8 contrasts (E1, E2, E3, E4, E7, E8); lineage rule auto" in out
    assert "counted with one lineage" in out and "E3 PAIR-1" in out and "--lineages both" in out
    assert "E5 incomplete: no pair has eligible trials" in out
    assert "E6 incomplete: no records of configuration G_budget in the runs given; E6 needs a token-scaling run" in out
    default = analyze_runs([run], seed=9)
    present = analyze_runs([run], seed=9, lineage_rule="present")
    assert [c.mean for c in default.experiments] == [c.mean for c in present.experiments]
    assert default.experiments[2].single_lineage_pairs == ["PAIR-1"]
