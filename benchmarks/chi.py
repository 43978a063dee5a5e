"""Speed figures for the CHI/CHIS kit; prints them, asserts nothing.

Run: python benchmarks/chi.py
"""

from __future__ import annotations

import time

import numpy as np

from sitbench.chi import build_report, demo_manifest, demo_observations, eimc_bootstrap, render_text


def _timed(label: str, fn, repeat: int = 3) -> None:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    print(f"{label:<58} {best * 1000:9.1f} ms (best of {repeat})")


def main() -> None:
    manifest = demo_manifest(0)
    records = demo_observations(0)
    _timed("demo data: 8 clusters x 5 checkpoints", lambda: demo_observations(0))
    _timed("demo report incl. 2,000 whole-cluster resamples", lambda: render_text(build_report(manifest, records)))

    rng = np.random.default_rng(0)
    for n_clusters in (8, 100, 1000):
        factors = rng.uniform(0.6, 1.0, size=(n_clusters, 5, 6))
        factors[..., 5] = rng.uniform(0.0, 0.2, size=(n_clusters, 5))
        _timed(
            f"EIMC bootstrap: {n_clusters} clusters, 5 loads, 2,000 resamples",
            lambda f=factors: eimc_bootstrap([100, 300, 1000, 3000, 10000], f, tau=0.8, seed=1),
        )


if __name__ == "__main__":
    main()
