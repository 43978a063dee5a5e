"""Calibration transform and CHI (spec §2), with hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sitbench.chi import axis_similarity, chi_score, delta_squared, fit_scales
from sitbench.chi._similarity import chi_array
from sitbench.errors import InputError

ONES = {"R": 1.0, "M": 1.0, "C": 1.0, "A": 1.0, "I": 1.0}


def test_h_is_exp_of_minus_half_mean_squared_standardized_distance() -> None:
    # (1-0)/1 = 1 and (2-0)/2 = 1 -> delta^2 = mean(1, 1) = 1 -> h = exp(-0.5)
    sim = axis_similarity("R", z=[1.0, 2.0], mu=[0.0, 0.0], s=[1.0, 2.0], scale_floor=0.5)
    assert sim.delta_squared == 1.0
    assert sim.h == pytest.approx(0.6065306597126334, abs=1e-15)
    # (0.5-0.2)/0.1 = 3, (0.4-0.4)/0.2 = 0 -> delta^2 = 4.5 -> h = exp(-2.25)
    assert delta_squared([0.5, 0.4], [0.2, 0.4], [0.1, 0.2], 0.05) == pytest.approx(4.5)
    assert axis_similarity("M", [0.5, 0.4], [0.2, 0.4], [0.1, 0.2], 0.05).h == pytest.approx(0.10539922456186433)


def test_exact_centroid_match_gives_h_one_and_chi_100() -> None:
    sim = axis_similarity("C", [0.3, 0.7], [0.3, 0.7], [0.1, 0.1], 0.1)
    assert sim.h == 1.0
    assert chi_score(ONES) == 100.0


def test_chi_baseline_weights_are_one_fifth() -> None:
    assert chi_score({a: 0.5 for a in ONES}) == pytest.approx(50.0)
    # 0.5^5 = 0.03125 on one axis: 100 * 0.03125^(1/5) = 50
    assert chi_score({**ONES, "I": 0.03125}) == pytest.approx(50.0)


def test_chi_with_declared_weights() -> None:
    w = {"R": 0.6, "M": 0.1, "C": 0.1, "A": 0.1, "I": 0.1}
    # 100 * 0.25^0.6 = 100 * 2^-1.2
    assert chi_score({**ONES, "R": 0.25}, w) == pytest.approx(43.527528164806204)


def test_zero_axis_gives_chi_exactly_zero() -> None:
    out = chi_score({**ONES, "A": 0.0})
    assert out == 0.0 and out is not None


def test_missing_similarity_gives_null_never_zero_never_renormalized() -> None:
    assert chi_score({**ONES, "M": None}) is None
    # null even when another axis is zero: missing calibration is not a zero
    assert chi_score({**ONES, "M": None, "R": 0.0}) is None
    # an absent axis is rejected rather than renormalized over four axes
    with pytest.raises(InputError, match="absent"):
        chi_score({"R": 1.0, "M": 1.0, "C": 1.0, "A": 1.0})


def test_no_hidden_epsilon() -> None:
    # a tiny h is used as is: 100 * (1e-300)^(1/5) = 1e-58
    assert chi_score({**ONES, "R": 1e-300}) == pytest.approx(100 * 1e-60, rel=1e-9)
    # an extreme distance underflows to exactly 0, and CHI is then exactly 0
    sim = axis_similarity("R", [1.0], [0.0], [0.01], 0.01)
    assert sim.h == 0.0
    assert chi_score({**ONES, "R": sim.h}) == 0.0


@pytest.mark.parametrize("s", [[0.0, 1.0], [-0.1, 1.0]])
def test_zero_or_negative_scales_are_invalid(s: list[float]) -> None:
    with pytest.raises(InputError, match=r"s\[0\].*not positive"):
        delta_squared([0.1, 0.2], [0.1, 0.2], s, 0.01)


def test_a_positive_scale_floor_must_be_declared_and_respected() -> None:
    for floor in (0.0, -1.0):
        with pytest.raises(InputError, match="scale_floor"):
            delta_squared([0.1], [0.1], [0.2], floor)
    with pytest.raises(InputError, match="below the declared floor"):
        delta_squared([0.1, 0.2], [0.1, 0.2], [0.2, 0.04], 0.05)


def test_invalid_inputs_are_rejected() -> None:
    with pytest.raises(InputError, match="lengths"):
        delta_squared([0.1, 0.2], [0.1], [0.2], 0.1)
    with pytest.raises(InputError, match="nonfinite"):
        delta_squared([math.nan], [0.1], [0.2], 0.1)
    with pytest.raises(InputError, match="outside"):
        chi_score({**ONES, "R": 1.2})
    with pytest.raises(InputError, match="nonfinite"):
        chi_score({**ONES, "R": math.inf})
    with pytest.raises(InputError, match="unknown axis"):
        chi_score({**ONES, "X": 1.0})


@pytest.mark.parametrize(
    "weights, rule",
    [
        ({"R": 0.2, "M": 0.2, "C": 0.2, "A": 0.2, "I": 0.3}, "sum"),
        ({"R": 0.0, "M": 0.25, "C": 0.25, "A": 0.25, "I": 0.25}, "> 0"),
        ({"R": -0.2, "M": 0.3, "C": 0.3, "A": 0.3, "I": 0.3}, "> 0"),
        ({"R": 0.25, "M": 0.25, "C": 0.25, "A": 0.25}, "missing"),
    ],
)
def test_weights_must_be_positive_and_sum_to_one(weights: dict[str, float], rule: str) -> None:
    with pytest.raises(InputError, match=rule):
        chi_score(ONES, weights)


def test_fit_scales_applies_the_declared_floor_visibly() -> None:
    cal = fit_scales([[0.0, 0.0], [2.0, 0.01]], scale_floor=0.1)
    assert cal.mu == pytest.approx([1.0, 0.005])
    assert cal.s == pytest.approx([math.sqrt(2.0), 0.1])
    assert cal.floored == [False, True]
    assert cal.n_participants == 2
    with pytest.raises(InputError, match="two calibration participants"):
        fit_scales([[0.0]], 0.1)


def test_vectorized_chi_matches_scalar_and_propagates_missing() -> None:
    h = np.array([[0.5, 0.6, 0.7, 0.8, 0.9], [1.0, 1.0, 0.0, 1.0, 1.0], [0.5, np.nan, 0.5, 0.5, 0.5]])
    out = chi_array(h)
    assert out[0] == pytest.approx(chi_score(dict(zip("RMCAI", h[0], strict=True))))
    assert out[1] == 0.0
    assert np.isnan(out[2])
