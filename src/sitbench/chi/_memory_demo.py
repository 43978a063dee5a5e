"""The offline memory-axis demonstration: a good and a poor reference system on the whole M1–M8 panel.

Both are machine baselines over the literal reader ``mock/memory-reader`` (no key, no server), on a
reduced load grid and two trajectories so the demo takes seconds: ``versioned`` (one record per key,
versions resolved under the registered authority policy, a ``NO RECORD`` note for an unknown key)
and ``rag`` (append-only BM25 retrieval of the top lines, which cannot tell a stale version from the
current one). The figures are capacity-only, like every memory run: no human calibration, CHI null.
"""

from __future__ import annotations

from typing import Any

from sitbench.chi._memory_env import M8_STRATA, PANELS
from sitbench.chi._memory_run import RunSpec

MEMORY_DEMO_SYSTEMS: dict[str, str] = {
    "versioned": "good: one resolved record per key, the version in effect on the asked date, NO RECORD for "
                 "an unknown key",
    "rag": "poor: append-only similarity retrieval; a stale version ranks like the current one, a near name "
           "retrieves a neighbour",
}
"""The demo's baselines and what each stands for."""

MEMORY_DEMO_MODEL = "mock/memory-reader"
MEMORY_DEMO_GRID: tuple[int, ...] = (100, 300, 1000)
"""M8 loads of the demo (the registered panel goes on to 3,000 and 10,000)."""
MEMORY_DEMO_TRAJECTORIES = 2
MEMORY_DEMO_SEED = 1

PANEL_QUESTIONS: dict[str, str] = {
    "m1": "retention after 0-1,000 intervening events",
    "m2": "order and as-of dates of dated states",
    "m3": "corrections vs lower-authority contradictions",
    "m4": "content with its exact sources and status",
    "m5": "rule and exception after consolidation",
    "m6": "revoked and expired facts not used",
    "m7": "recall among confusable distractors",
    "m8": "mean Q_M over the load grid",
}
"""What each panel test asks, in a few words (docs/chi-memory.md has the protocol)."""


def memory_demo_specs() -> list[RunSpec]:
    """One run specification per demo system: every panel, the demo grid, same seeds (same corpora)."""
    return [RunSpec(panels=list(PANELS), agent=name, model=MEMORY_DEMO_MODEL, condition="equal-budget", seed=MEMORY_DEMO_SEED,
                    trajectories=MEMORY_DEMO_TRAJECTORIES, grid=list(MEMORY_DEMO_GRID)) for name in MEMORY_DEMO_SYSTEMS]


def _num(value: Any) -> str:
    return "null" if value is None else f"{value:.3f}"


def memory_demo_table(runs: list[dict[str, Any]]) -> str:
    """The demo's comparison: each panel's score per system, then M8's factors, Q_M and EIMC."""
    names = [r["spec"]["agent"] for r in runs]
    lines = [f"{'test':<5} {'what it asks':<48} " + " ".join(f"{n:>10}" for n in names)]
    for p in PANELS:
        cells = [_num(r["memory"]["panels"][p]["score"]["estimate"]) for r in runs]
        lines.append(f"{p.upper():<5} {PANEL_QUESTIONS[p]:<48} " + " ".join(f"{c:>10}" for c in cells))
    lines.append("")
    lines.append("M8 factors per load and Q_M (r, t, s, u, i: share of probes right, higher is better; f: share of "
                 "lures answered or invalid, lower is better):")
    for r in runs:
        m8 = r["memory"]["m8"]
        for n in m8["grid"]:
            row = m8["factors"][str(n)]
            lines.append(f"  {r['spec']['agent']:<10} N={n:<5} " + " ".join(
                f"{s}={_num(row[s]['estimate'])}" for s in M8_STRATA) + f"  Q_M={_num(m8['q_m'][str(n)])}")
        eimc = "null" if m8["eimc"] is None else m8["eimc"]
        lines.append(f"  {r['spec']['agent']:<10} EIMC(tau=0.8): {eimc} [{m8['status']}]")
    return "\n".join(lines)


def memory_demo_failures(run: dict[str, Any]) -> str:
    """Why a system's M8 u and s probes failed, summed over the loads (the diagnostics of the run)."""
    totals: dict[str, int] = {}
    for row in run["memory"]["m8"]["factors"].values():
        for stratum in row["why_u_and_s_failed"].values():
            for why, count in stratum.items():
                if why != "correct":
                    totals[why] = totals.get(why, 0) + count
    return ", ".join(f"{why} {count}" for why, count in sorted(totals.items(), key=lambda kv: -kv[1])) or "none"
