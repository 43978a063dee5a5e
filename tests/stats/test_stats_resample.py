"""One cluster resampling for the whole package: stats and the CHI kit draw the same resamples."""

from __future__ import annotations

import numpy as np

from sitbench.chi import bootstrap_indices
from sitbench.chi import cluster_bootstrap as chi_cluster_bootstrap
from sitbench.stats import (
    ResampledCluster,
    cluster_bootstrap,
    resample_index_matrix,
    resample_indices,
    resample_means,
    resample_replicates,
)

DIFFS = [0.25, 0.0, 0.5, -0.25, 0.125, 0.375, 0.25, 0.0, 0.5, 0.125]


def test_blocked_and_single_draws_give_the_same_matrix() -> None:
    # An odd number of indices per block and many blocks: numpy's generator must carry its
    # half-used 32-bit word across calls for the two to agree.
    single = resample_index_matrix(1023, 2000, 7)
    blocked = np.concatenate(list(resample_indices(1023, 2000, 7, block_elements=1023 * 3)))
    assert len(list(resample_indices(1023, 2000, 7, block_elements=1023 * 3))) == 667
    assert np.array_equal(single, blocked)
    assert np.array_equal(single, np.concatenate(list(resample_indices(1023, 2000, 7))))


def test_chi_indices_are_the_stats_matrix() -> None:
    assert np.array_equal(bootstrap_indices(8, 2000, 3), resample_index_matrix(8, 2000, 3))
    assert not np.array_equal(bootstrap_indices(8, 2000, 3), resample_index_matrix(8, 2000, 4))


def test_replicates_follow_the_index_rows() -> None:
    x = np.array(DIFFS)
    reps = resample_replicates(len(DIFFS), lambda row: float(x[row].sum()), n_resamples=50, seed=5)
    assert np.allclose(reps, x[resample_index_matrix(len(DIFFS), 50, 5)].sum(axis=1))
    idx = resample_index_matrix(len(DIFFS), 50, 5)
    assert np.allclose(resample_means(x, idx), x[idx].mean(axis=1))


def test_stats_and_chi_bootstraps_give_the_same_interval() -> None:
    # Pinned from both implementations as they were before they shared one resampling.
    chi = chi_cluster_bootstrap(DIFFS, lambda xs: sum(xs) / len(xs), seed=11, n_resamples=2000)
    st = cluster_bootstrap(
        {str(i): v for i, v in enumerate(DIFFS)},
        lambda cs: sum(c.payload for c in cs) / len(cs),
        seed=11,
        n_resamples=2000,
    )
    assert (chi.lower, chi.upper, chi.n_undefined) == (0.0375, 0.325, 0)
    assert (st.lower, st.upper) == (0.0375, 0.325)
    assert st.se == 0.07328591738035788


def test_resampled_clusters_keep_their_slot_ids() -> None:
    seen: list[list[str]] = []

    def record(cs: list[ResampledCluster[float]]) -> float:
        seen.append([c.instance_id for c in cs])
        return 0.0

    cluster_bootstrap({"a": 1.0, "b": 2.0}, record, n_resamples=3, seed=0)
    assert all(ids[0].endswith("@0") and ids[1].endswith("@1") for ids in seen[1:])
    assert len(seen) == 4
