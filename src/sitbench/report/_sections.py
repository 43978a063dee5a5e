"""Optional report sections: E1–E8 contrasts, the CHI/CHIS report and the RES summary."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sitbench import render
from sitbench.chi import ChiReport
from sitbench.errors import InputError
from sitbench.render import esc, kv, num
from sitbench.report._contrasts import analysed_runs_html, decision_words, power_html
from sitbench.report._data import LoadedRun
from sitbench.res import CONDITIONS, ResScore, classification_reason, role_reason, score_file, score_notes
from sitbench.stats import AnalysisReport, ContrastResult
from sitbench.stores import describe_validation_error, read_text


def _float(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _counts(entry: ContrastResult) -> str:
    if not entry.attempted and not entry.completed:
        return "—"
    return " · ".join(f"{esc(k)} {num(entry.completed.get(k))}/{num(v)}" for k, v in entry.attempted.items())


def _decision_cell(entry: ContrastResult, analysis: AnalysisReport | None) -> str:
    why = ""
    if entry.decision == "no_decision" and analysis is not None:
        why = f" <span class='why'>{esc(decision_words(entry, analysis))}</span>"
    return f"<td class='l' title='{esc(entry.decision_note)}'><b>{esc(entry.decision)}</b>{why}</td>"


def _contrast_rows(entries: Sequence[ContrastResult], *, tests: bool,
                   analysis: AnalysisReport | None = None) -> tuple[str, list[render.IntervalRow]]:
    rows: list[str] = []
    plot: list[render.IntervalRow] = []
    for entry in entries:
        mean, lower, upper = _float(entry.mean), _float(entry.ci_lower), _float(entry.ci_upper)
        status = " — ".join(x for x in (entry.status, entry.reason) if x)
        ci = "—" if lower is None or upper is None else f"[{num(lower)}, {num(upper)}]"
        first, second = entry.first_config, entry.second_config
        cells = [
            f"<td class='l' style='white-space:nowrap'><b>{esc(entry.id)}</b></td><td class='l'>{esc(entry.title)}</td>",
            f"<td>{esc(second)} − {esc(first)}</td><td>{esc(entry.endpoint)}</td><td>{num(entry.n_pairs)}</td>",
            f"<td data-metric='mean'>{num(mean)}</td><td>{ci}</td>",
        ]
        if tests:
            cells.append(f"<td>{num(_float(entry.p))}</td><td>{num(_float(entry.p_holm))}</td>"
                         + _decision_cell(entry, analysis))
        cells.append(f"<td>{_counts(entry)}</td><td class='l'>{esc(status)}</td>")
        rows.append(f"<tr data-experiment='{esc(entry.id)}'>{''.join(cells)}</tr>")
        plot.append(
            render.IntervalRow(
                label=f"{entry.id} {entry.endpoint}: {second} − {first}",
                estimate=mean,
                lower=lower,
                upper=upper,
                highlight=entry.decision == "reject_null",
            )
        )
    head = (
        "<tr><th class='l'>id</th><th class='l'>contrast</th><th>d = second − first</th><th>endpoint</th>"
        "<th>pairs</th><th>mean d</th><th>CI</th>"
        + ("<th>p (sign-flip)</th><th>Holm p</th><th class='l'>decision</th>" if tests else "")
        + "<th>completed/attempted</th><th class='l'>status</th></tr>"
    )
    return f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>", plot


def load_analysis(data: AnalysisReport | Mapping[str, Any], where: str = "--analysis") -> AnalysisReport:
    """The analysis a report shows, checked against ``sitbench analyze``'s own model.

    Raises:
        InputError: ``data`` is not the JSON ``sitbench analyze RUN… --json`` writes (the message names the
            first fields that differ).
    """
    if isinstance(data, AnalysisReport):
        return data
    try:
        return AnalysisReport.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(
            where, exc, hint="expected the JSON of `sitbench analyze RUN… --json`")) from None


def analysis_section(analysis: AnalysisReport, runs: Sequence[LoadedRun] = ()) -> str:
    """E1–E8 from ``sitbench analyze``: the runs it read (named as on the page), what its pairs can decide,
    table, forest plot, Holm note, secondaries and the notes."""
    parts: list[str] = [analysed_runs_html(analysis, runs)]
    primary = analysis.experiments
    if primary:
        parts.append(power_html(analysis, runs))
        table, plot = _contrast_rows(primary, tests=True, analysis=analysis)
        parts.append(table)
        if analysis.family.note:
            parts.append(f"<p class='note'><b>Holm family.</b> {esc(analysis.family.note)}</p>")
        # Token counts (E6) live on another scale than shares; they stay in the table only.
        shares = [row for row, entry in zip(plot, primary, strict=True) if entry.endpoint != "prompt_tokens"]
        parts.append(
            "<div class='chart'><h4>Mean paired difference with its interval (filled = rejected under Holm)</h4>"
            f"{render.forest_plot(shares, title='E1–E8 contrasts with confidence intervals')}"
            + ("<p class='note'>E6 (prompt tokens) is on another scale: see the table.</p>" if len(shares) < len(plot) else "")
            + "</div>"
        )
    else:
        parts.append("<p class='note warn'>The analysis names no experiments.</p>")
    if analysis.secondary:
        table, _ = _contrast_rows(analysis.secondary, tests=False)
        parts.append("<h3>Secondary comparisons (descriptive, not in the family)</h3>" + table)
    if analysis.notes:
        parts.append("<ul class='note'>" + "".join(f"<li>{esc(n)}</li>" for n in analysis.notes) + "</ul>")
    parts.append(kv([("seed", analysis.seed), ("n_resamples", analysis.n_resamples), ("ci", analysis.ci),
                     ("alpha", analysis.alpha), ("lineage_rule", analysis.lineage_rule),
                     ("e6_tokenizer", analysis.e6_tokenizer)]))
    raw = analysis.model_dump_json(indent=2)
    parts.append(f"<details><summary>Full analysis JSON</summary><pre>{esc(raw)}</pre></details>")
    return "".join(parts)


def load_chi_report(path: Path) -> ChiReport:
    """Read a CHI/CHIS ``report.json`` (written by ``sitbench chi report`` or ``chi demo``)."""
    text = read_text(path, hint="pass the report.json of `sitbench chi demo --out DIR`")
    try:
        return ChiReport.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(report)"
        raise InputError(f"{path}: field {field!r}: {first['msg']}; pass a CHI report.json written by sitbench") from None


def chi_section(report: ChiReport) -> str:
    """Evidence label, EIMC curves per checkpoint, the CHIS series and the report's limitations."""
    parts = [f"<p class='banner'>{esc(report.label)}</p>"]
    parts.append(
        kv(
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
    memory_series: list[render.Series] = []
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
        memory_series.append(render.Series(name=f"step {step.step}", points=points, band=band, markers=markers))
        rows.append(
            f"<tr><td>{step.step}</td><td>{num(mem.eimc)}</td><td class='l'>{esc(mem.status)}</td>"
            f"<td class='l'>{esc(step.memory_label or '')}</td></tr>"
        )
    charts = []
    if memory_series:
        charts.append(
            "<div class='chart'><h4>Memory Capacity Curve Q_M(load) per checkpoint (◇ = EIMC)</h4>"
            + render.line_chart(
                memory_series,
                title="CHI memory capacity curve",
                x_label="memory load (log2)",
                y_label="Q_M",
                y_range=(0.0, 1.0),
                log2_x=True,
                references=[render.Reference(report.tau, f"τ = {report.tau:g}")],
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
        + render.line_chart(
            [render.Series(name="CHI(mean h)", points=chi_points, band=chi_band)],
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
            + render.line_chart(
                [render.Series(name="drift", points=drift), render.Series(name="continuity", points=continuity)],
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
    parts.append(kv(summary))
    parts.append("<h4>Limitations</h4><ul>" + "".join(f"<li>{esc(x)}</li>" for x in report.limitations) + "</ul>")
    return "".join(parts)




def load_res_summary(path: Path) -> ResScore:
    """Read a RES ``summary.json`` or score a ``results.jsonl`` (written by ``sitbench res run``)."""
    if path.suffix == ".jsonl":
        return score_file(path)
    text = read_text(path, hint="pass summary.json or results.jsonl of `sitbench res run`")
    try:
        return ResScore.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(summary)"
        raise InputError(f"{path}: field {field!r}: {first['msg']}; pass summary.json or results.jsonl of `sitbench res run`") from None


def res_section(score: ResScore) -> str:
    """Per-model accuracy by condition, triplet counts, classification, role rival and the claim ceiling."""
    n = score.n_scenarios
    head = (
        "<tr><th class='l'>model</th>"
        + "".join(f"<th>accuracy {c}</th>" for c in CONDITIONS)
        + "<th>valid answers</th><th>strict triplets</th><th>owner-sensitive</th><th>peer–fiction agreement</th>"
        "<th>triplets observed</th><th>role matches</th><th class='l'>classification</th><th class='l'>role rival</th></tr>"
    )
    rows = []
    notes: list[str] = []
    for model, s in score.models.items():
        acc = "".join(
            f"<td title='{s.accuracy_counts[c].correct}/{s.accuracy_counts[c].n}; invalid {s.accuracy_counts[c].invalid}, "
            f"error {s.accuracy_counts[c].error}, missing {s.accuracy_counts[c].missing}'>{100 * s.accuracy[c]:.1f}</td>"
            for c in CONDITIONS
        )
        rows.append(
            f"<tr><td class='l'><b>{esc(model)}</b></td>{acc}<td>{s.valid_answers}/{n * len(CONDITIONS)}</td>"
            f"<td>{s.strict_triplets}/{n}</td>"
            f"<td>{s.owner_sensitive}/{n}</td><td>{s.peer_fiction_agreement}/{n}</td>"
            f"<td>{s.complete_triplets}/{n}</td><td>{s.role_matches}/{n}</td>"
            f"<td class='l'><b>{esc(s.classification)}</b><br>{esc(classification_reason(s, n))}</td>"
            f"<td class='l'>{esc(s.role_rival)}<br>{esc(role_reason(s, n))}</td></tr>"
        )
        notes.extend(f"{model}: {note}" for note in score_notes(s, n))
    out = f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
    if not rows:
        out = "<p class='note'>The RES summary has no models.</p>"
    out += ("<p class='note'>Valid answers: cells whose answer names exactly one action token (of all four "
            "conditions). Triplets observed: scenarios whose self, peer and fiction cells were all answered, valid or "
            "not (a failed call is not an observation); the classification needs 16 of them. Every other count "
            "counts valid answers only.</p>")
    out += "".join(f"<p class='note warn'>note: {esc(note)}</p>" for note in notes)
    out += "<p class='note'>Accuracy in %; counts are out of the scenario set. Thresholds: " + esc(
        ", ".join(f"{k} {v}" for k, v in score.thresholds.items())
    ) + ".</p>"
    out += "".join(f"<p class='note warn'>warning: {esc(w)}</p>" for w in score.warnings)
    out += f"<p class='note'><b>Claim ceiling.</b> {esc(score.claim_ceiling)}</p>"
    return out
