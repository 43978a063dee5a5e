"""compute_metrics: hand-computed pair-balanced validities, Macro SIT, LAA/IC, FMR/TL/UEL."""

from __future__ import annotations

import pytest
from _metrics_builders import PAIR_OF, rec
from hypothesis import given, settings
from hypothesis import strategies as st

from sitbench.errors import InputError
from sitbench.metrics import ConfigMetrics, compute_metrics

CATEGORY_FIELDS = ("A_pos", "A_neg", "A_epi", "A_temp", "A_rel", "A_belief", "A_cf", "A_session")


def one(records: list) -> ConfigMetrics:
    result = compute_metrics(records)
    assert list(result) == ["B"]
    return result["B"]


def test_pair_balancing_weights_lineages_not_trials() -> None:
    records = [
        # P1: L-1A 2 of 3 valid, L-1B 0 of 1 → pair (2/3 + 0) / 2 = 1/3
        rec("L-1A", "A", True), rec("L-1A", "A", True), rec("L-1A", "A", False),
        rec("L-1B", "A", False),
        # P2: L-2A 1 of 1, L-2B 1 of 2 → pair (1 + 1/2) / 2 = 3/4
        rec("L-2A", "A", True),
        rec("L-2B", "A", True), rec("L-2B", "A", False),
    ]
    m = one(records)
    # (1/3 + 3/4) / 2 = 13/24, not the trial mean 4/7.
    assert m.A_pos == pytest.approx(13 / 24)
    assert m.A_pos != pytest.approx(4 / 7)
    assert m.counts["A"].attempted == 7
    assert m.counts["A"].completed == 7
    assert m.counts["A"].pairs == 2
    assert m.counts["A"].incomplete_pairs == {}


def test_category_with_one_lineage_per_pair_counts_with_the_lineage_it_has() -> None:
    records = [
        # D only in L-1B (P1) and only in L-2A (P2): pair values 1/2 and 1.
        rec("L-1B", "D", True, stratum="pre"), rec("L-1B", "D", False, stratum="post"),
        rec("L-2A", "D", True, stratum="post"),
        # B: P1 has L-1A only (0); P2 has both members (1 and 1/2 → 3/4).
        rec("L-1A", "B", False),
        rec("L-2A", "B", True), rec("L-2B", "B", True), rec("L-2B", "B", False),
    ]
    m = one(records)
    assert m.A_temp == pytest.approx(0.75)
    assert m.A_neg == pytest.approx(0.375)
    assert m.counts["D"].pairs == 2
    assert m.counts["B"].pairs == 2


def test_dropped_trials_are_attempted_never_failures() -> None:
    records = [
        rec("L-1A", "E", True), rec("L-1A", "E", None),  # the drop is not a 0: L-1A = 1
        rec("L-1B", "E", False),
        rec("L-2A", "E", True), rec("L-2B", "E", True),
    ]
    m = one(records)
    # P1 = (1 + 0) / 2, P2 = 1 → 3/4; with the drop as a failure it would be 5/8.
    assert m.A_rel == pytest.approx(0.75)
    assert m.n_attempted == 5
    assert m.n_completed == 4
    assert m.counts["E"].attempted == 5
    assert m.counts["E"].completed == 4


def test_lineage_with_only_dropped_trials_makes_its_pair_incomplete() -> None:
    records = [
        rec("L-1A", "E", True), rec("L-1B", "E", False),
        rec("L-2A", "E", None), rec("L-2B", "E", True),
    ]
    m = one(records)
    # P2 is reported as incomplete rather than silently reduced to L-2B.
    assert m.A_rel == pytest.approx(0.5)
    assert m.counts["E"].pairs == 1
    assert list(m.counts["E"].incomplete_pairs) == ["P2"]
    assert "L-2A" in m.counts["E"].incomplete_pairs["P2"]


def test_category_with_only_dropped_trials_is_null() -> None:
    m = one([rec("L-1A", "F", None), rec("L-1B", "F", None)])
    assert m.A_belief is None
    assert m.counts["F"].attempted == 2
    assert m.counts["F"].completed == 0


def _full_set() -> list:
    """One probe per category per lineage of P1; validity pattern gives known category values."""
    pattern = {"A": (1, 1), "B": (1, 0), "C": (0, 0), "D": (1, 1), "E": (0, 1), "F": (1, 1), "G": (1, 1), "H": (0, 1)}
    records = []
    for category, (a, b) in pattern.items():
        records.append(rec("L-1A", category, bool(a)))
        records.append(rec("L-1B", category, bool(b)))
    return records


def test_macro_sit_is_the_unweighted_mean_of_the_eight() -> None:
    m = one(_full_set())
    values = [getattr(m, name) for name in CATEGORY_FIELDS]
    assert values == [1.0, 0.5, 0.0, 1.0, 0.5, 1.0, 1.0, 0.5]
    assert m.macro_sit == pytest.approx(5.5 / 8)


def test_macro_sit_is_null_not_zero_when_a_category_is_empty() -> None:
    records = [r for r in _full_set() if r.category.value != "G"]
    m = one(records)
    assert m.A_cf is None
    assert m.macro_sit is None
    assert m.counts["G"].attempted == 0


def test_macro_sit_is_null_when_a_category_has_only_drops() -> None:
    records = [r for r in _full_set() if r.category.value != "H"] + [rec("L-1A", "H", None)]
    assert one(records).macro_sit is None


def test_laa_and_ic_from_target_partner_outcomes() -> None:
    records = [
        # P1: L-1A (1,0) and (0,0) → LAA 1/2, none 1/2; L-1B (0,1) → wrong 1.
        rec("L-1A", "A", True, partner=False), rec("L-1A", "B", False, partner=False),
        rec("L-1B", "A", False, partner=True),
        # P2: L-2A (1,0) → LAA 1; L-2B (1,0), (0,1), (0,0) → 1/3 each.
        rec("L-2A", "H", True, partner=False),
        rec("L-2B", "H", True, partner=False), rec("L-2B", "A", False, partner=True),
        rec("L-2B", "B", False, partner=False),
        # Not theorem-qualified: ignored by LAA.
        rec("L-1A", "A", True), rec("L-2A", "A", False),
    ]
    m = one(records)
    # Pair LAA: P1 (1/2 + 0)/2 = 1/4, P2 (1 + 1/3)/2 = 2/3 → 11/24.
    assert pytest.approx(11 / 24) == m.LAA
    # Pair IC_wrong: P1 (0 + 1)/2 = 1/2, P2 (0 + 1/3)/2 = 1/6 → 1/3.
    assert m.IC_wrong == pytest.approx(1 / 3)
    # Pair IC_none: P1 (1/2 + 0)/2 = 1/4, P2 (0 + 1/3)/2 = 1/6 → 5/24.
    assert m.IC_none == pytest.approx(5 / 24)
    assert m.LAA + m.IC_wrong + m.IC_none == pytest.approx(1.0)
    assert m.laa_outcomes.model_dump() == {"correct": 3, "wrong_identity": 2, "neither": 2, "both": 0}
    assert m.counts["theorem_qualified"].attempted == 7
    assert m.counts["theorem_qualified"].pairs == 2


def test_laa_leaves_out_a_pair_with_a_member_not_completed() -> None:
    records = [
        rec("L-1A", "A", True, partner=False), rec("L-1B", "A", True, partner=False),
        rec("L-2A", "A", False, partner=True), rec("L-2B", "A", None, partner=False),
    ]
    m = one(records)
    assert m.LAA == 1.0
    assert m.IC_wrong == 0.0
    assert m.counts["theorem_qualified"].pairs == 1
    assert list(m.counts["theorem_qualified"].incomplete_pairs) == ["P2"]
    assert m.laa_outcomes.wrong_identity == 1  # outcome counts still see every completed trial


def test_laa_counts_an_inv10_violation_as_both_and_not_correct() -> None:
    m = one([rec("L-1A", "A", True, partner=True), rec("L-1B", "A", True, partner=False)])
    assert pytest.approx(0.5) == m.LAA
    assert m.IC_wrong == 0.0
    assert m.IC_none == 0.0
    assert m.laa_outcomes.both == 1


def test_laa_null_without_theorem_qualified_trials() -> None:
    m = one([rec("L-1A", "A", True)])
    assert (m.LAA, m.IC_wrong, m.IC_none) == (None, None, None)


def test_fmr_tl_uel_are_plain_shares_over_completed_trials() -> None:
    records = [
        # FMR: B and G completed = 5, flagged 2 → 2/5. The dropped G trial is left out.
        rec("L-1A", "B", False, false_memory=True), rec("L-1B", "B", True), rec("L-2A", "B", True),
        rec("L-2A", "G", False, false_memory=True), rec("L-2B", "G", True),
        rec("L-1A", "G", None, false_memory=True),
        # A trial flagged by mistake outside B/G does not count.
        rec("L-1A", "A", False, false_memory=True),
        # TL: completed D 'pre' = 3, leaking 1 → 1/3; the 'post' leak is not in the denominator.
        rec("L-1B", "D", False, stratum="pre", temporal_leak=True),
        rec("L-1B", "D", True, stratum="pre"), rec("L-2A", "D", True, stratum="pre"),
        rec("L-2A", "D", False, stratum="post", temporal_leak=True),
        # UEL: completed C = 4, flagged 1 → 1/4.
        rec("L-1A", "C", False, unauthorized_epistemic=True), rec("L-1B", "C", True),
        rec("L-2A", "C", True), rec("L-2B", "C", True),
    ]
    m = one(records)
    assert (m.FMR, m.n_FMR) == (pytest.approx(2 / 5), 5)
    assert (m.TL, m.n_TL) == (pytest.approx(1 / 3), 3)
    assert (m.UEL, m.n_UEL) == (pytest.approx(1 / 4), 4)


def test_rates_are_null_when_their_denominator_is_zero() -> None:
    m = one([rec("L-1A", "A", True), rec("L-1A", "D", True, stratum="post"), rec("L-1B", "C", None)])
    assert (m.FMR, m.TL, m.UEL) == (None, None, None)
    assert (m.n_FMR, m.n_TL, m.n_UEL) == (0, 0, 0)


def test_grouped_by_config_in_sorted_order() -> None:
    records = [
        rec("L-1A", "A", True, config="I"), rec("L-1B", "A", True, config="I"),
        rec("L-1A", "A", False, config="B"), rec("L-1B", "A", True, config="B"),
        rec("L-1A", "A", False, config="A"), rec("L-1B", "A", False, config="A"),
    ]
    result = compute_metrics(records)
    assert list(result) == ["A", "B", "I"]
    assert [result[c].A_pos for c in result] == [0.0, 0.5, 1.0]
    assert all(result[c].n_attempted == 2 for c in result)


def test_duplicate_trial_is_an_input_error() -> None:
    first = rec("L-1A", "A", True, trial="PR-01")
    with pytest.raises(InputError, match=r"PR-01.*appears twice"):
        compute_metrics([first, first])


def test_completed_trial_without_verdict_is_an_input_error() -> None:
    broken = rec("L-1A", "A", True, trial="PR-02").model_copy(update={"verdict": None})
    with pytest.raises(InputError, match=r"B:PR-02.*'verdict'"):
        compute_metrics([broken])


def test_theorem_qualified_trial_without_partner_is_an_input_error() -> None:
    broken = rec("L-1A", "A", True, partner=False, trial="PR-03").model_copy(update={"partner": None})
    with pytest.raises(InputError, match=r"B:PR-03.*'partner'.*rescore"):
        compute_metrics([broken])


_lineages = st.sampled_from(["L-1A", "L-1B", "L-2A", "L-2B", "L-3A", "L-3B"])


def _pair_balanced(trials: list[tuple[str, bool | None]], *, both_members: bool = False) -> float | None:
    """Mean over complete pairs of the mean over their lineages of the share of valid completed trials.

    A pair is complete when each of its lineages with trials has a completed one (and, for LAA, both
    members have trials); ``None`` (a dropped trial) is never a failure. None when no pair is complete.
    """
    pairs: dict[str, dict[str, list[bool | None]]] = {}
    for lineage, valid in trials:
        pairs.setdefault(PAIR_OF[lineage], {}).setdefault(lineage, []).append(valid)
    means = []
    for lineages in pairs.values():
        done = {lin: [v for v in values if v is not None] for lin, values in lineages.items()}
        if all(done.values()) and (len(done) == 2 or not both_members):
            means.append(sum(sum(v) / len(v) for v in done.values()) / len(done))
    return sum(means) / len(means) if means else None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(_lineages, st.sampled_from("ABCDEFGH"), st.sampled_from([True, False, None]), st.booleans()),
        min_size=1,
        max_size=30,
    )
)
def test_properties_bounds_and_oracle(spec: list[tuple[str, str, bool | None, bool]]) -> None:
    records = [
        rec(lin, cat, valid, partner=(not valid) if tq and valid is not None else None)
        for lin, cat, valid, tq in spec
    ]
    m = one(records)
    # An independent reading of Eq. 40, so a wrong weighting fails here and not only on the hand cases.
    for letter, name in zip("ABCDEFGH", CATEGORY_FIELDS, strict=True):
        want = _pair_balanced([(lin, valid) for lin, cat, valid, _ in spec if cat == letter])
        assert getattr(m, name) == (None if want is None else pytest.approx(want)), name
    # Here a completed theorem-qualified trial is `correct` exactly when its target verdict is valid.
    want_laa = _pair_balanced([(lin, valid) for lin, _, valid, tq in spec if tq], both_members=True)
    assert (None if want_laa is None else pytest.approx(want_laa)) == m.LAA
    if m.LAA is not None:
        assert m.LAA + m.IC_wrong + m.IC_none == pytest.approx(1.0)
    assert m.n_attempted == len(spec)
    assert m.n_completed == sum(valid is not None for _, _, valid, _ in spec)
    # Oracle: make every completed trial valid → every defined validity is exactly 1.
    oracle = one([
        r.model_copy(update={"verdict": r.verdict and r.verdict.model_copy(update={"valid": True})})
        for r in records
    ])
    for name in CATEGORY_FIELDS:
        assert getattr(oracle, name) in (None, 1.0)
    assert oracle.macro_sit in (None, 1.0)


def test_lineage_in_two_pairs_is_an_input_error() -> None:
    moved = rec("L-1A", "A", True, trial="PR-04").model_copy(update={"pair_id": "P2"})
    with pytest.raises(InputError, match=r"B:PR-04.*'pair_id'.*exactly one pair"):
        compute_metrics([rec("L-1A", "B", True), moved])


def test_pair_with_three_lineages_is_an_input_error() -> None:
    third = rec("L-2A", "A", True, trial="PR-05").model_copy(update={"pair_id": "P1"})
    with pytest.raises(InputError, match=r"B:PR-05.*L-1A, L-1B, L-2A"):
        compute_metrics([rec("L-1A", "A", True), rec("L-1B", "A", True), third])
