"""The CHI panel's offline demonstration and its HTML report.

The demo runs the good and the poor reference system (:mod:`sitbench.chi._panel_reference`) on all
30 registered tests, two trajectories each, offline, in well under a minute, so every axis has a
capacity:

* good (``reference-good``): the stored full-history replay baseline, best-effort budget (every
  history line in the prompt), over the reference reader ``mock/panel-solver``, and the good C/A
  reference policies (what each C and A test credits), with every hook the panel uses;
* poor (``reference-poor``): the sliding-transcript baseline, equal budget, over
  ``mock/panel-naive`` (the shortcut each test is built to catch: the prior, the observed state,
  the oldest line, the induced valence), and the poor C/A policies (the naive policy each control
  stops: the blind persister, the fixed-script planner, the scripted valence mimic, …).

M8 runs on the panel grid (100, 300); its registered grid is ``sitbench chi memory demo``'s.
Every figure is capacity-only (reference systems, no human calibration, CHI null).
"""

from __future__ import annotations

from html import escape
from typing import Any

from sitbench.chi._common import AXES
from sitbench.chi._panel import ALL_TESTS
from sitbench.chi._panel_run import PanelSpec

PANEL_DEMO_TESTS: tuple[str, ...] = ALL_TESTS
PANEL_DEMO_SEED = 7
PANEL_DEMO_TRAJECTORIES = 2
PANEL_DEMO_SYSTEMS: dict[str, tuple[str, str, str, str]] = {
    "good": ("reference-good", "mock/panel-solver", "best-effort",
             "full-history replay over the reference solver; the good C/A reference policies"),
    "poor": ("reference-poor", "mock/panel-naive", "equal-budget",
             "a 1,024-token sliding window over the naive shortcut reader; the poor C/A policies"),
}
"""name → (agent, its reader, its budget condition, what it stands for)."""


def panel_demo_specs() -> dict[str, PanelSpec]:
    """The demo's two run specifications (same seeds: the same items for both systems)."""
    return {name: PanelSpec(tests=list(PANEL_DEMO_TESTS), agent=agent, model=model, condition=cond,
                            seed=PANEL_DEMO_SEED, trajectories=PANEL_DEMO_TRAJECTORIES)
            for name, (agent, model, cond, _what) in PANEL_DEMO_SYSTEMS.items()}


def _num(iv: dict[str, Any]) -> str:
    return "null" if iv["estimate"] is None else f"{iv['estimate']:.3f}"


def panel_demo_table(sections: dict[str, dict[str, Any]]) -> str:
    """Each test's score for the good and the poor system, whether good is above poor, then the profiles."""
    names = list(sections)
    lines = [f"{'test':<5} " + " ".join(f"{n:>8}" for n in names) + "  good > poor"]
    for t in PANEL_DEMO_TESTS:
        cells = [sections[n]["tests"][t]["score"] for n in names]
        est = [c["estimate"] for c in cells]
        ok = "yes" if None not in est and est[0] > est[1] else "NO"
        lines.append(f"{t:<5} " + " ".join(f"{_num(c):>8}" for c in cells) + f"  {ok}")
    lines.append("")
    lines.append("capacity profile p (all 30 registered tests run: every axis has a capacity):")
    for n in names:
        lines.append(f"  {n:<5} " + "  ".join(f"{a}={_num(sections[n]['capacities'][a])}" for a in AXES))
    return "\n".join(lines)


def panel_demo_failures(sections: dict[str, dict[str, Any]]) -> list[str]:
    """Tests on which the good system does not score strictly above the poor one (empty: every test separates)."""
    good, poor = sections["good"]["tests"], sections["poor"]["tests"]
    return [t for t in PANEL_DEMO_TESTS
            if good[t]["score"]["estimate"] is None or poor[t]["score"]["estimate"] is None
            or not good[t]["score"]["estimate"] > poor[t]["score"]["estimate"]]


def render_panel_html(summary: dict[str, Any], title: str = "CHI panel — capacity profile") -> str:
    """One self-contained page: the five-axis profile, per-test outcomes with denominators, missingness."""
    section = summary["panel"]
    manifest = summary["manifest"]

    def iv(x: dict[str, Any]) -> str:
        if x["estimate"] is None:
            return "missing"
        ci = "" if x["lower"] is None else f" [{x['lower']:.3f}, {x['upper']:.3f}]"
        return f"{x['estimate']:.3f}{ci}"

    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>",
             "<style>body{font-family:system-ui,sans-serif;margin:24px;max-width:1100px}table{border-collapse:collapse;"
             "font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}th{background:#f3f3f3}"
             ".label{background:#fff3cd;padding:8px;border:1px solid #e0c060}</style></head><body>",
             f"<h1>{escape(title)}</h1>",
             f"<p class='label'><b>Evidence class: {escape(manifest.evidence_class)}.</b> No human calibration: CHI is "
             "null. Capacity is the equal-weight mean of an axis's registered task scores; an axis missing any "
             "registered test has no capacity (never renormalised). Uncertainty: "
             f"{escape(section['uncertainty'])}"
             + (f", {section['resamples']:,} resamples" if section["resamples"] else "") + ".</p>",
             f"<p>agent: {escape(str(summary['entry'].get('label') or summary['spec']['agent']))}; model: "
             f"{escape(str(summary['spec']['model']))}; condition: {escape(summary['spec']['condition'])}; "
             f"trajectories: {section['trajectories']}; protocol: {escape(manifest.protocol_id)}</p>",
             "<h2>Capacity profile</h2><table><tr><th>axis</th><th>p</th></tr>"]
    parts += [f"<tr><td>{a}</td><td>{escape(iv(section['capacities'][a]))}</td></tr>" for a in AXES]
    parts.append("</table><h2>Tests</h2><table><tr><th>test</th><th>axis</th><th>score</th>"
                 "<th>correct / total per trajectory</th><th>components</th><th>outcomes</th><th>missing</th></tr>")
    for t, s in section["tests"].items():
        den = ", ".join(f"{c}/{n}" for c, n in zip(s["correct"], s["total"], strict=True) if n is not None)
        comps = "; ".join(f"{k}: {iv(v)}" for k, v in s["components"].items())
        outs = "; ".join(f"{k}: {', '.join(f'{o} {n}' for o, n in v.items())}" for k, v in s["outcomes"].items())
        parts.append(f"<tr><td>{t}</td><td>{s['axis']}</td><td>{escape(iv(s['score']))}</td><td>{escape(den)}</td>"
                     f"<td>{escape(comps)}</td><td>{escape(outs)}</td><td>{escape('; '.join(s['missing']))}</td></tr>")
    parts.append("</table>")
    missing = [f"{t.test_id}: {t.missing_reason}" for t in summary["observations"][0].task_results if t.score is None]
    parts.append(f"<h2>Missing registered tests ({len(missing)})</h2><ul>"
                 + "".join(f"<li>{escape(m)}</li>" for m in missing) + "</ul>")
    parts.append("<h2>Controls</h2><ul>" + "".join(f"<li>{escape(c)}</li>" for c in manifest.controls) + "</ul>")
    parts.append("<h2>Limitations</h2><ul>" + "".join(f"<li>{escape(c)}</li>" for c in manifest.limitations)
                 + "</ul></body></html>")
    return "\n".join(parts)
