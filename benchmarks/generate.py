"""Generate + validate the full suite: wall time per step and peak memory (target: < 30 s, < 1 GiB).

    python benchmarks/generate.py [--suite full] [--seed 1] [--mocks]

``--mocks`` also runs mock/collapse under B and mock/oracle under I over the suite and prints the
per-pair LAA maximum and the oracle's Macro SIT with their run and scoring times.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", default="full")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mocks", action="store_true")
    args = parser.parse_args()

    from sitbench.data import generate_content, write_dataset
    from sitbench.lineage import CHECKS
    from sitbench.stores import load_dataset

    root = Path(tempfile.mkdtemp(prefix="sitbench-bench-")) / args.suite
    t0 = time.perf_counter()
    content = generate_content(args.suite, args.seed)
    t1 = time.perf_counter()
    manifest = write_dataset(content, root)
    t2 = time.perf_counter()
    del content
    ds = load_dataset(root)
    t3 = time.perf_counter()
    per_check = {}
    for check_id, check in CHECKS.items():
        s = time.perf_counter()
        problems, _ = check.fn(ds)
        per_check[check_id] = (time.perf_counter() - s, len(problems))
    t4 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    c = manifest.counts
    print(f"suite {args.suite} seed {args.seed}: {c['pairs']} pairs, {c['lineages']} lineages, {c['probes']} probes, "
          f"{c['propositions']} propositions, rejected pairs {c.get('rejected_pairs', 0)}")
    print(f"generate {t1 - t0:.2f} s | write {t2 - t1:.2f} s | load {t3 - t2:.2f} s | checks {t4 - t3:.2f} s | "
          f"generate+validate {t4 - t0:.2f} s | peak RSS {peak:.0f} MiB")
    print("checks: " + ", ".join(f"{k} {v[0]:.2f}s" + ("" if not v[1] else f" ({v[1]} problems)")
                                 for k, v in per_check.items()))
    failed = [k for k, v in per_check.items() if v[1]]
    print("all integrity checks pass" if not failed else f"FAILED: {failed}")
    if args.mocks:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "generator"))
        from test_mocks_on_generated import per_pair_laa

        from sitbench.cli._runs import execute_run, score_run
        from sitbench.metrics import compute_metrics, load_scores

        for model, config in (("mock/collapse", "B"), ("mock/oracle", "I")):
            run = root.parent / f"run-{config}"
            s = time.perf_counter()
            execute_run(root, model, run, config)
            r = time.perf_counter()
            score_run(run)
            e = time.perf_counter()
            m = compute_metrics(load_scores(run))[config]
            laa = per_pair_laa(run)
            macro = "undefined" if m.macro_sit is None else f"{m.macro_sit:.4f}"
            print(f"{model} under {config}: run {r - s:.1f} s, score {e - r:.1f} s; Macro SIT {macro}, "
                  f"LAA {m.LAA:.4f}, max per-pair LAA {max(laa.values()):.4f}")


if __name__ == "__main__":
    main()
