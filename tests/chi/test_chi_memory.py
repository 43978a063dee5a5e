"""Q_M and EIMC (spec §3), with hand-computed values."""

from __future__ import annotations

import pytest

from sitbench.chi import MemoryPoint, memory_curve, q_m
from sitbench.errors import InputError

GRID = [100, 300, 1000, 3000]


def flat(q: float) -> MemoryPoint:
    """A point whose Q_M is q: five factors equal to q and f = 1 - q."""
    return MemoryPoint(r=q, t=q, s=q, u=q, i=q, f=1.0 - q)


def curve(*qs: float) -> dict[int, MemoryPoint]:
    return {n: flat(q) for n, q in zip(GRID, qs, strict=False)}  # a curve may stop short of the grid


def test_q_m_is_the_weighted_geometric_product() -> None:
    # only i below 1: 0.64^(1/6) = 0.8^(1/3)
    p = MemoryPoint(r=1.0, t=1.0, s=1.0, u=1.0, i=0.64, f=0.0)
    assert q_m(p) == pytest.approx(0.9283177667225558)
    # (1 - f) enters, not f: f = 0.36 -> (0.64)^(1/6)
    assert q_m(MemoryPoint(r=1.0, t=1.0, s=1.0, u=1.0, i=1.0, f=0.36)) == pytest.approx(0.9283177667225558)
    alpha = {"r": 0.5, "t": 0.1, "s": 0.1, "u": 0.1, "i": 0.1, "f": 0.1}
    assert q_m(MemoryPoint(r=0.25, t=1.0, s=1.0, u=1.0, i=1.0, f=0.0), alpha) == pytest.approx(0.5)
    assert q_m(flat(0.9)) == pytest.approx(0.9)


def test_q_m_zero_factor_and_full_false_memory_give_zero() -> None:
    assert q_m(MemoryPoint(r=0.0, t=1.0, s=1.0, u=1.0, i=1.0, f=0.0)) == 0.0
    assert q_m(MemoryPoint(r=1.0, t=1.0, s=1.0, u=1.0, i=1.0, f=1.0)) == 0.0


@pytest.mark.parametrize("missing", ["r", "t", "s", "u", "i", "f"])
def test_q_m_is_null_when_any_factor_is_missing(missing: str) -> None:
    values = {"r": 0.9, "t": 0.9, "s": 0.9, "u": 0.9, "i": 0.9, "f": 0.1, missing: None}
    assert q_m(MemoryPoint(**values)) is None


@pytest.mark.parametrize(
    "alpha, rule",
    [
        ({"r": 0.5, "t": 0.1, "s": 0.1, "u": 0.1, "i": 0.1, "f": 0.2}, "sum"),
        ({"r": 0.5, "t": 0.0, "s": 0.125, "u": 0.125, "i": 0.125, "f": 0.125}, "> 0"),
        ({"r": 0.2, "t": 0.2, "s": 0.2, "u": 0.2, "i": 0.2}, "missing"),
    ],
)
def test_alpha_must_be_positive_and_sum_to_one(alpha: dict[str, float], rule: str) -> None:
    with pytest.raises(InputError, match=rule):
        q_m(flat(0.9), alpha)


def test_f_is_f_raw_plus_invalid_lure_rate_with_both_parts_reported() -> None:
    p = MemoryPoint.from_counts(r=(36, 40), t=(36, 40), s=(36, 40), u=(36, 40), i=(36, 40), lures=(3, 1, 40))
    assert p.f_raw == pytest.approx(0.075)
    assert p.invalid_lure_rate == pytest.approx(0.025)
    assert p.f == pytest.approx(0.1)
    # all six numerators and denominators are retained
    assert p.counts is not None and set(p.counts) == {"r", "t", "s", "u", "i", "f"}
    assert p.counts["f"].model_dump() == {"unsupported": 3, "invalid": 1, "total": 40}
    assert q_m(p) == pytest.approx(0.9)


def test_f_parts_must_be_consistent_and_exclusive() -> None:
    with pytest.raises(InputError, match="differs"):
        MemoryPoint(r=1, t=1, s=1, u=1, i=1, f=0.2, f_raw=0.05, invalid_lure_rate=0.05)
    with pytest.raises(InputError, match="mutually exclusive"):
        MemoryPoint.from_counts(r=(1, 1), t=(1, 1), s=(1, 1), u=(1, 1), i=(1, 1), lures=(30, 20, 40))
    with pytest.raises(InputError, match="outside"):
        MemoryPoint(r=1.2, t=1, s=1, u=1, i=1, f=0)


def test_zero_denominator_is_missing_not_zero() -> None:
    p = MemoryPoint.from_counts(r=(0, 0), t=(1, 1), s=(1, 1), u=(1, 1), i=(1, 1), lures=(0, 0, 1))
    assert p.r is None and q_m(p) is None


def test_interference_is_reported_as_a_difference_from_clean() -> None:
    p = MemoryPoint(r=1, t=1, s=1, u=1, i=0.6, f=0, clean_i=0.9)
    assert p.interference_gap == pytest.approx(-0.3)


def test_eimc_observed_is_largest_passing_tested_load() -> None:
    res = memory_curve(GRID, curve(0.95, 0.85, 0.5, 0.4), tau=0.8)
    assert res.eimc == 300 and res.status == "observed"
    assert res.sustained_prefix_eimc == 300
    assert res.nonmonotone is False


def test_no_passing_load_gives_null_not_zero() -> None:
    res = memory_curve(GRID, curve(0.7, 0.6, 0.5, 0.4), tau=0.8)
    assert res.eimc is None and res.status == "no_passing_tested_load"
    assert res.sustained_prefix_eimc is None


def test_largest_tested_load_passing_is_right_censored() -> None:
    res = memory_curve(GRID, curve(0.95, 0.9, 0.85, 0.81), tau=0.8)
    assert res.eimc == 3000 and res.status == "lower_bound/right_censored"


def test_untested_top_load_means_censoring_at_largest_tested_load() -> None:
    pts = curve(0.95, 0.9, 0.85)  # 3000 not run
    res = memory_curve(GRID, pts, tau=0.8)
    assert res.untested == [3000]
    assert res.q_m[3000] is None
    assert res.eimc == 1000 and res.status == "lower_bound/right_censored"
    assert res.mean_q_m is None


def test_nonmonotone_curve_is_flagged_and_kept() -> None:
    res = memory_curve(GRID, curve(0.9, 0.7, 0.85, 0.6), tau=0.8)
    assert res.q_m[300] == pytest.approx(0.7) and res.q_m[1000] == pytest.approx(0.85)
    assert res.eimc == 1000 and res.status == "observed"
    assert res.sustained_prefix_eimc == 100
    assert res.nonmonotone is True and res.pass_pattern_nonmonotone is True


def test_quality_rise_without_pass_change_is_still_nonmonotone() -> None:
    res = memory_curve(GRID, curve(0.95, 0.9, 0.92, 0.5), tau=0.8)
    assert res.nonmonotone is True and res.pass_pattern_nonmonotone is False
    assert res.eimc == res.sustained_prefix_eimc == 1000


def test_sensitivity_at_07_08_09() -> None:
    res = memory_curve(GRID, curve(0.95, 0.85, 0.75, 0.65))
    assert res.tau == 0.8
    assert res.sensitivity == {"0.7": 1000, "0.8": 300, "0.9": 100}
    assert res.sensitivity_status == {"0.7": "observed", "0.8": "observed", "0.9": "observed"}
    low = memory_curve(GRID, curve(0.6, 0.5, 0.4, 0.3))
    assert low.sensitivity == {"0.7": None, "0.8": None, "0.9": None}


def test_threshold_is_inclusive_without_tolerance() -> None:
    res = memory_curve([1], {1: flat(1.0)}, tau=1.0)
    assert res.eimc == 1
    res = memory_curve([1], {1: MemoryPoint(r=1.0, t=1.0, s=1.0, u=1.0, i=0.999999, f=0.0)}, tau=1.0)
    assert res.eimc is None


def test_mean_q_m_over_the_grid_is_the_m8_entry() -> None:
    res = memory_curve(GRID, curve(0.9, 0.8, 0.7, 0.6))
    assert res.mean_q_m == pytest.approx(0.75)


def test_invalid_grid_tau_and_points() -> None:
    with pytest.raises(InputError, match="strictly increasing"):
        memory_curve([300, 100], {})
    with pytest.raises(InputError, match="positive integer"):
        memory_curve([0, 100], {})
    with pytest.raises(InputError, match="not on the registered grid"):
        memory_curve(GRID, {500: flat(0.9)})
    for tau in (0.0, 1.5):
        with pytest.raises(InputError, match="tau"):
            memory_curve(GRID, {}, tau=tau)
