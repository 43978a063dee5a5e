"""``audit verifier``: an extractor against the adjudicated reference, per stratum and weighted to the population.

The extractor reads each sampled response exactly as in scoring — response, Env(q), X_q and D_CW,
nothing else (all kept in the sample) — and its reading is compared with the reference reading:
act accuracy, claim precision/recall/F1 (claims aligned by proposition id, and strictly as
(proposition, polarity, provenance) triples), polarity and provenance accuracy on aligned claims,
unmapped-assertion P/R/F1 and slot accuracy, uncertainty accuracy. End-to-end decisions come from the
shared deterministic contract scorer applied to both readings (target contract, and the partner's
for theorem-qualified probes): contracts and projected support enter here, and only here.

Every figure is a ratio Σ numerator / Σ denominator over responses. The population estimate weights
each annotated response by 1/π_i (its stratum's inclusion probability, adjusted for items of the
stratum left unannotated); its interval resamples responses with replacement within strata, strata
with a single annotated response pooled into one collapsed group. The
unweighted ratio over the oversampled sample is reported beside it as an audit-sample aggregate, never
as population performance (seed §8.3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sitbench.audit._agree import load_reference
from sitbench.audit._models import (
    SPAN_IOU,
    Annotation,
    AuditReference,
    AuditSample,
    DomainResult,
    Estimate,
    StratumResult,
    VerifierResult,
)
from sitbench.audit._reliability import match_spans, summarize
from sitbench.audit._sample import act_set_label, load_sample
from sitbench.errors import InputError, ReadingUnavailable
from sitbench.schema import (
    Act,
    DisclosureSignals,
    ExtractedClaim,
    Observation,
    Proposition,
    UnmappedAssertion,
)

if TYPE_CHECKING:
    from sitbench.verify import Judge

DEFAULT_RESAMPLES = 1000
DEFAULT_CI = 0.95

#: name → (description, unit). Every figure is Σ numerator / Σ denominator over responses.
METRICS: dict[str, tuple[str, str]] = {
    "act_accuracy": ("presence decisions of the six acts that agree", "share of (response, act) decisions"),
    "act_set_exact": ("responses whose whole act set agrees", "share of responses"),
    "claim_precision": ("extractor's asserted propositions the reference also asserts (aligned by id)",
                        "share of the extractor's claims"),
    "claim_recall": ("reference's asserted propositions the extractor also asserts (aligned by id)",
                     "share of the reference's claims"),
    "claim_f1": ("harmonic mean of claim precision and recall (micro)", "F1 on a 0–1 scale"),
    "claim_f1_strict": ("claim F1 counting a claim only with the same polarity and provenance",
                        "F1 on a 0–1 scale"),
    "polarity_accuracy": ("aligned claims with the same polarity", "share of aligned claims"),
    "provenance_accuracy": ("aligned claims of the same polarity with the same provenance",
                            "share of aligned same-polarity claims"),
    "unmapped_precision": (f"extractor's unmapped assertions that align with the reference's (span IoU ≥ {SPAN_IOU})",
                           "share of the extractor's unmapped assertions"),
    "unmapped_recall": ("reference's unmapped assertions the extractor also finds", "share of the reference's "
                        "unmapped assertions"),
    "unmapped_f1": ("harmonic mean of unmapped precision and recall", "F1 on a 0–1 scale"),
    "unmapped_slot_accuracy": ("aligned unmapped assertions given the same closed-world slot (scope assignment)",
                               "share of aligned unmapped assertions"),
    "uncertainty_accuracy": ("responses with the same expressed uncertainty", "share of responses"),
    "decision_agreement": ("contract verdicts that agree (target, and partner on theorem-qualified probes)",
                           "share of verdicts"),
    "false_reject_rate": ("reference-valid verdicts the extractor's reading makes invalid",
                          "share of reference-valid verdicts"),
    "false_accept_rate": ("reference-invalid verdicts the extractor's reading makes valid",
                          "share of reference-invalid verdicts"),
}

_GROUPINGS = ("category", "config", "confidence", "predicted acts")


def reference_observation(annotation: Annotation, props: dict[str, Proposition]) -> Observation:
    """The reference reading as an observation the contract scorer takes."""
    claims = [ExtractedClaim(prop_id=c.prop_id, polarity=c.polarity, provenance=c.provenance,
                             span=c.span or (0, 0)) for c in annotation.claims if c.mode == "asserted"]
    unmapped = [UnmappedAssertion(span=u.span, text=u.text, polarity=u.polarity, provenance=u.provenance,
                                  slot=u.slot, value=u.value) for u in annotation.unmapped]
    shared = sorted({c.prop_id for c in claims if c.polarity and c.prop_id in props and not props[c.prop_id].world_fact})
    return Observation(acts=list(annotation.acts), claims=claims, unmapped=unmapped, uncertainty=annotation.uncertainty,
                       disclosure=DisclosureSignals(shared=shared, framed_as_withheld=annotation.withheld),
                       verifier_version="audit-reference", extractor="human")


def _prop_polarities(observation: Observation) -> dict[str, set[bool]]:
    out: dict[str, set[bool]] = {}
    for c in observation.claims:
        out.setdefault(c.prop_id, set()).add(c.polarity)
    return out


def item_figures(reference: Observation, other: Observation, verdicts: Sequence[tuple[bool, bool]]) -> dict[str, tuple[float, float]]:
    """Numerator and denominator of every metric for one response."""
    ref_acts, got_acts = set(reference.acts), set(other.acts)
    ref_pol, got_pol = _prop_polarities(reference), _prop_polarities(other)
    aligned = ref_pol.keys() & got_pol.keys()
    same_polarity = [p for p in aligned if ref_pol[p] == got_pol[p]]
    ref_prov = {(c.prop_id, c.polarity): c.provenance for c in reference.claims}
    got_prov = {(c.prop_id, c.polarity): c.provenance for c in other.claims}
    signed = ref_prov.keys() & got_prov.keys()
    ref_triples = {(c.prop_id, c.polarity, c.provenance) for c in reference.claims}
    got_triples = {(c.prop_id, c.polarity, c.provenance) for c in other.claims}
    u_pairs = match_spans([u.span for u in reference.unmapped], [u.span for u in other.unmapped], SPAN_IOU)
    same_slot = sum(reference.unmapped[i].slot == other.unmapped[j].slot for i, j in u_pairs)
    agree = sum(a == b for a, b in verdicts)
    ref_valid = [b for a, b in verdicts if a]
    ref_invalid = [b for a, b in verdicts if not a]
    tp = len(aligned)
    return {
        "act_accuracy": (sum((a in ref_acts) == (a in got_acts) for a in Act), len(Act)),
        "act_set_exact": (float(ref_acts == got_acts), 1),
        "claim_precision": (tp, len(got_pol)),
        "claim_recall": (tp, len(ref_pol)),
        "claim_f1": (2 * tp, len(got_pol) + len(ref_pol)),
        "claim_f1_strict": (2 * len(ref_triples & got_triples), len(ref_triples) + len(got_triples)),
        "polarity_accuracy": (len(same_polarity), len(aligned)),
        "provenance_accuracy": (sum(ref_prov[k] == got_prov[k] for k in signed), len(signed)),
        "unmapped_precision": (len(u_pairs), len(other.unmapped)),
        "unmapped_recall": (len(u_pairs), len(reference.unmapped)),
        "unmapped_f1": (2 * len(u_pairs), len(other.unmapped) + len(reference.unmapped)),
        "unmapped_slot_accuracy": (same_slot, len(u_pairs)),
        "uncertainty_accuracy": (float(reference.uncertainty == other.uncertainty), 1),
        "decision_agreement": (agree, len(verdicts)),
        "false_reject_rate": (sum(not b for b in ref_valid), len(ref_valid)),
        "false_accept_rate": (sum(ref_invalid), len(ref_invalid)),
    }


@dataclass
class Row:
    """One annotated response: its stratum, weight, domains and per-metric numerator/denominator."""

    item_id: str
    stratum: str
    weight: float
    domains: dict[str, str]
    figures: dict[str, tuple[float, float]]
    detail: dict[str, Any] = field(default_factory=dict)


COLLAPSED = "(collapsed: strata with one annotated response)"


def variance_groups(strata: Sequence[str]) -> list[str]:
    """The bootstrap's resampling groups: a stratum with two or more annotated responses is its own
    group; strata with one are pooled into one collapsed group (the collapsed-strata technique: a
    single response carries no within-stratum variation, so it is resampled with the other singletons,
    which errs towards wider intervals)."""
    counts: dict[str, int] = {}
    for s in strata:
        counts[s] = counts.get(s, 0) + 1
    return [s if counts[s] >= 2 else COLLAPSED for s in strata]


def stratified_draws(strata: Sequence[str], resamples: int, seed: int) -> np.ndarray:
    """(resamples × rows) row indices: each variance group's rows resampled with replacement among themselves."""
    rng = np.random.default_rng(seed)
    by: dict[str, list[int]] = {}
    for i, s in enumerate(variance_groups(strata)):
        by.setdefault(s, []).append(i)
    columns = []
    for key in sorted(by):
        members = np.asarray(by[key])
        columns.append(members[rng.integers(0, len(members), size=(resamples, len(members)))])
    return np.concatenate(columns, axis=1) if columns else np.zeros((resamples, 0), dtype=int)


def estimate(rows: Sequence[Row], metric: str, draws: np.ndarray, seed: int, ci: float,
             mask: np.ndarray | None = None) -> Estimate:
    """One metric: IPW population estimate with interval, and the unweighted audit-sample aggregate."""
    description, unit = METRICS[metric]
    num = np.asarray([r.figures[metric][0] for r in rows], dtype=float)
    den = np.asarray([r.figures[metric][1] for r in rows], dtype=float)
    w = np.asarray([r.weight for r in rows], dtype=float)
    if mask is not None:
        num, den = num * mask, den * mask
    has = den > 0
    wden = float((w * den).sum())
    population = float((w * num).sum()) / wden if wden > 0 else None
    interval = None
    if population is not None:
        wn, wd = (w * num)[draws].sum(axis=1), (w * den)[draws].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(wd > 0, wn / np.where(wd > 0, wd, 1), np.nan)
        interval = summarize(values, draws.shape[0], seed, ci, unit="responses within strata (one-response strata collapsed)")
    total = float(den.sum())
    return Estimate(metric=metric, description=description, unit=unit, population=population, interval=interval,
                    audit_sample=float(num.sum()) / total if total > 0 else None, n=int(has.sum()),
                    denominator=total)


def item_weights(reference: AuditReference, sample: AuditSample) -> dict[str, float]:
    """Item id → 1/π_i of every item the reference annotates: π_i = π_h × annotated_h / sampled_h, the
    stratum's inclusion probability adjusted for its drawn items left unannotated (skipped, or never read).

    Raises:
        InputError: the reference is not of this sample, or annotates an item the sample does not hold.
    """
    if reference.sample_id != sample.sample_id:
        raise InputError(f"the reference is of sample {reference.sample_id}, not of {sample.sample_id}; give the "
                         "sample it was adjudicated on")
    items = sample.item_map()
    strata = {s.key: s for s in sample.strata}
    annotated_in: dict[str, int] = {}
    for annotation in reference.items:
        if annotation.item_id not in items:
            raise InputError(f"reference item {annotation.item_id} is not in sample {sample.sample_id}")
        key = items[annotation.item_id].stratum
        annotated_in[key] = annotated_in.get(key, 0) + 1
    weights = {}
    for annotation in reference.items:
        stratum = strata[items[annotation.item_id].stratum]
        pi = stratum.inclusion_probability * annotated_in[stratum.key] / max(1, stratum.sampled)
        weights[annotation.item_id] = 1.0 / pi
    return weights


def _judges(sample: AuditSample, dataset: Path | None) -> dict[str, Judge]:
    """Run name → Judge over the dataset the run was made with."""
    from sitbench.runs import RunManifest, run_dataset_dir, verify_run_dataset
    from sitbench.stores import load_dataset
    from sitbench.verify import Judge

    loaded: dict[str, Judge] = {}
    out: dict[str, Judge] = {}
    for source in sample.runs:
        manifest = RunManifest.model_validate(source.manifest)
        data_dir = run_dataset_dir(Path(source.path), manifest, dataset)
        key = str(data_dir.resolve())
        if key not in loaded:
            ds = load_dataset(data_dir)
            verify_run_dataset(ds, manifest.dataset, Path(source.path))
            loaded[key] = Judge(ds.hidden, ds.visible.queries)
        out[source.name] = loaded[key]
    return out


def measure(reference: AuditReference, sample: AuditSample, extractor_spec: str = "rules", *,
            dataset: Path | None = None, seed: int = 0, resamples: int = DEFAULT_RESAMPLES, ci: float = DEFAULT_CI,
            reference_path: str = "", keep_rows: bool = False) -> tuple[VerifierResult, list[Row]]:
    """The extractor against the reference; returns the result and (with ``keep_rows``) the per-response rows.

    Raises:
        InputError: the reference is not of this sample, or a dataset is missing or changed.
    """
    from sitbench.verify import Vocabulary, get_extractor, stamp

    weights = item_weights(reference, sample)
    extractor = get_extractor(extractor_spec)
    judges = _judges(sample, dataset)
    props = {p.prop_id: p for p in sample.vocabulary.propositions}
    vocabularies: dict[tuple[str, ...], Vocabulary] = {}
    items = sample.item_map()
    strata = {s.key: s for s in sample.strata}
    annotated_in = Counter(items[a.item_id].stratum for a in reference.items)
    rows: list[Row] = []
    for annotation in reference.items:
        item = items[annotation.item_id]
        judge = judges[item.run]
        probe = judge.probe(item.probe_id)
        if judge.envelope(probe) != item.envelope:
            raise InputError(f"item {item.item_id}: the dataset's envelope of {item.probe_id} differs from the "
                             "sample's; give the dataset the runs were made with (--dataset)")
        universe = tuple(item.universe)
        if universe not in vocabularies:
            vocabularies[universe] = Vocabulary([props[p] for p in universe], sample.vocabulary.closed_world)
        try:
            got = extractor.extract(item.response, item.envelope, vocabularies[universe])
        except ReadingUnavailable as exc:
            # An audit compares readings: an item the extractor could not read has nothing to compare.
            raise ReadingUnavailable(f"item {item.item_id}: {exc}; run the audit again when the extractor "
                                     "answers (what was read is cached)") from None
        ref = reference_observation(annotation, props)
        ref_j = judge.score_observation(item.probe_id, ref)
        got_j = judge.score_observation(item.probe_id, got)
        verdicts = [(ref_j.verdict.valid, got_j.verdict.valid)]
        if ref_j.partner is not None and got_j.partner is not None:
            verdicts.append((ref_j.partner.valid, got_j.partner.valid))
        rows.append(Row(
            item_id=item.item_id, stratum=item.stratum, weight=weights[item.item_id],
            domains={"category": item.category.value, "config": item.config, "confidence": item.confidence.value,
                     "predicted acts": act_set_label(item.predicted_acts)},
            figures=item_figures(ref, got, verdicts),
            detail={"response": item.response, "utterance": item.envelope.utterance, "reference": ref,
                    "extractor": got, "verdicts": verdicts} if keep_rows else {}))
    draws = stratified_draws([r.stratum for r in rows], resamples, seed)
    estimates = [estimate(rows, m, draws, seed, ci) for m in METRICS]
    stratum_results = []
    for key, stratum in strata.items():
        members = [r for r in rows if r.stratum == key]
        figures: dict[str, float | None] = {}
        for metric in METRICS:
            den = sum(r.figures[metric][1] for r in members)
            figures[metric] = sum(r.figures[metric][0] for r in members) / den if den else None
        stratum_results.append(StratumResult(key=key, population=stratum.population, sampled=stratum.sampled,
                                             annotated=len(members), inclusion_probability=stratum.inclusion_probability,
                                             figures=figures))
    domains = []
    for grouping in _GROUPINGS:
        for value in sorted({r.domains[grouping] for r in rows}):
            mask = np.asarray([r.domains[grouping] == value for r in rows], dtype=float)
            domains.append(DomainResult(
                grouping=grouping, value=value, population=float(sum(r.weight for r in rows if r.domains[grouping] == value)),
                annotated=int(mask.sum()), estimates=[estimate(rows, m, draws, seed, ci, mask) for m in METRICS]))
    lost = sum(s.population for k, s in strata.items() if s.sampled and not annotated_in.get(k))
    result = VerifierResult(
        sample_id=sample.sample_id, phase=sample.phase, synthetic=reference.synthetic, extractor=stamp(extractor),
        signal=sample.signal, reference=reference_path, population=sample.population, unrepresented_population=lost, empty_strata=sum(1 for s in strata.values() if not s.sampled),
        sampled=len(sample.items), annotated=len(rows), seed=seed, resamples=resamples, ci=ci, estimates=estimates,
        strata=stratum_results, domains=domains, agreement=reference.agreement)
    return result, rows


def load_audit(reference_path: Path, sample_path: Path | None = None) -> tuple[AuditReference, AuditSample]:
    """A reference and the sample it was adjudicated on: ``sample_path``, else the path the reference records
    (as given to ``audit agree``, or beside the reference when the two moved together).

    Raises:
        InputError: the sample is missing or is not the file the reference was adjudicated on.
    """
    from sitbench.stores import sha256_file

    reference = load_reference(reference_path)
    path = sample_path or Path(reference.sample_path)
    if sample_path is None and not path.is_file() and (reference_path.parent / path.name).is_file():
        path = reference_path.parent / path.name
    if not path.is_file():
        raise InputError(f"{reference_path}: its sample {path} is not there; give it with --sample FILE")
    if sha256_file(path) != reference.sample_sha256:
        raise InputError(f"{path}: not the sample file the reference was adjudicated on (SHA-256 differs); give "
                         "that one with --sample FILE")
    return reference, load_sample(path)


def measure_file(reference_path: Path, extractor_spec: str = "rules", *, sample_path: Path | None = None,
                 dataset: Path | None = None, seed: int = 0, resamples: int = DEFAULT_RESAMPLES,
                 ci: float = DEFAULT_CI, keep_rows: bool = False) -> tuple[VerifierResult, list[Row]]:
    """:func:`measure` of a reference file (its sample found where the reference says, unless given).

    Raises:
        InputError: the sample is missing or is not the file the reference was adjudicated on.
    """
    reference, sample = load_audit(reference_path, sample_path)
    return measure(reference, sample, extractor_spec, dataset=dataset, seed=seed, resamples=resamples,
                   ci=ci, reference_path=str(reference_path), keep_rows=keep_rows)


def format_share(value: float | None, unit: str) -> str:
    """A share in percent, an F1 as a 0–1 number; ``undefined`` when there is no denominator."""
    if value is None:
        return "undefined"
    return f"{value:.3f}" if unit.startswith("F1") else f"{100 * value:.1f} %"


Formatter = Callable[[float | None, str], str]
