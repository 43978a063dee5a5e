"""Wall time and peak memory of the CHI panel's offline demo, per test and for the whole 30-test panel;
prints them, asserts nothing.

Each (system, test) runs in its own process, so its peak resident memory is its own: the demo's
reference systems (good: full-history replay, best-effort, mock/panel-solver, and the good C/A
policies; poor: sliding window, equal budget, mock/panel-naive, and the poor C/A policies), two
trajectories, the demo seed. Reported per run: the test's wall time (generation, every episode,
scoring), the records graded (probes; for C and A, episodes), records per second and peak RSS of
the process (which includes the interpreter and the package: ~100 MB before any test runs). Then
each system runs the whole demo panel in one process (``sitbench chi panel-demo``'s work): its wall
time and peak RSS.

Run: python benchmarks/chi_panel.py [--tests R1,I6] [--systems good,poor] [--no-whole]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, SRC)

CHILD = r"""
import json, resource, sys, time
args = json.loads(sys.argv[1])
from sitbench.chi._panel_report import panel_demo_specs
from sitbench.chi._panel_run import run_panel
spec = panel_demo_specs()[args["system"]]
spec.tests = [args["test"]]
t0 = time.perf_counter()
s = run_panel(spec)
wall = time.perf_counter() - t0
t = s["panel"]["tests"][args["test"]]
probes = sum(sum(v.values()) for v in t["outcomes"].values())
print(json.dumps({"wall_s": wall, "probes": probes, "score": t["score"]["estimate"],
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

WHOLE = r"""
import json, resource, sys, time
from sitbench.chi._panel_report import panel_demo_specs
from sitbench.chi._panel_run import run_panel
spec = panel_demo_specs()[sys.argv[1]]
t0 = time.perf_counter()
s = run_panel(spec)
print(json.dumps({"wall_s": time.perf_counter() - t0, "tests": len(spec.tests),
                  "capacities": {a: iv["estimate"] for a, iv in s["panel"]["capacities"].items()},
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    from sitbench.chi._panel_report import PANEL_DEMO_SYSTEMS, PANEL_DEMO_TESTS, PANEL_DEMO_TRAJECTORIES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", default=",".join(PANEL_DEMO_TESTS))
    ap.add_argument("--systems", default=",".join(PANEL_DEMO_SYSTEMS))
    ap.add_argument("--no-whole", action="store_true", help="Skip the whole-panel run per system.")
    a = ap.parse_args()
    print(f"CHI panel demo, {PANEL_DEMO_TRAJECTORIES} trajectories per test, one process per (system, test)")
    print(f"{'system':<6} {'test':<5} {'wall s':>8} {'records':>7} {'rec/s':>9} {'peak RSS MB':>12} {'score':>7}")
    total = 0.0
    for system in a.systems.split(","):
        for test in a.tests.split(","):
            out = subprocess.run([sys.executable, "-c", CHILD, json.dumps({"system": system, "test": test})],
                                 capture_output=True, text=True, check=True, env={"PYTHONPATH": SRC})
            r = json.loads(out.stdout.strip().splitlines()[-1])
            total += r["wall_s"]
            score = "null" if r["score"] is None else f"{r['score']:.3f}"
            print(f"{system:<6} {test:<5} {r['wall_s']:>8.2f} {r['probes']:>7} {r['probes'] / r['wall_s']:>9.0f} "
                  f"{r['rss_mb']:>12.0f} {score:>7}")
    print(f"sum of the tests' wall times: {total:.1f} s")
    if a.no_whole:
        return
    print("whole demo panel, one process per system:")
    for system in a.systems.split(","):
        out = subprocess.run([sys.executable, "-c", WHOLE, system], capture_output=True, text=True, check=True,
                             env={"PYTHONPATH": SRC})
        r = json.loads(out.stdout.strip().splitlines()[-1])
        caps = " ".join(f"{k}={'null' if v is None else f'{v:.3f}'}" for k, v in r["capacities"].items())
        print(f"{system:<6} {r['tests']} tests  wall {r['wall_s']:.1f} s  peak RSS {r['rss_mb']:.0f} MB  {caps}")


if __name__ == "__main__":
    main()
