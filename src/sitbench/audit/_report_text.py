"""Plain-text tables of ``audit agree`` and ``audit verifier``: every number with its unit, synthetic
results labelled as such."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sitbench.audit._models import (
    PHASE_LABELS,
    AgreementResult,
    Coefficient,
    Interval,
    VerifierResult,
)
from sitbench.audit._verifier import Row, format_share


def _coef(c: Coefficient) -> str:
    if c.value is None:
        agree = "" if c.observed_agreement is None else f", observed agreement {100 * c.observed_agreement:.1f} %"
        return f"{c.status} ({c.note}{agree})"
    text = f"{c.value:.3f}"
    if c.interval is not None and c.interval.lower is not None:
        text += f" [{c.interval.lower:.3f}, {c.interval.upper:.3f}]"
        if c.interval.degenerate:
            text += " (degenerate interval)"
    return text


def _interval(i: Interval | None, unit: str) -> str:
    if i is None or i.lower is None:
        return "[no interval]"
    text = f"[{format_share(i.lower, unit)}, {format_share(i.upper, unit)}]"
    return text + (" degenerate" if i.degenerate else "")


def agreement_lines(result: AgreementResult) -> Iterator[str]:
    """The agreement tables."""
    label = "SYNTHETIC annotators (scripted, not human judgements): " if result.synthetic else ""
    yield (f"{label}agreement of {len(result.annotators)} annotators ({', '.join(result.annotators)}) on "
           f"{result.items} responses annotated by at least two — {PHASE_LABELS[result.phase]}; "
           f"{int(100 * result.ci)} % bootstrap intervals over responses ({result.resamples} resamples, seed {result.seed})")
    yield ("categorical checks — κ (Cohen, pairwise) and α (Krippendorff, nominal, all annotators) are "
           "dimensionless chance-corrected coefficients (1 = perfect, 0 = chance level); target κ ≥ 0.90:")
    for check in result.categorical:
        met = {True: "yes", False: "no", None: "n/a (a coefficient is undefined or degenerate)"}[check.meets_target]
        yield f"  {check.name:<18} {check.units} units · α {_coef(check.alpha)} · target met: {met}"
        for pair in check.pairs:
            yield f"      κ {pair.a} / {pair.b}: {_coef(pair.kappa)} over {pair.kappa.units} units"
    yield ("set checks — precision, recall and F1 on a 0–1 scale (first annotator as reference), exact set = share "
           "of responses whose two sets are identical:")
    for set_check in result.sets:
        yield f"  {set_check.name}: {set_check.description}"
        for p in set_check.pairs:
            f1 = "undefined (neither marked any)" if p.f1 is None else f"{p.f1:.3f} {_f1_interval(p.f1_interval)}"
            prec = "undefined" if p.precision is None else f"{p.precision:.3f}"
            rec = "undefined" if p.recall is None else f"{p.recall:.3f}"
            exact = "undefined" if p.exact_set is None else f"{100 * p.exact_set:.1f} % of {p.items} responses"
            yield (f"      {p.a} vs {p.b}: P {prec} R {rec} F1 {f1} · exact set {exact} "
                   f"({p.matched} matched of {p.a_count} / {p.b_count} marked)")
    if result.adjudication is not None:
        s = result.adjudication
        yield (f"adjudication: {s.items} responses in the reference; {s.unanimous_items} read identically by every "
               f"annotator, {s.single_annotator_items} by one annotator only; {s.majority_units} units decided by a "
               f"non-unanimous majority, {s.adjudicated_units} tied units decided by the adjudicator "
               f"({s.adjudicator or 'none named'})")


def _f1_interval(i: Interval | None) -> str:
    if i is None or i.lower is None:
        return ""
    return f"[{i.lower:.3f}, {i.upper:.3f}]" + (" degenerate" if i.degenerate else "")


def verifier_lines(result: VerifierResult) -> Iterator[str]:
    """The measurement tables."""
    label = "SYNTHETIC reference (scripted annotators): " if result.synthetic else ""
    yield (f"{label}extractor {result.extractor} against the adjudicated reference — {PHASE_LABELS[result.phase]}")
    yield (f"population: {result.population} responses in the source runs; sample: {result.sampled} responses, "
           f"{result.annotated} annotated; {result.empty_strata} strata drawn empty (represented through the weights), "
           f"{result.unrepresented_population} responses in drawn strata left unannotated (not represented); "
           f"stratified by {result.signal}")
    yield (f"population estimate = inverse-probability-weighted, {int(100 * result.ci)} % stratified bootstrap "
           f"interval ({result.resamples} resamples, seed {result.seed}); audit-sample aggregate = unweighted over the "
           "oversampled sample, NOT population performance")
    yield f"  {'figure':<24} {'population estimate [interval]':<36} {'audit-sample aggregate':<24} unit"
    for e in result.estimates:
        pop = format_share(e.population, e.unit)
        yield (f"  {e.metric:<24} {pop + ' ' + _interval(e.interval, e.unit):<36} "
               f"{format_share(e.audit_sample, e.unit) + f' (n={e.n})':<24} {e.unit}")
    yield "by category (population estimates):"
    for d in result.domains:
        if d.grouping != "category":
            continue
        by = {e.metric: e for e in d.estimates}
        dec, acts = by["decision_agreement"], by["act_accuracy"]
        yield (f"  cat. {d.value}: decision agreement {format_share(dec.population, dec.unit)} "
               f"{_interval(dec.interval, dec.unit)}, act accuracy {format_share(acts.population, acts.unit)} "
               f"({d.annotated} annotated responses, ≈{d.population:.0f} responses of the population)")
    yield ("per stratum (category|config|predicted acts|confidence|unmapped, or contested): N_h responses, n_h annotated, "
           "π_h inclusion probability, act accuracy and decision agreement (unweighted inside the stratum); "
           f"{sum(1 for s in result.strata if not s.annotated)} strata without an annotated response not listed:")
    for s in result.strata:
        if not s.annotated:
            continue
        stratum_acts, stratum_dec = s.figures.get("act_accuracy"), s.figures.get("decision_agreement")
        yield (f"  {s.key:<44} N_h {s.population:>5}  n_h {s.annotated:>3}  π_h {s.inclusion_probability:.4f}  "
               f"acts {format_share(stratum_acts, 'share')}  decisions {format_share(stratum_dec, 'share')}")


def disagreement_lines(rows: Sequence[Row], limit: int) -> Iterator[str]:
    """Responses whose act sets, claims or decisions differ (development audits only)."""
    shown = 0
    for row in rows:
        if shown >= limit:
            break
        d = row.detail
        ref, got = d["reference"], d["extractor"]
        same = (set(ref.acts) == set(got.acts) and {(c.prop_id, c.polarity) for c in ref.claims}
                == {(c.prop_id, c.polarity) for c in got.claims} and all(a == b for a, b in d["verdicts"]))
        if same:
            continue
        shown += 1
        yield f"\n{row.item_id} [{row.stratum}] verdicts (reference, extractor): {d['verdicts']}"
        yield f"  Q: {d['utterance']}"
        yield f"  A: {d['response']}"
        for name, obs in (("reference", ref), ("extractor", got)):
            claims = ", ".join(f"{c.prop_id}{'+' if c.polarity else '-'}({c.provenance.value})" for c in obs.claims)
            yield f"  {name:<9} acts={[a.value for a in obs.acts]} claims=[{claims}] uncertainty={obs.uncertainty.value}"
