"""Timings of the confirmatory statistics core.

Prints the exact n = 20 sign-flip test (1,048,576 assignments), a 1,000-resample cluster
bootstrap over 20 pairs (fast path and general payload path), and, for comparison, a
naive ``itertools.product`` enumeration at n = 16 next to the exact test at n = 16.

Run: ``python benchmarks/stats_core.py``
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable

import numpy as np

from sitbench.stats import bootstrap_mean, cluster_bootstrap, sign_flip_test


def median_time(function: Callable[[], object], repeats: int) -> float:
    """Median wall time in seconds over ``repeats`` calls (after one warm-up call)."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def naive_p(diffs: list[float]) -> float:
    observed = abs(sum(diffs))
    hits = 0
    total = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(diffs)):
        total += 1
        if abs(sum(s * d for s, d in zip(signs, diffs, strict=True))) >= observed - 1e-9:
            hits += 1
    return hits / total


def main() -> None:
    rng = np.random.default_rng(2024)
    d20 = np.round(rng.normal(0.1, 0.3, size=20), 3)
    d16 = d20[:16].tolist()
    pairs = {f"pair{i:02d}": float(v) for i, v in enumerate(d20)}

    exact20 = median_time(lambda: sign_flip_test(d20), repeats=20)
    exact16 = median_time(lambda: sign_flip_test(d16), repeats=20)
    boot_fast = median_time(lambda: bootstrap_mean(d20, n_resamples=1000, seed=1), repeats=10)
    boot_general = median_time(
        lambda: cluster_bootstrap(
            pairs, lambda cs: sum(c.payload for c in cs) / len(cs), n_resamples=1000, seed=1
        ),
        repeats=3,
    )
    start = time.perf_counter()
    p_naive = naive_p(d16)
    naive16 = time.perf_counter() - start
    assert p_naive == sign_flip_test(d16).p

    print(f"exact sign-flip n=20 (1,048,576 assignments): {exact20 * 1e3:9.3f} ms  p={sign_flip_test(d20).p:.6f}")
    print(f"cluster bootstrap, 20 pairs x 1,000 resamples (fast path):    {boot_fast * 1e3:9.3f} ms")
    print(f"cluster bootstrap, 20 pairs x 1,000 resamples (payload path): {boot_general * 1e3:9.3f} ms")
    print(f"n=16 (65,536 assignments): naive itertools {naive16 * 1e3:9.1f} ms | exact {exact16 * 1e3:7.3f} ms"
          f" | ratio {naive16 / exact16:,.0f}x")
    print(f"naive itertools extrapolated to n=20: ~{naive16 * 16:.1f} s vs exact {exact20 * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
