"""``sitbench compare``: planted differences found, null cases not, incomplete pairs, the pilot's two pairs.

The suite is the generator's e6 suite (20 pairs, 1,440 probes); its verdicts are drawn here from fixed
seeds, so every difference is known: arm H of run ``other`` is the baseline with every category-F probe
failed, arm I independent noise, run ``same`` the baseline again.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from _compare_runs import Outcome, Probe, draw, suite_probes, write_run

from sitbench.cli import main
from sitbench.cli._runs import execute_run, score_run
from sitbench.metrics import run_metrics
from sitbench.schema import Category
from sitbench.stats import (
    ArmComparison,
    ChangeDirection,
    CompareReport,
    Decision,
    EndpointComparison,
    compare_runs,
    pairs_needed,
    smallest_signflip_p,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEYWORD = f"{EXAMPLES / 'keyword_agent.py'}:make"


@pytest.fixture(scope="module")
def probes() -> list[Probe]:
    return suite_probes("e6", 1)


@pytest.fixture(scope="module")
def base(probes: list[Probe]) -> dict[str, Outcome]:
    return draw(probes, seed=11)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, probes: list[Probe], base: dict[str, Outcome]) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    planted = {p.probe_id: False if p.category is Category.F else base[p.probe_id] for p in probes}
    return {
        "base": write_run(root / "base", probes, {"G": base}),
        "other": write_run(root / "other", probes, {"H": planted, "I": draw(probes, seed=12)},
                           failing={p.probe_id: ("required", "forbidden") for p in probes if p.category is Category.F}),
        "same": write_run(root / "same", probes, {"G": base}),
        "elsewhere": write_run(root / "elsewhere", probes, {"G": base}, fingerprint="77" * 32),
    }


def arm(report: CompareReport, label: str) -> ArmComparison:
    return next(c for c in report.comparisons if c.arm == label)


def endpoint(comparison: ArmComparison, name: str) -> EndpointComparison:
    return next(e for e in [*comparison.categories, comparison.macro_sit, *comparison.diagnostics]
                if e.endpoint == name)


# --------------------------------------------------------------------------- planted and null


def test_planted_difference_is_found_under_holm(runs: dict[str, Path], probes: list[Probe],
                                                base: dict[str, Outcome]) -> None:
    report = compare_runs([runs["base"], runs["other"]], seed=3)
    assert [a.label for a in report.arms] == ["base:G", "other:H", "other:I"] and report.seed == 3
    planted = arm(report, "other:H")
    belief = endpoint(planted, "A_belief")
    # Every pair loses its valid F probes: 20 negative differences, so only the observed signs and their mirror
    # are as extreme.
    assert belief.n_pairs == 20 and all(p.difference is not None and p.difference < 0 for p in belief.per_pair)
    assert belief.p == 2 / 2**20
    assert belief.p_holm == pytest.approx(8 * 2 / 2**20) and belief.p_holm < 0.05
    assert belief.decision is Decision.DIFFERENCE and "other:H is lower than base:G" in belief.decision_note
    assert belief.ci_upper is not None and belief.ci_upper < 0 and belief.bootstrap is not None
    assert belief.bootstrap.seed == 3 and belief.bootstrap.n_resamples == 1000
    for e in planted.categories:
        if e.endpoint != "A_belief":
            assert (e.difference, e.p, e.decision) == (0.0, 1.0, Decision.NOT_REJECTED)
    assert planted.decidability.decidable and planted.decidability.message is None
    lost = sorted(p.probe_id for p in probes if p.category is Category.F and base[p.probe_id])
    assert [c.probe_id for c in planted.changes] == lost
    assert {(c.change, tuple(c.baseline_failed_checks), tuple(c.arm_failed_checks)) for c in planted.changes} == {
        (ChangeDirection.PASS_TO_FAIL, (), ("required", "forbidden"))}
    assert planted.probes.pass_to_fail == len(lost) and planted.probes.fail_to_pass == 0


def test_values_are_those_of_sitbench_metrics(runs: dict[str, Path]) -> None:
    report = compare_runs([runs["base"], runs["other"]])
    first, second = run_metrics(runs["base"])["G"], run_metrics(runs["other"])["H"]
    comparison = arm(report, "other:H")
    for name in ("A_pos", "A_neg", "A_temp", "A_belief", "macro_sit", "LAA", "FMR", "TL", "UEL"):
        e = endpoint(comparison, name)
        assert e.baseline_value == pytest.approx(getattr(first, name))
        assert e.arm_value == pytest.approx(getattr(second, name))
        assert e.difference == pytest.approx(getattr(second, name) - getattr(first, name))
        # The sign-flip test and the interval are of the pair contributions, whose mean is the difference.
        assert math.fsum(p.contribution for p in e.per_pair) / e.n_pairs == pytest.approx(e.difference)


def test_noise_and_identical_runs_show_no_difference(runs: dict[str, Path]) -> None:
    noise = arm(compare_runs([runs["base"], runs["other"]], seed=3), "other:I")
    assert noise.changes and any(e.difference != 0 for e in noise.categories)
    assert all(e.p_holm is not None and e.p_holm >= 0.05 for e in noise.categories)
    assert not any(e.decision is Decision.DIFFERENCE for e in noise.categories)
    same = arm(compare_runs([runs["base"], runs["same"]]), "same:G")
    assert same.changes == [] and same.probes.both_completed == same.probes.shared == 1440
    for e in [*same.categories, same.macro_sit, *same.diagnostics]:
        assert (e.difference, e.p, e.n_pairs) == (0.0, 1.0, 20)
        assert e.bootstrap is not None and e.bootstrap.degenerate


def test_text_json_and_baseline_option(runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(runs["base"]), str(runs["other"]), "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert "other:H vs base:G" in text and "A_belief: difference shown at family-wise alpha 0.05" in text
    assert "no difference can be decided" not in text
    assert main(["compare", str(runs["base"]), str(runs["other"]), "--seed", "3", "--json",
                 "--baseline", "other:I"]) == 0
    report = CompareReport.model_validate(json.loads(capsys.readouterr().out))
    assert report.baseline == "other:I" and [c.arm for c in report.comparisons] == ["base:G", "other:H"]
    assert report == compare_runs([runs["base"], runs["other"]], seed=3, baseline="other:I")
    assert main(["compare", str(runs["base"]), str(runs["other"]), "--baseline", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--baseline 'nope'" in err and "base:G, other:H, other:I" in err


# --------------------------------------------------------------------------- bad input


def test_dataset_mismatch_is_one_line_exit_2(runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(runs["base"]), str(runs["elsewhere"])]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert err.count("\n") == 0 and err.startswith("error: ")
    assert str(runs["base"]) in err and str(runs["elsewhere"]) in err
    assert "5e5e5e5e5e5e" in err and "777777777777" in err and "sitbench run DATASET" in err


def test_unscored_run_is_one_line_exit_2(runs: dict[str, Path], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copy(runs["same"] / "manifest.json", bare / "manifest.json")
    assert main(["compare", str(runs["base"]), str(bare)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"sitbench score {bare}" in err


# --------------------------------------------------------------------------- incomplete pairs


def _by_hand(probes: list[Probe], outcomes: dict[str, Outcome], category: Category, pairs: set[str]) -> float:
    """Eq. 40 without the package: a lineage's probes, then the pair's lineages, then the pairs."""
    per_pair = []
    for pair in sorted(pairs):
        lineages: dict[str, list[float]] = {}
        for p in probes:
            if p.pair_id == pair and p.category is category:
                lineages.setdefault(p.lineage_id, []).append(1.0 if outcomes[p.probe_id] is True else 0.0)
        per_pair.append(sum(sum(v) / len(v) for v in lineages.values()) / len(lineages))
    return sum(per_pair) / len(per_pair)


def test_dropped_or_unscored_probe_makes_its_pair_incomplete(tmp_path: Path, probes: list[Probe],
                                                             base: dict[str, Outcome]) -> None:
    gap_base = dict(base)
    other = draw(probes, seed=13)
    dropped = next(p for p in probes if p.category is Category.A and p.pair_id.endswith("03"))
    unscored = next(p for p in probes if p.category is Category.C and p.pair_id.endswith("05"))
    other[dropped.probe_id] = "dropped"
    gap_base[unscored.probe_id] = "unscored"
    report = compare_runs([write_run(tmp_path / "gapbase", probes, {"G": gap_base}),
                           write_run(tmp_path / "gaps", probes, {"G": other})])
    comparison = arm(report, "gaps:G")
    pos = endpoint(comparison, "A_pos")
    assert pos.incomplete_pairs == {dropped.pair_id: f"{dropped.probe_id} dropped in gaps:G"}
    assert (pos.n_pairs, pos.pairs_attempted) == (19, 20)
    assert pos.excluded_trials == {"dropped in gaps:G": 1}
    n_a = sum(p.category is Category.A for p in probes)
    assert pos.attempted == {"gapbase:G": n_a, "gaps:G": n_a} and pos.completed == {"gapbase:G": n_a, "gaps:G": n_a - 1}
    kept = {p.pair_id for p in probes} - {dropped.pair_id}
    strict = _by_hand(probes, other, Category.A, kept) - _by_hand(probes, gap_base, Category.A, kept)
    assert pos.difference == pytest.approx(strict)
    # Keeping the pair with its dropped probe left out (reweighting its lineage) would give another figure.
    reweighted = dict(other)
    del reweighted[dropped.probe_id]
    survivors = [p for p in probes if p.probe_id != dropped.probe_id]
    everyone = {p.pair_id for p in probes}
    assert pos.difference != pytest.approx(_by_hand(survivors, reweighted, Category.A, everyone)
                                           - _by_hand(survivors, gap_base, Category.A, everyone))
    for name in ("A_epi", "UEL"):
        assert endpoint(comparison, name).incomplete_pairs == {
            unscored.pair_id: f"{unscored.probe_id} unscored in gapbase:G"}
    assert set(comparison.macro_sit.incomplete_pairs) == {dropped.pair_id, unscored.pair_id}
    assert endpoint(comparison, "A_belief").incomplete_pairs == {}
    assert comparison.probes.both_completed == 1438 and comparison.probes.shared == 1440


# --------------------------------------------------------------------------- how many pairs decide


def test_pairs_needed_follows_the_test_and_holm() -> None:
    for n in range(1, 31):
        assert smallest_signflip_p(n) == 2.0 ** (1 - n)
    for alpha in (0.2, 0.1, 0.05, 0.01, 0.001):
        by_formula = next(n for n in range(1, 100) if 8 * 2.0 ** (1 - n) < alpha)
        assert pairs_needed(alpha) == by_formula
    assert pairs_needed(0.05) == 9 and pairs_needed(0.05, family_size=1) == 6


@pytest.fixture(scope="module")
def pilot_runs(tmp_path_factory: pytest.TempPathFactory, pilot: Path) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare-pilot")
    assert execute_run(pilot, "mock/oracle", root / "oracle", "G,H") == (44, 44)
    score_run(root / "oracle")
    assert main(["run", str(pilot), "--agent", KEYWORD, "--out", str(root / "kw")]) == 0
    assert main(["score", str(root / "kw")]) == 0
    return {"oracle": root / "oracle", "kw": root / "kw"}


def test_the_pilot_says_why_nothing_can_be_decided(pilot_runs: dict[str, Path],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["compare", str(pilot_runs["kw"]), str(pilot_runs["oracle"])]) == 0
    text = capsys.readouterr().out
    assert "baseline keyword-baseline" in text and "oracle:G vs keyword-baseline" in text
    assert text.count("no difference can be decided with 2 pairs: the exact sign-flip test's smallest p is 0.5; "
                      "at least 9 pairs are needed for p < 0.05 after Holm over 8 categories") == 2
    assert main(["compare", str(pilot_runs["oracle"]), "--alpha", "0.01", "--json"]) == 0
    report = CompareReport.model_validate(json.loads(capsys.readouterr().out))
    (only,) = report.comparisons
    assert (only.baseline, only.arm) == ("oracle:G", "oracle:H")
    assert only.decidability.model_dump() == {
        "n_pairs": 2, "smallest_p": 0.5, "pairs_needed": 11, "family_size": 8, "alpha": 0.01, "decidable": False,
        "message": "no difference can be decided with 2 pairs: the exact sign-flip test's smallest p is 0.5; at "
                   "least 11 pairs are needed for p < 0.01 after Holm over 8 categories"}
    assert all(e.decision is not Decision.DIFFERENCE for e in only.categories)
