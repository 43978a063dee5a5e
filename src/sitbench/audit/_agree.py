"""``audit agree``: inter-annotator agreement (seed §8.3) and the majority-adjudicated reference.

Categorical checks (κ ≥ 0.90 target): presence of each act, of all six pooled, uncertainty, the
withheld frame, and the polarity and provenance of claims aligned by :data:`MATCHING_RULE` (the
proposition id). Each gets pairwise Cohen's κ and Krippendorff's α over all annotators, with item
bootstrap intervals. Set-valued objects — claim sets, non-assertion mentions, unmapped assertions,
supporting spans — get precision, recall, F1 and exact-set agreement instead; no κ summarizes them.

Adjudication, unit by unit: the label most annotators gave stands; a tie (three different labels of
three annotators, or one against one when only two annotated the item) is decided by the
adjudicator's reading — an annotator named with ``--adjudicator`` or a separate annotation file —
and recorded. A unit the adjudicator's reading lacks is decided as absent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from sitbench.audit._models import (
    SPAN_IOU,
    Adjudication,
    AdjudicationSummary,
    AgreementResult,
    AnnotatedClaim,
    AnnotatedUnmapped,
    Annotation,
    AuditReference,
    AuditSample,
    CategoricalCheck,
    ClaimMode,
    Coefficient,
    PairKappa,
    SetCheck,
    SetPair,
    Span,
)
from sitbench.audit._reliability import (
    Ratings,
    alpha_interval,
    alpha_of_counts,
    cohen_kappa,
    iou,
    kappa_interval,
    match_spans,
    ratio_interval,
    resample_items,
)
from sitbench.errors import InputError
from sitbench.schema import Act, ClaimProvenance, UncertaintyLevel

REFERENCE_ANNOTATOR = "reference"
DEFAULT_RESAMPLES = 1000
DEFAULT_CI = 0.95

_ACTS = list(Act)
_PROVENANCES = [p.value for p in ClaimProvenance]
_UNCERTAINTY = [u.value for u in UncertaintyLevel]

Readings = Mapping[str, Mapping[str, Annotation]]
"""Annotator → item id → annotation (``done`` ones only)."""


def done_only(annotations: Readings) -> dict[str, dict[str, Annotation]]:
    """Drop skipped items: a skipped item is not annotated."""
    return {name: {k: a for k, a in items.items() if a.status == "done"} for name, items in annotations.items()}


# --------------------------------------------------------------------------- categorical checks


@dataclass
class _Check:
    name: str
    description: str
    ratings: Ratings


def _categorical_checks(readings: Readings, items: list[str]) -> list[_Check]:
    readers = list(readings)
    checks: list[_Check] = []
    binary = ["absent", "present"]
    for act in _ACTS:
        r = Ratings(binary, readers)
        for i, item in enumerate(items):
            r.add(i, {n: int(act in a[item].acts) for n, a in readings.items() if item in a})
        checks.append(_Check(f"act {act.value}", f"presence of {act.value} in the response", r))
    pooled = Ratings(binary, readers)
    for i, item in enumerate(items):
        for act in _ACTS:
            pooled.add(i, {n: int(act in a[item].acts) for n, a in readings.items() if item in a})
    checks.append(_Check("acts (all six)", "presence of each of the six acts, (response, act) units pooled", pooled))
    unc = Ratings(_UNCERTAINTY, readers)
    for i, item in enumerate(items):
        unc.add(i, {n: _UNCERTAINTY.index(a[item].uncertainty.value) for n, a in readings.items() if item in a})
    checks.append(_Check("uncertainty", "uncertainty expressed: none, hedged or explicit not-knowing", unc))
    withheld = Ratings(binary, readers)
    for i, item in enumerate(items):
        withheld.add(i, {n: int(a[item].withheld) for n, a in readings.items() if item in a})
    checks.append(_Check("withheld", "the response frames something as withheld from the interlocutor", withheld))
    polarity = Ratings(["denied", "asserted"], readers)
    provenance = Ratings(_PROVENANCES, readers)
    for i, item in enumerate(items):
        claimed = {n: a[item].asserted() for n, a in readings.items() if item in a}
        for prop in sorted({p for c in claimed.values() for p in c}):
            polarity.add(i, {n: int(c[prop].polarity) for n, c in claimed.items() if prop in c})
            provenance.add(i, {n: _PROVENANCES.index(c[prop].provenance.value) for n, c in claimed.items()
                               if prop in c})
    checks.append(_Check("claim polarity", "polarity of asserted claims aligned by proposition id (units: "
                         "propositions some annotator asserted)", polarity))
    checks.append(_Check("claim provenance", "provenance of asserted claims aligned by proposition id", provenance))
    return checks


def _meets(coefficients: Sequence[Coefficient], target: float) -> bool | None:
    if any(c.value is None for c in coefficients):
        return None
    return all(c.value is not None and c.value >= target for c in coefficients)


def _categorical_result(check: _Check, n_items: int, draws: np.ndarray, seed: int, ci: float) -> CategoricalCheck:
    readers = check.ratings.readers
    pairs = []
    for x in range(len(readers)):
        for y in range(x + 1, len(readers)):
            a, b = readers[x], readers[y]
            tables = check.ratings.pair_tables(a, b, n_items)
            kappa = cohen_kappa(tables.sum(axis=0))
            if kappa.value is not None:
                kappa = kappa.model_copy(update={"interval": kappa_interval(tables, draws, seed, ci)})
            pairs.append(PairKappa(a=a, b=b, kappa=kappa))
    alpha = alpha_of_counts(check.ratings.value_counts())
    if alpha.value is not None:
        alpha = alpha.model_copy(update={"interval": alpha_interval(check.ratings, n_items, draws, seed, ci)})
    result = CategoricalCheck(name=check.name, description=check.description, categories=check.ratings.categories,
                              units=len(check.ratings.units), pairs=pairs, alpha=alpha, meets_target=None)
    return result.model_copy(update={"meets_target": _meets([p.kappa for p in pairs] + [alpha], result.target)})


# --------------------------------------------------------------------------- set checks


@dataclass
class _SetCounts:
    a: int
    b: int
    matched: int
    exact: bool


SetCompare = Callable[[Annotation, Annotation], _SetCounts]


def _exact_sets(key: Callable[[Annotation], set[Any]]) -> SetCompare:
    def compare(x: Annotation, y: Annotation) -> _SetCounts:
        a, b = key(x), key(y)
        return _SetCounts(len(a), len(b), len(a & b), a == b)

    return compare


def _claim_triples(a: Annotation) -> set[tuple[str, bool, str]]:
    return {(c.prop_id, c.polarity, c.provenance.value) for c in a.claims if c.mode == "asserted"}


def _claimed_props(a: Annotation) -> set[str]:
    return {c.prop_id for c in a.claims if c.mode == "asserted"}


def _mentions(a: Annotation) -> set[tuple[str, ClaimMode]]:
    return {(c.prop_id, c.mode) for c in a.claims if c.mode != "asserted"}


def _unmapped_key(u: AnnotatedUnmapped) -> tuple[tuple[int, ...], str | None, str, bool, str]:
    return (tuple(u.span), u.slot, (u.value or "").strip().casefold(), u.polarity, u.provenance.value)


def _compare_unmapped(x: Annotation, y: Annotation) -> _SetCounts:
    matched = match_spans([u.span for u in x.unmapped], [u.span for u in y.unmapped], SPAN_IOU)
    exact = sorted(map(_unmapped_key, x.unmapped)) == sorted(map(_unmapped_key, y.unmapped))
    return _SetCounts(len(x.unmapped), len(y.unmapped), len(matched), exact)


def _spans(a: Annotation) -> list[Span]:
    return sorted({c.span for c in a.claims if c.span is not None} | {u.span for u in a.unmapped})


def _compare_spans(x: Annotation, y: Annotation) -> _SetCounts:
    a, b = _spans(x), _spans(y)
    return _SetCounts(len(a), len(b), len(match_spans(a, b, SPAN_IOU)), a == b)


_SET_CHECKS: list[tuple[str, str, SetCompare]] = [
    ("claims", "asserted claims as (proposition, polarity, provenance); exact match", _exact_sets(_claim_triples)),
    ("claimed propositions", "which propositions are asserted (the alignment key of the matching rule)",
     _exact_sets(_claimed_props)),
    ("non-assertion mentions", "propositions only quoted, hypothetical or reported, as (proposition, mode)",
     _exact_sets(_mentions)),
    ("unmapped assertions", f"unmapped personal assertions aligned by span (IoU ≥ {SPAN_IOU}); exact set: same "
     "spans, slot, value, polarity and provenance", _compare_unmapped),
    ("supporting spans", f"spans of claims and unmapped assertions, aligned by IoU ≥ {SPAN_IOU}; exact set: "
     "identical offsets", _compare_spans),
]


def _f1(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    # num: Σ 2·matched, den: Σ (a + b)
    return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _set_results(readings: Readings, items: list[str], draws: np.ndarray, seed: int, ci: float) -> list[SetCheck]:
    readers = list(readings)
    out = []
    for name, description, compare in _SET_CHECKS:
        pairs = []
        for x in range(len(readers)):
            for y in range(x + 1, len(readers)):
                a, b = readings[readers[x]], readings[readers[y]]
                counts = np.zeros((len(items), 4))  # a, b, matched, exact (per item; 0 rows when not both)
                both = np.zeros(len(items), dtype=bool)
                for i, item in enumerate(items):
                    if item in a and item in b:
                        c = compare(a[item], b[item])
                        counts[i] = (c.a, c.b, c.matched, c.exact)
                        both[i] = True
                ta, tb, tm = (float(v) for v in counts[:, :3].sum(axis=0))
                n_both = int(both.sum())
                f1 = 2 * tm / (ta + tb) if ta + tb else None
                interval = None
                if f1 is not None:
                    interval = ratio_interval(2 * counts[:, 2], counts[:, 0] + counts[:, 1], draws, seed, ci,
                                              combine=_f1)
                pairs.append(SetPair(
                    a=readers[x], b=readers[y], items=n_both, a_count=int(ta), b_count=int(tb), matched=int(tm),
                    precision=tm / tb if tb else None, recall=tm / ta if ta else None, f1=f1,
                    exact_set=float(counts[both, 3].mean()) if n_both else None, f1_interval=interval))
        out.append(SetCheck(name=name, description=description, pairs=pairs))
    return out


# --------------------------------------------------------------------------- adjudication


class _Adjudicator:
    """Decides tied units: the majority first, then the adjudicator's reading."""

    def __init__(self, item_id: str, voters: dict[str, Annotation], adjudicator: str | None,
                 adjudicator_reading: Annotation | None) -> None:
        self.item_id = item_id
        self.voters = voters
        self.name = adjudicator
        self.reading = adjudicator_reading
        self.records: list[Adjudication] = []
        self.majority_units = 0
        self.ties: list[str] = []

    def decide(self, unit: str, votes: dict[str, str], from_adjudicator: Callable[[Annotation], str | None]) -> str | None:
        """The majority label of ``votes`` (annotator → label), or the adjudicator's when the top is tied.

        Returns None when the adjudicator's reading lacks the unit (decided: absent)."""
        counts = Counter(votes.values())
        ranked = counts.most_common()
        if len(ranked) == 1:
            return ranked[0][0]
        if ranked[0][1] > ranked[1][1]:
            self.majority_units += 1
            return ranked[0][0]
        if self.reading is None:
            self.ties.append(f"item {self.item_id} {unit}: " + ", ".join(f"{k}={v}" for k, v in sorted(votes.items())))
            return ranked[0][0]
        decided = from_adjudicator(self.reading)
        self.records.append(Adjudication(item_id=self.item_id, unit=unit, votes=dict(sorted(votes.items())),
                                         decided="absent" if decided is None else decided, by=str(self.name)))
        return decided


def _majority_span(spans: Sequence[Span]) -> Span | None:
    """The characters more than half of the spans cover, as one span (None when none is a majority)."""
    if not spans:
        return None
    need = len(spans) / 2
    lo, hi = min(s[0] for s in spans), max(s[1] for s in spans)
    covered = [c for c in range(lo, hi) if sum(s[0] <= c < s[1] for s in spans) > need]
    return (covered[0], covered[-1] + 1) if covered else None


def _flag(value: bool) -> str:
    return "yes" if value else "no"


def _adjudicate_item(item_id: str, response: str, voters: dict[str, Annotation], judge: _Adjudicator) -> Annotation:
    first = next(iter(voters.values()))
    acts = []
    for act in _ACTS:
        votes = {n: _flag(act in a.acts) for n, a in voters.items()}

        def has_act(r: Annotation, act: Act = act) -> str:
            return _flag(act in r.acts)

        if judge.decide(f"act {act.value}", votes, has_act) == "yes":
            acts.append(act)
    uncertainty = judge.decide("uncertainty", {n: a.uncertainty.value for n, a in voters.items()},
                               lambda r: r.uncertainty.value) or UncertaintyLevel.NONE.value
    withheld = judge.decide("withheld", {n: _flag(a.withheld) for n, a in voters.items()},
                            lambda r: _flag(r.withheld)) == "yes"
    claims = []
    keys = sorted({(c.prop_id, c.mode) for a in voters.values() for c in a.claims}, key=lambda k: (k[1] != "asserted", k))
    for prop, mode in keys:
        have = {n: {(c.prop_id, c.mode): c for c in a.claims}.get((prop, mode)) for n, a in voters.items()}

        def adj(r: Annotation, prop: str = prop, mode: ClaimMode = mode) -> AnnotatedClaim | None:
            return {(c.prop_id, c.mode): c for c in r.claims}.get((prop, mode))

        label = f"claim {prop}" + ("" if mode == "asserted" else f" ({mode})")
        if judge.decide(label, {n: _flag(c is not None) for n, c in have.items()},
                        lambda r: _flag(adj(r) is not None)) != "yes":
            continue
        marked = {n: c for n, c in have.items() if c is not None}
        polarity = judge.decide(f"{label} polarity", {n: _flag(c.polarity) for n, c in marked.items()},
                                lambda r: None if (c := adj(r)) is None else _flag(c.polarity))
        if polarity is None:
            continue
        provenance = judge.decide(f"{label} provenance", {n: c.provenance.value for n, c in marked.items()},
                                  lambda r: None if (c := adj(r)) is None else c.provenance.value)
        if provenance is None:
            continue
        span = _majority_span([c.span for c in marked.values() if c.span is not None])
        if span is None and judge.reading is not None and (own := adj(judge.reading)) is not None:
            span = own.span
        claims.append(AnnotatedClaim(prop_id=prop, polarity=polarity == "yes", provenance=ClaimProvenance(provenance),
                                     mode=mode, span=span))
    unmapped = []
    for cluster in _unmapped_clusters(voters):
        votes = {n: _flag(n in cluster) for n in voters}
        anchor = _majority_span([u.span for u in cluster.values()]) or next(iter(cluster.values())).span

        def adj_u(r: Annotation, anchor: Span = anchor) -> AnnotatedUnmapped | None:
            found = sorted(((iou(u.span, anchor), i) for i, u in enumerate(r.unmapped) if iou(u.span, anchor) >= SPAN_IOU),
                           reverse=True)
            return r.unmapped[found[0][1]] if found else None

        label = f"unmapped at {list(anchor)}"
        if judge.decide(label, votes, lambda r: _flag(adj_u(r) is not None)) != "yes":
            continue
        fields: dict[str, str | None] = {}
        readers: tuple[tuple[str, Callable[[AnnotatedUnmapped], str]], ...] = (
            ("slot", lambda u: u.slot or "unresolved"),
            ("value", lambda u: (u.value or "").strip().casefold() or "-"),
            ("polarity", lambda u: _flag(u.polarity)),
            ("provenance", lambda u: u.provenance.value))
        for name, get in readers:

            def read(r: Annotation, get: Callable[[AnnotatedUnmapped], str] = get) -> str | None:
                return None if (u := adj_u(r)) is None else get(u)

            fields[name] = judge.decide(f"{label} {name}", {n: get(u) for n, u in cluster.items()}, read)
        if any(v is None for v in fields.values()):
            continue
        value = fields["value"]
        shown = next((u.value.strip() for u in cluster.values() if u.value and u.value.strip().casefold() == value), None)
        unmapped.append(AnnotatedUnmapped(
            span=anchor, text=response[anchor[0]:anchor[1]], polarity=fields["polarity"] == "yes",
            provenance=ClaimProvenance(fields["provenance"]),
            slot=None if fields["slot"] == "unresolved" else fields["slot"], value=shown))
    return Annotation(sample_id=first.sample_id, phase=first.phase, annotator=REFERENCE_ANNOTATOR, item_id=item_id,
                      acts=acts, claims=claims, unmapped=unmapped, uncertainty=UncertaintyLevel(uncertainty),
                      withheld=withheld, synthetic=any(a.synthetic for a in voters.values()))


def _unmapped_clusters(voters: dict[str, Annotation]) -> list[dict[str, AnnotatedUnmapped]]:
    """Unmapped assertions of several annotators grouped by the span rule (one per annotator per group)."""
    clusters: list[dict[str, AnnotatedUnmapped]] = []
    for name, annotation in voters.items():
        for u in sorted(annotation.unmapped, key=lambda u: u.span):
            best, best_iou = None, SPAN_IOU
            for cluster in clusters:
                if name in cluster:
                    continue
                overlap = max(iou(u.span, other.span) for other in cluster.values())
                if overlap >= best_iou:
                    best, best_iou = cluster, overlap
            if best is None:
                clusters.append({name: u})
            else:
                best[name] = u
    return clusters


def _unanimous(voters: Mapping[str, Annotation]) -> bool:
    def view(a: Annotation) -> tuple[object, ...]:
        return (tuple(a.acts), a.uncertainty, a.withheld,
                tuple(sorted((c.prop_id, c.mode, c.polarity, c.provenance.value) for c in a.claims)),
                tuple(sorted((tuple(u.span), u.slot, (u.value or "").casefold(), u.polarity, u.provenance.value)
                             for u in a.unmapped)))

    return len({view(a) for a in voters.values()}) == 1


# --------------------------------------------------------------------------- entry points


def agreement(sample: AuditSample, annotations: Readings, *, seed: int = 0, resamples: int = DEFAULT_RESAMPLES,
              ci: float = DEFAULT_CI) -> AgreementResult:
    """Agreement of the annotators on the items at least two of them annotated.

    Raises:
        InputError: fewer than two annotators.
    """
    readings = done_only(annotations)
    if len(readings) < 2:
        raise InputError(f"agreement needs at least two annotators' files, got {len(readings)}")
    order = [i.item_id for i in sample.by_position()]
    items = [i for i in order if sum(i in r for r in readings.values()) >= 2]
    draws = resample_items(max(1, len(items)), resamples, seed) if items else np.zeros((resamples, 0), dtype=int)
    categorical = [_categorical_result(c, len(items), draws, seed, ci) for c in _categorical_checks(readings, items)]
    sets = _set_results(readings, items, draws, seed, ci)
    return AgreementResult(sample_id=sample.sample_id, phase=sample.phase,
                           synthetic=any(a.synthetic for r in readings.values() for a in r.values()),
                           annotators=list(readings), items=len(items), seed=seed, resamples=resamples, ci=ci,
                           categorical=categorical, sets=sets)


def adjudicate(sample: AuditSample, annotations: Readings, adjudicator: str | None = None,
               adjudicator_readings: Mapping[str, Annotation] | None = None) -> tuple[list[Annotation], list[Adjudication],
                                                                                       AdjudicationSummary]:
    """The reference reading of every annotated item, unit by unit (see the module docstring).

    ``adjudicator`` names an annotator of ``annotations`` or, with ``adjudicator_readings``, a separate
    reader (item id → annotation).

    Raises:
        InputError: a tie with no adjudicator, or an adjudicator who did not read a tied item.
    """
    readings = done_only(annotations)
    if adjudicator is not None and adjudicator_readings is None:
        if adjudicator not in readings:
            raise InputError(f"--adjudicator {adjudicator!r}: not one of the annotators ({', '.join(readings)}); "
                             "name one of them or give the adjudicator's annotation file")
        adjudicator_readings = readings[adjudicator]
    adjudicator_readings = {k: a for k, a in (adjudicator_readings or {}).items() if a.status == "done"}
    references, records, ties, missing = [], [], [], []
    majority = unanimous = single = 0
    for item in sample.by_position():
        voters = {n: r[item.item_id] for n, r in readings.items() if item.item_id in r}
        if not voters:
            continue
        own = adjudicator_readings.get(item.item_id)
        judge = _Adjudicator(item.item_id, voters, adjudicator, own)
        reference = _adjudicate_item(item.item_id, item.response, voters, judge)
        if judge.ties:
            if adjudicator is None:
                ties.extend(judge.ties)
            else:
                missing.append(item.item_id)
        single += len(voters) == 1
        unanimous += len(voters) > 1 and _unanimous(voters)
        majority += judge.majority_units
        records.extend(judge.records)
        references.append(reference)
    if ties:
        shown = "; ".join(ties[:3]) + (f"; … ({len(ties)} in all)" if len(ties) > 3 else "")
        raise InputError(f"{len(ties)} tied unit(s) need an adjudicator ({shown}); give --adjudicator NAME (one of "
                         "the annotators) or --adjudicator FILE.jsonl (the adjudicator's annotations of those items)")
    if missing:
        raise InputError(f"--adjudicator {adjudicator}: no annotation of item(s) {', '.join(missing[:5])}"
                         + (" …" if len(missing) > 5 else "") + ", which have tied units; the adjudicator must read them")
    summary = AdjudicationSummary(items=len(references), unanimous_items=unanimous, single_annotator_items=single,
                                  majority_units=majority, adjudicated_units=len(records), adjudicator=adjudicator)
    return references, records, summary


def build_reference(sample: AuditSample, sample_path: Path, annotations: Readings, *, adjudicator: str | None = None,
                    adjudicator_readings: Mapping[str, Annotation] | None = None, seed: int = 0,
                    resamples: int = DEFAULT_RESAMPLES, ci: float = DEFAULT_CI,
                    created_at: str | None = None) -> AuditReference:
    """Agreement plus adjudication: the reference annotation file's content."""
    from sitbench.stores import sha256_file

    result = agreement(sample, annotations, seed=seed, resamples=resamples, ci=ci)
    items, records, summary = adjudicate(sample, annotations, adjudicator, adjudicator_readings)
    result = result.model_copy(update={"adjudication": summary})
    synthetic = result.synthetic or any(a.synthetic for a in (adjudicator_readings or {}).values())
    return AuditReference(
        sample_id=sample.sample_id, sample_path=str(sample_path), sample_sha256=sha256_file(sample_path),
        phase=sample.phase, synthetic=synthetic, annotators=list(annotations), adjudicator=adjudicator,
        created_at=created_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        items=items, adjudications=records, agreement=result.model_copy(update={"synthetic": synthetic}))


def load_reference(path: Path) -> AuditReference:
    """Read a reference written by ``audit agree --out``.

    Raises:
        InputError: not a reference file, or malformed.
    """
    from sitbench.stores import load_model, read_json

    data = read_json(path, hint="write one with `sitbench audit agree ANNOTATIONS... --sample S --out FILE`")
    if not isinstance(data, dict) or data.get("format") != "sitbench-audit-reference/1":
        raise InputError(f"{path}: not an audit reference (write one with `sitbench audit agree ... --out FILE`)")
    return load_model(path, AuditReference)
