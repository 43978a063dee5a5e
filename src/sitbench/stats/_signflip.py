"""Exact (and, for large n, Monte-Carlo) paired sign-flip permutation test."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from sitbench.errors import InputError
from sitbench.stats._validate import finite_vector

DEFAULT_REL_TOL = 1e-9
MAX_EXACT_LIMIT = 40
# Rows of sign vectors drawn per Monte-Carlo block; fixed so that a (seed, n, n_draws)
# triple always consumes the random stream the same way on every machine.
_MC_BLOCK_ELEMENTS = 1 << 20


class SignFlipResult(BaseModel):
    """Outcome of a two-sided paired sign-flip permutation test on ``|mean d|``."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    statistic: float
    """Observed test statistic ``|mean d|`` over the n pair-level differences."""
    mean: float
    """Signed mean difference (second configuration minus first)."""
    p: float
    """Exact: share of all ``2^n`` sign assignments whose statistic is ≥ the observed one
    (ties included). Monte Carlo: ``(1 + n_extreme) / (1 + n_draws)``."""
    n: int
    """Number of pair-level differences, zeros included."""
    n_zero: int
    """How many differences are exactly zero (they keep their assignment multiplicity)."""
    n_assignments: int
    """Exact: ``2^n`` sign assignments enumerated. Monte Carlo: the number of random draws."""
    n_extreme: int
    """Assignments (or draws) whose statistic is ≥ the observed one within ``rel_tol``."""
    method: Literal["exact", "monte_carlo"]
    """``exact`` full enumeration, or ``monte_carlo`` random sign draws."""
    seed: int | None
    """Seed of the Monte-Carlo draws; ``None`` for the exact test."""
    rel_tol: float
    """Tie tolerance: an assignment ties when ``|S| ≥ |S_obs| - rel_tol * Σ|d|``."""


def _signed_sums(values: np.ndarray) -> np.ndarray:
    """Sums ``Σ s_i v_i`` over all ``2^len(values)`` sign vectors ``s ∈ {-1, +1}^m``."""
    sums = np.zeros(1, dtype=np.float64)
    for value in values:
        sums = np.concatenate((sums + value, sums - value))
    return sums


def _count_exact(diffs: np.ndarray, threshold: float) -> int:
    """Number of sign assignments with ``|Σ s_i d_i| ≥ threshold`` (meet in the middle).

    The differences are split in two halves; every signed sum is ``a + b`` with ``a`` from
    the first half's ``2^⌊n/2⌋`` sums and ``b`` from the second half's sorted sums, so
    the count is two binary searches per ``a`` instead of ``2^n`` full sums.
    """
    n = diffs.size
    if threshold <= 0.0:
        return 1 << n
    half = n // 2
    left = _signed_sums(diffs[:half])
    right = np.sort(_signed_sums(diffs[half:]))
    # threshold > 0 makes the two tails disjoint, so they add up without double counting.
    upper = right.size - np.searchsorted(right, threshold - left, side="left")
    lower = np.searchsorted(right, -threshold - left, side="right")
    return int(upper.sum(dtype=np.int64) + lower.sum(dtype=np.int64))


def _count_monte_carlo(diffs: np.ndarray, threshold: float, n_draws: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    n = diffs.size
    block = max(1, _MC_BLOCK_ELEMENTS // n)
    count = 0
    remaining = n_draws
    while remaining > 0:
        rows = min(block, remaining)
        signs = rng.integers(0, 2, size=(rows, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        count += int(np.count_nonzero(np.abs(signs @ diffs) >= threshold))
        remaining -= rows
    return count


def sign_flip_test(
    diffs: Sequence[float] | np.ndarray,
    *,
    max_exact: int = 24,
    n_draws: int = 100_000,
    seed: int = 0,
    rel_tol: float = DEFAULT_REL_TOL,
) -> SignFlipResult:
    """Two-sided paired sign-flip permutation test with statistic ``|mean d|``.

    Under the null that the pair-level differences have exchangeable signs, every one of
    the ``2^n`` assignments ``s ∈ {-1, +1}^n`` is equally likely. For ``n <= max_exact``
    all of them are enumerated exactly (meet in the middle: two halves of ``2^(n/2)``
    partial sums and binary searches, so n = 20 takes milliseconds and memory stays at a
    few thousand floats). Zero differences are kept: both of their signs give the same sum,
    so each zero doubles the multiplicity of every assignment of the others.

    Floating-point ties: sums added in different orders can differ in the last bits, so an
    assignment counts as "at least as extreme" when
    ``|Σ s_i d_i| >= |Σ d_i| - rel_tol * Σ |d_i|``. The tolerance is relative to
    ``Σ |d_i|``, the largest possible ``|Σ s_i d_i|``, which bounds the rounding error.

    Above ``max_exact`` the test draws ``n_draws`` independent sign vectors from
    ``numpy.random.default_rng(seed)`` and reports ``p = (1 + n_extreme) / (1 + n_draws)``:
    counting the observed assignment as one draw keeps the p-value valid (never zero).

    Args:
        diffs: pair-level differences ``d_k`` (second configuration minus first).
        max_exact: largest n enumerated exactly (at most 40).
        n_draws: Monte-Carlo draws used when ``n > max_exact``.
        seed: seed of the Monte-Carlo draws (recorded in the result; unused when exact).
        rel_tol: relative tie tolerance, see above.

    Returns:
        The statistic, p-value, counts and method.

    Raises:
        InputError: no differences, a non-finite difference, or a bad option value.
    """
    d = finite_vector(diffs, name="diffs")
    if not 0 <= max_exact <= MAX_EXACT_LIMIT:
        raise InputError(f"max_exact: {max_exact} is outside 0..{MAX_EXACT_LIMIT}; lower it")
    if not 0.0 <= rel_tol < 1e-3:
        raise InputError(f"rel_tol: {rel_tol} must be in [0, 0.001); use the default 1e-9")
    n = int(d.size)
    signed_total = math.fsum(d.tolist())
    scale = math.fsum(np.abs(d).tolist())
    threshold = abs(signed_total) - rel_tol * scale
    common: dict[str, Any] = {
        "statistic": abs(signed_total) / n,
        "mean": signed_total / n,
        "n": n,
        "n_zero": int(np.count_nonzero(d == 0.0)),
        "rel_tol": rel_tol,
    }
    if n <= max_exact:
        n_extreme = _count_exact(d, threshold)
        total = 1 << n
        return SignFlipResult(
            p=n_extreme / total,
            n_assignments=total,
            n_extreme=n_extreme,
            method="exact",
            seed=None,
            **common,
        )
    if n_draws < 1:
        raise InputError(f"n_draws: {n_draws} must be at least 1 for the Monte-Carlo test")
    n_extreme = _count_monte_carlo(d, threshold, n_draws, seed)
    return SignFlipResult(
        p=(1 + n_extreme) / (1 + n_draws),
        n_assignments=n_draws,
        n_extreme=n_extreme,
        method="monte_carlo",
        seed=seed,
        **common,
    )
