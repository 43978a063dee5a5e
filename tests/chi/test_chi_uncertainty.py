"""Whole-cluster bootstrap, categorical EIMC intervals, Wilson intervals (spec §8)."""

from __future__ import annotations

import numpy as np
import pytest

from sitbench.chi import bootstrap_indices, cluster_bootstrap, eimc_bootstrap, wilson_interval
from sitbench.errors import InputError


def test_wilson_interval_hand_computed() -> None:
    lo, hi = wilson_interval(8, 10)  # type: ignore[misc]
    # p=0.8, z=1.96: center 0.71674, half-width 0.22658
    assert lo == pytest.approx(0.4901624, abs=1e-6)
    assert hi == pytest.approx(0.9433178, abs=1e-6)
    assert wilson_interval(0, 0) is None
    lo0, hi0 = wilson_interval(0, 5)  # type: ignore[misc]
    assert lo0 == 0.0 and hi0 == pytest.approx(0.4344825, abs=1e-6)
    with pytest.raises(InputError):
        wilson_interval(6, 5)


def test_fewer_than_two_clusters_gives_null_uncertainty() -> None:
    iv = cluster_bootstrap([0.4], lambda xs: float(np.mean(xs)), seed=1)
    assert iv.estimate == pytest.approx(0.4)
    assert iv.lower is None and iv.upper is None and iv.n_resamples == 0
    empty = cluster_bootstrap([], lambda xs: None, seed=1)
    assert empty.estimate is None and empty.lower is None


def test_at_least_2000_resamples() -> None:
    with pytest.raises(InputError, match="2000"):
        cluster_bootstrap([0.1, 0.2], lambda xs: float(np.mean(xs)), seed=1, n_resamples=1999)
    iv = cluster_bootstrap([0.1, 0.2], lambda xs: float(np.mean(xs)), seed=1)
    assert iv.n_resamples == 2000 and iv.seed == 1


def test_nonlinear_score_is_recomputed_per_resample() -> None:
    # Two clusters 0 and 1; statistic = (mean)^2. Resamples are {0,0}, {0,1}, {1,0}, {1,1}:
    # replicate values are 0, 0.25, 1 -- never the mean of per-cluster squares (0.5).
    iv = cluster_bootstrap([0.0, 1.0], lambda xs: float(np.mean(xs)) ** 2, seed=7)
    assert iv.estimate == pytest.approx(0.25)
    assert iv.lower == 0.0 and iv.upper == 1.0
    idx = bootstrap_indices(2, 2000, 7)
    reps = (idx.mean(axis=1)) ** 2
    assert set(np.round(reps, 6)) <= {0.0, 0.25, 1.0}


def test_bootstrap_is_deterministic_in_its_seed_and_resamples_whole_clusters() -> None:
    a = bootstrap_indices(8, 2000, 3)
    assert a.shape == (2000, 8)
    assert np.array_equal(a, bootstrap_indices(8, 2000, 3))
    assert not np.array_equal(a, bootstrap_indices(8, 2000, 4))
    clusters = [[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]]  # each cluster keeps both of its values together
    iv = cluster_bootstrap(clusters, lambda cs: float(np.mean([c[0] + c[1] for c in cs])), seed=0)
    assert iv.lower == iv.upper == pytest.approx(1.0)


def test_undefined_resamples_are_counted() -> None:
    iv = cluster_bootstrap([0.0, 1.0], lambda xs: None if sum(xs) == 0 else float(np.mean(xs)), seed=2)
    idx = bootstrap_indices(2, 2000, 2)
    assert iv.n_undefined == int((idx.sum(axis=1) == 0).sum())
    assert iv.n_undefined > 0


def _flat(q: float, k: int) -> np.ndarray:
    return np.array([[q, q, q, q, q, 1 - q]] * k)


def test_eimc_bootstrap_keeps_categorical_mass() -> None:
    grid = [1, 2, 4]
    # cluster A passes everywhere (right-censored); cluster B never passes.
    # A mixed resample averages to Q = 0.7 everywhere, which also fails at tau 0.8.
    factors = np.stack([_flat(0.9, 3), _flat(0.5, 3)])
    res = eimc_bootstrap(grid, factors, tau=0.8, seed=11)
    idx = bootstrap_indices(2, 2000, 11)
    p_censored = float(np.mean((idx == 0).all(axis=1)))
    cats = {(c.status, c.eimc): c.frequency for c in res.categories}
    assert cats == pytest.approx({("lower_bound/right_censored", 4): p_censored, ("no_passing_tested_load", None): 1 - p_censored})
    assert res.lower is not None and res.lower.status == "no_passing_tested_load" and res.lower.eimc is None
    assert res.upper is not None and res.upper.status == "lower_bound/right_censored" and res.upper.eimc == 4
    assert res.crossing_frequency == pytest.approx({1: p_censored, 2: p_censored, 4: p_censored})
    assert res.q_m[1].estimate == pytest.approx(0.7)


def test_eimc_bootstrap_observed_categories_and_single_cluster() -> None:
    grid = [1, 2, 4]
    a = np.array([[0.9] * 5 + [0.1], [0.9] * 5 + [0.1], [0.5] * 5 + [0.5]])  # EIMC 2, observed
    b = np.array([[0.9] * 5 + [0.1], [0.5] * 5 + [0.5], [0.5] * 5 + [0.5]])  # EIMC 1, observed
    res = eimc_bootstrap(grid, np.stack([a, b]), tau=0.8, seed=0)
    statuses = {c.status for c in res.categories}
    assert statuses <= {"observed", "no_passing_tested_load"}
    assert sum(c.frequency for c in res.categories) == pytest.approx(1.0)
    assert res.crossing_frequency[1] == 1.0
    single = eimc_bootstrap(grid, a[None], tau=0.8, seed=0)
    assert single.lower is None and single.categories == [] and single.q_m[1].lower is None


def test_resample_means_equal_explicit_resampling() -> None:
    from sitbench.chi._uncertainty import resample_means

    data = np.arange(24, dtype=float).reshape(4, 3, 2) / 24
    idx = bootstrap_indices(4, 2000, 5)
    assert np.allclose(resample_means(data, idx), data[idx].mean(axis=1))
