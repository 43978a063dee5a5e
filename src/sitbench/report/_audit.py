"""The report's audit section: annotator agreement and the extractor's IPW estimates (seed §8.3)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sitbench.errors import InputError
from sitbench.render import esc

if TYPE_CHECKING:
    from sitbench.audit import AgreementResult, Coefficient, Interval, VerifierResult


def load_audit_result(path: Path) -> VerifierResult | AgreementResult:
    """An ``audit verifier --out`` result (or an agreement result alone).

    Raises:
        InputError: the file is neither.
    """
    from sitbench.audit import AgreementResult, VerifierResult
    from sitbench.stores import load_model, read_json

    data = read_json(path, hint="write it with `sitbench audit verifier REFERENCE --out FILE`")
    kind = data.get("format") if isinstance(data, dict) else None
    if kind == "sitbench-audit-verifier/1":
        return load_model(path, VerifierResult)
    if kind == "sitbench-audit-agreement/1":
        return load_model(path, AgreementResult)
    raise InputError(f"{path}: not an audit result (format {kind!r}); write one with "
                     "`sitbench audit verifier REFERENCE --out FILE`")


def _share(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}" if unit.startswith("F1") else f"{100 * value:.1f} %"


def _interval(i: Interval | None, unit: str) -> str:
    if i is None or i.lower is None:
        return "—"
    return f"[{_share(i.lower, unit)}, {_share(i.upper, unit)}]" + (" (degenerate)" if i.degenerate else "")


def _coef(c: Coefficient) -> str:
    if c.value is None:
        return f"<span class='warn' title='{esc(c.note or '')}'>{esc(c.status)}</span>"
    text = f"{c.value:.3f}"
    if c.interval is not None and c.interval.lower is not None:
        text += f" <span class='muted'>[{c.interval.lower:.3f}, {c.interval.upper:.3f}]</span>"
    return text


def _agreement_tables(result: AgreementResult) -> str:
    pairs = [(p.a, p.b) for p in result.categorical[0].pairs] if result.categorical else []
    head = ("<tr><th class='l'>check</th><th>units</th><th>α (Krippendorff)</th>"
            + "".join(f"<th>κ {esc(a)} / {esc(b)}</th>" for a, b in pairs) + "<th>κ ≥ 0.90 met</th></tr>")
    rows = []
    for check in result.categorical:
        met = {True: "yes", False: "<span class='warn'>no</span>", None: "n/a"}[check.meets_target]
        cells = "".join(f"<td data-check='{esc(check.name)}' data-pair='{esc(p.a)}/{esc(p.b)}'>{_coef(p.kappa)}</td>"
                        for p in check.pairs)
        rows.append(f"<tr><td class='l' title='{esc(check.description)}'>{esc(check.name)}</td><td>{check.units}</td>"
                    f"<td data-check='{esc(check.name)}' data-alpha='1'>{_coef(check.alpha)}</td>{cells}<td>{met}</td></tr>")
    table = f"<table class='audit-agreement'><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
    set_rows = []
    for set_check in result.sets:
        for p in set_check.pairs:
            f1 = "—" if p.f1 is None else f"{p.f1:.3f}"
            exact = "—" if p.exact_set is None else f"{100 * p.exact_set:.1f} %"
            set_rows.append(f"<tr><td class='l' title='{esc(set_check.description)}'>{esc(set_check.name)}</td>"
                            f"<td class='l'>{esc(p.a)} vs {esc(p.b)}</td><td>{_share(p.precision, 'F1')}</td>"
                            f"<td>{_share(p.recall, 'F1')}</td><td>{f1}</td><td>{exact}</td></tr>")
    sets = ("<table class='audit-sets'><thead><tr><th class='l'>set</th><th class='l'>annotators</th><th>precision</th>"
            "<th>recall</th><th>F1</th><th>exact set</th></tr></thead>"
            f"<tbody>{''.join(set_rows)}</tbody></table>")
    notes = (f"<p class='note'>{result.items} responses annotated by at least two of {esc(', '.join(result.annotators))}; "
             f"{int(100 * result.ci)} % bootstrap intervals over responses ({result.resamples} resamples, seed "
             f"{result.seed}). κ and α are dimensionless (1 = perfect, 0 = chance); “degenerate” = every rating is one "
             "category (the coefficient is 0/0), “undefined” = no unit rated twice. Claims are aligned by proposition "
             f"id, spans and unmapped assertions by overlap ({esc(result.matching_rule)}).</p>")
    adjudication = ""
    if result.adjudication is not None:
        s = result.adjudication
        adjudication = (f"<p class='note'>Reference: {s.items} responses; {s.unanimous_items} read identically by all, "
                        f"{s.majority_units} units by majority, {s.adjudicated_units} tied units by the adjudicator "
                        f"({esc(s.adjudicator or 'none')}).</p>")
    return f"<h3>Annotator agreement</h3>{table}{sets}{notes}{adjudication}"


def _estimates_table(result: VerifierResult) -> str:
    rows = []
    for e in result.estimates:
        rows.append(f"<tr><td class='l' title='{esc(e.description)}'>{esc(e.metric)}</td>"
                    f"<td data-metric='{esc(e.metric)}' data-kind='population'>{_share(e.population, e.unit)}</td>"
                    f"<td>{_interval(e.interval, e.unit)}</td>"
                    f"<td data-metric='{esc(e.metric)}' data-kind='audit-sample'>{_share(e.audit_sample, e.unit)}</td>"
                    f"<td>{e.n}</td><td class='l'>{esc(e.unit)}</td></tr>")
    table = ("<table class='audit-estimates'><thead><tr><th class='l'>figure</th><th>population estimate (IPW)</th>"
             f"<th>{int(100 * result.ci)} % interval</th><th>audit-sample aggregate (unweighted)</th><th>n</th>"
             f"<th class='l'>unit</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")
    strata = "".join(
        f"<tr><td class='l'>{esc(s.key)}</td><td>{s.population}</td><td>{s.sampled}</td><td>{s.annotated}</td>"
        f"<td>{s.inclusion_probability:.4f}</td><td>{_share(s.figures.get('act_accuracy'), '')}</td>"
        f"<td>{_share(s.figures.get('decision_agreement'), '')}</td></tr>" for s in result.strata if s.annotated)
    empty = sum(1 for s in result.strata if not s.annotated)
    strata_table = ("<details><summary>Per stratum (category|config|predicted acts|confidence|unmapped; "
                    f"{empty} strata without an annotated response not listed)</summary>"
                    "<table><thead><tr><th class='l'>stratum</th><th>N_h</th><th>drawn</th><th>annotated</th>"
                    "<th>π_h</th><th>act accuracy</th><th>decision agreement</th></tr></thead>"
                    f"<tbody>{strata}</tbody></table></details>")
    notes = (f"<p class='note'>{esc(result.extractor)} read {result.annotated} annotated responses of {result.population} "
             f"({result.unrepresented_population} responses of drawn strata left unannotated are not represented); stratified by "
             f"{esc(result.signal)}. Population estimates weight each response by 1/π (inclusion probability); "
             "intervals resample responses within strata. The audit-sample aggregate is unweighted over an "
             "oversampled sample: it is not population performance. " + esc(result.decision_rule) + ".</p>")
    return f"<h3>Extractor against the adjudicated reference</h3>{table}{notes}{strata_table}"


def audit_section(result: VerifierResult | AgreementResult) -> str:
    """The section's HTML."""
    from sitbench.audit import PHASE_LABELS, VerifierResult

    banners = [f"<span class='banner'>{esc(PHASE_LABELS[result.phase])}</span>"]
    if result.synthetic:
        banners.append("<span class='banner'>SYNTHETIC annotators (scripted): these figures demonstrate the tooling, "
                       "they are not human judgements</span>")
    parts = [" ".join(banners), f"<p class='note'>sample {esc(result.sample_id)}</p>"]
    if isinstance(result, VerifierResult):
        parts.append(_estimates_table(result))
        if result.agreement is not None:
            parts.append(_agreement_tables(result.agreement))
    else:
        parts.append(_agreement_tables(result))
    return "".join(parts)
