"""The self-contained comparison page of ``sitbench compare --html``.

It shares the report's style sheet, security policy and SVG forest plot: one table of endpoint
differences per arm, the sentence that says whether the pairs allow any decision, the incomplete
pairs, and a filterable table of the probes whose verdict changed. Nothing from a run reaches the page
unescaped.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sitbench import render
from sitbench._version import __version__
from sitbench.glossary import category_label
from sitbench.metrics import format_percent as pct
from sitbench.render import content_security_policy, esc, kv
from sitbench.report._render import _STYLE
from sitbench.stats import ArmComparison, ChangeDirection, CompareReport, Decision, EndpointComparison
from sitbench.stores import atomic_writer

_EXTRA_STYLE = """
tr.difference td{background:#eef7ee;font-weight:600}
.decide{border:2px solid #b7791f;background:#fff8e6;padding:6px 10px;margin:8px 0;display:block}
.filters label{margin-right:12px}
"""

_SCRIPT = """
(function(){
var rows=Array.prototype.slice.call(document.querySelectorAll('tr.change'));
var arm=document.getElementById('f-arm'),dir=document.getElementById('f-change'),shown=document.getElementById('shown');
function apply(){
  var n=0;
  for(var i=0;i<rows.length;i++){
    var d=rows[i].dataset,ok=(!arm.value||d.arm===arm.value)&&(!dir.value||d.change===dir.value);
    rows[i].classList.toggle('hidden',!ok);if(ok){n++;}
  }
  shown.textContent=String(n);
}
arm.addEventListener('change',apply);dir.addEventListener('change',apply);
apply();
document.documentElement.setAttribute('data-ready','1');
})();
"""

_DECISIONS: dict[Decision, str] = {
    Decision.DIFFERENCE: "difference (Holm)",
    Decision.NOT_REJECTED: "no difference shown",
    Decision.INCOMPLETE: "incomplete",
    Decision.DESCRIPTIVE: "outside Holm",
}
_CHANGES: dict[ChangeDirection, str] = {
    ChangeDirection.PASS_TO_FAIL: "pass → fail",
    ChangeDirection.FAIL_TO_PASS: "fail → pass",
}


def _name(e: EndpointComparison) -> str:
    if e.endpoint == "macro_sit":
        return "Macro SIT"
    return e.endpoint + (f" (cat. {e.category})" if e.category else "") + ("" if e.higher_is_better else " ↓")


def _pp(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f}"


def _p(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def _interval(e: EndpointComparison) -> str:
    if e.ci_lower is None or e.ci_upper is None:
        return "—"
    degenerate = " (degenerate)" if e.bootstrap is not None and e.bootstrap.degenerate else ""
    return f"[{_pp(e.ci_lower)}, {_pp(e.ci_upper)}]{degenerate}"


def _endpoint_row(e: EndpointComparison) -> str:
    css = " class='difference'" if e.decision is Decision.DIFFERENCE else ""
    tip = esc(category_label(e.category)) if e.category else ""
    cells = [
        f"<td class='l' title='{tip}'>{esc(_name(e))}</td>", f"<td>{pct(e.baseline_value)}</td>",
        f"<td>{pct(e.arm_value)}</td>", f"<td data-role='difference'>{_pp(e.difference)}</td>",
        f"<td>{esc(_interval(e))}</td>", f"<td>{e.n_pairs} / {e.pairs_attempted}</td>", f"<td>{_p(e.p)}</td>",
        f"<td>{_p(e.p_holm)}</td>", f"<td class='l' title='{esc(e.decision_note)}'>{esc(_DECISIONS[e.decision])}</td>",
    ]
    return f"<tr{css} data-endpoint='{esc(e.endpoint)}'>{''.join(cells)}</tr>"


def _endpoint_table(c: ArmComparison, ci: float) -> str:
    head = ["endpoint", "baseline %", "arm %", "difference (pp)", f"{ci:.0%} interval (pp)", "pairs compared",
            "sign-flip p", "Holm p", "decision"]
    rows = "".join(_endpoint_row(e) for e in [*c.categories, c.macro_sit, *c.diagnostics])
    header = "".join(f"<th{' class=l' if i in (0, 8) else ''}>{esc(h)}</th>" for i, h in enumerate(head))
    return (f"<table class='endpoints' data-arm='{esc(c.arm)}'><thead><tr>{header}</tr></thead><tbody>{rows}</tbody>"
            "</table><p class='note'>Values in %, differences in percentage points (arm − baseline); ↓ lower is "
            "better. Pairs compared / pairs holding probes of the endpoint. Hover a decision for its reason.</p>")


def _forest(c: ArmComparison) -> str:
    rows = [
        render.IntervalRow(label=_name(e), estimate=None if e.difference is None else 100 * e.difference,
                           lower=None if e.ci_lower is None else 100 * e.ci_lower,
                           upper=None if e.ci_upper is None else 100 * e.ci_upper,
                           highlight=e.decision is Decision.DIFFERENCE)
        for e in [*c.categories, c.macro_sit]
    ]
    plot = render.forest_plot(rows, title=f"{c.arm} − {c.baseline}: validity differences (pp)")
    return (f"<div class='chart'><h4>Differences with their intervals, in percentage points (filled = shown under "
            f"Holm)</h4>{plot}</div>")


def _incomplete(c: ArmComparison) -> str:
    items = [f"<li>{esc(_name(e))} · {esc(pair)}: {esc(why)}</li>"
             for e in [*c.categories, *c.diagnostics] for pair, why in e.incomplete_pairs.items()]
    if not items:
        return "<p class='note'>No pair is incomplete: every probe was completed in both arms.</p>"
    return ("<h3>Incomplete pairs (left out, never reweighted)</h3>"
            f"<ul class='note warn'>{''.join(items)}</ul>")


def _comparison_section(index: int, c: ArmComparison, ci: float) -> str:
    decide = (f"<p class='decide' data-role='decidability'>{esc(c.decidability.message)}</p>"
              if c.decidability.message else "")
    shown = [f"<li>{esc(e.endpoint)}: {esc(e.decision_note)}</li>" for e in c.categories
             if e.decision is Decision.DIFFERENCE]
    found = f"<ul>{''.join(shown)}</ul>" if shown else ""
    counts = c.probes
    summary = (f"{counts.shared} probes shared, {counts.both_completed} completed in both; "
               f"{counts.pass_to_fail} pass → fail, {counts.fail_to_pass} fail → pass")
    return (f"<section id='cmp-{index}' data-arm='{esc(c.arm)}'><h2>{esc(c.arm)} vs {esc(c.baseline)}</h2>"
            f"{decide}{_endpoint_table(c, ci)}<p class='note'>{esc(c.holm.note)}</p>{found}"
            f"<div class='charts'>{_forest(c)}</div>{_incomplete(c)}<p class='note'>{esc(summary)}</p></section>")


def _change_rows(c: ArmComparison) -> str:
    return "".join(
        f"<tr class='change' data-arm='{esc(c.arm)}' data-change='{ch.change.value}'>"
        f"<td class='l'>{esc(c.arm)}</td><td class='l tid'>{esc(ch.probe_id)}</td>"
        f"<td title='{esc(category_label(ch.category))}'>{esc(ch.category)}</td><td class='l'>{esc(ch.pair_id)}</td>"
        f"<td class='l'>{esc(_CHANGES[ch.change])}</td>"
        f"<td class='l'>{esc(', '.join(ch.baseline_failed_checks) or '—')}</td>"
        f"<td class='l'>{esc(', '.join(ch.arm_failed_checks) or '—')}</td></tr>"
        for ch in c.changes
    )


def _changes_section(report: CompareReport) -> str:
    arms = "".join(f"<option value='{esc(c.arm)}'>{esc(c.arm)}</option>" for c in report.comparisons)
    changes = "".join(f"<option value='{d.value}'>{esc(w)}</option>" for d, w in _CHANGES.items())
    total = sum(len(c.changes) for c in report.comparisons)
    filters = (f"<div class='filters'><label>arm <select id='f-arm'><option value=''>all</option>{arms}</select>"
               f"</label><label>change <select id='f-change'><option value=''>both</option>{changes}</select></label>"
               f"<span>shown <b id='shown'>{total}</b> of <b id='listed'>{total}</b></span></div>")
    head = "".join(f"<th class='l'>{h}</th>" for h in
                   ("arm", "probe", "cat.", "pair", "change", f"failed checks in {esc(report.baseline)}",
                    "failed checks in the arm"))
    rows = "".join(_change_rows(c) for c in report.comparisons)
    return (f"<section id='changes'><h2>Probes whose verdict changed</h2>{filters}"
            f"<table class='changes'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></section>")


def _arms_section(report: CompareReport) -> str:
    head = "".join(f"<th class='l'>{h}</th>" for h in ("arm", "run", "config.", "model / agent", "verifier"))
    head += "<th>completed / attempted</th><th>dropped</th><th>unscored</th>"
    rows = "".join(
        f"<tr data-arm='{esc(a.label)}'><td class='l'><b>{esc(a.label)}</b>{' (baseline)' if i == 0 else ''}</td>"
        f"<td class='l'>{esc(a.run)}</td><td class='l'>{esc(a.config)}</td>"
        f"<td class='l'>{esc(a.agent or a.model or '—')}</td><td class='l'>{esc(a.verifier_version or '—')}</td>"
        f"<td>{a.completed} / {a.attempted}</td><td>{a.dropped}</td><td>{a.unscored}</td></tr>"
        for i, a in enumerate(report.arms)
    )
    return f"<section id='arms'><h2>Arms</h2><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></section>"


def _settings(report: CompareReport) -> str:
    d = report.dataset
    notes = "".join(f"<li>{esc(n)}</li>" for n in report.notes)
    items: list[tuple[str, object]] = [
        ("dataset suite", d.suite), ("dataset seed", d.seed), ("dataset manifest sha256", d.manifest_sha256),
        ("dataset path", d.path), ("bootstrap seed", report.seed), ("resamples", report.n_resamples),
        ("interval coverage", report.ci), ("alpha", report.alpha)]
    return f"<section id='notes'><h2>Rules and settings</h2><ul class='note'>{notes}</ul>{kv(items)}</section>"


def render_comparison(report: CompareReport, *, generated_at: str | None = None) -> str:
    """The comparison page of ``sitbench compare`` as one self-contained HTML document.

    Args:
        report: what :func:`sitbench.stats.compare_runs` returned.
        generated_at: timestamp printed in the header (default: now, UTC).
    """
    stamp = generated_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    nav = [("arms", "Arms"), *((f"cmp-{i}", c.arm) for i, c in enumerate(report.comparisons, 1)),
           ("changes", "Changed probes"), ("notes", "Rules")]
    sections = [_arms_section(report)]
    sections += [_comparison_section(i, c, report.ci) for i, c in enumerate(report.comparisons, 1)]
    sections += [_changes_section(report), _settings(report)]
    suite = report.dataset.suite or "dataset"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{content_security_policy(_SCRIPT)}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<meta name='generator' content='sitbench {esc(__version__)}'>"
        f"<title>sitbench comparison — {esc(report.baseline)} on {esc(suite)}</title>"
        f"<style>{_STYLE}{_EXTRA_STYLE}</style></head><body>"
        f"<header><h1>sitbench comparison</h1><p>baseline <b>{esc(report.baseline)}</b> · {len(report.arms)} arms on "
        f"{esc(suite)}</p><p>generated {esc(stamp)} by sitbench {esc(__version__)}</p></header>"
        "<nav>" + "".join(f"<a href='#{esc(key)}'>{esc(label)}</a>" for key, label in nav) + "</nav>"
        f"<main>{''.join(sections)}</main><script>{_SCRIPT}</script></body></html>\n"
    )


def write_comparison(report: CompareReport, out_html: Path, *, generated_at: str | None = None) -> Path:
    """Write the comparison page atomically (the old file or the whole new one, never a torn one).

    Raises:
        OutputError: the file cannot be written (a read-only folder, a full disk), naming it and the cause.
    """
    out_html = Path(out_html)
    page = render_comparison(report, generated_at=generated_at)
    with atomic_writer(out_html, "choose another --html FILE") as handle:
        handle.write(page)
    return out_html
