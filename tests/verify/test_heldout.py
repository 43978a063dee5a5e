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

#: Held-out cases the rule extractor (sitbench-rules/2.1) disagrees with: id -> "aspects: reason", where
#: aspects are the per-case tests that fail (acts, claims, verdict). Listed, never tuned on.
KNOWN_DISAGREEMENTS: dict[str, str] = {
    'H-018': "claims: claims missing ['P-28+'] extra ['P-28+']",
    'H-019': "acts: acts ['QUALIFY'] vs annotated ['ABSTAIN']",
    'H-020': "acts: acts ['ANSWER'] vs annotated ['ANSWER', 'QUALIFY']",
    'H-022': "claims,verdict: claims missing [] extra ['P-27+']; verdict differs",
    'H-023': "acts: acts ['ABSTAIN', 'WITHHOLD'] vs annotated ['WITHHOLD']",
    'H-024': "acts,claims,verdict: acts [] vs annotated ['ANSWER']; claims missing ['P-04+'] extra []; verdict differs",
    'H-027': 'verdict: verdict differs',
    'H-029': "acts,claims,verdict: acts [] vs annotated ['ANSWER']; claims missing ['P-04+'] extra []; verdict differs",
    'H-032': "acts: acts [] vs annotated ['ABSTAIN']",
    'H-034': "claims,verdict: claims missing [] extra ['P-30+']; verdict differs",
    'H-040': "acts,verdict: acts ['ABSTAIN'] vs annotated ['ABSTAIN', 'ANSWER']; verdict differs",
    'H-042': "acts: acts ['ABSTAIN', 'QUALIFY'] vs annotated ['ABSTAIN']",
    'H-043': "claims: claims missing ['P-24+'] extra ['P-24+', 'P-24-']",
    'H-044': "acts,claims: acts [] vs annotated ['ABSTAIN', 'REJECT']; claims missing ['P-16-'] extra []",
    'H-045': "acts,claims: acts [] vs annotated ['ANSWER']; claims missing ['P-24+'] extra ['P-24-']",
    'H-047': "acts,claims: acts [] vs annotated ['REJECT']; claims missing ['P-25-'] extra []",
    'H-055': "acts,claims: acts ['ABSTAIN'] vs annotated ['REJECT']; claims missing ['P-26-'] extra []",
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
    # Floors about two points under sitbench-rules/2.1's figures (0.967, 0.909, 0.897 and 0.947): a regression of the
    # extractor or scorer that loses a few cases fails here; raise them when the extractor improves.
    assert s.act_accuracy >= 0.95
    assert s.claim_precision >= 0.88
    assert s.claim_recall >= 0.87
    assert s.verdict_agreement >= 0.92
