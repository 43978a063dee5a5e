"""The self-contained HTML report: tables, static SVG charts, drill-down and manifests in one file.

The page loads nothing at view time: styles and the small filter script are inline, the
charts are static SVG, and a Content-Security-Policy allows only the report's own script
(by hash), so even a response that slipped past escaping could not run code. Everything
that comes from a run — above all the candidate's responses, which are untrusted model
output — goes through :func:`html.escape`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sitbench._version import __version__
from sitbench.chi import ChiReport
from sitbench.errors import InputError
from sitbench.metrics import CATEGORY_ORDER, ConfigMetrics, format_percent
from sitbench.report import _svg
from sitbench.report._data import (
    FailedTrial,
    LoadedRun,
    failed_checks,
    is_failed,
    load_failed_trials,
    load_runs,
    select_failed,
)
from sitbench.report._exports import METRICS_JSON, TRIALS_CSV, write_metrics_json, write_trials_csv
from sitbench.res import CONDITIONS, ResScore, score_file
from sitbench.schema import CATEGORY_METRICS
from sitbench.stats import EXPERIMENTS

DEFAULT_MAX_FAILED = 2000
"""Most failed trials shown in the drill-down; the rest stay in ``trials.csv`` and the run files."""

DRILLDOWN_TEXT_BUDGET = 4_000_000
"""Characters of envelope and response text the drill-down may carry in all; long texts are
shortened (head and tail kept) so a large run's report stays small and opens fast."""

MIN_TEXT_CHARS = 600
"""No message or response is shortened below this many characters."""

LAA_BOUND = 0.5
"""Theorem 1: ``LAA* ≤ 1/m`` for any profile-only policy; ``m = 2`` for collision pairs."""

CATEGORY_NAMES: dict[str, str] = {
    "A": "positive recall",
    "B": "false premise",
    "C": "epistemic provenance",
    "D": "temporal checkpoint",
    "E": "relational boundary",
    "F": "belief history",
    "G": "counterfactual pressure",
    "H": "cross-session state",
}

_VALIDITY_COLUMNS: tuple[tuple[str, str], ...] = tuple((CATEGORY_METRICS[c], c.value) for c in CATEGORY_ORDER)
_DIAGNOSTIC_COLUMNS: tuple[tuple[str, str], ...] = (
    ("LAA", "LAA"),
    ("IC_wrong", "IC_wrong"),
    ("IC_none", "IC_none"),
    ("FMR", "FMR"),
    ("TL", "TL"),
    ("UEL", "UEL"),
)

_STYLE = """
:root{--ink:#1b1b1b;--muted:#5b5b5b;--line:#d9d9d9;--bg:#fafafa;--accent:#4269d0;--bad:#b42318}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:#fff}
header{padding:18px 28px;border-bottom:1px solid var(--line);background:var(--bg)}
header h1{margin:0 0 4px;font-size:22px}
header p{margin:2px 0;color:var(--muted)}
nav{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);padding:6px 28px}
nav a{margin-right:16px;color:var(--accent);text-decoration:none;font-weight:600}
main{padding:8px 28px 40px;max-width:1500px}
section{margin:22px 0 30px}
h2{font-size:19px;border-bottom:2px solid var(--ink);padding-bottom:3px;margin:26px 0 10px}
h3{font-size:16px;margin:18px 0 8px}
h4{font-size:13px;margin:12px 0 4px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
table{border-collapse:collapse;margin:6px 0 10px}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:right;white-space:nowrap}
th{background:var(--bg);font-weight:600}
td.l,th.l{text-align:left;white-space:normal}
td.macro,th.macro{font-weight:700;background:#eef2fb}
.note{color:var(--muted);font-size:12.5px;margin:4px 0}
.warn{color:var(--bad)}
.banner{border:2px solid #b7791f;background:#fff8e6;padding:6px 10px;font-weight:700;display:inline-block;margin:6px 0}
.charts{display:flex;flex-wrap:wrap;gap:18px 28px;align-items:flex-start}
.chart{border:1px solid var(--line);border-radius:6px;padding:8px 10px;background:#fff;max-width:100%;overflow-x:auto}
.chart h4{margin-top:2px}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:4px 0 12px}
.kv dt{font-weight:600;color:var(--muted)}
.kv dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px;word-break:break-all}
pre{white-space:pre-wrap;word-break:break-word;background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:6px 8px;margin:3px 0 8px;font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;max-height:420px;overflow:auto}
.filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:center;position:sticky;top:34px;z-index:1;background:#fff;padding:8px 0;border-bottom:1px solid var(--line)}
.filters input[type=search]{width:320px;padding:4px 6px}
.filters select{padding:3px}
details.trial{border:1px solid var(--line);border-radius:5px;margin:5px 0;background:#fff;content-visibility:auto;contain-intrinsic-size:auto 30px}
details.trial[open]{box-shadow:0 1px 4px rgba(0,0,0,.08)}
details.trial>summary{cursor:pointer;padding:5px 10px;list-style-position:inside}
details.trial .body{padding:2px 14px 10px}
.tid{font-family:ui-monospace,Menlo,monospace;font-weight:700}
.pill{display:inline-block;border-radius:10px;padding:0 7px;margin:0 2px;font-size:12px;background:#eceff6}
.pill.bad{background:#fde8e6;color:var(--bad)}
.pill.flag{background:#fff1d6;color:#8a5300}
.role{font-weight:700;font-size:12px;color:var(--muted)}
.hidden{display:none}
.muted{color:var(--muted)}
"""

_SCRIPT = """
(function(){
var rows=Array.prototype.slice.call(document.querySelectorAll('details.trial'));
var ids=['q','f-run','f-config','f-category','f-check','f-flag'];
var keys={'q':'q','f-run':'run','f-config':'config','f-category':'category','f-check':'check','f-flag':'flag'};
var el={};ids.forEach(function(i){el[i]=document.getElementById(i);});
var shown=document.getElementById('shown');
var text=new Array(rows.length);
function hay(i){if(text[i]===undefined){text[i]=rows[i].textContent.toLowerCase();}return text[i];}
function has(list,v){return (' '+list+' ').indexOf(' '+v+' ')>=0;}
function apply(){
  var q=(el['q'].value||'').toLowerCase().trim(),run=el['f-run'].value,cfg=el['f-config'].value,
      cat=el['f-category'].value,chk=el['f-check'].value,flag=el['f-flag'].value,n=0;
  var terms=q?q.split(/\\s+/):[];
  for(var i=0;i<rows.length;i++){
    var r=rows[i],d=r.dataset,ok=(!run||d.run===run)&&(!cfg||d.config===cfg)&&(!cat||d.category===cat)
      &&(!chk||has(d.checks,chk))&&(!flag||has(d.flags,flag));
    for(var t=0;ok&&t<terms.length;t++){ok=hay(i).indexOf(terms[t])>=0;}
    r.classList.toggle('hidden',!ok);if(ok){n++;}
  }
  shown.textContent=String(n);
  var parts=[];ids.forEach(function(i){if(el[i].value){parts.push(keys[i]+'='+encodeURIComponent(el[i].value));}});
  var h=parts.length?'#'+parts.join('&'):'';
  if(location.hash!==h&&(h||location.hash)){history.replaceState(null,'',h||location.pathname+location.search);}
}
function fromHash(){
  var h=location.hash.replace(/^#/,'');if(!h){return;}
  h.split('&').forEach(function(p){var kv=p.split('=');
    ids.forEach(function(i){if(keys[i]===kv[0]){el[i].value=decodeURIComponent(kv[1]||'');}});});
}
var timer=null;
el['q'].addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(apply,120);});
ids.slice(1).forEach(function(i){el[i].addEventListener('change',apply);});
document.getElementById('clear').addEventListener('click',function(){ids.forEach(function(i){el[i].value='';});apply();});
window.addEventListener('hashchange',function(){fromHash();apply();});
fromHash();apply();
document.documentElement.setAttribute('data-ready','1');
window.addEventListener('load',function(){
  document.documentElement.setAttribute('data-load-ms',String(Math.round(performance.now())));
});
})();
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _pct(value: float | None) -> str:
    return format_percent(value)


def _num(value: object, digits: int = 4) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "—" if not math.isfinite(value) else f"{value:.{digits}g}"
    return _e(value)


def _kv(items: Sequence[tuple[str, object]]) -> str:
    rows = []
    for key, value in items:
        if value is None or value == "" or value == {} or value == []:
            continue
        if isinstance(value, dict | list):
            text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        else:
            text = str(value)
        rows.append(f"<dt>{_e(key)}</dt><dd>{_e(text)}</dd>")
    return f"<dl class='kv'>{''.join(rows)}</dl>"


# --------------------------------------------------------------------------- summary


def _summary_table(run: LoadedRun) -> str:
    head = ["<th class='l'>Config</th>"]
    head += [
        f"<th title='{_e(letter)}: {_e(CATEGORY_NAMES[letter])}'>{_e(field)}</th>" for field, letter in _VALIDITY_COLUMNS
    ]
    head += ["<th class='macro'>Macro SIT</th>"]
    head += [f"<th>{_e(label)}</th>" for _, label in _DIAGNOSTIC_COLUMNS]
    head += ["<th>completed / attempted</th>", "<th>dropped</th>"]
    body = []
    for config, row in run.metrics.items():
        values = row.model_dump()
        cells = [f"<td class='l'><b>{_e(config)}</b></td>"]
        for field, _ in _VALIDITY_COLUMNS:
            cells.append(_metric_cell(run.name, config, field, values[field]))
        cells.append(_metric_cell(run.name, config, "macro_sit", row.macro_sit, css="macro"))
        for field, _ in _DIAGNOSTIC_COLUMNS:
            cells.append(_metric_cell(run.name, config, field, values[field]))
        cells.append(
            f"<td data-run='{_e(run.name)}' data-config='{_e(config)}' data-metric='completed_attempted'>"
            f"{row.n_completed} / {row.n_attempted}</td>"
        )
        cells.append(f"<td>{row.n_attempted - row.n_completed}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    table = (
        f"<table class='summary' data-run='{_e(run.name)}'><thead><tr>{''.join(head)}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )
    notes = [
        "Values in %; — = undefined (no completed observation; Macro SIT is undefined when any category is). "
        "Category validities and LAA/IC are pair-balanced (Eq. 40); FMR, TL and UEL are plain shares over "
        "completed trials. Dropped trials count as attempted, never as failures."
    ]
    incomplete = [
        f"{config} {key}: pair {pair} left out ({reason})"
        for config, row in run.metrics.items()
        for key, counts in row.counts.items()
        for pair, reason in counts.incomplete_pairs.items()
    ]
    out = table + "".join(f"<p class='note'>{_e(n)}</p>" for n in notes)
    if incomplete:
        shown = incomplete[:20]
        more = f" (+{len(incomplete) - 20} more)" if len(incomplete) > 20 else ""
        out += f"<p class='note warn'>Incomplete pairs: {_e('; '.join(shown))}{_e(more)}</p>"
    return out


def _metric_cell(run: str, config: str, field: str, value: float | None, css: str = "") -> str:
    cls = f" class='{css}'" if css else ""
    return f"<td{cls} data-run='{_e(run)}' data-config='{_e(config)}' data-metric='{_e(field)}'>{_pct(value)}</td>"


def _denominators(run: LoadedRun) -> str:
    head = "<tr><th class='l'>Config</th>" + "".join(f"<th>{c.value}</th>" for c in CATEGORY_ORDER)
    head += "<th>Q*_disc</th><th>n_FMR</th><th>n_TL</th><th>n_UEL</th><th>LAA outcomes (1,0)/(0,1)/(0,0)/(1,1)</th></tr>"
    rows = []
    for config, row in run.metrics.items():
        cells = [f"<td class='l'><b>{_e(config)}</b></td>"]
        for key in [c.value for c in CATEGORY_ORDER] + ["theorem_qualified"]:
            counts = row.counts.get(key)
            cells.append("<td>—</td>" if counts is None else f"<td>{counts.completed}/{counts.attempted}</td>")
        o = row.laa_outcomes
        cells += [f"<td>{row.n_FMR}</td>", f"<td>{row.n_TL}</td>", f"<td>{row.n_UEL}</td>"]
        cells.append(f"<td>{o.correct}/{o.wrong_identity}/{o.neither}/{o.both}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (
        "<details><summary>Denominators: completed/attempted per category and diagnostic</summary>"
        f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></details>"
    )


def _run_header(run: LoadedRun) -> str:
    m = run.manifest
    sha = str(m.dataset.get("manifest_sha256") or "")
    bits = [
        f"model <b>{_e(run.model)}</b>",
        f"handler {_e(m.handler)}",
        f"temperature {_num(m.decoding.temperature)}",
        f"dataset {_e(m.dataset.get('suite', '?'))} <code>{_e(sha[:12])}</code>",
        f"verifier {_e(m.verifier_version or '—')}",
        f"run id <code>{_e(m.run_id)}</code>",
    ]
    return f"<p class='note'>{' · '.join(bits)} · <a href='#manifest-{_anchor(run.name)}'>manifest</a></p>"


def _anchor(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)


# --------------------------------------------------------------------------- charts


def _charts(run: LoadedRun) -> str:
    configs = list(run.metrics)
    values: dict[tuple[str, str], float | None] = {}
    for config, row in run.metrics.items():
        dumped = row.model_dump()
        for category in CATEGORY_ORDER:
            values[(config, category.value)] = dumped[CATEGORY_METRICS[category]]
    heat = _svg.heatmap(
        configs,
        [c.value for c in CATEGORY_ORDER],
        values,
        title=f"{run.name}: category validity per configuration",
        column_labels={c.value: CATEGORY_METRICS[c] for c in CATEGORY_ORDER},
    )
    laa = _svg.bar_chart(
        configs,
        {"LAA": [row.LAA for row in run.metrics.values()]},
        title=f"{run.name}: LAA per configuration against the bound 0.5",
        references=[_svg.Reference(LAA_BOUND, "LAA* ≤ 1/m = 0.5 (profile-only, Theorem 1)")],
    )
    diag = _svg.bar_chart(
        configs,
        {
            "FMR": [row.FMR for row in run.metrics.values()],
            "TL": [row.TL for row in run.metrics.values()],
            "UEL": [row.UEL for row in run.metrics.values()],
        },
        title=f"{run.name}: FMR, TL and UEL per configuration",
        colors={"FMR": _svg.PALETTE[2], "TL": _svg.PALETTE[1], "UEL": _svg.PALETTE[6]},
    )
    return (
        "<div class='charts'>"
        f"<div class='chart'><h4>Validity: configuration × category</h4>{heat}</div>"
        f"<div class='chart'><h4>LAA vs the 0.5 bound</h4>{laa}"
        "<p class='note'>Above the dashed line is out of reach of any profile-only policy.</p></div>"
        f"<div class='chart'><h4>Diagnostics FMR / TL / UEL (lower is better)</h4>{diag}</div>"
        "</div>"
    )


# --------------------------------------------------------------------------- E1–E8


def _dig(data: Any, *paths: str) -> Any:
    """First non-null value at any of the dotted ``paths``."""
    for path in paths:
        node = data
        for part in path.split("."):
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            else:
                node = None
                break
        if node is not None:
            return node
    return None


def _interval(entry: Mapping[str, Any]) -> tuple[float | None, float | None]:
    ci = _dig(entry, "ci", "ci95", "interval", "bootstrap.ci", "bootstrap")
    if isinstance(ci, Sequence) and not isinstance(ci, str) and len(ci) == 2:
        return _float(ci[0]), _float(ci[1])
    if isinstance(ci, Mapping):
        return _float(_dig(ci, "lower", "low", "lo")), _float(_dig(ci, "upper", "high", "hi"))
    return _float(_dig(entry, "ci_lower", "lower")), _float(_dig(entry, "ci_upper", "upper"))


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _experiment_entries(analysis: Mapping[str, Any]) -> list[dict[str, Any]]:
    found = _dig(analysis, "experiments", "family", "confirmatory", "results", "contrasts")
    entries: list[dict[str, Any]] = []
    if isinstance(found, Mapping):
        for key, value in found.items():
            if isinstance(value, Mapping):
                entries.append({"id": key, **value})
    elif isinstance(found, Sequence) and not isinstance(found, str):
        entries = [dict(value) for value in found if isinstance(value, Mapping)]
    return entries


def _decision(entry: Mapping[str, Any]) -> str:
    value = _dig(entry, "decision", "holm_decision", "reject", "holm_reject", "holm.reject")
    if isinstance(value, bool):
        return "reject H0" if value else "not rejected"
    return "—" if value is None else str(value)


def _analysis_section(analysis: Mapping[str, Any]) -> str:
    registry = {e.id: e for e in EXPERIMENTS}
    entries = _experiment_entries(analysis)
    rows: list[str] = []
    plot_rows: list[_svg.IntervalRow] = []
    for entry in entries:
        eid = str(_dig(entry, "id", "experiment", "experiment_id") or "?")
        spec = registry.get(eid)
        first = _dig(entry, "first_config", "experiment.first_config") or (spec.first_config if spec else "?")
        second = _dig(entry, "second_config", "experiment.second_config") or (spec.second_config if spec else "?")
        endpoint = _dig(entry, "endpoint", "experiment.endpoint") or (spec.endpoint if spec else "?")
        mean = _float(_dig(entry, "mean", "mean_difference", "mean_diff", "estimate", "d", "test.mean"))
        lower, upper = _interval(entry)
        p = _float(_dig(entry, "p", "p_value", "pvalue", "test.p", "signflip.p", "sign_flip.p"))
        p_adj = _float(_dig(entry, "p_adjusted", "p_holm", "adjusted_p", "holm_p", "holm.adjusted", "holm_adjusted_p"))
        decision = _decision(entry)
        attempted = _dig(entry, "attempted", "n_attempted", "counts.attempted", "pairs_attempted")
        completed = _dig(entry, "completed", "n_completed", "counts.completed", "pairs_completed", "n_pairs")
        status = _dig(entry, "status", "incomplete_reason", "reason", "note")
        rows.append(
            "<tr>"
            f"<td class='l'><b>{_e(eid)}</b></td><td class='l'>{_e(spec.title if spec else '')}</td>"
            f"<td>{_e(second)} − {_e(first)}</td><td>{_e(endpoint)}</td>"
            f"<td>{_num(mean)}</td><td>{'—' if lower is None else _num(lower)} … {'—' if upper is None else _num(upper)}</td>"
            f"<td>{_num(p)}</td><td>{_num(p_adj)}</td><td>{_e(decision)}</td>"
            f"<td>{_num(completed)} / {_num(attempted)}</td><td class='l'>{_e(status or '')}</td>"
            "</tr>"
        )
        plot_rows.append(
            _svg.IntervalRow(
                label=f"{eid} {endpoint}: {second} − {first}",
                estimate=mean,
                lower=lower,
                upper=upper,
                highlight=decision.lower().startswith("reject") or decision is True,
            )
        )
    if not rows:
        table = "<p class='note warn'>The analysis file names no experiments; its full content is below.</p>"
    else:
        table = (
            "<table><thead><tr><th class='l'>id</th><th class='l'>contrast</th><th>d = second − first</th>"
            "<th>endpoint</th><th>mean d</th><th>95% CI</th><th>p</th><th>Holm p</th><th>decision</th>"
            "<th>pairs completed / attempted</th><th class='l'>status</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
        table += (
            f"<div class='chart'><h4>Mean paired difference with 95% CI (filled = rejected under Holm)</h4>"
            f"{_svg.forest_plot(plot_rows, title='E1–E8 contrasts with confidence intervals')}</div>"
        )
    notes = [
        f"{key}: {value}"
        for key in ("seed", "bootstrap_seed", "alpha", "holm_note", "family_note", "note", "notes")
        if (value := analysis.get(key)) not in (None, "", [])
    ]
    raw = json.dumps(analysis, indent=2, ensure_ascii=False, default=str)
    return (
        table
        + "".join(f"<p class='note'>{_e(n)}</p>" for n in notes)
        + f"<details><summary>Full analysis JSON</summary><pre>{_e(raw)}</pre></details>"
    )


# --------------------------------------------------------------------------- CHI / CHIS


def load_chi_report(path: Path) -> ChiReport:
    """Read a CHI/CHIS ``report.json`` (written by ``sitbench chi report`` or ``chi demo``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the CHI report ({exc.strerror}); pass the report.json of `sitbench chi demo --out DIR`") from None
    try:
        return ChiReport.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(report)"
        raise InputError(f"{path}: field {field!r}: {first['msg']}; pass a CHI report.json written by sitbench") from None


def _chi_section(report: ChiReport) -> str:
    parts = [f"<p class='banner'>{_e(report.label)}</p>"]
    parts.append(
        _kv(
            [
                ("evidence class", report.evidence_class),
                ("protocol", report.protocol_id),
                ("calibration", report.calibration_id),
                ("version", report.version),
                ("runs (clusters)", report.n_clusters),
                ("records", report.n_records),
                ("EIMC threshold τ", report.tau),
                ("uncertainty", report.uncertainty),
            ]
        )
    )
    memory_series: list[_svg.Series] = []
    grid: list[float] = []
    rows: list[str] = []
    for step in report.checkpoints:
        mem = step.memory
        if mem is None:
            continue
        grid = [float(g) for g in mem.grid]
        points = [(float(load), mem.q_m.get(load)) for load in mem.grid]
        markers = []
        if mem.eimc is not None and mem.q_m.get(mem.eimc) is not None:
            markers.append((float(mem.eimc), float(mem.q_m[mem.eimc] or 0.0), f"step {step.step}: EIMC {mem.eimc} ({mem.status})"))
        band: list[tuple[float, float, float]] = []
        if step.memory_uncertainty is not None:
            for load, interval in sorted(step.memory_uncertainty.q_m.items()):
                if interval.lower is not None and interval.upper is not None:
                    band.append((float(load), interval.lower, interval.upper))
        memory_series.append(_svg.Series(name=f"step {step.step}", points=points, band=band, markers=markers))
        rows.append(
            f"<tr><td>{step.step}</td><td>{_num(mem.eimc)}</td><td class='l'>{_e(mem.status)}</td>"
            f"<td class='l'>{_e(step.memory_label or '')}</td></tr>"
        )
    charts = []
    if memory_series:
        charts.append(
            "<div class='chart'><h4>Memory Capacity Curve Q_M(load) per checkpoint (◇ = EIMC)</h4>"
            + _svg.line_chart(
                memory_series,
                title="CHI memory capacity curve",
                x_label="memory load (log2)",
                y_label="Q_M",
                y_range=(0.0, 1.0),
                log2_x=True,
                references=[_svg.Reference(report.tau, f"τ = {report.tau:g}")],
                x_ticks=grid,
            )
            + "</div>"
        )
    chi_points = [(float(s.step), s.chi_of_mean_h.estimate) for s in report.checkpoints]
    chi_band = [
        (float(s.step), s.chi_of_mean_h.lower, s.chi_of_mean_h.upper)
        for s in report.checkpoints
        if s.chi_of_mean_h.lower is not None and s.chi_of_mean_h.upper is not None
    ]
    charts.append(
        "<div class='chart'><h4>CHIS series: CHI of the cluster-balanced mean h (band = CI)</h4>"
        + _svg.line_chart(
            [_svg.Series(name="CHI(mean h)", points=chi_points, band=chi_band)],
            title="CHIS series of CHI",
            x_label="checkpoint",
            y_label="CHI",
        )
        + "</div>"
    )
    drift = [(float(s.step), None if s.drift is None else s.drift.estimate) for s in report.checkpoints]
    continuity = [(float(s.step), None if s.continuity is None else s.continuity.estimate) for s in report.checkpoints]
    if any(v is not None for _, v in drift + continuity):
        charts.append(
            "<div class='chart'><h4>CHIS series: drift from the first step and continuity</h4>"
            + _svg.line_chart(
                [_svg.Series(name="drift", points=drift), _svg.Series(name="continuity", points=continuity)],
                title="CHIS drift and continuity",
                x_label="checkpoint",
                y_label="value",
            )
            + "</div>"
        )
    parts.append(f"<div class='charts'>{''.join(charts)}</div>")
    if rows:
        parts.append(
            "<table><thead><tr><th>step</th><th>EIMC</th><th class='l'>status</th><th class='l'>curve</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
    summary = [
        ("stability", None if report.stability is None else report.stability.estimate),
        ("memory accumulation", None if report.memory_accumulation is None else report.memory_accumulation.model_dump(mode="json")),
    ]
    parts.append(_kv(summary))
    parts.append("<h4>Limitations</h4><ul>" + "".join(f"<li>{_e(x)}</li>" for x in report.limitations) + "</ul>")
    return "".join(parts)


# --------------------------------------------------------------------------- RES


def load_res_summary(path: Path) -> ResScore:
    """Read a RES ``summary.json`` or score a ``results.jsonl`` (written by ``sitbench res run``)."""
    if path.suffix == ".jsonl":
        return score_file(path)
    try:
        return ResScore.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read the RES summary ({exc.strerror}); pass summary.json or results.jsonl of `sitbench res run`") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(summary)"
        raise InputError(f"{path}: field {field!r}: {first['msg']}; pass summary.json or results.jsonl of `sitbench res run`") from None


def _res_section(score: ResScore) -> str:
    n = score.n_scenarios
    head = (
        "<tr><th class='l'>model</th>"
        + "".join(f"<th>accuracy {c}</th>" for c in CONDITIONS)
        + "<th>strict triplets</th><th>owner-sensitive</th><th>peer–fiction agreement</th>"
        "<th>complete triplets</th><th>role matches</th><th class='l'>classification</th><th class='l'>role rival</th></tr>"
    )
    rows = []
    for model, s in score.models.items():
        acc = "".join(
            f"<td title='{s.accuracy_counts[c].correct}/{s.accuracy_counts[c].n}; invalid {s.accuracy_counts[c].invalid}, "
            f"error {s.accuracy_counts[c].error}, missing {s.accuracy_counts[c].missing}'>{100 * s.accuracy[c]:.1f}</td>"
            for c in CONDITIONS
        )
        rows.append(
            f"<tr><td class='l'><b>{_e(model)}</b></td>{acc}<td>{s.strict_triplets}/{n}</td>"
            f"<td>{s.owner_sensitive}/{n}</td><td>{s.peer_fiction_agreement}/{n}</td>"
            f"<td>{s.complete_triplets}/{n}</td><td>{s.role_matches}/{n}</td>"
            f"<td class='l'><b>{_e(s.classification)}</b></td><td class='l'>{_e(s.role_rival)}</td></tr>"
        )
    out = f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
    if not rows:
        out = "<p class='note'>The RES summary has no models.</p>"
    out += "<p class='note'>Accuracy in %; counts are out of the scenario set. Thresholds: " + _e(
        ", ".join(f"{k} {v}" for k, v in score.thresholds.items())
    ) + ".</p>"
    out += "".join(f"<p class='note warn'>warning: {_e(w)}</p>" for w in score.warnings)
    out += f"<p class='note'><b>Claim ceiling.</b> {_e(score.claim_ceiling)}</p>"
    return out


# --------------------------------------------------------------------------- drill-down


def _shorten(text: str, limit: int, where: str) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 5
    tail = limit - head
    omitted = len(text) - head - tail
    return f"{text[:head]}\n… [{omitted:,} characters omitted here; full text in {where}] …\n{text[-tail:]}"


def _text_limit(trials: Sequence[FailedTrial]) -> int:
    """Per-text character cap so the drill-down's texts fit :data:`DRILLDOWN_TEXT_BUDGET`."""
    texts = [
        len(m.content)
        for t in trials
        if t.trial is not None and t.trial.turns
        for m in t.trial.turns[-1].messages
    ] + [len(t.trial.response_text or "") for t in trials if t.trial is not None]
    if sum(texts) <= DRILLDOWN_TEXT_BUDGET:
        return max(texts, default=0) + 1
    # Largest cap whose capped total fits the budget (bisection over the cap).
    lo, hi = MIN_TEXT_CHARS, max(texts)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) for n in texts) <= DRILLDOWN_TEXT_BUDGET:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _observation_html(failed: FailedTrial, response: str | None) -> str:
    obs = failed.score.observation
    if obs is None:
        return "<p class='note'>No observation recorded.</p>"
    items: list[str] = [f"<b>acts Ŷ</b>: {_e(', '.join(a.value for a in obs.acts) or '(none)')}"]
    for claim in obs.claims:
        span = ""
        if response is not None:
            a, b = claim.span
            span = f" — “{_e(response[a:b])}”"
        items.append(
            f"<b>claim</b> {_e(claim.prop_id)}{'+' if claim.polarity else '−'} "
            f"<span class='muted'>({_e(claim.provenance.value)})</span>{span}"
        )
    for un in obs.unmapped:
        slot = f" slot {un.slot}={un.value}" if un.slot else ""
        items.append(
            f"<b>unmapped</b> {'+' if un.polarity else '−'} <span class='muted'>({_e(un.provenance.value)}{_e(slot)})</span>"
            f" — “{_e(un.text)}”"
        )
    items.append(f"<b>uncertainty û</b>: {_e(obs.uncertainty.value)}")
    shared = ", ".join(obs.disclosure.shared) or "(none)"
    items.append(f"<b>disclosure ŵ</b>: shared {_e(shared)}; framed as withheld: {'yes' if obs.disclosure.framed_as_withheld else 'no'}")
    items.append(f"<span class='muted'>extractor {_e(obs.verifier_version)}</span>")
    return "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def _checks_html(failed: FailedTrial) -> str:
    score = failed.score
    assert score.verdict is not None
    rows = [
        f"<tr><td class='l'>{_e(name)}</td><td class='l'>{_e(check.reason)}</td></tr>"
        for name, check in score.verdict.checks.items()
        if not check.passed
    ]
    passed = [name for name, check in score.verdict.checks.items() if check.passed]
    out = (
        f"<table><thead><tr><th class='l'>failed target check</th><th class='l'>reason</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<p class='note'>passed: {_e(', '.join(passed) or '(none)')}</p>"
    )
    if score.partner is not None:
        partner_failed = [name for name, c in score.partner.checks.items() if not c.passed]
        outcome = {(True, False): "correct", (False, True): "wrong identity", (False, False): "neither", (True, True): "both"}[
            (score.verdict.valid, score.partner.valid)
        ]
        out += (
            f"<p class='note'>Partner contract (LAA): {'valid' if score.partner.valid else 'invalid'}"
            f"{' — failed ' + _e(', '.join(partner_failed)) if partner_failed else ''}; outcome <b>{_e(outcome)}</b>.</p>"
        )
    return out


def _flags(score: Any) -> list[str]:
    return [
        name
        for name, on in (("FMR", score.false_memory), ("TL", score.temporal_leak), ("UEL", score.unauthorized_epistemic))
        if on
    ]


def _trial_html(failed: FailedTrial, limit: int) -> str:
    s = failed.score
    checks = failed_checks(s)
    flags = _flags(s)
    where = f"responses.jsonl line {failed.responses_line} of run {failed.run}" if failed.responses_line else "responses.jsonl"
    summary = (
        f"<span class='tid'>{_e(s.trial_id)}</span> "
        f"<span class='pill'>{_e(s.category.value)} {_e(CATEGORY_NAMES.get(s.category.value, ''))}</span>"
        f"<span class='muted'> {_e(failed.run)} · {_e(s.lineage_id)} · {_e(s.pair_id)}"
        f"{' · ' + _e(s.stratum) if s.stratum else ''}{' · Q*' if s.theorem_qualified else ''}</span> "
        + "".join(f"<span class='pill bad'>{_e(c)}</span>" for c in checks)
        + "".join(f"<span class='pill flag'>{_e(f)}</span>" for f in flags)
    )
    body: list[str] = []
    trial = failed.trial
    response = trial.response_text if trial is not None else None
    if trial is None or not trial.turns:
        body.append("<p class='note warn'>responses.jsonl has no record of this trial.</p>")
    else:
        last = trial.turns[-1]
        body.append(
            f"<h4>Envelope — messages sent at the scored turn (turn {last.turn + 1} of {len(trial.turns)}, "
            f"session {last.session})</h4>"
        )
        for message in last.messages:
            body.append(f"<div class='role'>{_e(message.role)}</div><pre>{_e(_shorten(message.content, limit, where))}</pre>")
        if trial.persisted:
            body.append("<p class='note'>Persisted across resets: " + _e("; ".join(trial.persisted)) + "</p>")
        body.append("<h4>Response</h4>")
        body.append(f"<pre>{_e(_shorten(response, limit, where)) if response is not None else '(no text)'}</pre>")
    body.append("<h4>Extracted observation Γ̂</h4>")
    body.append(_observation_html(failed, response))
    body.append("<h4>Checks</h4>")
    body.append(_checks_html(failed))
    trace = [where, f"probe {s.probe_id}", f"capability {s.capability}", f"prompt tokens {s.prompt_tokens}"]
    if s.verdict is not None:
        trace.append(f"scorer {s.verdict.verifier_version}")
    body.append(f"<p class='note'>{_e(' · '.join(trace))}</p>")
    return (
        f"<details class='trial' data-run='{_e(failed.run)}' data-config='{_e(s.config)}' "
        f"data-category='{_e(s.category.value)}' data-checks='{_e(' '.join(checks))}' data-flags='{_e(' '.join(flags))}'>"
        f"<summary>{summary}</summary><div class='body'>{''.join(body)}</div></details>"
    )


def _select(element_id: str, label: str, options: Sequence[str]) -> str:
    opts = "".join(f"<option value='{_e(o)}'>{_e(o)}</option>" for o in options)
    return f"<label>{_e(label)} <select id='{element_id}'><option value=''>all</option>{opts}</select></label>"


def _drilldown(runs: Sequence[LoadedRun], trials: Sequence[FailedTrial], total: int, cap: int) -> str:
    limit = _text_limit(trials)
    configs = sorted({t.score.config for t in trials})
    categories = sorted({t.score.category.value for t in trials})
    checks = sorted({c for t in trials for c in failed_checks(t.score)})
    filters = (
        "<div class='filters'>"
        "<label>search <input type='search' id='q' placeholder='words in trial id, envelope, response, reasons…'></label>"
        + _select("f-run", "run", [r.name for r in runs])
        + _select("f-config", "config", configs)
        + _select("f-category", "category", categories)
        + _select("f-check", "failing check", checks)
        + _select("f-flag", "diagnostic", ["FMR", "TL", "UEL"])
        + "<button type='button' id='clear'>clear</button>"
        f"<span><b id='shown'>{len(trials)}</b> of <span id='listed'>{len(trials)}</span> listed</span>"
        "</div>"
    )
    note = (
        f"<p class='note'>{total:,} failed trial{'s' if total != 1 else ''} (completed, target verdict invalid) "
        f"across {len(runs)} run{'s' if len(runs) != 1 else ''}. "
    )
    if len(trials) < total:
        note += (
            f"<b class='warn'>Showing {len(trials):,} of {total:,}</b>: the drill-down is capped at {cap:,} trials, "
            "picked round-robin over run × configuration × category so every failing group appears; "
            f"every trial is in {TRIALS_CSV} and the runs' scores.jsonl. "
        )
    if limit <= max((len(m.content) for t in trials if t.trial for m in t.trial.turns[-1].messages), default=0):
        note += f"Texts longer than {limit:,} characters are shortened (head and tail kept) to keep the file small. "
    note += "Filters can be linked: e.g. <code>#config=A&amp;check=grounding</code>.</p>"
    body = "".join(_trial_html(t, limit) for t in trials)
    if not trials:
        body = "<p class='note'>No failed trials.</p>"
    return filters + note + f"<div id='trials'>{body}</div>"


# --------------------------------------------------------------------------- manifest


def _manifest_section(run: LoadedRun) -> str:
    m = run.manifest
    dataset = dict(m.dataset)
    counts = dataset.pop("counts", None)
    items: list[tuple[str, object]] = [
        ("run directory", str(run.path)),
        ("run id", m.run_id),
        ("created", m.created_at),
        ("finished", m.finished_at),
        ("sitbench version", m.package_version),
        ("git commit", m.git_commit),
        ("candidate", m.candidate),
        ("decoding", m.decoding.model_dump(mode="json")),
        ("handler", m.handler),
        ("configurations", ", ".join(m.configs)),
        ("dataset", dataset),
        ("dataset counts", counts),
        ("verifier version", m.verifier_version),
        ("retriever", m.retriever),
        ("templates sha256", m.templates_sha256),
        ("shard", m.shard),
        ("seeds", m.seeds),
        ("trial counts", m.counts),
        ("session reset policy", m.session_reset_policy),
        ("extra", m.extra),
    ]
    items += [(f"sha256 {name}", digest) for name, digest in run.file_sha256.items()]
    return f"<h3 id='manifest-{_anchor(run.name)}'>{_e(run.name)}</h3>{_kv(items)}"


# --------------------------------------------------------------------------- page


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def render_report(
    runs: Sequence[LoadedRun],
    *,
    analysis: Mapping[str, Any] | None = None,
    chi_report: ChiReport | None = None,
    res_summary: ResScore | None = None,
    max_failed: int = DEFAULT_MAX_FAILED,
    generated_at: str | None = None,
) -> str:
    """Render the report page.

    Args:
        runs: loaded run directories (see :func:`sitbench.report.load_runs`).
        analysis: the JSON of ``sitbench analyze RUN… --json`` (E1–E8), if any.
        chi_report: a CHI/CHIS report, if any.
        res_summary: a RES score, if any.
        max_failed: most failed trials listed in the drill-down.
        generated_at: timestamp printed in the header (default: now, UTC).

    Returns:
        The complete HTML document.
    """
    picked, total = select_failed(runs, max_failed)
    trials = load_failed_trials(picked)
    stamp = generated_at or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    nav = [("summary", "Summary"), ("charts", "Charts")]
    if analysis is not None:
        nav.append(("contrasts", "E1–E8"))
    if chi_report is not None:
        nav.append(("chi", "CHI/CHIS"))
    if res_summary is not None:
        nav.append(("res", "RES"))
    nav += [("drilldown", "Failed trials"), ("manifest", "Manifests")]

    sections: list[str] = []
    summary = "".join(
        f"<h3>{_e(run.name)}</h3>{_run_header(run)}{_summary_table(run)}{_denominators(run)}" for run in runs
    )
    sections.append(f"<section id='summary'><h2>Summary (Table 6 layout)</h2>{summary}</section>")
    charts = "".join(f"<h3>{_e(run.name)}</h3>{_charts(run)}" for run in runs)
    sections.append(f"<section id='charts'><h2>Charts</h2>{charts}</section>")
    if analysis is not None:
        sections.append(
            f"<section id='contrasts'><h2>Confirmatory contrasts E1–E8 (Holm–Bonferroni)</h2>{_analysis_section(analysis)}</section>"
        )
    if chi_report is not None:
        sections.append(f"<section id='chi'><h2>CHI / CHIS</h2>{_chi_section(chi_report)}</section>")
    if res_summary is not None:
        sections.append(f"<section id='res'><h2>RES triplet summary</h2>{_res_section(res_summary)}</section>")
    sections.append(
        f"<section id='drilldown'><h2>Failed trials</h2>{_drilldown(runs, trials, total, max_failed)}</section>"
    )
    manifests = "".join(_manifest_section(run) for run in runs)
    sections.append(f"<section id='manifest'><h2>Manifests</h2>{manifests}</section>")

    run_list = ", ".join(f"{run.name} ({run.model})" for run in runs)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{_csp(_SCRIPT)}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<meta name='generator' content='sitbench {_e(__version__)}'>"
        f"<title>sitbench report — {_e(', '.join(run.name for run in runs))}</title>"
        f"<style>{_STYLE}</style></head><body>"
        f"<header><h1>sitbench report</h1><p>{_e(run_list)}</p>"
        f"<p>generated {_e(stamp)} by sitbench {_e(__version__)} · exports: "
        f"<a href='{METRICS_JSON}'>{METRICS_JSON}</a>, <a href='{TRIALS_CSV}'>{TRIALS_CSV}</a></p></header>"
        "<nav>" + "".join(f"<a href='#{key}'>{_e(label)}</a>" for key, label in nav) + "</nav>"
        f"<main>{''.join(sections)}</main>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_report(
    run_dirs: Sequence[Path],
    out_html: Path,
    *,
    analysis: dict[str, Any] | None = None,
    chi_report: Path | None = None,
    res_summary: Path | None = None,
    max_failed: int = DEFAULT_MAX_FAILED,
) -> Path:
    """Write the self-contained HTML report and its exports beside it.

    Writes ``out_html``, plus ``metrics.json`` and ``trials.csv`` in the same folder.

    Args:
        run_dirs: scored run directories (each with manifest.json and scores.jsonl;
            responses.jsonl is read for the failed trials' envelopes and responses).
        out_html: the HTML file to write; its folder is created if needed.
        analysis: parsed JSON of ``sitbench analyze RUN… --json`` to show E1–E8.
        chi_report: a CHI/CHIS ``report.json`` to show the EIMC curve and CHIS series.
        res_summary: a RES ``summary.json`` (or ``results.jsonl``, scored here).
        max_failed: most failed trials listed in the drill-down (the rest are counted on the page).

    Returns:
        ``out_html``.

    Raises:
        InputError: a run directory, manifest, score file or optional input is missing or malformed.
    """
    if max_failed < 0:
        raise InputError(f"max_failed {max_failed}: must be 0 or more")
    runs = load_runs([Path(p) for p in run_dirs])
    chi = load_chi_report(Path(chi_report)) if chi_report is not None else None
    res = load_res_summary(Path(res_summary)) if res_summary is not None else None
    page = render_report(runs, analysis=analysis, chi_report=chi, res_summary=res, max_failed=max_failed)
    out_html = Path(out_html)
    out_html.parent.mkdir(parents=True, exist_ok=True)
    out_html.write_text(page, encoding="utf-8")
    write_metrics_json(runs, out_html.parent / METRICS_JSON)
    write_trials_csv(runs, out_html.parent / TRIALS_CSV)
    return out_html


def failed_count(runs: Sequence[LoadedRun]) -> int:
    """Failed trials (completed, invalid target verdict) across ``runs``."""
    return sum(is_failed(r) for run in runs for r in run.scores)
