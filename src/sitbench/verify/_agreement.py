"""Agreement between two readings of the same responses (an extractor against annotations, or two extractors).

One side is the reference (human annotations, or the extractor listed first); the figures say how
the other side reads the same responses: act accuracy, claim precision/recall/F1, polarity and
provenance accuracy on the claims both found, and verdict agreement with false-reject and
false-accept rates kept apart (a verifier that rejects correct answers and one that accepts wrong
ones fail users differently).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from sitbench.schema import Act, Observation


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AgreementFigures(Frozen):
    """Agreement over one set of responses."""

    responses: int
    """Responses compared."""
    act_accuracy: float
    """Share of (response, act) presences that agree, over all six acts."""
    claim_precision: float
    """Share of the compared side's (prop, polarity, provenance) claims the reference has."""
    claim_recall: float
    """Share of the reference's claims the compared side has."""
    claim_f1: float
    """Harmonic mean of claim precision and recall."""
    polarity_accuracy: float | None
    """Among propositions both sides claim, share with the same polarity (None when there are none)."""
    provenance_accuracy: float | None
    """Among (prop, polarity) both sides claim, share with the same provenance (None when there are none)."""
    verdicts: int
    """Verdicts compared: target verdicts plus partner verdicts of theorem-qualified probes."""
    verdict_agreement: float
    """Share of verdicts that agree."""
    false_reject_rate: float | None
    """Share of reference-valid verdicts the compared side judges invalid."""
    false_accept_rate: float | None
    """Share of reference-invalid verdicts the compared side judges valid."""
    kappa: float | None
    """Cohen's κ of the verdicts (None when chance agreement is 1)."""


class AgreementReport(Frozen):
    """Overall figures and the same figures per group (phenomenon, category, dataset…)."""

    overall: AgreementFigures
    """All responses."""
    groups: dict[str, dict[str, AgreementFigures]] = Field(default_factory=dict)
    """Grouping name → group value → figures."""


def _claims(observation: Observation) -> set[tuple[str, bool, str]]:
    return {(c.prop_id, c.polarity, c.provenance.value) for c in observation.claims}


@dataclass
class _Tally:
    responses: int = 0
    act_hits: int = 0
    tp: int = 0
    got: int = 0
    want: int = 0
    same_prop: int = 0
    same_polarity: int = 0
    same_signed: int = 0
    same_provenance: int = 0
    pairs: list[tuple[bool, bool]] = field(default_factory=list)

    def add(self, reference: Observation, other: Observation, verdicts: Iterable[tuple[bool, bool]]) -> None:
        self.responses += 1
        ref_acts, got_acts = set(reference.acts), set(other.acts)
        self.act_hits += sum((a in ref_acts) == (a in got_acts) for a in Act)
        want, got = _claims(reference), _claims(other)
        self.tp += len(want & got)
        self.got += len(got)
        self.want += len(want)
        ref_pol: dict[str, set[bool]] = {}
        for p, pol, _ in want:
            ref_pol.setdefault(p, set()).add(pol)
        got_pol: dict[str, set[bool]] = {}
        for p, pol, _ in got:
            got_pol.setdefault(p, set()).add(pol)
        for p in ref_pol.keys() & got_pol.keys():
            self.same_prop += 1
            self.same_polarity += ref_pol[p] == got_pol[p]
        ref_prov = {(p, pol): prov for p, pol, prov in want}
        got_prov = {(p, pol): prov for p, pol, prov in got}
        for key in ref_prov.keys() & got_prov.keys():
            self.same_signed += 1
            self.same_provenance += ref_prov[key] == got_prov[key]
        self.pairs.extend(verdicts)

    def figures(self) -> AgreementFigures:
        precision = self.tp / self.got if self.got else 1.0
        recall = self.tp / self.want if self.want else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        n = len(self.pairs)
        agree = sum(a == b for a, b in self.pairs)
        ref_valid = [b for a, b in self.pairs if a]
        ref_invalid = [b for a, b in self.pairs if not a]
        kappa = None
        if n:
            p_ref = sum(a for a, _ in self.pairs) / n
            p_got = sum(b for _, b in self.pairs) / n
            chance = p_ref * p_got + (1 - p_ref) * (1 - p_got)
            kappa = None if chance == 1 else (agree / n - chance) / (1 - chance)
        return AgreementFigures(
            responses=self.responses,
            act_accuracy=self.act_hits / (len(Act) * self.responses) if self.responses else 1.0,
            claim_precision=precision, claim_recall=recall, claim_f1=f1,
            polarity_accuracy=self.same_polarity / self.same_prop if self.same_prop else None,
            provenance_accuracy=self.same_provenance / self.same_signed if self.same_signed else None,
            verdicts=n, verdict_agreement=agree / n if n else 1.0,
            false_reject_rate=sum(not b for b in ref_valid) / len(ref_valid) if ref_valid else None,
            false_accept_rate=sum(b for b in ref_invalid) / len(ref_invalid) if ref_invalid else None,
            kappa=kappa)


@dataclass(frozen=True)
class Reading:
    """One response read two ways: the reference and the compared side, with their verdicts."""

    reference: Observation
    """The reference observation (annotation, or the first extractor)."""
    other: Observation
    """The compared observation."""
    verdicts: tuple[tuple[bool, bool], ...]
    """(reference valid, compared valid) for the target and, when theorem-qualified, the partner contract."""
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Grouping name → the values this response belongs to (a response may carry several phenomena)."""


def compare(readings: Iterable[Reading]) -> AgreementReport:
    """Agreement figures overall and per group value."""
    overall = _Tally()
    grouped: dict[str, dict[str, _Tally]] = {}
    for reading in readings:
        overall.add(reading.reference, reading.other, reading.verdicts)
        for name, values in reading.groups.items():
            for value in values:
                grouped.setdefault(name, {}).setdefault(value, _Tally()).add(
                    reading.reference, reading.other, reading.verdicts)
    return AgreementReport(overall=overall.figures(), groups={
        name: {value: tally.figures() for value, tally in sorted(by.items())} for name, by in sorted(grouped.items())})


def format_figures(label: str, f: AgreementFigures) -> str:
    """One line of figures."""

    def pct(x: float | None) -> str:
        return "  n/a" if x is None else f"{x:.3f}"

    return (f"{label:<28} n={f.responses:<5} acts={pct(f.act_accuracy)} claimP={pct(f.claim_precision)} "
            f"claimR={pct(f.claim_recall)} F1={pct(f.claim_f1)} pol={pct(f.polarity_accuracy)} "
            f"prov={pct(f.provenance_accuracy)} verdict={pct(f.verdict_agreement)} "
            f"FR={pct(f.false_reject_rate)} FA={pct(f.false_accept_rate)} κ={pct(f.kappa)}")
