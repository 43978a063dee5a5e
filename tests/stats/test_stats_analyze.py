"""``analyze`` on 20 hand-built pairs: per-pair differences, means, exact p, Holm, incompleteness.

Every experiment's records are built so that pair k's difference is ``+c`` or ``-c``
(``c`` fixed per experiment, chosen so that a wrong weighting rule gives another number)
with a known number m of negative pairs. With n = 20 equal-magnitude differences the
exact two-sided sign-flip p-value is ``2 * sum_{j<=m} C(20, j) / 2^20``: an assignment is
at least as extreme when its number of negative signs is ≤ m or ≥ 20 - m.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.errors import InputError
from sitbench.runs import ScoreRecord
from sitbench.schema import Category, Observation, Verdict
from sitbench.stats import (
    CONFIRMATORY_FAMILY,
    analyze,
    analyze_runs,
    get_experiment,
    holm,
)

N_PAIRS = 20
TOTAL = 2**N_PAIRS


def exact_p(negatives: int) -> float:
    """Hand formula for 20 differences of equal magnitude, ``negatives`` of them negative."""
    return 2 * sum(math.comb(N_PAIRS, j) for j in range(negatives + 1)) / TOTAL


class Builder:
    """Score records with unique probe ids; a probe is shared by its two configurations."""

    def __init__(self) -> None:
        self.records: list[ScoreRecord] = []
        self.n = 0

    def probe(
        self,
        pair: int,
        member: str,
        category: str,
        values: dict[str, object],
        *,
        stratum: str | None = None,
        capability: str = "IDENTITY_ONLY",
        gate_sensitive: bool = False,
        theorem_qualified: bool = False,
    ) -> None:
        """``values``: config → bool (valid), (valid, partner_valid), int (prompt tokens) or None (dropped)."""
        self.n += 1
        probe_id = f"PR-{self.n:05d}"
        for config, value in values.items():
            dropped = value is None
            valid = partner = None
            tokens = 0
            if isinstance(value, tuple):
                valid, partner = value
            elif isinstance(value, bool):
                valid = value
            elif isinstance(value, int):
                valid, tokens = True, value
            self.records.append(ScoreRecord(
                trial_id=f"{config}:{probe_id}", config=config, probe_id=probe_id,
                lineage_id=f"L-{pair:02d}{member}", pair_id=f"PAIR-{pair:02d}", category=Category(category),
                stratum=stratum, theorem_qualified=theorem_qualified, gate_sensitive=gate_sensitive,
                capability=capability, status="dropped" if dropped else "completed",
                observation=None if dropped else Observation(acts=[], verifier_version="t"),
                verdict=None if dropped else Verdict(valid=bool(valid), checks={}, verifier_version="t"),
                partner=None if dropped or partner is None else Verdict(valid=partner, checks={}, verifier_version="t"),
                prompt_tokens=tokens,
            ))


# Pairs whose difference is negative, per experiment (m = len).
NEGATIVE = {"E1": {7}, "E2": set(), "E3": {3, 11}, "E4": {2, 9, 15}, "E5": set(), "E6": set(), "E7": {20},
            "E8": set()}
# |d| per experiment, by hand from the patterns in build_suite.
MAGNITUDE = {"E1": 0.5, "E2": 1.0, "E3": 0.5, "E4": 1.0, "E5": 0.2, "E6": 500.0, "E7": 1.0, "E8": 0.5}


def build_suite(*, with_g_budget: bool = True) -> Builder:
    b = Builder()
    for k in range(1, N_PAIRS + 1):
        for member in "AB":
            def flip(experiment: str, good: object, bad: object, k: int = k) -> tuple[object, object]:
                # (first, second): the second configuration gets the good pattern unless k is negative.
                return (bad, good) if k not in NEGATIVE[experiment] else (good, bad)

            # E1, C vs D, LAA: "good" = both probes (1, 0); "half" = one (1, 0) and one (0, 1) → 0.5.
            good, half = [(True, False), (True, False)], [(True, False), (False, True)]
            first, second = flip("E1", good, half)
            for i in range(2):
                b.probe(k, member, "A", {"C": first[i], "D": second[i]}, theorem_qualified=True)  # type: ignore[index]
            # E2, G vs H, A_epi under IDENTITY_ONLY; a PROVENANCE_SEPARATED probe that must be ignored.
            first, second = flip("E2", True, False)
            for _ in range(2):
                b.probe(k, member, "C", {"G": first, "H": second})
            b.probe(k, member, "C", {"G": True, "H": False}, capability="PROVENANCE_SEPARATED")
            # E3, D vs F, A_temp: pre [valid] + post [3 × invalid] = 0.5 with equal strata weights (pooled: 0.25).
            first, second = flip("E3", "mixed", "none")
            for stratum, valids in (("pre", [True]), ("post", [False, False, False])):
                for valid in valids:
                    b.probe(k, member, "D", {"D": valid and first == "mixed", "F": valid and second == "mixed"},
                            stratum=stratum)
            # E4, E vs G, A_belief: 1 vs 0.
            first, second = flip("E4", True, False)
            b.probe(k, member, "F", {"E": first, "G": second})
            # E5, C vs H, A_cf: L1 [4 × valid] + L2..L5 [invalid] = 0.2 with equal weights (pooled: 0.5).
            for level in ("L1", "L2", "L3", "L4", "L5"):
                for _ in range(4 if level == "L1" else 1):
                    b.probe(k, member, "G", {"C": False, "H": level == "L1"}, stratum=level)
            # E6, D vs G_budget, prompt tokens: D 1000; G_budget 400 (A) and 600 (B) → d = -500.
            tokens = {"D": 1000}
            if with_g_budget:
                tokens["G_budget"] = 400 if member == "A" else 600
            b.probe(k, member, "B", tokens)  # type: ignore[arg-type]
            if k == 1 and member == "A" and with_g_budget:
                # Dropped under G_budget: the matched-trials rule removes the D trial (9000 tokens) too.
                b.probe(k, member, "B", {"D": 9000, "G_budget": None})
            # E7, C vs G, A_session: 0 vs 1.
            first, second = flip("E7", True, False)
            b.probe(k, member, "H", {"C": first, "G": second})
            # E8, G vs H, A_rel on gate-sensitive probes: AD [valid] + W [3 × invalid] = 0.5; plus an
            # ordinary relational probe that must be ignored.
            for stratum, count in (("authorized_disclosure", 1), ("withholding", 3)):
                for _ in range(count):
                    b.probe(k, member, "E", {"G": False, "H": stratum == "authorized_disclosure"},
                            stratum=stratum, gate_sensitive=True)
            b.probe(k, member, "E", {"G": True, "H": False})
    return b


def sign(experiment: str, k: int) -> float:
    return -1.0 if k in NEGATIVE[experiment] else 1.0


@pytest.fixture(scope="module")
def report():
    return analyze(build_suite().records, seed=11)


def test_per_pair_differences_and_means(report) -> None:
    by_id = {c.id: c for c in report.experiments}
    assert list(by_id) == list(CONFIRMATORY_FAMILY)
    for eid in CONFIRMATORY_FAMILY:
        c = by_id[eid]
        direction = -1.0 if eid == "E6" else 1.0
        expected = [direction * sign(eid, k) * MAGNITUDE[eid] for k in range(1, N_PAIRS + 1)]
        assert c.status == "computed" and c.n_pairs == N_PAIRS
        assert [p.pair_id for p in c.per_pair] == [f"PAIR-{k:02d}" for k in range(1, N_PAIRS + 1)]
        assert [p.d for p in c.per_pair] == pytest.approx(expected), eid
        assert c.mean == pytest.approx(sum(expected) / N_PAIRS), eid
        assert c.incomplete_pairs == {}
    # Pair values themselves, where the weighting rule matters.
    e3 = by_id["E3"].per_pair[0]
    assert (e3.first, e3.second) == (0.0, 0.5)  # pooled pre/post would give 0.25
    e5 = by_id["E5"].per_pair[0]
    assert (e5.first, e5.second) == (0.0, pytest.approx(0.2))  # pooled levels would give 0.5
    e6 = by_id["E6"].per_pair[0]
    assert (e6.first, e6.second) == (1000.0, 500.0)  # the unmatched 9000-token D trial is gone
    e1 = by_id["E1"].per_pair[6]  # pair 7 is negative: C perfect, D half
    assert (e1.first, e1.second) == (1.0, 0.5)


def test_exact_p_values_match_the_hand_formula(report) -> None:
    for c in report.experiments:
        assert c.signflip is not None and c.signflip.method == "exact"
        assert c.signflip.n_assignments == TOTAL
        assert c.p == pytest.approx(exact_p(len(NEGATIVE[c.id])), rel=0, abs=0), c.id
    assert {c.id: c.p for c in report.experiments}["E4"] == 2 * (1 + 20 + 190 + 1140) / TOTAL


def test_holm_over_exactly_the_eight(report) -> None:
    family = report.family
    assert family.complete and family.missing == {}
    # By hand: raw p × 2^20 = E1 42, E2 2, E3 422, E4 2702, E5 2, E6 2, E7 42, E8 2. Sorted with
    # multipliers 8..1: 2·8=16, then cummax 16,16,16; 42·4=168, 168; 422·2=844; 2702·1.
    expected = {"E1": 168, "E2": 16, "E3": 844, "E4": 2702, "E5": 16, "E6": 16, "E7": 168, "E8": 16}
    assert family.adjusted == pytest.approx({k: v / TOTAL for k, v in expected.items()})
    assert family.adjusted == pytest.approx(dict(zip(CONFIRMATORY_FAMILY, holm([c.p for c in report.experiments]).adjusted, strict=True)))
    for c in report.experiments:
        assert c.p_holm == family.adjusted[c.id]
        assert c.decision == "reject_null"
        # Every mean points the hypothesised way (E4: 3 of 20 pairs negative, mean +0.7; E6: -500 tokens).
        assert c.favours_hypothesis is True
        assert get_experiment(c.id).favours_hypothesis(c.mean)


def test_counts_and_exclusions(report) -> None:
    by_id = {c.id: c for c in report.experiments}
    e6 = by_id["E6"]
    # E6's subset is every probe (any category); D's E1 probes (2 per lineage) and E3 probes (4 per
    # lineage) have no G_budget trial and are excluded as unmatched, like the one dropped under G_budget.
    assert e6.attempted == {"D": 41 + 240, "G_budget": 41}
    assert e6.completed == {"D": 41 + 240, "G_budget": 40}
    assert e6.matched_trials == 40
    assert e6.excluded_trials == {"dropped in G_budget": 1, "missing in G_budget": 240}
    e2 = by_id["E2"]
    assert e2.attempted == {"G": 80, "H": 80}  # the PROVENANCE_SEPARATED probes are not in the subset
    assert by_id["E8"].attempted == {"G": 160, "H": 160}
    assert by_id["E1"].sources == {"C": "records", "D": "records"}


def test_bootstrap_seed_is_recorded_and_reproducible(report) -> None:
    again = analyze(build_suite().records, seed=11)
    assert report.seed == 11
    for one, two in zip(report.experiments, again.experiments, strict=True):
        assert one.bootstrap is not None and one.bootstrap.seed == 11
        assert (one.ci_lower, one.ci_upper) == (two.ci_lower, two.ci_upper)
    e2 = {c.id: c for c in report.experiments}["E2"]
    assert e2.bootstrap is not None and e2.bootstrap.degenerate  # identical effects in every pair
    assert (e2.ci_lower, e2.ci_upper) == (1.0, 1.0)


def test_secondary_comparisons_are_descriptive_and_outside_the_family(report) -> None:
    ids = [c.id for c in report.secondary]
    assert "E1:B-C" in ids and "E6:D-G" in ids
    for c in report.secondary:
        assert c.role == "secondary" and c.p is None and c.p_holm is None and c.decision == "descriptive"
    b_c = {c.id: c for c in report.secondary}["E1:B-C"]
    assert b_c.status == "incomplete" and "configuration B" in (b_c.reason or "")
    assert set(report.family.members) == set(CONFIRMATORY_FAMILY)


def test_missing_stratum_makes_the_pair_incomplete_not_reweighted() -> None:
    b = build_suite()
    # Pair 5, member A: remove every post-acquisition trial of E3.
    kept = [r for r in b.records if not (r.lineage_id == "L-05A" and r.category is Category.D and r.stratum == "post")]
    # Pair 6, member B: its only pre trial is dropped in F, so that lineage has no eligible pre trial.
    pre = next(r for r in kept if r.lineage_id == "L-06B" and r.category is Category.D and r.stratum == "pre"
               and r.config == "F")
    kept = [r if r is not pre else r.model_copy(update={"status": "dropped", "verdict": None, "observation": None})
            for r in kept]
    e3 = {c.id: c for c in analyze(kept, seed=1).experiments}["E3"]
    assert e3.n_pairs == 18
    assert set(e3.incomplete_pairs) == {"PAIR-05", "PAIR-06"}
    assert "post_acquisition" in e3.incomplete_pairs["PAIR-05"]
    assert "pre_acquisition" in e3.incomplete_pairs["PAIR-06"]
    assert e3.excluded_trials == {"dropped in F": 1}
    assert [p.d for p in e3.per_pair] == pytest.approx(
        [sign("E3", k) * 0.5 for k in range(1, N_PAIRS + 1) if k not in (5, 6)])


def test_missing_lineage_makes_the_pair_incomplete_unless_present_rule() -> None:
    b = build_suite()
    kept = [r for r in b.records if not (r.lineage_id == "L-04B" and r.category is Category.F)]
    both = {c.id: c for c in analyze(kept, seed=1, lineage_rule="both").experiments}["E4"]
    assert both.n_pairs == 19 and "PAIR-04" in both.incomplete_pairs and both.single_lineage_pairs == []
    present = {c.id: c for c in analyze(kept, seed=1, lineage_rule="present").experiments}["E4"]
    assert present.n_pairs == 20 and present.incomplete_pairs == {}
    # The default counts with what the records hold, and names the pair that deviates from the plan.
    report = analyze(kept, seed=1)
    auto = {c.id: c for c in report.experiments}["E4"]
    assert report.lineage_rule == "auto" and auto.n_pairs == 20 and auto.single_lineage_pairs == ["PAIR-04"]
    assert any("E4: PAIR-04" in note for note in report.notes)


def test_auto_lineage_rule_is_the_plan_when_both_members_hold_every_subset() -> None:
    records = build_suite().records
    auto, both = analyze(records, seed=1), analyze(records, seed=1, lineage_rule="both")
    assert [c.model_dump(exclude={"single_lineage_pairs"}) for c in auto.experiments] == \
        [c.model_dump(exclude={"single_lineage_pairs"}) for c in both.experiments]
    assert all(c.single_lineage_pairs == [] for c in auto.experiments)
    assert any("so this is the plan's rule" in note for note in auto.notes)


def test_incomplete_family_reports_no_adjusted_p() -> None:
    report = analyze(build_suite(with_g_budget=False).records, seed=3)
    by_id = {c.id: c for c in report.experiments}
    assert by_id["E6"].status == "incomplete" and "G_budget" in (by_id["E6"].reason or "")
    assert not report.family.complete and set(report.family.missing) == {"E6"}
    assert report.family.adjusted is None and report.family.reject is None
    assert "E6" in report.family.note
    for c in report.experiments:
        assert c.p_holm is None and c.decision == "no_decision"
    assert by_id["E1"].p == exact_p(1)  # raw p still reported, for information


def test_duplicate_trial_and_missing_verdict_are_input_errors() -> None:
    records = build_suite().records
    with pytest.raises(InputError, match="appears twice"):
        analyze([*records, records[0]])
    broken = records[0].model_copy(update={"partner": None})
    with pytest.raises(InputError, match="field 'partner'"):
        analyze([broken, *records[1:]])


def _write_run(root: Path, records: list[ScoreRecord]) -> Path:
    root.mkdir(parents=True)
    (root / "scores.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return root


def test_cli_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = build_suite().records
    main_run = _write_run(tmp_path / "main", [r for r in records if r.config != "G_budget"])
    e6_run = _write_run(tmp_path / "e6", [r for r in records if r.config in ("D", "G_budget") and r.category is Category.B])
    code = main(["analyze", str(main_run), "--e6-run", str(e6_run), "--seed", "5", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"seed", "n_resamples", "ci", "alpha", "lineage_rule", "e6_tokenizer", "runs",
                         "experiments", "family", "secondary", "notes"}
    assert data["seed"] == 5 and data["n_resamples"] == 1000
    assert [e["id"] for e in data["experiments"]] == list(CONFIRMATORY_FAMILY)
    e1 = data["experiments"][0]
    for key in ("per_pair", "mean", "ci_lower", "ci_upper", "p", "p_holm", "decision", "attempted", "completed",
                "matched_trials", "incomplete_pairs"):
        assert key in e1
    assert e1["per_pair"][0] == {"pair_id": "PAIR-01", "first": 0.5, "second": 1.0, "d": 0.5}
    e6 = data["experiments"][5]
    assert e6["sources"] == {"D": str(e6_run), "G_budget": str(e6_run)}
    assert e6["mean"] == -500.0
    assert data["family"]["complete"] is True
    assert [r["used_for"] for r in data["runs"]] == ["all", "E6"]


def test_cli_table_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = build_suite(with_g_budget=False).records
    run = _write_run(tmp_path / "run", records)
    assert main(["analyze", str(run), "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert "E6 incomplete" in out and "E1 " in out and "Holm" in out
    twice = _write_run(tmp_path / "again", [r for r in records if r.config == "C"])
    assert main(["analyze", str(run), str(twice)]) == 2
    err = capsys.readouterr().err
    assert "configuration C is also in" in err and len(err.strip().splitlines()) == 1
    assert main(["analyze", str(tmp_path / "nowhere")]) == 2
    assert "no such run directory" in capsys.readouterr().err
    assert main(["analyze", str(run), "--ci", "2"]) == 2
    assert "--ci" in capsys.readouterr().err


def test_analyze_runs_refuses_two_models(tmp_path: Path) -> None:
    from sitbench.candidates import DecodingConfig
    from sitbench.runs import RunManifest

    records = build_suite().records
    runs = []
    for name, model, configs in (("a", "mock/oracle", "CD"), ("b", "mock/collapse", "GH")):
        run = _write_run(tmp_path / name, [r for r in records if r.config in configs])
        manifest = RunManifest(run_id=name, created_at="2024-01-01T00:00:00+00:00", package_version="0",
                               dataset={}, configs=list(configs), candidate={"spec": model},
                               decoding=DecodingConfig(), templates_sha256="0")
        (run / "manifest.json").write_text(manifest.model_dump_json(), encoding="utf-8")
        runs.append(run)
    with pytest.raises(InputError, match=r"candidate\.spec"):
        analyze_runs(runs)


def test_fast_reader_matches_the_full_loader(tmp_path: Path) -> None:
    run = _write_run(tmp_path / "run", build_suite().records)
    fast = analyze_runs([run], seed=2, n_resamples=200)
    full = analyze_runs([run], seed=2, n_resamples=200, full_records=True)
    assert fast == full


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda lines: [*lines, lines[0]], "line 2: field 'trial_id'"),
        (lambda lines: [lines[0].replace('"verdict":{', '"verdict":null,"x":{')], "line 1: field 'verdict' is null"),
        (lambda lines: [lines[0].replace('"partner":{', '"partner":null,"x":{')], "line 1: field 'partner' is null"),
        (lambda lines: [lines[0].replace('"category":"A"', '"category":"Z"')], "line 1: category"),
        (lambda lines: ["{not json"], "line 1"),
    ],
)
def test_fast_reader_errors_name_file_and_line(tmp_path: Path, edit, fragment: str) -> None:
    from sitbench.stats import load_score_rows

    first = build_suite().records[0]  # a completed theorem-qualified trial
    run = tmp_path / "run"
    run.mkdir()
    (run / "scores.jsonl").write_text("\n".join(edit([first.model_dump_json()])) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"scores\.jsonl") as error:
        load_score_rows(run)
    assert fragment in str(error.value)
