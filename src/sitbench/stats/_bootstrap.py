"""Cluster bootstrap: the one resampling of whole clusters, and percentile intervals.

Every cluster bootstrap of the package (the confirmatory pair-id bootstrap here and the
CHI/CHIS whole-trajectory bootstrap in ``sitbench.chi``) draws its resamples through
:func:`resample_indices`, :func:`resample_index_matrix`, :func:`resample_replicates` and
:func:`resample_means`, so the same ``(n_clusters, n_resamples, seed)`` gives the same
resamples everywhere. What differs between callers is the summary of the replicates
(this module's :class:`BootstrapResult`; CHI's intervals with undefined replicates).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict

from sitbench.errors import InputError
from sitbench.stats._validate import finite_vector

PayloadT = TypeVar("PayloadT")

# Resample rows generated per block; both the general and the fast path draw the same
# blocks, so they resample the same cluster indices for the same seed.
_BLOCK_ELEMENTS = 1 << 20
# Interval widths at or below this share of the value's magnitude count as zero.
_DEGENERATE_REL_TOL = 1e-12


@dataclass(frozen=True, slots=True)
class ResampledCluster(Generic[PayloadT]):
    """One draw of a cluster inside one bootstrap resample."""

    instance_id: str
    """Unique within the resample (``"<cluster_id>@<slot>"``), so a cluster drawn twice
    appears as two distinct instances even when a statistic groups by id. In the
    point estimate on the original data it equals ``cluster_id``."""
    cluster_id: str
    """The original cluster (pair) id."""
    payload: PayloadT
    """Everything the caller attached to the cluster (e.g. all trials of a pair in both
    configurations); it moves as one unit."""


class BootstrapResult(BaseModel):
    """Percentile cluster-bootstrap interval of a statistic."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    estimate: float
    """The statistic on the original clusters."""
    lower: float
    """Lower percentile bound, quantile ``(1 - ci) / 2`` of the resample statistics."""
    upper: float
    """Upper percentile bound, quantile ``(1 + ci) / 2`` of the resample statistics."""
    ci: float
    """Nominal coverage of the interval, e.g. 0.95."""
    se: float
    """Standard deviation (ddof = 1) of the resample statistics."""
    n_clusters: int
    """Number of clusters (pairs) resampled."""
    n_resamples: int
    """Number of bootstrap resamples."""
    seed: int
    """Seed of ``numpy.random.default_rng`` that drew the resamples."""
    method: Literal["percentile"] = "percentile"
    """Interval construction: percentile of the resample distribution (linear quantiles)."""
    degenerate: bool
    """True when the interval has zero width (e.g. identical pair effects or one pair):
    it reflects the sample, not population certainty."""
    note: str | None = None
    """Why the interval is degenerate, when it is."""


def _check_options(n_resamples: int, ci: float, seed: int) -> None:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 2:
        raise InputError(f"n_resamples: {n_resamples!r} must be an integer ≥ 2, e.g. 1000")
    if not (0.0 < ci < 1.0):
        raise InputError(f"ci: {ci!r} must lie strictly between 0 and 1, e.g. 0.95")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed: {seed!r} must be a non-negative integer")


def resample_indices(
    n_clusters: int,
    n_resamples: int,
    seed: int,
    *,
    block_elements: int | None = _BLOCK_ELEMENTS,
) -> Iterator[np.ndarray]:
    """Yield blocks of rows of the ``(n_resamples × n_clusters)`` resampling index matrix.

    Row r lists, slot by slot, which cluster index fills that slot in resample r; the
    blocks concatenated are the same for a given ``(n_clusters, n_resamples, seed)``.

    Args:
        n_clusters: number of clusters drawn from (and drawn per resample); at least 1.
        n_resamples: number of resamples (rows).
        seed: seed of ``numpy.random.default_rng``.
        block_elements: at most this many indices are drawn per block (bounds memory);
            ``None`` draws the whole matrix in one call. Both give the same matrix with
            numpy's default generator, whose 32-bit buffer carries across calls; a test
            pins that.

    Yields:
        Integer arrays of shape ``(rows, n_clusters)``, in resample order.
    """
    rng = np.random.default_rng(seed)
    block = n_resamples if block_elements is None else max(1, block_elements // n_clusters)
    remaining = n_resamples
    while remaining > 0:
        rows = min(block, remaining)
        yield rng.integers(0, n_clusters, size=(rows, n_clusters))
        remaining -= rows


def resample_index_matrix(
    n_clusters: int,
    n_resamples: int,
    seed: int,
    *,
    block_elements: int | None = None,
) -> np.ndarray:
    """The whole ``(n_resamples × n_clusters)`` resampling index matrix at once.

    The concatenation of :func:`resample_indices`. Using one matrix for every statistic
    of a report keeps their joint dependence.

    Args:
        n_clusters: number of clusters; at least 1.
        n_resamples: number of resamples (rows).
        seed: seed of ``numpy.random.default_rng``.
        block_elements: as in :func:`resample_indices` (default: one draw).

    Returns:
        Integer array of shape ``(n_resamples, n_clusters)``.
    """
    blocks = list(resample_indices(n_clusters, n_resamples, seed, block_elements=block_elements))
    return blocks[0] if len(blocks) == 1 else np.concatenate(blocks)


def resample_replicates(
    n_clusters: int,
    statistic: Callable[[list[int]], float],
    *,
    n_resamples: int,
    seed: int,
    block_elements: int | None = _BLOCK_ELEMENTS,
) -> np.ndarray:
    """A statistic recomputed on every resample of whole clusters.

    Args:
        n_clusters: number of clusters; at least 1.
        statistic: receives the drawn cluster indices of one resample, slot by slot,
            and returns its value (NaN allowed; the caller decides what it means).
        n_resamples: number of resamples.
        seed: seed of ``numpy.random.default_rng``.
        block_elements: as in :func:`resample_indices`.

    Returns:
        Float array of the ``n_resamples`` replicates, in resample order.
    """
    out = np.empty(n_resamples)
    r = 0
    for block in resample_indices(n_clusters, n_resamples, seed, block_elements=block_elements):
        for row in block.tolist():
            out[r] = statistic(row)
            r += 1
    return out


def resample_means(data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Equal-weight cluster means of every resample, shape ``(n_resamples, *data.shape[1:])``.

    Computed as (draw counts) @ data, which never materialises the resampled array. A NaN
    in any cluster makes that cell NaN in every resample, matching the strict
    missingness of the point estimate.

    Args:
        data: one row per cluster, shape ``(n_clusters, ...)``.
        indices: the resampling index matrix (:func:`resample_index_matrix`).

    Returns:
        The resample means.
    """
    n_res, n = indices.shape
    flat = (indices + n * np.arange(n_res)[:, None]).ravel()
    counts = np.bincount(flat, minlength=n_res * n).reshape(n_res, n).astype(float)
    out: np.ndarray = counts @ np.asarray(data, dtype=float).reshape(n, -1) / n
    return out.reshape((n_res, *np.shape(data)[1:]))


def _summarise(estimate: float, stats: np.ndarray, *, ci: float, seed: int, n_clusters: int) -> BootstrapResult:
    lower, upper = (float(x) for x in np.quantile(stats, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0]))
    scale = max(1.0, abs(lower), abs(upper))
    degenerate = n_clusters == 1 or (upper - lower) <= _DEGENERATE_REL_TOL * scale
    note = None
    if degenerate:
        note = (
            "degenerate interval: only one cluster"
            if n_clusters == 1
            else "degenerate interval: every resample gives the same value (identical cluster effects)"
        )
        # Show a zero-width interval as exactly that, not two values an ulp apart.
        lower = upper = float(np.median(stats))
    return BootstrapResult(
        estimate=float(estimate),
        lower=lower,
        upper=upper,
        ci=ci,
        se=0.0 if np.ptp(stats) == 0 else float(np.std(stats, ddof=1)),
        n_clusters=n_clusters,
        n_resamples=int(stats.size),
        seed=seed,
        degenerate=degenerate,
        note=note,
    )


def cluster_bootstrap(
    values_by_cluster: Mapping[str, PayloadT],
    statistic: Callable[[Sequence[ResampledCluster[PayloadT]]], float],
    *,
    n_resamples: int = 1000,
    seed: int,
    ci: float = 0.95,
) -> BootstrapResult:
    """Percentile bootstrap that resamples whole clusters (pairs) with replacement.

    Each resample draws ``n_clusters`` cluster ids with replacement; the payload of a
    drawn cluster (for a paired contrast: both configurations, both lineages and all
    strata of the pair) travels as one unit, and every draw gets a fresh
    ``instance_id`` so repeated draws stay distinct. ``statistic`` recomputes the whole
    endpoint from the list of drawn clusters.

    Args:
        values_by_cluster: cluster id → payload, in a fixed order (the order matters for
            reproducibility: the same order and seed give the same resamples).
        statistic: function of a sequence of :class:`ResampledCluster` returning a float.
        n_resamples: number of bootstrap resamples (the plan uses 1,000).
        seed: seed of ``numpy.random.default_rng``; recorded in the result.
        ci: nominal coverage of the percentile interval.

    Returns:
        Point estimate, percentile interval, seed and a degeneracy flag.

    Raises:
        InputError: no clusters, a bad option, or a statistic that is not finite.
    """
    _check_options(n_resamples, ci, seed)
    ids = [str(key) for key in values_by_cluster]
    if not ids:
        raise InputError("values_by_cluster: no clusters given; pass at least one pair")
    payloads = list(values_by_cluster.values())
    original = [ResampledCluster(cid, cid, payload) for cid, payload in zip(ids, payloads, strict=True)]
    estimate = _finite(statistic(original), where="the original clusters")
    done = 0

    def on_resample(row: list[int]) -> float:
        nonlocal done
        drawn = [ResampledCluster(f"{ids[i]}@{slot}", ids[i], payloads[i]) for slot, i in enumerate(row)]
        value = _finite(statistic(drawn), where=f"resample {done}")
        done += 1
        return value

    stats = resample_replicates(len(ids), on_resample, n_resamples=n_resamples, seed=seed)
    return _summarise(estimate, stats, ci=ci, seed=seed, n_clusters=len(ids))


def bootstrap_mean(
    values: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int,
    ci: float = 0.95,
) -> BootstrapResult:
    """Fast path: cluster bootstrap of the mean of one value per cluster.

    The common case of a mean paired effect over per-pair differences, vectorised with
    the ``(n_resamples × n_clusters)`` index matrix. It draws exactly the same resamples
    as :func:`cluster_bootstrap` with the same seed and number of clusters.

    Args:
        values: one value per cluster, e.g. per-pair differences ``d_k``.
        n_resamples: number of bootstrap resamples.
        seed: seed of ``numpy.random.default_rng``; recorded in the result.
        ci: nominal coverage of the percentile interval.

    Returns:
        Mean, percentile interval, seed and a degeneracy flag.

    Raises:
        InputError: empty or non-finite values, or a bad option.
    """
    _check_options(n_resamples, ci, seed)
    x = finite_vector(values, name="values")
    stats = np.concatenate([x[block].mean(axis=1) for block in resample_indices(x.size, n_resamples, seed)])
    return _summarise(math.fsum(x.tolist()) / x.size, stats, ci=ci, seed=seed, n_clusters=int(x.size))


def _finite(value: float, *, where: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"statistic: returned {value!r} on {where}; it must return a float") from exc
    if not math.isfinite(number):
        raise InputError(
            f"statistic: returned {number!r} on {where}; make it finite for every resample"
        )
    return number
