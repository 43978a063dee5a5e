"""Whole-cluster bootstrap, categorical EIMC intervals and Wilson intervals (spec §8).

* The resampling unit is the independent cluster (trajectory, randomized pair
  or participant). A resample draws whole clusters with replacement and keeps
  every step and load of each drawn cluster together, which preserves
  cross-time and cross-load dependence. Nonlinear scores (CHI, Q_M, EIMC) are
  recomputed from each resample.
* At least 2,000 resamples; fewer is rejected. Pointwise intervals are the
  2.5th/97.5th percentiles (numpy's default linear interpolation); they are
  *pointwise* and do not certify a whole curve.
* Fewer than two clusters gives null uncertainty (``lower``/``upper`` ``None``).
* A resample whose statistic is undefined is counted in ``n_undefined``; the
  percentile limits use the defined resamples, and ``n_undefined`` is always
  reported beside them.
* EIMC intervals keep categorical mass: the bootstrap distribution is reported
  over the categories ``no_passing_tested_load``, each observed load and
  ``lower_bound/right_censored``; the interval limits are categories on that
  ordered scale, never an invented numeric capacity.
* Intervals are conditional on the fixed calibration (no participant-level
  refit of mu and s is available here).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict

from sitbench.chi._common import MEMORY_FACTORS, baseline_weights, check_weights
from sitbench.errors import InputError
from sitbench.stats import resample_index_matrix, resample_means, resample_replicates

T = TypeVar("T")

MIN_RESAMPLES = 2000
"""Smallest number of bootstrap resamples accepted."""

Z_95 = 1.959963984540054
"""Standard normal 97.5th percentile, for 95% Wilson intervals."""

NO_PASS = "no_passing_tested_load"
CENSORED = "lower_bound/right_censored"


class Interval(BaseModel):
    """A point estimate with its whole-cluster bootstrap percentile interval."""

    model_config = ConfigDict(extra="forbid")

    estimate: float | None
    """The statistic on the original clusters."""
    lower: float | None
    """Lower percentile limit; ``None`` with fewer than two clusters."""
    upper: float | None
    """Upper percentile limit; ``None`` with fewer than two clusters."""
    level: float
    """Nominal coverage (0.95 gives 2.5th/97.5th percentiles)."""
    n_clusters: int
    """Number of independent clusters resampled."""
    n_resamples: int
    """Number of bootstrap resamples (0 when none were drawn)."""
    n_undefined: int
    """Resamples in which the statistic was undefined."""
    seed: int
    """Seed of the resampling generator."""
    method: str = "whole-cluster percentile bootstrap, pointwise, conditional on fixed calibration"
    """Uncertainty type."""


def check_resampling(n_clusters: int, n_resamples: int, level: float) -> None:
    """Validate the resampling settings."""
    if n_resamples < MIN_RESAMPLES:
        raise InputError(f"field 'n_resamples': {n_resamples} is below the minimum {MIN_RESAMPLES}; use at least {MIN_RESAMPLES}")
    if not 0.0 < level < 1.0:
        raise InputError(f"field 'level': {level!r} must be in (0, 1)")
    if n_clusters < 0:
        raise InputError("field 'clusters': negative cluster count")


def bootstrap_indices(n_clusters: int, n_resamples: int, seed: int) -> np.ndarray:
    """Cluster indices of each resample, shape ``(n_resamples, n_clusters)``.

    The package's one cluster resampling (:func:`sitbench.stats.resample_index_matrix`),
    drawn in a single call as this kit always has. Deterministic in ``seed`` (numpy
    ``default_rng``). Using one index matrix for every statistic of a report keeps their
    joint dependence.
    """
    return resample_index_matrix(n_clusters, n_resamples, seed, block_elements=None)


def percentile_interval(
    estimate: float | None, samples: np.ndarray, n_clusters: int, seed: int, level: float = 0.95
) -> Interval:
    """Percentile interval from bootstrap replicates (NaN = undefined replicate)."""
    samples = np.asarray(samples, dtype=float)
    est = None if estimate is None or not math.isfinite(estimate) else float(estimate)
    if n_clusters < 2:
        return Interval(estimate=est, lower=None, upper=None, level=level, n_clusters=n_clusters, n_resamples=0, n_undefined=0, seed=seed)
    ok = samples[np.isfinite(samples)]
    lo = hi = None
    if ok.size:
        q = (1.0 - level) / 2.0
        lo, hi = (float(x) for x in np.percentile(ok, [100 * q, 100 * (1 - q)]))
    return Interval(
        estimate=est,
        lower=lo,
        upper=hi,
        level=level,
        n_clusters=n_clusters,
        n_resamples=int(samples.size),
        n_undefined=int(samples.size - ok.size),
        seed=seed,
    )


def cluster_bootstrap(
    clusters: Sequence[T],
    statistic: Callable[[list[T]], float | None],
    *,
    seed: int,
    n_resamples: int = MIN_RESAMPLES,
    level: float = 0.95,
) -> Interval:
    """Whole-cluster percentile bootstrap of any statistic.

    Args:
        clusters: One item per independent cluster (a whole trajectory or pair).
        statistic: Computes the estimand from a list of clusters; return ``None``
            when undefined. It is recomputed on every resample.
        seed: Seed of the resampling generator (recorded in the result).
        n_resamples: Number of resamples, at least 2,000.
        level: Nominal coverage.

    Returns:
        The :class:`Interval`; limits are ``None`` with fewer than two clusters.
    """
    items = list(clusters)
    check_resampling(len(items), n_resamples, level)
    estimate = statistic(items) if items else None
    if len(items) < 2:
        return percentile_interval(estimate, np.array([]), len(items), seed, level)
    reps = resample_replicates(
        len(items),
        lambda row: _nan(statistic([items[j] for j in row])),
        n_resamples=n_resamples,
        seed=seed,
        block_elements=None,
    )
    return percentile_interval(estimate, reps, len(items), seed, level)


def _nan(x: float | None) -> float:
    return math.nan if x is None else float(x)


def q_m_array(factors: np.ndarray, alpha: Mapping[str, float] | None = None) -> np.ndarray:
    """Vectorized Q_M over the last axis (``r t s u i f``, f the false-memory rate); NaN propagates."""
    a = baseline_weights(MEMORY_FACTORS) if alpha is None else check_weights(alpha, MEMORY_FACTORS, "alpha")
    av = np.array([a[k] for k in MEMORY_FACTORS])
    x = np.array(factors, dtype=float, copy=True)
    x[..., 5] = 1.0 - x[..., 5]
    return np.asarray(np.prod(np.power(x, av), axis=-1))


def eimc_codes(q: np.ndarray, tau: float) -> np.ndarray:
    """Ordinal EIMC category per row of a Q_M matrix ``(..., K)``.

    Codes: ``-1`` no passing tested load; ``k`` observed EIMC at grid index ``k``;
    ``K + k`` right-censored with largest tested (and passing) index ``k``.
    """
    k_loads = q.shape[-1]
    tested = np.isfinite(q)
    passing = tested & (np.nan_to_num(q, nan=-1.0) >= tau)
    pos = np.arange(k_loads)
    last_pass = np.where(passing, pos, -1).max(axis=-1)
    last_tested = np.where(tested, pos, -1).max(axis=-1)
    return np.where(last_pass < 0, -1, np.where(last_pass == last_tested, k_loads + last_pass, last_pass))


class EIMCCategory(BaseModel):
    """One category of the bootstrap EIMC distribution."""

    model_config = ConfigDict(extra="forbid")

    status: str
    """``no_passing_tested_load``, ``observed`` or ``lower_bound/right_censored``."""
    eimc: int | None
    """The load (a lower bound when right-censored); ``None`` for no passing load."""
    frequency: float
    """Share of resamples in this category."""


class EIMCInterval(BaseModel):
    """Bootstrap distribution of EIMC with categorical mass kept."""

    model_config = ConfigDict(extra="forbid")

    tau: float
    """Threshold."""
    categories: list[EIMCCategory]
    """Categories in increasing order, with their resample frequencies (zero-mass ones omitted)."""
    lower: EIMCCategory | None
    """Category at the lower percentile of the ordered scale; ``None`` with fewer than two clusters."""
    upper: EIMCCategory | None
    """Category at the upper percentile; ``None`` with fewer than two clusters."""
    crossing_frequency: dict[int, float]
    """Per load: share of resamples with ``Q_M(N) >= tau``."""
    q_m: dict[int, Interval]
    """Pointwise Q_M intervals per load."""
    n_clusters: int
    """Independent clusters resampled."""
    n_resamples: int
    """Resamples drawn."""
    seed: int
    """Resampling seed."""
    level: float
    """Nominal coverage."""


def _category(code: int, grid: Sequence[int], freq: float) -> EIMCCategory:
    k = len(grid)
    if code < 0:
        return EIMCCategory(status=NO_PASS, eimc=None, frequency=freq)
    if code >= k:
        return EIMCCategory(status=CENSORED, eimc=grid[code - k], frequency=freq)
    return EIMCCategory(status="observed", eimc=grid[code], frequency=freq)


def eimc_bootstrap(
    grid: Sequence[int],
    factors: np.ndarray,
    *,
    tau: float,
    seed: int,
    alpha: Mapping[str, float] | None = None,
    n_resamples: int = MIN_RESAMPLES,
    level: float = 0.95,
    indices: np.ndarray | None = None,
) -> EIMCInterval:
    """Resample whole clusters' curves, recompute the grid maximum, keep categorical mass.

    Args:
        grid: Registered loads.
        factors: Per-cluster factors, shape ``(n_clusters, len(grid), 6)`` in
            ``r t s u i f`` order (NaN = missing). Clusters are averaged equally.
        tau: Threshold.
        seed: Resampling seed.
        alpha: Q_M exponents (baseline 1/6 when omitted).
        n_resamples: At least 2,000.
        level: Nominal coverage.
        indices: A shared resample index matrix (from :func:`bootstrap_indices`), if any.

    Returns:
        The :class:`EIMCInterval`.
    """
    arr = np.asarray(factors, dtype=float)
    n = arr.shape[0]
    check_resampling(n, n_resamples, level)
    if arr.ndim != 3 or arr.shape[1:] != (len(grid), 6):
        raise InputError(f"field 'factors': expected shape (clusters, {len(grid)}, 6), got {arr.shape}")
    q_hat = q_m_array(arr.mean(axis=0), alpha) if n else np.full(len(grid), np.nan)
    if n < 2:
        q_iv = {g: percentile_interval(_f(q_hat[k]), np.array([]), n, seed, level) for k, g in enumerate(grid)}
        return EIMCInterval(tau=tau, categories=[], lower=None, upper=None, crossing_frequency={}, q_m=q_iv, n_clusters=n, n_resamples=0, seed=seed, level=level)
    idx = bootstrap_indices(n, n_resamples, seed) if indices is None else indices
    q = q_m_array(resample_means(arr, idx), alpha)  # (B, K)
    codes = eimc_codes(q, tau)
    values, counts = np.unique(codes, return_counts=True)
    cats = [_category(int(c), grid, float(m) / len(codes)) for c, m in zip(values, counts, strict=True)]
    cum = np.cumsum(counts) / len(codes)
    qlo = (1.0 - level) / 2.0
    lo_code = int(values[np.searchsorted(cum, qlo, side="left")])
    hi_code = int(values[min(int(np.searchsorted(cum, 1.0 - qlo, side="left")), len(values) - 1)])
    return EIMCInterval(
        tau=tau,
        categories=cats,
        lower=_category(lo_code, grid, float(counts[list(values).index(lo_code)]) / len(codes)),
        upper=_category(hi_code, grid, float(counts[list(values).index(hi_code)]) / len(codes)),
        crossing_frequency={g: float(np.mean(np.nan_to_num(q[:, k], nan=-1.0) >= tau)) for k, g in enumerate(grid)},
        q_m={g: percentile_interval(_f(q_hat[k]), q[:, k], n, seed, level) for k, g in enumerate(grid)},
        n_clusters=n,
        n_resamples=int(idx.shape[0]),
        seed=seed,
        level=level,
    )


def _f(x: Any) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """Wilson score interval for an independent Bernoulli proportion.

    It does not correct for clustering of events; use the cluster bootstrap for that.

    Returns:
        ``(lower, upper)``, or ``None`` when ``n == 0``.
    """
    if n < 0 or successes < 0 or successes > n:
        raise InputError(f"field 'successes': need 0 <= successes ({successes}) <= n ({n})")
    if n == 0:
        return None
    p = successes / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, center - half), min(1.0, center + half)
