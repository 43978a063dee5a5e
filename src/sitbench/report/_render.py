"""The self-contained HTML report: tables, static SVG charts, drill-down and manifests in one file.

The page loads nothing at view time: styles and the small filter script are inline, the
charts are static SVG, and a Content-Security-Policy allows only the report's own script
(by hash), so even a response that slipped past escaping could not run code. Everything
that comes from a run — above all the candidate's responses, which are untrusted model
output — goes through :func:`html.escape`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitbench import render
from sitbench._version import __version__
from sitbench.chi import ChiReport
from sitbench.errors import InputError
from sitbench.glossary import (
    REFERENCES,
    category_label,
    category_name,
    config_label,
    config_name,
)
from sitbench.metrics import CATEGORY_ORDER, incomplete_notes
from sitbench.metrics import format_percent as pct
from sitbench.render import content_security_policy, esc, kv, num
from sitbench.report._agents import agent_section, agent_words
from sitbench.report._audit import audit_section, load_audit_result
from sitbench.report._card import corrected_section
from sitbench.report._contrasts import analysed_names
from sitbench.report._data import (
    LoadedRun,
    load_failed_trials,
    load_runs,
    select_listed,
)
from sitbench.report._drilldown import drilldown
from sitbench.report._exports import (
    METRICS_JSON,
    TRIALS_CSV,
    is_metrics_json,
    is_trials_csv,
    write_metrics_json,
    write_trials_csv,
)
from sitbench.report._guide import glossary_section, next_steps_box
from sitbench.report._readers import band_span, contested_table, has_two_readers
from sitbench.report._sections import (
    analysis_section,
    chi_section,
    load_analysis,
    load_chi_report,
    load_res_summary,
    res_section,
)
from sitbench.res import ResScore
from sitbench.schema import CATEGORY_METRICS
from sitbench.stats import AnalysisReport
from sitbench.stores import check_replaceable, write_text_atomic

DEFAULT_MAX_FAILED = 2000
"""Most failed trials shown in the drill-down; the rest stay in ``trials.csv`` and the run files."""

LAA_BOUND = 0.5
"""Seed Theorem 1 (§3.4): ``LAA* ≤ 1/m`` for any profile-only policy; ``m = 2`` for collision pairs."""

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
.pill.contested{background:#efe6fb;color:#5b2a9e}
.band{display:block;font-size:11px;color:var(--muted)}
.pid{white-space:nowrap}
.why{display:block;font-weight:400;font-size:12px;color:var(--muted);white-space:normal;max-width:420px}
.role{font-weight:700;font-size:12px;color:var(--muted)}
.hidden{display:none}
.muted{color:var(--muted)}
aside.next{border:2px solid var(--accent);border-radius:6px;background:#f3f6fd;padding:4px 16px 8px;margin:16px 0}
aside.next h2{border:0;margin:8px 0 4px;font-size:17px}
aside.next li{margin:4px 0}
code.cmd{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#fff;border:1px solid var(--line);padding:1px 4px;word-break:break-all}
table.glossary td{white-space:normal;vertical-align:top}
"""

_SCRIPT = """
(function(){
var rows=Array.prototype.slice.call(document.querySelectorAll('details.trial'));
var ids=['q','f-run','f-config','f-category','f-check','f-flag','f-agreement'].filter(function(i){return document.getElementById(i);});
var keys={'q':'q','f-run':'run','f-config':'config','f-category':'category','f-check':'check','f-flag':'flag','f-agreement':'agreement'};
var el={};ids.forEach(function(i){el[i]=document.getElementById(i);});
var shown=document.getElementById('shown');
var text=new Array(rows.length);
function hay(i){if(text[i]===undefined){text[i]=rows[i].textContent.toLowerCase();}return text[i];}
function has(list,v){return (' '+list+' ').indexOf(' '+v+' ')>=0;}
function apply(){
  var q=(el['q'].value||'').toLowerCase().trim(),run=el['f-run'].value,cfg=el['f-config'].value,
      cat=el['f-category'].value,chk=el['f-check'].value,flag=el['f-flag'].value,
      agr=el['f-agreement']?el['f-agreement'].value:'',n=0;
  var terms=q?q.split(/\\s+/):[];
  for(var i=0;i<rows.length;i++){
    var r=rows[i],d=r.dataset,ok=(!run||d.run===run)&&(!cfg||d.config===cfg)&&(!cat||d.category===cat)
      &&(!chk||has(d.checks,chk))&&(!flag||has(d.flags,flag))&&(!agr||d.agreement===agr);
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
    var v;try{v=decodeURIComponent(kv[1]||'');}catch(e){v='';}
    ids.forEach(function(i){if(keys[i]===kv[0]){el[i].value=v;}});});
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


# --------------------------------------------------------------------------- summary


def _summary_table(run: LoadedRun) -> str:
    head = ["<th class='l' title='configuration: what the candidate is shown (see the glossary)'>config.</th>"]
    head += [
        f"<th title='{esc(category_label(letter))}'>{esc(field)}</th>" for field, letter in _VALIDITY_COLUMNS
    ]
    head += ["<th class='macro'>Macro SIT</th>"]
    head += [f"<th>{esc(label)}</th>" for _, label in _DIAGNOSTIC_COLUMNS]
    head += ["<th>completed / attempted</th>", "<th>dropped</th>",
             "<th title='the verifier could not read the answer, or the run holds no whole record of the trial: "
             "left out of every figure, never a failure'>unscored</th>"]
    body = []
    for config, row in run.metrics.items():
        values = row.model_dump()
        cells = [f"<td class='l' title='{esc(config_label(config))}: {esc(config_name(config))}'><b>{esc(config)}</b></td>"]
        for field, _ in _VALIDITY_COLUMNS:
            cells.append(_metric_cell(run.name, config, field, values[field], band=band_span(row, field)))
        cells.append(_metric_cell(run.name, config, "macro_sit", row.macro_sit, css="macro",
                                  band=band_span(row, "macro_sit")))
        for field, _ in _DIAGNOSTIC_COLUMNS:
            cells.append(_metric_cell(run.name, config, field, values[field], band=band_span(row, field)))
        cells.append(
            f"<td data-run='{esc(run.name)}' data-config='{esc(config)}' data-metric='completed_attempted'>"
            f"{row.n_completed} / {row.n_attempted}</td>"
        )
        cells.append(f"<td>{row.n_attempted - row.n_completed - row.n_unscored}</td>")
        cells.append(f"<td>{row.n_unscored}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    table = (
        f"<table class='summary' data-run='{esc(run.name)}'><thead><tr>{''.join(head)}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )
    notes = [
        (f"{_rows_caption(run)} "
         "Values in %; — = undefined (no completed observation; Macro SIT is undefined when any category is). "
         "Category validities and LAA/IC are pair-balanced (seed §8.2, Eq. 40); FMR, TL and UEL are plain shares "
         "over completed trials. Dropped trials (no answer) and unscored ones (an answer the verifier could not "
         "read, or a trial the run holds no whole record of) count as attempted, never as failures.")
    ]
    notes += [f"{config_label(config)}: {note}" for config, note in incomplete_notes(run.metrics)]
    incomplete = [
        f"{config_label(config)} {category_label(key) if len(key) == 1 else key}: pair {pair} left out ({reason})"
        for config, row in run.metrics.items()
        for key, counts in row.counts.items()
        for pair, reason in counts.incomplete_pairs.items()
    ]
    out = table + "".join(f"<p class='note'>{esc(n)}</p>" for n in notes)
    if incomplete:
        shown = incomplete[:20]
        more = f" (+{len(incomplete) - 20} more)" if len(incomplete) > 20 else ""
        out += f"<p class='note warn'>Incomplete pairs: {esc('; '.join(shown))}{esc(more)}</p>"
    return out + contested_table(run)


def _rows_caption(run: LoadedRun) -> str:
    """What the summary's rows and columns are: configurations A–I, or the one row of the agent under test."""
    agent = run.manifest.agent
    columns = "the validity columns are probe categories (cat. A–H); the glossary below says what each one tests."
    if agent is None:
        return ("Rows are configurations (config. A–I), " + columns.replace(" tests.", " shows or tests."))
    name = " ".join(x for x in (agent.info.name, agent.info.version) if x)
    return (f"The row agent is the agent under test, {name} ({agent.spec}): it ingested each subject's whole "
            "chronicle and answered from its own memory, so no configuration A–I applies; " + columns)


def _metric_cell(run: str, config: str, field: str, value: float | None, css: str = "", band: str = "") -> str:
    cls = f" class='{css}'" if css else ""
    return (f"<td{cls} data-run='{esc(run)}' data-config='{esc(config)}' data-metric='{esc(field)}'>{pct(value)}"
            f"{band}</td>")


def _denominators(run: LoadedRun) -> str:
    head = "<tr><th class='l'>config.</th>" + "".join(
        f"<th title='{esc(category_label(c.value))}'>cat. {c.value}</th>" for c in CATEGORY_ORDER
    )
    head += "<th>Q*_disc</th><th>n_FMR</th><th>n_TL</th><th>n_UEL</th><th>LAA outcomes (1,0)/(0,1)/(0,0)/(1,1)</th></tr>"
    rows = []
    for config, row in run.metrics.items():
        cells = [f"<td class='l'><b>{esc(config)}</b></td>"]
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
    if m.agent is not None:
        # An agent is the whole architecture: no evidence handler, no decoding of sitbench's own.
        who = [f"<b>{esc(part)}</b>" if i == 0 else esc(part) for i, part in enumerate(agent_words(m.agent))]
    else:
        who = [f"model <b>{esc(run.model)}</b>", f"handler {esc(m.handler)}",
               f"temperature {num(m.decoding.temperature)}"]
    bits = [
        *who,
        f"dataset {esc(m.dataset.get('suite', '?'))} <code>{esc(sha[:12])}</code>",
        f"verifier {esc(m.verifier_version or '—')}",
        f"run id <code>{esc(m.run_id)}</code>",
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
    rows = "agent" if run.manifest.agent is not None else "configuration"
    heat = render.heatmap(
        configs,
        [c.value for c in CATEGORY_ORDER],
        values,
        title=f"{run.name}: category validity per {rows}",
        column_labels={c.value: CATEGORY_METRICS[c] for c in CATEGORY_ORDER},
        column_heads={c.value: f"cat. {c.value}" for c in CATEGORY_ORDER},
        row_heads={config: config_label(config) for config in configs},
        column_tips={c.value: category_label(c.value) for c in CATEGORY_ORDER},
    )
    legend = " · ".join(f"cat. {c.value} {category_name(c.value)}" for c in CATEGORY_ORDER)
    laa = render.bar_chart(
        configs,
        {"LAA": [row.LAA for row in run.metrics.values()]},
        title=f"{run.name}: LAA per {rows} against the bound 0.5",
        references=[render.Reference(LAA_BOUND, "LAA* ≤ 1/m = 0.5 (profile-only, seed Theorem 1)")],
    )
    diag = render.bar_chart(
        configs,
        {
            "FMR": [row.FMR for row in run.metrics.values()],
            "TL": [row.TL for row in run.metrics.values()],
            "UEL": [row.UEL for row in run.metrics.values()],
        },
        title=f"{run.name}: FMR, TL and UEL per {rows}",
        colors={"FMR": render.PALETTE[2], "TL": render.PALETTE[1], "UEL": render.PALETTE[6]},
    )
    return (
        "<div class='charts'>"
        f"<div class='chart'><h4>Validity: {rows} (rows) × probe category (columns)</h4>{heat}"
        f"<p class='note'>{esc(legend)}</p></div>"
        f"<div class='chart'><h4>LAA vs the 0.5 bound</h4>{laa}"
        f"<p class='note'>{esc(REFERENCES['Theorem 1'])}: no profile-only policy exceeds the dashed line "
        "in expectation.</p></div>"
        f"<div class='chart'><h4>Diagnostics FMR / TL / UEL (lower is better)</h4>{diag}</div>"
        "</div>"
    )


# --------------------------------------------------------------------------- manifest


def _how_it_ran(run: LoadedRun) -> list[tuple[str, object]]:
    """The manifest's agent block for an agent run (handler and decoding are sitbench's and unused there);
    decoding and handler for a model run."""
    m = run.manifest
    if m.agent is None:
        return [("decoding", m.decoding.model_dump(mode="json")), ("handler", m.handler)]
    return [("agent", m.agent.model_dump(mode="json")),
            ("decoding (recorded; not used by an agent)", m.decoding.model_dump(mode="json")),
            ("handler (recorded; not used by an agent)", m.handler)]


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
        *_how_it_ran(run),
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
    return f"<h3 id='manifest-{_anchor(run.name)}'>{esc(run.name)}</h3>{kv(items)}"


# --------------------------------------------------------------------------- page


def _csp(script: str) -> str:
    return content_security_policy(script)


def _optional_sections(
    runs: Sequence[LoadedRun],
    *,
    analysis: AnalysisReport | None,
    chi_report: ChiReport | None,
    res_summary: ResScore | None,
    audit: Any | None,
) -> list[tuple[str, str, str, str]]:
    """``(id, nav label, heading, body)`` of the sections only some reports have, in page order."""
    out: list[tuple[str, str, str, str]] = []
    if analysis is not None:
        names = ", ".join(analysed_names(analysis, runs))
        out.append(("contrasts", "E1–E8", f"Confirmatory contrasts E1–E8 (Holm–Bonferroni): {esc(names)}",
                    analysis_section(analysis, runs)))
    if chi_report is not None:
        out.append(("chi", "CHI/CHIS", "CHI / CHIS", chi_section(chi_report)))
    if res_summary is not None:
        out.append(("res", "RES", "RES triplet summary", res_section(res_summary)))
    if audit is not None:
        out.append(("audit", "Verifier audit", "Verifier audit (seed §8.3)", audit_section(audit)))
    agents = agent_section(runs)
    if agents is not None:
        out.append(("agents", "Agents", "Agents: time, tokens and memory per trial", agents))
    return out


def render_report(
    runs: Sequence[LoadedRun],
    *,
    analysis: AnalysisReport | None = None,
    chi_report: ChiReport | None = None,
    res_summary: ResScore | None = None,
    max_failed: int = DEFAULT_MAX_FAILED,
    generated_at: str | None = None,
    out_html: Path | None = None,
    audit: Any | None = None,
) -> str:
    """Render the report page.

    Args:
        runs: loaded run directories (see :func:`sitbench.report.load_runs`).
        analysis: the result of ``sitbench analyze`` (E1–E8), if any.
        chi_report: a CHI/CHIS report, if any.
        res_summary: a RES score, if any.
        max_failed: most failed trials listed in the drill-down.
        generated_at: timestamp printed in the header (default: now, UTC).
        out_html: where the page will be written, for the commands in the "what to do next" box.
        audit: an audit result (``sitbench.audit.VerifierResult`` or ``AgreementResult``), if any.

    Returns:
        The complete HTML document.
    """
    listed = select_listed(runs, max_failed)
    trials = load_failed_trials(listed.picked)
    stamp = generated_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    summary = "".join(
        f"<h3>{esc(run.name)}</h3>{_run_header(run)}{_summary_table(run)}{_denominators(run)}" for run in runs
    )
    parts = [("summary", "Summary", "Summary (laid out like seed paper Table 6)", summary)]
    corrected = corrected_section(runs)
    if corrected is not None:
        parts.append(("corrected", "Corrected", "Corrected validities (verifier card)", corrected))
    parts.append(("charts", "Charts", "Charts", "".join(f"<h3>{esc(run.name)}</h3>{_charts(run)}" for run in runs)))
    parts += _optional_sections(runs, analysis=analysis, chi_report=chi_report, res_summary=res_summary, audit=audit)
    two = any(has_two_readers(run) for run in runs)
    parts.append(("drilldown", "Failed & contested" if two else "Failed trials",
                  "Failed and contested trials" if two else "Failed trials",
                  drilldown(runs, trials, listed, max_failed)))
    parts.append(("glossary", "Glossary", "Glossary", glossary_section()))
    parts.append(("manifest", "Manifests", "Manifests", "".join(_manifest_section(run) for run in runs)))
    nav = [("next", "Next")] + [(key, label) for key, label, _, _ in parts]
    sections = [next_steps_box(runs, analysis=analysis, out_html=out_html)] + [
        f"<section id='{key}'><h2>{title}</h2>{body}</section>" for key, _, title, body in parts
    ]

    run_list = ", ".join(f"{run.name} ({run.model})" for run in runs)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{_csp(_SCRIPT)}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<meta name='generator' content='sitbench {esc(__version__)}'>"
        f"<title>sitbench report — {esc(', '.join(run.name for run in runs))}</title>"
        f"<style>{_STYLE}</style></head><body>"
        f"<header><h1>sitbench report</h1><p>{esc(run_list)}</p>"
        f"<p>generated {esc(stamp)} by sitbench {esc(__version__)} · exports: "
        f"<a href='{METRICS_JSON}'>{METRICS_JSON}</a>, <a href='{TRIALS_CSV}'>{TRIALS_CSV}</a></p></header>"
        "<nav>" + "".join(f"<a href='#{key}'>{esc(label)}</a>" for key, label in nav) + "</nav>"
        f"<main>{''.join(sections)}</main>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_report(
    run_dirs: Sequence[Path],
    out_html: Path,
    *,
    analysis: AnalysisReport | Mapping[str, Any] | None = None,
    chi_report: Path | None = None,
    res_summary: Path | None = None,
    max_failed: int = DEFAULT_MAX_FAILED,
    audit: Path | None = None,
) -> Path:
    """Write the self-contained HTML report and its exports beside it.

    Writes ``out_html``, plus ``metrics.json`` and ``trials.csv`` in the same folder, each through a
    temporary file and a rename: a failed write (a full disk) leaves the previous file whole. An
    existing ``metrics.json`` or ``trials.csv`` there is replaced only when an earlier report wrote it.

    Args:
        run_dirs: scored run directories (each with manifest.json and scores.jsonl;
            responses.jsonl is read for the failed trials' envelopes and responses).
        out_html: the HTML file to write; its folder is created if needed.
        analysis: ``sitbench analyze``'s result (or its parsed ``--json``, checked against the same model)
            to show E1–E8.
        chi_report: a CHI/CHIS ``report.json`` to show the EIMC curve and CHIS series.
        res_summary: a RES ``summary.json`` (or ``results.jsonl``, scored here).
        max_failed: most failed trials listed in the drill-down (the rest are counted on the page).
        audit: an ``audit verifier --out`` (or agreement) result to show in an audit section.

    Returns:
        ``out_html``.

    Raises:
        InputError: a run directory, manifest, score file or optional input is missing or malformed.
        OutputError: a file cannot be written (a read-only folder, a full disk), naming it and the cause;
            or ``metrics.json`` or ``trials.csv`` beside the page is a file sitbench did not write.
    """
    if max_failed < 0:
        raise InputError(f"max_failed {max_failed}: must be 0 or more")
    out_html = Path(out_html)
    # The exports beside the page replace only exports of an earlier report, never a user's file.
    check_replaceable(out_html.parent / METRICS_JSON, is_metrics_json)
    check_replaceable(out_html.parent / TRIALS_CSV, is_trials_csv)
    checked = load_analysis(analysis) if analysis is not None else None
    runs = load_runs([Path(p) for p in run_dirs])
    chi = load_chi_report(Path(chi_report)) if chi_report is not None else None
    res = load_res_summary(Path(res_summary)) if res_summary is not None else None
    audit_result = load_audit_result(Path(audit)) if audit is not None else None
    page = render_report(runs, analysis=checked, chi_report=chi, res_summary=res, max_failed=max_failed,
                         out_html=out_html, audit=audit_result)
    write_text_atomic(out_html, page)
    write_metrics_json(runs, out_html.parent / METRICS_JSON)
    write_trials_csv(runs, out_html.parent / TRIALS_CSV)
    return out_html
