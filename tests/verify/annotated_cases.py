"""Shared machinery of the hand-annotated response sets (``data/regression.jsonl``, ``data/heldout.jsonl``).

Each line: ``{"id", "probe_id", "response", "acts", "claims": [[prop_id, polarity, provenance]],
"valid", "partner_valid", "note"}``. A test module loads its file, lists the cases the
extractor is known to disagree with (strict expected failures), and checks every case three
ways (acts, claims, verdicts) plus a summary line of the four agreement figures.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitbench.schema import Act, ClaimProvenance
from sitbench.verify import Judge, Judgement

Triple = tuple[str, bool, str]
ASPECTS = ("acts", "claims", "verdict")


@dataclass(frozen=True)
class Case:
    """One annotated response."""

    case_id: str
    probe_id: str
    response: str
    acts: frozenset[str]
    claims: frozenset[Triple]
    valid: bool
    partner_valid: bool | None
    note: str


def load_cases(path: Path, prefix: str) -> list[Case]:
    """Cases of one file; ids must run ``PREFIX-001``, ``PREFIX-002``, … in line order."""
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        raw = json.loads(line)
        cases.append(Case(
            case_id=raw["id"], probe_id=raw["probe_id"], response=raw["response"],
            acts=frozenset(raw["acts"]),
            claims=frozenset((str(p), bool(pol), str(prov)) for p, pol, prov in raw["claims"]),
            valid=raw["valid"], partner_valid=raw["partner_valid"], note=raw["note"],
        ))
        assert cases[-1].case_id == f"{prefix}-{number:03d}", f"{path.name} line {number}: ids must run in order"
    return cases


def params(cases: list[Case], known: dict[str, str], aspect: str) -> list[object]:
    """Cases as parameters; a known disagreement on ``aspect`` is a strict expected failure.

    ``known`` maps a case id to ``"aspects: reason"`` where aspects is a comma list of ASPECTS."""
    out: list[object] = []
    for case in cases:
        reason = known.get(case.case_id)
        marks = ([pytest.mark.xfail(strict=True, reason=reason)]
                 if reason is not None and aspect in reason.split(":", 1)[0].split(",") else [])
        out.append(pytest.param(case, id=case.case_id, marks=marks))
    return out


def acts_of(judgement: Judgement) -> frozenset[str]:
    """Extracted acts as strings."""
    return frozenset(Act(a).value for a in judgement.observation.acts)


def claims_of(judgement: Judgement) -> frozenset[Triple]:
    """Extracted claims as (prop_id, polarity, provenance) triples."""
    return frozenset((c.prop_id, c.polarity, ClaimProvenance(c.provenance).value)
                     for c in judgement.observation.claims)


def check_well_formed(cases: list[Case], known: dict[str, str], judge: Judge, *, minimum: int,
                      per_probe: int) -> None:
    """The file itself: coverage of the pilot's probes, valid labels, consistent annotations."""
    probes = judge.hidden.probes
    props = judge.hidden.registry.by_id()
    acts = {a.value for a in Act}
    provenances = {p.value for p in ClaimProvenance}
    assert len(cases) >= minimum
    counts = Counter(c.probe_id for c in cases)
    assert set(counts) == set(probes), "every pilot probe has cases"
    assert min(counts.values()) >= per_probe
    assert len({(c.probe_id, c.response) for c in cases}) == len(cases), "no duplicate cases"
    for case in cases:
        assert case.acts <= acts, case.case_id
        assert {p for p, _, _ in case.claims} <= set(props), case.case_id
        assert {prov for _, _, prov in case.claims} <= provenances, case.case_id
        # At most one polarity per proposition: a response cannot be annotated both ways.
        assert len({p for p, _, _ in case.claims}) == len({(p, pol) for p, pol, _ in case.claims}), case.case_id
        assert (case.partner_valid is None) == (not probes[case.probe_id].theorem_qualified), case.case_id
        assert case.note, case.case_id
    assert set(known) <= {c.case_id for c in cases}
    for reason in known.values():
        assert set(reason.split(":", 1)[0].split(",")) <= set(ASPECTS), reason


def check_both_outcomes(cases: list[Case]) -> None:
    """Every probe has valid and invalid cases; theorem-qualified cases cover correct, wrong, neither."""
    outcomes: dict[str, set[bool]] = {}
    for case in cases:
        outcomes.setdefault(case.probe_id, set()).add(case.valid)
    assert all(seen == {True, False} for seen in outcomes.values()), outcomes
    pairs = {(c.valid, c.partner_valid) for c in cases if c.partner_valid is not None}
    assert pairs == {(True, False), (False, True), (False, False)}


def check_acts(case: Case, judgement: Judgement) -> None:
    got = acts_of(judgement)
    assert got == case.acts, (f"{case.note}\nresponse: {case.response!r}\n"
                              f"expected {sorted(case.acts)}, extracted {sorted(got)}")


def check_claims(case: Case, judgement: Judgement) -> None:
    got = claims_of(judgement)
    assert got == case.claims, (f"{case.note}\nresponse: {case.response!r}\n"
                                f"missing {sorted(case.claims - got)}, extra {sorted(got - case.claims)}")


def check_verdict(case: Case, judgement: Judgement) -> None:
    failed = sorted(name for name, check in judgement.verdict.checks.items() if not check.passed)
    assert judgement.verdict.valid == case.valid, f"{case.note}\nresponse: {case.response!r}\nfailed checks: {failed}"
    if case.partner_valid is None:
        assert judgement.partner is None
        return
    assert judgement.partner is not None
    partner_failed = sorted(n for n, c in judgement.partner.checks.items() if not c.passed)
    assert judgement.partner.valid == case.partner_valid, (
        f"partner verdict; {case.note}\nresponse: {case.response!r}\npartner failed checks: {partner_failed}")


@dataclass(frozen=True)
class Summary:
    """Agreement of the implementation with the annotations over a whole set."""

    act_accuracy: float
    claim_precision: float
    claim_recall: float
    verdict_agreement: float
    verdicts: int

    def line(self, label: str, cases: int) -> str:
        return (f"{label}: act_accuracy={self.act_accuracy:.3f} claim_precision={self.claim_precision:.3f} "
                f"claim_recall={self.claim_recall:.3f} verdict_agreement={self.verdict_agreement:.3f} "
                f"(cases={cases}, verdicts={self.verdicts})")


def summarize(cases: list[Case], judged: dict[str, Judgement]) -> Summary:
    """Act accuracy is per (case, act) presence over all six acts; claim precision and recall
    are micro-averaged over triples; verdict agreement counts target verdicts and the
    partner verdicts of theorem-qualified cases (a missing partner verdict disagrees)."""
    all_acts = [a.value for a in Act]
    act_hits = tp = extracted = expected = agree = verdicts = 0
    for case in cases:
        judgement = judged[case.case_id]
        got_acts, got_claims = acts_of(judgement), claims_of(judgement)
        act_hits += sum((a in got_acts) == (a in case.acts) for a in all_acts)
        tp += len(got_claims & case.claims)
        extracted += len(got_claims)
        expected += len(case.claims)
        agree += judgement.verdict.valid is case.valid
        verdicts += 1
        if case.partner_valid is not None:
            agree += judgement.partner is not None and judgement.partner.valid is case.partner_valid
            verdicts += 1
    return Summary(
        act_accuracy=act_hits / (len(all_acts) * len(cases)),
        claim_precision=tp / extracted if extracted else 1.0,
        claim_recall=tp / expected if expected else 1.0,
        verdict_agreement=agree / verdicts,
        verdicts=verdicts,
    )
