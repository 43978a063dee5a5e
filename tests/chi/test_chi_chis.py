"""CHIS derived measures (spec §4), with hand-computed values."""

from __future__ import annotations

import pytest

from sitbench.chi import (
    CHISRecord,
    MemoryPoint,
    continuity,
    decay_half_time,
    distance,
    drift,
    experience_divergence,
    hysteresis,
    memory_accumulation,
    memory_curve,
    plasticity,
    recovery,
    stability,
)
from sitbench.errors import InputError


def test_distance_is_mean_absolute_difference() -> None:
    assert distance([0.0, 0.5, 1.0], [1.0, 0.5, 0.0]) == pytest.approx(2 / 3)
    assert distance([0.2], [0.2]) == 0.0


def test_changed_schema_is_an_error_and_out_of_range_rejected() -> None:
    with pytest.raises(InputError, match="new series"):
        distance([0.1, 0.2], [0.1])
    with pytest.raises(InputError, match="outside"):
        distance([1.5], [0.1])


def test_unavailable_feature_reports_measures_as_missing() -> None:
    assert distance([0.1, None], [0.1, 0.2]) is None
    assert continuity([0.1, None], [0.1, 0.2]).status == "missing"
    assert drift([None], [0.1]).value is None
    assert stability([[0.1, None], [0.1, 0.2]]).status == "missing"


def test_continuity_and_drift() -> None:
    c = continuity([0.0, 0.5, 1.0], [1.0, 0.5, 0.0])
    assert c.value == pytest.approx(1 / 3) and c.status == "ok"
    d = drift([0.6, 0.2], [0.4, 0.5])
    assert d.value == pytest.approx(0.25)
    assert d.detail["signed"] == pytest.approx([0.2, -0.3])


def test_plasticity_is_intervention_change_minus_control_change() -> None:
    m = plasticity([0.2, 0.9], [0.7, 0.9], [0.2, 0.1], [0.3, 0.1], target=0)
    assert m.value == pytest.approx(0.4)
    assert m.detail == pytest.approx({"intervention_change": 0.5, "control_change": 0.1})
    with pytest.raises(InputError, match="outside"):
        plasticity([0.2], [0.7], [0.2], [0.3], target=3)


def test_stability_is_one_minus_mean_adjacent_distance() -> None:
    m = stability([[0.0, 0.0], [0.2, 0.0], [0.2, 0.4]])  # adjacent D: 0.1, 0.2
    assert m.value == pytest.approx(0.85)
    assert stability([[0.1]]).status == "undefined"


def test_recovery_first_return_at_two_successive_checkpoints() -> None:
    base = [0.5, 0.5]
    cps = [(1, [0.8, 0.8]), (5, [0.55, 0.55]), (10, [0.8, 0.8]), (20, [0.54, 0.54]), (40, [0.52, 0.52])]
    res = recovery(base, cps, epsilon=0.05)
    assert res.distances == pytest.approx([0.3, 0.05, 0.3, 0.04, 0.02])
    assert res.return_time == 20 and res.censored is False


def test_no_return_is_right_censored() -> None:
    base = [0.5]
    # the last checkpoint is within epsilon, but nothing follows to confirm the return
    res = recovery(base, [(1, [0.9]), (5, [0.8]), (20, [0.52])], epsilon=0.05)
    assert res.return_time is None and res.censored is True and res.censored_at == 20
    # a missing distance breaks a run of successive checkpoints
    res = recovery(base, [(1, [0.5]), (5, [None]), (20, [0.5])], epsilon=0.05)
    assert res.censored is True


def test_recovery_reports_the_sham_arm() -> None:
    res = recovery([0.5], [(1, [0.9]), (2, [0.5]), (3, [0.5])], 0.05, sham=[(1, [0.5]), (2, [0.5])])
    assert res.return_time == 2
    assert res.sham is not None and res.sham.return_time == 1


def test_hysteresis_mean_gap_at_matched_interior_levels() -> None:
    fwd = {1: 0.1, 2: 0.3, 3: 0.5, 4: 0.7, 5: 0.9}
    rev = {1: 0.1, 2: 0.4, 3: 0.7, 4: 0.8, 5: 0.9}
    m = hysteresis(fwd, rev)
    assert m.detail["levels"] == [2, 3, 4]
    assert m.value == pytest.approx((0.1 + 0.2 + 0.1) / 3)
    assert hysteresis({1: 0.1, 5: 0.9}, {1: 0.2, 5: 0.8}).status == "undefined"
    assert hysteresis({1: 0.1, 3: None, 5: 0.9}, {1: 0.2, 3: 0.5, 5: 0.8}).status == "missing"


def _curve(*qs: float):  # type: ignore[no-untyped-def]
    grid = [1, 2, 4]
    return memory_curve(grid, {n: MemoryPoint(r=q, t=q, s=q, u=q, i=q, f=1 - q) for n, q in zip(grid, qs, strict=True)})


def test_memory_accumulation_exact_and_censored_bounds() -> None:
    observed_1 = _curve(0.9, 0.7, 0.6)  # EIMC 1
    observed_2 = _curve(0.9, 0.85, 0.6)  # EIMC 2
    censored = _curve(0.9, 0.9, 0.9)  # EIMC >= 4
    none = _curve(0.5, 0.5, 0.5)
    exact = memory_accumulation(observed_1, observed_2)
    assert (exact.eimc_change, exact.eimc_change_kind) == (1, "exact")
    assert exact.q_m_change[2] == pytest.approx(0.15)
    assert (memory_accumulation(observed_1, censored).eimc_change, memory_accumulation(observed_1, censored).eimc_change_kind) == (3, "lower_bound")
    assert memory_accumulation(censored, observed_2).eimc_change_kind == "upper_bound"
    assert memory_accumulation(censored, censored).eimc_change_kind == "undetermined"
    assert memory_accumulation(none, observed_2).eimc_change is None


def test_memory_accumulation_needs_a_fixed_panel() -> None:
    other = memory_curve([1, 2, 8], {})
    with pytest.raises(InputError, match="unmatched panels"):
        memory_accumulation(_curve(0.9, 0.9, 0.9), other)


def test_experience_divergence_and_negative_result() -> None:
    diff = [([0.0, 0.0], [0.3, 0.3]), ([0.0, 0.0], [0.5, 0.5])]
    same = [([0.0, 0.0], [0.1, 0.1])]
    m = experience_divergence(diff, same)
    assert m.value == pytest.approx(0.3)
    assert m.detail["exceeds_control"] is True
    neg = experience_divergence(same, diff)
    assert neg.value == pytest.approx(-0.3) and neg.detail["exceeds_control"] is False
    assert experience_divergence([], same).status == "undefined"


def test_decay_half_time_observed_points_no_fit() -> None:
    times = [0, 1, 2, 5, 10, 20]
    m = decay_half_time(times, [0.4, 0.3, 0.25, 0.2, 0.1, 0.05])
    assert m.value == 5.0 and m.status == "ok"


def test_decay_half_time_undefined_cases() -> None:
    times = [0, 1, 2]
    zero = decay_half_time(times, [0.0, 0.1, 0.0])
    assert zero.value is None and zero.detail["reason"] == "zero initial effect"
    flip = decay_half_time(times, [0.4, 0.3, -0.1])
    assert flip.value is None and flip.detail["reason"] == "sign-reversing effect"
    flat = decay_half_time(times, [0.4, 0.35, 0.3])
    assert flat.value is None and flat.detail["reason"] == "not_reached"


def test_chis_record_allows_null_chi() -> None:
    rec = CHISRecord(step=0, chi=None, capacities={"R": 0.5}, human_similarity=None, state={"indexed_units": 100})
    assert rec.chi is None and rec.state["indexed_units"] == 100


def test_decay_half_time_input_checks() -> None:
    with pytest.raises(InputError, match="nonfinite"):
        decay_half_time([0, 1], [0.4, float("nan")])
    with pytest.raises(InputError, match="increasing"):
        decay_half_time([0, 0], [0.4, 0.1])
    assert decay_half_time([0, 1], [None, 0.1]).status == "missing"
