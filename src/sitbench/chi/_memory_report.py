"""The memory section of the CHI report: text for one run, and a self-contained HTML page with the
Memory Capacity Curves of several runs (baselines, conditions) side by side.

Every figure keeps its label: the evidence class (machine baselines, no human calibration, CHI
null), the memory mechanism (a sliding window or replayed transcript is never called persistent
EIMC), the condition (equal-budget and best-effort are never mixed on one chart) and the
uncertainty (whole-cluster percentile bootstrap over trajectories, pointwise).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from sitbench.chi._memory_env import M8_STRATA
from sitbench.errors import InputError

FACTOR_NAMES = {"r": "retrieval", "t": "temporal", "s": "source", "u": "update", "i": "interference",
                "f": "false memory (f)"}


def _f(x: Any, d: int = 3) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, float):
        return f"{x:.{d}f}"
    return str(x)


def _iv(iv: dict[str, Any] | None) -> str:
    if not iv or iv.get("estimate") is None:
        return "null"
    if iv.get("lower") is None:
        return _f(iv["estimate"])
    return f"{_f(iv['estimate'])} [{_f(iv['lower'])}, {_f(iv['upper'])}]"


def render_memory_text(run: dict[str, Any]) -> str:
    """The memory section of one run as text."""
    spec, entry, mem = run["spec"], run["entry"], run["memory"]
    out: list[str] = []
    w = out.append
    kind = "MACHINE BASELINE" if entry.get("baseline") else "USER AGENT"
    w(f"== CHI memory axis: {kind}, no human calibration (capacity-only; CHI null) ==")
    w(f"agent: {entry.get('label')}  [mechanism: {entry.get('mechanism')}]  model: {spec.get('model') or '-'}")
    w(f"condition: {spec['condition']}  retriever: {spec['retriever']}  seed: {spec['seed']}  "
      f"trajectories: {mem['trajectories']}  wall: {run['wall_s']:.1f} s")
    if entry.get("budget"):
        b = entry["budget"]
        w("budget (fixed before the run): " + ", ".join(f"{k}={v}" for k, v in b.items()))
    w("uncertainty: whole-cluster percentile bootstrap over trajectories, pointwise 95%")
    for p, ps in mem["panels"].items():
        w("")
        w(f"-- {ps['test_id']}: score {_iv(ps['score'])}")
        if ps["components"]:
            w("   components: " + "  ".join(f"{k}={_iv(v)}" for k, v in ps["components"].items()))
        w("   outcomes: " + "; ".join(f"{k} " + ",".join(f"{o}={c}" for o, c in v.items())
                                     for k, v in ps["outcomes"].items()))
        if ps.get("pre_exposure"):
            w("   pre-exposure check (fresh clones, before any history): " + ", ".join(
                f"{k}={v}" for k, v in ps["pre_exposure"].items()))
        if p != "m8" and ps["features"]:
            w("   features (trajectory 0): " + json.dumps(ps["features"][0], default=str))
    m8 = mem.get("m8")
    if m8:
        w("")
        w(f"-- Memory Capacity Curve ({m8['label']}; delay {m8['delay_ticks']} neutral ticks)")
        w("       N   " + "  ".join(f"{s:>22}" for s in M8_STRATA) + "              Q_M")
        for n in m8["grid"]:
            row = m8["factors"][str(n)]
            q = m8["q_m"][str(n)]
            qi = m8["q_m_interval"][str(n)]
            qtxt = _f(q) if qi.get("lower") is None else f"{_f(q)} [{_f(qi['lower'])}, {_f(qi['upper'])}]"
            w(f"{n:>8}   " + "  ".join(f"{_iv(row[s]):>22}" for s in M8_STRATA) + f"  {qtxt}")
        for n in m8["grid"]:
            row = m8["factors"][str(n)]
            c = row["counts"]
            lure = c.get("f", {})
            w(f"   N={n}: counts " + " ".join(f"{s}={c[s]['correct']}/{c[s]['total']}" for s in ("r", "t", "s", "u", "i") if s in c)
              + f" f: unsupported={lure.get('unsupported')} invalid={lure.get('invalid')} /{lure.get('total')}"
              + f"; f_raw={_iv(row['f_raw'])} invalid_lure_rate={_iv(row['invalid_lure_rate'])}"
              + f"; clean={_iv(row['clean_i'])} i-clean={_iv(row['i_minus_clean'])}")
            cost = row["costs_mean_per_trajectory"]
            keys = ("ingest.stored_objects", "ingest.stored_bytes", "probe.model_calls", "probe.prompt_tokens",
                    "probe.completion_tokens", "probe.retrieval_calls", "probe.retrieval_tokens", "ingest.index_adds",
                    "probe.embedding_calls", "ingest.embedding_calls", "ingest.background_ops", "probe.background_ops",
                    "events", "ticks", "wall.ingest_s", "wall.probe_s")
            w("     costs/trajectory: " + ", ".join(f"{k}={cost[k]:.6g}" for k in keys if k in cost))
            why = row["why_u_and_s_failed"]
            w("     why u/s failed: " + "; ".join(f"{s}: " + ", ".join(f"{k}={v}" for k, v in sorted(d.items()))
                                             for s, d in why.items()))
        w(f"   mean Q_M over the grid (M8 capacity entry): {_f(m8['mean_q_m'])}")
        w(f"   EIMC(tau=0.8): {_f(m8['eimc'])} [{m8['status']}]  sustained_prefix_eimc: {_f(m8['sustained_prefix_eimc'])}"
          f"  nonmonotone: {_f(m8['nonmonotone'])}")
        w("   sensitivity: " + ", ".join(f"tau {k} -> {_f(v)} [{m8['sensitivity_status'][k]}]"
                                         for k, v in m8["sensitivity"].items()))
        if m8["eimc_bootstrap"]:
            w("   EIMC bootstrap (categorical): " + ", ".join(
                f"{c['status']}{'' if c['eimc'] is None else ' ' + str(c['eimc'])}: {c['frequency']:.3f}"
                for c in m8["eimc_bootstrap"]))
    return "\n".join(out)


def load_run(path: Path) -> dict[str, Any]:
    """A run folder's ``memory.json``."""
    f = path / "memory.json" if path.is_dir() else path
    if not f.is_file():
        raise InputError(f"{path}: no memory.json; give a folder written by 'sitbench chi memory run --out'")
    try:
        data: dict[str, Any] = json.loads(f.read_text(encoding="utf-8"))
        return data
    except json.JSONDecodeError as exc:
        raise InputError(f"{f}: invalid JSON ({exc.msg})") from None


def _run_name(run: dict[str, Any]) -> str:
    spec = run["spec"]
    return f"{spec['agent']}"


def _figure(caption: str, svg: str) -> str:
    return f"<figure style='margin:0'><figcaption><b>{escape(caption)}</b></figcaption>{svg}</figure>"


def _systems(runs: list[dict[str, Any]]) -> str:
    """What the runs are: machine baselines, user agents, or both (a user's agent is not a baseline)."""
    from sitbench.chi._memory_baselines import BASELINES

    kinds = {"machine baselines" if r.get("spec", {}).get("agent") in BASELINES else "user agents" for r in runs}
    return " and ".join(sorted(kinds)) or "machine baselines"


def render_html(runs: list[dict[str, Any]], title: str | None = None) -> str:
    """One self-contained page: per condition, Q_M and each factor against N for every run."""
    from sitbench.render import Reference, Series, line_chart

    systems = _systems(runs)
    title = title or f"CHI memory axis — {systems}"

    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>",
             "<style>body{font-family:system-ui,sans-serif;margin:24px;max-width:1200px}"
             "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}"
             "th{background:#f3f3f3}.charts{display:flex;flex-wrap:wrap;gap:12px}.label{background:#fff3cd;"
             "padding:8px;border:1px solid #e0c060}pre{font-size:11px;white-space:pre-wrap}</style></head><body>",
             f"<h1>{escape(title)}</h1>",
             f"<p class='label'><b>Evidence class: capacity-only. {escape(systems[0].upper() + systems[1:])}, no human "
             "calibration: CHI is null.</b> "
             "Curves are observed points on the registered grid N = 100, 300, 1000, 3000, 10000 (no smoothing or "
             "extrapolation); bands are pointwise 95% whole-cluster bootstrap intervals over trajectories. "
             "Sliding-window and replayed-transcript curves are in-context or external-storage curves, not persistent "
             "EIMC. Equal-budget and best-effort conditions are shown separately. Lines at the same value overlap; "
             "the tables and run sections give every value.</p>"]
    by_cond: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        if r["memory"].get("m8"):
            by_cond.setdefault(r["spec"]["condition"], []).append(r)
    rank = {"equal-budget": 0, "best-effort": 1}
    for cond, rs in sorted(by_cond.items(), key=lambda kv: (rank.get(kv[0], 2), kv[0])):
        parts.append(f"<h2>Condition: {escape(cond)}</h2>")
        parts.append("<table><tr><th>agent</th><th>mechanism</th><th>model</th><th>trajectories</th>"
                     "<th>mean Q_M</th><th>EIMC τ=0.8</th><th>status</th><th>sustained prefix</th>"
                     "<th>τ=0.7</th><th>τ=0.9</th><th>nonmonotone</th></tr>")
        for r in rs:
            m8 = r["memory"]["m8"]
            parts.append(
                "<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in (
                    r["entry"].get("label"), r["entry"].get("mechanism"), r["spec"].get("model") or "-",
                    r["memory"]["trajectories"], _f(m8["mean_q_m"]), _f(m8["eimc"]), m8["status"],
                    _f(m8["sustained_prefix_eimc"]), _f(m8["sensitivity"].get("0.7")), _f(m8["sensitivity"].get("0.9")),
                    _f(m8["nonmonotone"]))) + "</tr>")
        parts.append("</table><div class='charts'>")
        series = []
        for r in rs:
            m8 = r["memory"]["m8"]
            pts = [(float(n), m8["q_m"][str(n)]) for n in m8["grid"]]
            band = [(float(n), m8["q_m_interval"][str(n)]["lower"], m8["q_m_interval"][str(n)]["upper"])
                    for n in m8["grid"] if m8["q_m_interval"][str(n)].get("lower") is not None]
            marks = [(float(m8["eimc"]), m8["q_m"][str(m8["eimc"])], f"EIMC {m8['eimc']} ({m8['status']})")] \
                if m8["eimc"] is not None else []
            series.append(Series(_run_name(r), pts, band, marks))
        grid = [float(n) for n in rs[0]["memory"]["m8"]["grid"]]
        parts.append(_figure(f"Q_M against N ({cond}); ◇ marks the EIMC", line_chart(
            series, title=f"Q_M ({cond})", x_label="target keys N (log scale)", y_label="Q_M", y_range=(0.0, 1.0),
            log2_x=True, x_ticks=grid, references=[Reference(0.8, "τ = 0.8"), Reference(0.7, "0.7", "#999"),
                                                   Reference(0.9, "0.9", "#999")])))
        for s in M8_STRATA:
            series = []
            for r in rs:
                fac = r["memory"]["m8"]["factors"]
                pts = [(float(n), fac[str(n)][s]["estimate"]) for n in r["memory"]["m8"]["grid"]]
                band = [(float(n), fac[str(n)][s]["lower"], fac[str(n)][s]["upper"]) for n in r["memory"]["m8"]["grid"]
                        if fac[str(n)][s].get("lower") is not None]
                series.append(Series(_run_name(r), pts, band))
            parts.append(_figure(f"{s}: {FACTOR_NAMES[s]} ({cond})", line_chart(
                series, title=f"{s}: {FACTOR_NAMES[s]} ({cond})", x_label="target keys N (log scale)", y_label=s,
                y_range=(0.0, 1.0), log2_x=True, x_ticks=grid)))
        parts.append("</div>")
    other = [r for r in runs if any(p != "m8" for p in r["memory"]["panels"])]
    if other:
        parts.append("<h2>M1–M7</h2><table><tr><th>agent</th><th>condition</th><th>model</th><th>test</th>"
                     "<th>score [95% CI]</th><th>components</th></tr>")
        for r in other:
            for p, ps in r["memory"]["panels"].items():
                if p == "m8":
                    continue
                comps = "; ".join(f"{k}={_iv(v)}" for k, v in ps["components"].items())
                parts.append("<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in (
                    r["entry"].get("label"), r["spec"]["condition"], r["spec"].get("model") or "-", ps["test_id"],
                    _iv(ps["score"]), comps)) + "</tr>")
        parts.append("</table>")
    parts.append("<h2>Run sections</h2>")
    for r in runs:
        parts.append(f"<pre>{escape(render_memory_text(r))}</pre>")
    parts.append("</body></html>")
    return "".join(parts)
