"""Holm–Bonferroni against hand computation and the statsmodels oracle."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from sitbench.errors import InputError
from sitbench.stats import holm


def oracle(p: list[float], alpha: float) -> tuple[list[float], list[bool]]:
    # multipletests runs a full gc.collect() on every call (tens of ms under pytest);
    # switching it off for the call keeps hundreds of oracle comparisons fast.
    with mock.patch("gc.collect", lambda *args: 0):
        reject, adjusted, _, _ = multipletests(p, alpha=alpha, method="holm")
    return [float(x) for x in adjusted], [bool(x) for x in reject]


def test_hand_computed() -> None:
    # Sorted 0.01, 0.03, 0.04, 0.2 → ×4, ×3, ×2, ×1 = 0.04, 0.09, 0.08, 0.2 → running max
    # 0.04, 0.09, 0.09, 0.2. Step-down: 0.01 ≤ 0.05/4 rejects; 0.03 > 0.05/3 stops.
    result = holm([0.01, 0.04, 0.03, 0.2])
    assert result.adjusted == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert result.reject == [True, False, False, False]
    assert result.alpha == 0.05


def test_capped_at_one_and_monotone() -> None:
    result = holm([0.6, 0.7, 0.9])
    assert result.adjusted == [1.0, 1.0, 1.0]
    assert result.reject == [False, False, False]
    result = holm([0.3, 0.001])
    assert result.adjusted == pytest.approx([0.3, 0.002])


def test_ties_share_adjusted_value() -> None:
    result = holm([0.02, 0.02, 0.5])
    assert result.adjusted[0] == result.adjusted[1] == pytest.approx(0.06)
    assert result.reject == [False, False, False]


def test_equals_statsmodels_on_seeded_inputs() -> None:
    rng = np.random.default_rng(7)
    for trial in range(500):
        m = int(rng.integers(1, 13))
        kind = trial % 3
        if kind == 0:
            p = rng.uniform(0, 1, size=m)
        elif kind == 1:
            p = rng.uniform(0, 0.06, size=m)  # many decisions near the thresholds
        else:
            p = rng.choice([0.0, 0.00625, 0.01, 0.0125, 0.025, 0.05, 1.0], size=m)  # ties, boundaries
        alpha = float(rng.choice([0.01, 0.05, 0.1]))
        result = holm(p.tolist(), alpha=alpha)
        adjusted, reject = oracle(p.tolist(), alpha)
        assert result.adjusted == adjusted
        assert result.reject == reject


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=1, max_size=12),
    st.sampled_from([0.01, 0.05, 0.1, 0.2]),
)
def test_equals_statsmodels_property(p: list[float], alpha: float) -> None:
    result = holm(p, alpha=alpha)
    adjusted, reject = oracle(p, alpha)
    assert result.adjusted == adjusted
    assert result.reject == reject


@pytest.mark.parametrize("bad", [[], [0.1, 1.5], [-0.01], [float("nan")]])
def test_bad_pvalues(bad: list[float]) -> None:
    with pytest.raises(InputError, match="pvalues"):
        holm(bad)


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1])
def test_bad_alpha(alpha: float) -> None:
    with pytest.raises(InputError, match="alpha"):
        holm([0.1], alpha=alpha)
