"""Holm–Bonferroni step-down multiplicity control."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from sitbench.errors import InputError
from sitbench.stats._validate import finite_vector


class HolmResult(BaseModel):
    """Holm-adjusted p-values and rejections, in the order the p-values were given."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    adjusted: list[float]
    """Step-down adjusted p-values, monotone in the raw p-values and capped at 1."""
    reject: list[bool]
    """Whether each hypothesis is rejected at family-wise level ``alpha``."""
    alpha: float
    """Family-wise error rate the rejections control."""


def check_alpha(alpha: float, *, name: str = "alpha") -> float:
    """Return ``alpha`` when it lies strictly between 0 and 1.

    Raises:
        InputError: ``alpha`` is not in (0, 1).
    """
    if not (0.0 < alpha < 1.0):
        raise InputError(f"{name}: {alpha!r} must lie strictly between 0 and 1, e.g. 0.05")
    return float(alpha)


def holm(pvalues: Sequence[float] | np.ndarray, alpha: float = 0.05) -> HolmResult:
    """Holm–Bonferroni adjustment of m p-values.

    With the p-values sorted ascending, ``p_(1) ≤ … ≤ p_(m)``, the adjusted value of the
    i-th smallest is ``min(1, max_{j ≤ i} (m - j + 1) p_(j))``. Rejection follows the
    step-down rule: reject ``H_(1) … H_(k-1)`` where ``k`` is the first index with
    ``p_(k) > alpha / (m - k + 1)`` (all when there is none). Tied p-values receive the
    same adjusted value and the same decision whatever their order.

    Args:
        pvalues: raw p-values, each in [0, 1].
        alpha: family-wise error rate.

    Returns:
        Adjusted p-values and rejections in input order.

    Raises:
        InputError: empty input, a non-finite value, or a value outside [0, 1].
    """
    p = finite_vector(pvalues, name="pvalues")
    outside = np.flatnonzero((p < 0.0) | (p > 1.0))
    if outside.size:
        index = int(outside[0])
        raise InputError(f"pvalues: value #{index + 1} is {p[index]!r}; p-values must lie in [0, 1]")
    alpha = check_alpha(alpha)
    m = p.size
    order = np.argsort(p, kind="stable")
    sorted_p = p[order]
    multipliers = np.arange(m, 0, -1, dtype=np.float64)
    adjusted_sorted = np.minimum(np.maximum.accumulate(sorted_p * multipliers), 1.0)
    above = sorted_p > alpha / multipliers
    first_kept = int(np.argmax(above)) if above.any() else m
    reject_sorted = np.arange(m) < first_kept
    adjusted = np.empty(m)
    reject = np.empty(m, dtype=bool)
    adjusted[order] = adjusted_sorted
    reject[order] = reject_sorted
    return HolmResult(
        adjusted=[float(x) for x in adjusted],
        reject=[bool(x) for x in reject],
        alpha=alpha,
    )
