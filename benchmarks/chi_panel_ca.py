"""Time and memory of the C and A tests (C1–C6, A1–A6) offline; prints them, asserts nothing.

Per test, its good and its poor reference policy each run ``--replicates`` seeded replicates in
process (and the stateless-prompt baseline over the good policy, whose capacity is printed too) (the in-process driver) and through the Agent hooks (``drive_episode`` over
``PolicyAgent``); printed: the mean capacity of each policy, episodes, delivered events, wall time
of each driver, and the peak Python heap (tracemalloc) of one replicate. The last line is the
whole C/A set. Figures are for the reference policies only: a language model adds its own time
per turn.

Run: python benchmarks/chi_panel_ca.py [--replicates 5] [--tests c1,a3]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sitbench.chi._panel_c import run_test
from sitbench.chi._panel_c_drive import PolicyAgent, drive_episode
from sitbench.chi._panel_c_registry import CA_PANEL, StatelessPolicy, panel_entry


def _driven(entry, seed: int, which: str) -> float:  # type: ignore[no-untyped-def]
    make = entry.good if which == "good" else entry.poor
    records = [asyncio.run(drive_episode(entry.test, e, PolicyAgent(make())))[0] for e in entry.test.generate(seed)]
    return entry.test.score(records).capacity or 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=5)
    ap.add_argument("--tests", default="all")
    args = ap.parse_args()
    entries = CA_PANEL if args.tests == "all" else tuple(panel_entry(t) for t in args.tests.split(","))
    print(f"{'test':<5} {'good p':>7} {'poor p':>7} {'stateless':>9} {'episodes':>8} {'events':>8} {'play s':>7} "
          f"{'agent s':>8} {'peak MB':>8}  poor policy")
    total_play = total_agent = 0.0
    peak_all = 0.0
    for entry in entries:
        caps: dict[str, list[float]] = {"good": [], "poor": []}
        episodes = events = 0
        t0 = time.perf_counter()
        for k in range(args.replicates):
            for which in ("good", "poor"):
                recs, score = run_test(entry.test, k, entry.good if which == "good" else entry.poor)
                caps[which].append(score.capacity or 0.0)
                episodes += len(recs)
                events += sum(len(r.steps) for r in recs)
        play_s = time.perf_counter() - t0
        stateless = [run_test(entry.test, k, lambda e=entry: StatelessPolicy(e.good))[1].capacity
                     for k in range(args.replicates)]
        st = "missing" if any(c is None for c in stateless) else f"{sum(c or 0.0 for c in stateless) / len(stateless):.3f}"
        t0 = time.perf_counter()
        for k in range(args.replicates):
            for which in ("good", "poor"):
                _driven(entry, k, which)
        agent_s = time.perf_counter() - t0
        tracemalloc.start()
        run_test(entry.test, 0, entry.good)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        total_play, total_agent, peak_all = total_play + play_s, total_agent + agent_s, max(peak_all, peak)
        print(f"{entry.test.test_id:<5} {sum(caps['good']) / len(caps['good']):>7.3f} "
              f"{sum(caps['poor']) / len(caps['poor']):>7.3f} {st:>9} {episodes:>8} {events:>8} {play_s:>7.2f} "
              f"{agent_s:>8.2f} {peak:>8.1f}  {entry.poor_label}")
    print(f"{'all':<5} {'':>7} {'':>7} {'':>9} {'':>8} {'':>8} {total_play:>7.2f} {total_agent:>8.2f} {peak_all:>8.1f}  "
          f"({args.replicates} replicates x good and poor policy per test)")


if __name__ == "__main__":
    main()
