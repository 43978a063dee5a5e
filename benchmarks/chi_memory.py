"""Time and memory of the M8 sweep (N = 100 … 10,000) per memory baseline; prints them, asserts nothing.

Each baseline and condition runs in its own process (so its peak RSS is its own) over one
trajectory of the full grid with its clean twins (69,120 history turns, 1,400 probes) and the
deterministic mock reader. Reported per run: generation time, the run's wall time split into
ingest / ticks / probes, probes per second, peak resident memory, and the run's own counts
(model calls, prompt tokens, retrieval calls, embeddings, background operations), corpora and clean
twins together. "run s" includes the §3 generator report (WordPiece counts of every record).

Run: python benchmarks/chi_memory.py [--agents rag,versioned] [--conditions equal-budget]
                                     [--trajectories 1] [--retriever bm25|minilm] [--grid 100,300,...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

CHILD = r"""
import json, resource, sys, time
args = json.loads(sys.argv[1])
from sitbench.chi._memory_run import RunSpec, environment, run_memory, trajectory_seed
t0 = time.perf_counter()
for k in range(args["trajectories"]):
    environment("m8", trajectory_seed(args["seed"], k), args["grid"], True)
gen = time.perf_counter() - t0
rss_gen = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
spec = RunSpec(panels=["m8"], agent=args["agent"], model="mock/memory-reader", condition=args["condition"],
               seed=args["seed"], trajectories=args["trajectories"], retriever=args["retriever"], grid=args["grid"],
               pre_exposure=0)
t1 = time.perf_counter()
s = run_memory(spec)
wall = time.perf_counter() - t1
m8 = s["memory"]["m8"]
walls = {"ingest": 0.0, "ticks": 0.0, "probe": 0.0}
counts = {}
for n in m8["grid"]:
    c = m8["factors"][str(n)]["costs_mean_per_trajectory"]
    for k in walls:  # the load's corpus and its clean twin
        walls[k] += (c.get(f"wall.{k}_s", 0.0) + c.get(f"clean.wall.{k}_s", 0.0)) * args["trajectories"]
    for k in ("probe.model_calls", "probe.prompt_tokens", "probe.retrieval_calls", "probe.retrieval_tokens",
              "ingest.embedding_calls", "probe.embedding_calls", "ingest.background_ops", "ingest.stored_objects"):
        counts[k] = counts.get(k, 0.0) + (c.get(k, 0.0) + c.get("clean." + k, 0.0)) * args["trajectories"]
print(json.dumps({"generate_s": gen, "run_s": wall, "walls": walls, "counts": counts,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rss_after_generation_mb": rss_gen / 1024, "q_m": m8["q_m"], "eimc": m8["eimc"],
                  "status": m8["status"]}))
"""

BASELINES = ("stateless", "sliding", "replay", "rag", "versioned", "scheduled", "oracle", "mimic")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agents", default=",".join(BASELINES))
    ap.add_argument("--conditions", default="equal-budget,best-effort")
    ap.add_argument("--trajectories", type=int, default=1)
    ap.add_argument("--retriever", default="bm25", choices=("bm25", "minilm"))
    ap.add_argument("--grid", default="100,300,1000,3000,10000")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    grid = [int(x) for x in a.grid.split(",")]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    print(f"M8 sweep, grid {grid}, {a.trajectories} trajectory(ies), retriever {a.retriever}, mock/memory-reader, "
          f"{os.cpu_count()} cores")
    header = (f"{'agent':<10} {'condition':<13} {'gen s':>6} {'run s':>7} {'ingest':>7} {'probe':>7} {'probe/s':>8} "
              f"{'peak MB':>8} {'calls':>6} {'prompt tok':>11} {'retr tok':>9} {'embed':>7} {'bg ops':>7}  Q_M by N")
    print(header)
    total = time.perf_counter()
    for cond in a.conditions.split(","):
        for agent in a.agents.split(","):
            payload = json.dumps({"agent": agent, "condition": cond, "trajectories": a.trajectories,
                                  "retriever": a.retriever, "grid": grid, "seed": a.seed})
            proc = subprocess.run([sys.executable, "-c", CHILD, payload], capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                print(f"{agent:<10} {cond:<13} FAILED: {proc.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            c = r["counts"]
            probes = 280 * a.trajectories * len(grid)  # 240 on each corpus, 40 on its clean twin
            qs = " ".join(f"{(v if v is not None else float('nan')):.2f}" for v in r["q_m"].values())
            print(f"{agent:<10} {cond:<13} {r['generate_s']:>6.1f} {r['run_s']:>7.1f} {r['walls']['ingest']:>7.1f} "
                  f"{r['walls']['probe']:>7.1f} {probes / max(r['walls']['probe'], 1e-9):>8.0f} {r['peak_rss_mb']:>8.0f} "
                  f"{c['probe.model_calls']:>6.0f} {c['probe.prompt_tokens']:>11.0f} {c['probe.retrieval_tokens']:>9.0f} "
                  f"{c['ingest.embedding_calls'] + c['probe.embedding_calls']:>7.0f} {c['ingest.background_ops']:>7.0f}  "
                  f"{qs}  EIMC {r['eimc']} [{r['status']}]")
    print(f"total {time.perf_counter() - total:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
