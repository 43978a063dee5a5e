"""Exact sign-flip test against brute-force enumeration, and the Monte-Carlo fallback."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitbench.errors import InputError
from sitbench.stats import sign_flip_test


def brute_force_p(diffs: list[float]) -> Fraction:
    """Enumerate every sign vector with exact rational arithmetic (decimal-intended values)."""
    exact = [Fraction(str(x)) for x in diffs]
    observed = abs(sum(exact))
    hits = sum(
        1
        for signs in itertools.product((1, -1), repeat=len(exact))
        if abs(sum(s * x for s, x in zip(signs, exact, strict=True))) >= observed
    )
    return Fraction(hits, 2 ** len(exact))


def test_hand_computed_three_values() -> None:
    # ±1±2±3 gives 6, 4, 2, 0, 0, -2, -4, -6: only ±6 reach |6|, so p = 2/8.
    result = sign_flip_test([1.0, 2.0, 3.0])
    assert result.method == "exact"
    assert result.n_assignments == 8
    assert result.n_extreme == 2
    assert result.p == 0.25
    assert result.statistic == pytest.approx(2.0)
    assert result.seed is None


def test_zero_difference_keeps_its_multiplicity() -> None:
    # Adding a zero doubles both the assignments and the extreme ones: p unchanged.
    result = sign_flip_test([1.0, 2.0, 3.0, 0.0])
    assert (result.n_assignments, result.n_extreme, result.n_zero) == (16, 4, 1)
    assert result.p == 0.25
    assert result.statistic == pytest.approx(1.5)


def test_ties_are_counted() -> None:
    # Observed |1 + 1 - 1 + 1| = 2; sums over ±1 four times: |S| ∈ {0, 2, 4};
    # |S| ≥ 2 for all but the 6 zero-sum assignments: p = 10/16.
    result = sign_flip_test([1.0, 1.0, -1.0, 1.0])
    assert result.n_extreme == 10
    assert result.p == 10 / 16


def test_float_ties_use_the_tolerance() -> None:
    # Observed |0.1 + 0.2 - 0.3 + 0.3| = 0.3. In rational arithmetic 12 of 16 assignments
    # reach it (p = 12/16), but binary sums such as 0.1 + 0.2 land a hair away from 0.3,
    # so a comparison without tolerance loses two tied assignments.
    diffs = [0.1, 0.2, -0.3, 0.3]
    assert brute_force_p(diffs) == Fraction(12, 16)
    assert sign_flip_test(diffs).p == 12 / 16
    assert sign_flip_test(diffs, rel_tol=0.0).p == 10 / 16


def test_all_zero_and_single_values() -> None:
    assert sign_flip_test([0.0, 0.0, 0.0]).p == 1.0
    assert sign_flip_test([0.5]).p == 1.0
    assert sign_flip_test([0.0]).p == 1.0


@pytest.mark.parametrize(
    "diffs",
    [
        [0.1, -0.2, 0.3, 0.0, 0.25, -0.05, 0.15, 0.2, 0.0, 0.1],
        [0.5, 0.5, 0.5, -0.5, 0.0, 0.0, 0.25, 0.25],
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.05, 0.1, 0.15, 0.3, -0.6, 0.2, 0.1, -0.1, 0.3, 0.7],
        [-0.125, -0.25, -0.375, -0.5, -0.625],
    ],
)
def test_matches_brute_force_on_hand_picked_inputs(diffs: list[float]) -> None:
    assert sign_flip_test(diffs).p == float(brute_force_p(diffs))


def test_matches_brute_force_on_random_rounded_inputs() -> None:
    rng = np.random.default_rng(20240611)
    for _ in range(80):
        n = int(rng.integers(1, 11))
        # Two decimals and many zeros: lots of exact ties and float near-ties.
        diffs = [round(float(x), 2) for x in rng.choice([-0.3, -0.1, 0.0, 0.1, 0.2, 0.3, 0.45], size=n)]
        assert sign_flip_test(diffs).p == float(brute_force_p(diffs)), diffs


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=-6, max_value=6), min_size=1, max_size=10))
def test_matches_brute_force_property(values: list[int]) -> None:
    diffs = [v / 4 for v in values]
    result = sign_flip_test(diffs)
    assert result.p == float(brute_force_p(diffs))
    assert result.n_assignments == 2 ** len(diffs)
    assert result.n_zero == values.count(0)


def test_matches_full_numpy_enumeration_at_n16() -> None:
    rng = np.random.default_rng(3)
    diffs = rng.integers(-3, 4, size=16).astype(float)
    bits = (np.arange(2**16)[:, None] >> np.arange(16)) & 1
    sums = (1 - 2 * bits) @ diffs
    expected = np.count_nonzero(np.abs(sums) >= abs(diffs.sum()))
    result = sign_flip_test(diffs)
    assert result.n_extreme == expected
    assert result.n_assignments == 65536


def test_n20_is_exact() -> None:
    rng = np.random.default_rng(11)
    result = sign_flip_test(rng.normal(0.2, 0.3, size=20))
    assert result.method == "exact"
    assert result.n_assignments == 1_048_576
    # Twenty differences with mean ≈ 0.26 and sd ≈ 0.3 are far from symmetric about 0: only 198 of
    # the 2**20 sign assignments are as extreme, and the identity assignment is one of them.
    assert result.n_extreme == 198
    assert result.p == pytest.approx(198 / 1_048_576) and result.p < 0.001
    # The statistic is symmetric in the sign of all differences.
    flipped = sign_flip_test(-rng.normal(0.2, 0.3, size=20))
    assert flipped.n_assignments == 1_048_576


def test_monte_carlo_above_max_exact() -> None:
    rng = np.random.default_rng(5)
    diffs = np.round(rng.normal(0.1, 0.4, size=12), 2)
    exact = sign_flip_test(diffs)
    mc = sign_flip_test(diffs, max_exact=8, n_draws=200_000, seed=42)
    assert mc.method == "monte_carlo"
    assert mc.seed == 42
    assert mc.n_assignments == 200_000
    assert mc.p == (1 + mc.n_extreme) / (1 + 200_000)
    assert abs(mc.p - exact.p) < 0.01
    again = sign_flip_test(diffs, max_exact=8, n_draws=200_000, seed=42)
    assert again == mc
    other = sign_flip_test(diffs, max_exact=8, n_draws=200_000, seed=43)
    assert other.n_extreme != mc.n_extreme


def test_monte_carlo_p_is_never_zero() -> None:
    result = sign_flip_test([1.0] * 30, n_draws=1000, seed=0)
    assert result.method == "monte_carlo"
    assert result.n_extreme == 0
    assert result.p == 1 / 1001


@pytest.mark.parametrize("bad", [[], [0.1, float("nan")], [float("inf")]])
def test_bad_input(bad: list[float]) -> None:
    with pytest.raises(InputError, match="diffs"):
        sign_flip_test(bad)


def test_bad_options() -> None:
    with pytest.raises(InputError, match="max_exact"):
        sign_flip_test([1.0], max_exact=41)
    with pytest.raises(InputError, match="n_draws"):
        sign_flip_test([1.0, 2.0], max_exact=1, n_draws=0)
