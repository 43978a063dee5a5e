"""Cluster bootstrap: reproducibility, resample instance ids, degenerate intervals."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from sitbench.errors import InputError
from sitbench.stats import ResampledCluster, bootstrap_mean, cluster_bootstrap, resample_indices

DIFFS = [0.25, 0.0, 0.5, -0.25, 0.125, 0.375, 0.25, 0.0, 0.5, 0.125]


def mean_payload(clusters: Sequence[ResampledCluster[float]]) -> float:
    return sum(c.payload for c in clusters) / len(clusters)


def test_reproducible_from_seed() -> None:
    first = bootstrap_mean(DIFFS, n_resamples=1000, seed=123)
    second = bootstrap_mean(DIFFS, n_resamples=1000, seed=123)
    assert first == second
    assert first.seed == 123
    assert first.n_resamples == 1000
    assert first.n_clusters == 10
    assert first.estimate == pytest.approx(0.1875)


def test_different_seeds_differ() -> None:
    results = {bootstrap_mean(DIFFS, n_resamples=1000, seed=s).se for s in range(5)}
    assert len(results) == 5


def test_interval_is_the_documented_percentile_of_seeded_resamples() -> None:
    # The documented contract: row r of the index matrix from default_rng(seed) picks
    # the clusters of resample r; the interval is the linear 2.5% / 97.5% quantiles.
    x = np.array(DIFFS)
    index = np.random.default_rng(9).integers(0, x.size, size=(400, x.size))
    means = x[index].mean(axis=1)
    result = bootstrap_mean(DIFFS, n_resamples=400, seed=9)
    assert result.lower == pytest.approx(float(np.quantile(means, 0.025)))
    assert result.upper == pytest.approx(float(np.quantile(means, 0.975)))
    assert result.se == pytest.approx(float(np.std(means, ddof=1)))
    assert result.lower < result.estimate < result.upper
    assert not result.degenerate
    assert result.note is None


def test_general_path_matches_fast_path() -> None:
    by_pair = {f"pair{i:02d}": value for i, value in enumerate(DIFFS)}
    general = cluster_bootstrap(by_pair, mean_payload, n_resamples=300, seed=77, ci=0.9)
    fast = bootstrap_mean(DIFFS, n_resamples=300, seed=77, ci=0.9)
    assert general.estimate == pytest.approx(fast.estimate)
    assert general.lower == pytest.approx(fast.lower, abs=1e-12)
    assert general.upper == pytest.approx(fast.upper, abs=1e-12)
    assert general.se == pytest.approx(fast.se, abs=1e-12)


def test_repeated_draws_get_unique_instance_ids() -> None:
    by_pair = {name: 1.0 for name in "abcde"}
    seen_duplicate_cluster = False

    def statistic(clusters: Sequence[ResampledCluster[float]]) -> float:
        nonlocal seen_duplicate_cluster
        instances = [c.instance_id for c in clusters]
        assert len(set(instances)) == len(clusters) == 5
        counts = Counter(c.cluster_id for c in clusters)
        seen_duplicate_cluster |= max(counts.values()) > 1
        # Grouping by instance id keeps a cluster drawn twice as two groups.
        groups = {c.instance_id: c.payload for c in clusters}
        return float(len(groups))

    result = cluster_bootstrap(by_pair, statistic, n_resamples=50, seed=1)
    assert seen_duplicate_cluster
    assert result.estimate == 5.0
    assert result.lower == result.upper == 5.0


def test_payload_statistic_recomputes_the_whole_endpoint() -> None:
    # Each pair carries all its trials of both configurations; the statistic recomputes
    # the mean over pairs of (mean second - mean first).
    pairs = {
        "p1": {"first": [0.0, 1.0], "second": [1.0, 1.0]},  # +0.5
        "p2": {"first": [1.0, 1.0, 1.0], "second": [1.0, 0.0, 1.0]},  # -1/3
        "p3": {"first": [0.0], "second": [1.0]},  # +1
    }

    def endpoint(clusters: Sequence[ResampledCluster[dict[str, list[float]]]]) -> float:
        diffs = [
            np.mean(c.payload["second"]) - np.mean(c.payload["first"]) for c in clusters
        ]
        return float(np.mean(diffs))

    result = cluster_bootstrap(pairs, endpoint, n_resamples=500, seed=3)
    assert result.estimate == pytest.approx((0.5 - 1 / 3 + 1.0) / 3)
    assert -1 / 3 <= result.lower <= result.upper <= 1.0


def test_degenerate_identical_pair_effects() -> None:
    result = bootstrap_mean([0.2] * 20, n_resamples=1000, seed=5)
    assert result.degenerate
    assert result.lower == result.upper == pytest.approx(0.2)
    assert result.se == 0.0
    assert result.note is not None and "identical" in result.note


def test_degenerate_single_pair() -> None:
    result = cluster_bootstrap({"only": 0.4}, mean_payload, n_resamples=10, seed=0)
    assert result.degenerate
    assert result.lower == result.upper == pytest.approx(0.4)
    assert result.note is not None and "one cluster" in result.note


def test_resample_blocks_are_seeded_and_shaped() -> None:
    blocks = list(resample_indices(7, 1000, seed=4))
    matrix = np.concatenate(blocks)
    assert matrix.shape == (1000, 7)
    assert matrix.min() >= 0 and matrix.max() <= 6
    assert np.array_equal(matrix, np.concatenate(list(resample_indices(7, 1000, seed=4))))


def test_errors() -> None:
    with pytest.raises(InputError, match="values"):
        bootstrap_mean([], seed=0)
    with pytest.raises(InputError, match="n_resamples"):
        bootstrap_mean([1.0, 2.0], n_resamples=1, seed=0)
    with pytest.raises(InputError, match="ci"):
        bootstrap_mean([1.0, 2.0], ci=1.0, seed=0)
    with pytest.raises(InputError, match="values_by_cluster"):
        cluster_bootstrap({}, mean_payload, seed=0)
    with pytest.raises(InputError, match="resample"):
        cluster_bootstrap(
            {"a": 0.0, "b": 1.0},
            lambda cs: float("nan") if len({c.cluster_id for c in cs}) == 1 else 0.0,
            n_resamples=200,
            seed=0,
        )
