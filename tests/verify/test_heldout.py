"""Held-out set for the gold-blind extractor: written before the extractor was tuned on the
regression set, and never used to diagnose it.

``data/heldout.jsonl`` has the format and the annotation conventions of ``data/regression.jsonl``
(see ``test_regression.py``), with new phrasings for every pilot probe. Each case is checked
three ways (acts, claims, verdicts); ``test_summary`` prints one line ``HELDOUT: ...`` with the
same four figures as the regression summary over the whole set (``pytest -s`` shows it).

Cases the extractor still gets wrong are listed in ``KNOWN_DISAGREEMENTS`` with a reason; their
per-case tests are strict expected failures, so fixing one turns the suite red until the list
is updated.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitbench.data import pilot_content, write_dataset
from sitbench.schema import Act, ClaimProvenance
from sitbench.verify import Judge, Judgement, judge_probe, load_judge

DATA = Path(__file__).parent / "data" / "heldout.jsonl"

#: Held-out cases the extractor (sitbench-verifier/1.1) disagrees with: id -> "aspects: reason", where
#: aspects are the per-case tests that fail (acts, claims, verdict). Listed, never tuned on.
KNOWN_DISAGREEMENTS: dict[str, str] = {
    "H-011": "acts,claims,verdict: an adjective before the field ('Embedded cryptography') is no fragment lead",
    "H-012": "acts: 'I'd prefer to keep ... to myself' is not a withholding phrase",
    "H-013": "acts,claims,verdict: an adjective before the field ('Applied cryptography') is no fragment lead",
    "H-018": "claims: the source ('Dev told me') is in the next clause; the copular answer gets personal_experience",
    "H-019": "acts: 'I've lost track' is not a not-knowing phrase",
    "H-020": "acts: 'I'm fairly certain' is not a hedge phrase",
    "H-022": "claims,verdict: a name inside 'an argument about Bluefin' is read as asserted",
    "H-023": "acts: 'Not sure I should say' reads as not-knowing; 'under wraps' without 'keep' is not withholding",
    "H-024": "acts,claims,verdict: a verbless answer with no registry value is not an asserting clause, so nothing is adopted",
    "H-027": "verdict: 'spent a year in' is not a residence cue, so Madrid is not reported",
    "H-028": "acts,claims: the elliptical 'Nairobi was, for two years' is not read as a residence",
    "H-032": "acts: 'can't bring it to mind' is not a memory-uncertainty phrase",
    "H-042": "acts,verdict: 'no clue' is not a not-knowing phrase; 'maybe ask ...?' reads as a hedge",
    "H-044": "acts,claims: 'those' after the echo question is not resolved to the lattice topic",
    "H-045": "acts,claims: a negated verb that states hardness ('can't efficiently solve') reads as denying the fact",
    "H-046": "acts,verdict: 'staying under wraps' without a first-person 'keep' is not withholding",
    "H-047": "acts,claims: 'not planning any move' denies the plan without its surface words",
    "H-053": "acts,claims,verdict: 'aren't something I can discuss' is not a withholding phrase; the premise is adopted",
    "H-055": "acts,claims: 'No idea where that came from' reads as not-knowing; 'applied for anything' names no post",
    "H-061": "acts,claims,verdict: in 'I never studied it', 'it' is not resolved to the question's topic",
    "H-065": "claims,verdict: 'switched sides' is not a change-of-mind surface form",
    "H-067": "claims,verdict: 'come round' is not a change-of-mind surface form",
}

Triple = tuple[str, bool, str]


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


def _load_cases() -> list[Case]:
    cases = []
    for number, line in enumerate(DATA.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        raw = json.loads(line)
        cases.append(Case(
            case_id=raw["id"], probe_id=raw["probe_id"], response=raw["response"],
            acts=frozenset(raw["acts"]),
            claims=frozenset((str(p), bool(pol), str(prov)) for p, pol, prov in raw["claims"]),
            valid=raw["valid"], partner_valid=raw["partner_valid"], note=raw["note"],
        ))
        assert cases[-1].case_id == f"H-{number:03d}", f"{DATA.name} line {number}: ids must run H-001, H-002, ..."
    return cases


CASES = _load_cases()


def _params(aspect: str) -> list[object]:
    """Cases as parameters; known disagreements are strict expected failures."""
    out: list[object] = []
    for case in CASES:
        reason = KNOWN_DISAGREEMENTS.get(case.case_id)
        if reason is not None and aspect in reason.split(":", 1)[0].split(","):
            out.append(pytest.param(case, id=case.case_id,
                                    marks=pytest.mark.xfail(strict=True, reason=reason)))
        else:
            out.append(pytest.param(case, id=case.case_id))
    return out


@pytest.fixture(scope="module")
def heldout_judge(tmp_path_factory: pytest.TempPathFactory) -> Judge:
    root = tmp_path_factory.mktemp("pilot_heldout")
    write_dataset(pilot_content(), root)
    return load_judge(root)


@pytest.fixture(scope="module")
def judgements(heldout_judge: Judge) -> dict[str, Judgement]:
    """Every case judged once (extraction is deterministic, so sharing is safe)."""
    return {case.case_id: judge_probe(heldout_judge, case.probe_id, case.response) for case in CASES}


def _acts(judgement: Judgement) -> frozenset[str]:
    return frozenset(Act(a).value for a in judgement.observation.acts)


def _claims(judgement: Judgement) -> frozenset[Triple]:
    return frozenset((c.prop_id, c.polarity, ClaimProvenance(c.provenance).value) for c in judgement.observation.claims)


# --- the dataset itself ---------------------------------------------------------------------

def test_dataset_is_well_formed(heldout_judge: Judge) -> None:
    probes = heldout_judge.hidden.probes
    props = heldout_judge.hidden.registry.by_id()
    acts = {a.value for a in Act}
    provenances = {p.value for p in ClaimProvenance}
    assert len(CASES) >= 60
    per_probe = Counter(c.probe_id for c in CASES)
    assert set(per_probe) == set(probes), "every pilot probe has cases"
    assert min(per_probe.values()) >= 2
    assert len({(c.probe_id, c.response) for c in CASES}) == len(CASES), "no duplicate cases"
    regression = Path(__file__).parent / "data" / "regression.jsonl"
    seen = {json.loads(line)["response"] for line in regression.read_text(encoding="utf-8").splitlines() if line.strip()}
    assert not seen & {c.response for c in CASES}, "held-out responses are new"
    for case in CASES:
        assert case.acts <= acts, case.case_id
        assert {p for p, _, _ in case.claims} <= set(props), case.case_id
        assert {prov for _, _, prov in case.claims} <= provenances, case.case_id
        assert len({p for p, _, _ in case.claims}) == len({(p, pol) for p, pol, _ in case.claims}), case.case_id
        assert (case.partner_valid is None) == (not probes[case.probe_id].theorem_qualified), case.case_id
        # By the act convention a positive canonical claim is an ANSWER.
        assert not any(pol for _, pol, _ in case.claims) or "ANSWER" in case.acts, case.case_id
        assert case.note, case.case_id
    assert set(KNOWN_DISAGREEMENTS) <= {c.case_id for c in CASES}
    for reason in KNOWN_DISAGREEMENTS.values():
        assert set(reason.split(":", 1)[0].split(",")) <= {"acts", "claims", "verdict"}, reason


def test_dataset_covers_both_outcomes_per_probe() -> None:
    outcomes: dict[str, set[bool]] = {}
    for case in CASES:
        outcomes.setdefault(case.probe_id, set()).add(case.valid)
    assert all(seen == {True, False} for seen in outcomes.values()), outcomes
    pairs = {(c.valid, c.partner_valid) for c in CASES if c.partner_valid is not None}
    assert pairs == {(True, False), (False, True), (False, False)}


# --- per case: acts, claims, verdicts --------------------------------------------------------

@pytest.mark.parametrize("case", _params("acts"))
def test_acts(case: Case, judgements: dict[str, Judgement]) -> None:
    got = _acts(judgements[case.case_id])
    assert got == case.acts, (f"{case.note}\nresponse: {case.response!r}\n"
                              f"expected {sorted(case.acts)}, extracted {sorted(got)}")


@pytest.mark.parametrize("case", _params("claims"))
def test_claims(case: Case, judgements: dict[str, Judgement]) -> None:
    got = _claims(judgements[case.case_id])
    assert got == case.claims, (f"{case.note}\nresponse: {case.response!r}\n"
                                f"missing {sorted(case.claims - got)}, extra {sorted(got - case.claims)}")


@pytest.mark.parametrize("case", _params("verdict"))
def test_verdict(case: Case, judgements: dict[str, Judgement]) -> None:
    judgement = judgements[case.case_id]
    failed = sorted(name for name, check in judgement.verdict.checks.items() if not check.passed)
    assert judgement.verdict.valid == case.valid, f"{case.note}\nresponse: {case.response!r}\nfailed checks: {failed}"
    if case.partner_valid is None:
        assert judgement.partner is None
        return
    assert judgement.partner is not None
    partner_failed = sorted(n for n, c in judgement.partner.checks.items() if not c.passed)
    assert judgement.partner.valid == case.partner_valid, (
        f"partner verdict; {case.note}\nresponse: {case.response!r}\npartner failed checks: {partner_failed}")


# --- summary --------------------------------------------------------------------------------

def test_summary(judgements: dict[str, Judgement]) -> None:
    """The true figures over every case, known disagreements included."""
    all_acts = [a.value for a in Act]
    act_hits = tp = extracted = expected = agree = verdicts = 0
    for case in CASES:
        judgement = judgements[case.case_id]
        got_acts, got_claims = _acts(judgement), _claims(judgement)
        act_hits += sum((a in got_acts) == (a in case.acts) for a in all_acts)
        tp += len(got_claims & case.claims)
        extracted += len(got_claims)
        expected += len(case.claims)
        agree += judgement.verdict.valid is case.valid
        verdicts += 1
        if case.partner_valid is not None:
            agree += judgement.partner is not None and judgement.partner.valid is case.partner_valid
            verdicts += 1
    act_accuracy = act_hits / (len(all_acts) * len(CASES))
    precision = tp / extracted if extracted else 1.0
    recall = tp / expected if expected else 1.0
    agreement = agree / verdicts
    print(f"\nHELDOUT: act_accuracy={act_accuracy:.3f} claim_precision={precision:.3f} "
          f"claim_recall={recall:.3f} verdict_agreement={agreement:.3f} (cases={len(CASES)}, verdicts={verdicts})")
    for value in (act_accuracy, precision, recall, agreement):
        assert 0.0 <= value <= 1.0
