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
from pathlib import Path

import pytest
from annotated_cases import (
    Case,
    check_acts,
    check_both_outcomes,
    check_claims,
    check_verdict,
    check_well_formed,
    load_cases,
    params,
    summarize,
)

from sitbench.data import pilot_content, write_dataset
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

CASES = load_cases(DATA, "H")


@pytest.fixture(scope="module")
def heldout_judge(tmp_path_factory: pytest.TempPathFactory) -> Judge:
    root = tmp_path_factory.mktemp("pilot_heldout")
    write_dataset(pilot_content(), root)
    return load_judge(root)


@pytest.fixture(scope="module")
def judgements(heldout_judge: Judge) -> dict[str, Judgement]:
    """Every case judged once (extraction is deterministic, so sharing is safe)."""
    return {case.case_id: judge_probe(heldout_judge, case.probe_id, case.response) for case in CASES}


def test_dataset_is_well_formed(heldout_judge: Judge) -> None:
    check_well_formed(CASES, KNOWN_DISAGREEMENTS, heldout_judge, minimum=60, per_probe=2)
    regression = Path(__file__).parent / "data" / "regression.jsonl"
    seen = {json.loads(line)["response"] for line in regression.read_text(encoding="utf-8").splitlines() if line.strip()}
    assert not seen & {c.response for c in CASES}, "held-out responses are new"
    # By the act convention a positive canonical claim is an ANSWER.
    assert all(not any(pol for _, pol, _ in c.claims) or "ANSWER" in c.acts for c in CASES)


def test_dataset_covers_both_outcomes_per_probe() -> None:
    check_both_outcomes(CASES)


@pytest.mark.parametrize("case", params(CASES, KNOWN_DISAGREEMENTS, "acts"))
def test_acts(case: Case, judgements: dict[str, Judgement]) -> None:
    check_acts(case, judgements[case.case_id])


@pytest.mark.parametrize("case", params(CASES, KNOWN_DISAGREEMENTS, "claims"))
def test_claims(case: Case, judgements: dict[str, Judgement]) -> None:
    check_claims(case, judgements[case.case_id])


@pytest.mark.parametrize("case", params(CASES, KNOWN_DISAGREEMENTS, "verdict"))
def test_verdict(case: Case, judgements: dict[str, Judgement]) -> None:
    check_verdict(case, judgements[case.case_id])


def test_summary(judgements: dict[str, Judgement]) -> None:
    """The true figures over every case, known disagreements included."""
    s = summarize(CASES, judgements)
    print("\n" + s.line("HELDOUT", len(CASES)))
    for value in (s.act_accuracy, s.claim_precision, s.claim_recall, s.verdict_agreement):
        assert 0.0 <= value <= 1.0
