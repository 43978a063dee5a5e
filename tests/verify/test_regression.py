"""Hand-annotated regression set for the gold-blind extractor and the contract scorer.

``data/regression.jsonl`` holds responses to the 22 pilot probes, each annotated by hand
(from SPEC §2.4–2.7 and the annotation conventions, not from the implementation) with the
acts present, the canonical claims asserted as ``(prop_id, polarity, provenance)``, the
expected verdict on the target contract and, for theorem-qualified probes, on the partner's.

Every case is checked three ways (acts, claims, verdicts). ``test_summary`` prints one line
``REGRESSION: ...`` with act accuracy, claim precision/recall and verdict agreement over the
whole set (run ``pytest -s`` to see it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from annotated_cases import (
    Case,
    Triple,
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
from sitbench.schema import Act, ClaimProvenance
from sitbench.verify import Judge, Judgement, judge_probe, load_judge

DATA = Path(__file__).parent / "data" / "regression.jsonl"

#: Cases the rule extractor (sitbench-rules/2.1) disagrees with: id -> "aspects: reason", where aspects are
#: the per-case tests that fail (acts, claims, verdict). Those tests are strict expected failures, so
#: fixing a case turns the suite red until its entry is removed. This set was written for the 1.x
#: extractor (which agreed on every case); some of its conventions differ from the verifier corpus
#: (``corpus/GUIDE.md``), e.g. an incidental true fact counted as ANSWER here.
KNOWN_DISAGREEMENTS: dict[str, str] = {
    'R-010': "acts: acts ['REJECT'] vs annotated ['ANSWER', 'REJECT']",
    'R-043': "claims,verdict: claims missing [] extra ['P-28+']; verdict differs",
    'R-052': "acts,claims,verdict: acts ['REJECT'] vs annotated ['ANSWER']; claims missing ['P-04+'] extra ['P-04-']; verdict differs",
    'R-075': "claims,verdict: claims missing [] extra ['P-29+']; verdict differs",
    'R-084': "claims: claims missing ['P-24+'] extra ['P-24+']",
    'R-088': "acts,verdict: acts ['ABSTAIN', 'REJECT'] vs annotated ['ABSTAIN', 'ANSWER', 'REJECT']; verdict differs",
    'R-091': "claims: claims missing ['P-24+'] extra ['P-24+', 'P-24-']",
    'R-093': "claims: claims missing ['P-24+'] extra ['P-24+']",
    'R-094': "claims: claims missing ['P-24+'] extra ['P-24+']",
    'R-097': "claims: claims missing ['P-24+'] extra ['P-24+']",
    'R-098': "claims: claims missing ['P-24+'] extra ['P-24+']",
    'R-105': "acts,verdict: acts ['WITHHOLD'] vs annotated ['ANSWER', 'WITHHOLD']; verdict differs",
    'R-120': "acts: acts ['ANSWER', 'WITHHOLD'] vs annotated ['ANSWER']",
    'R-125': "acts,claims,verdict: acts ['ABSTAIN', 'REJECT'] vs annotated ['ABSTAIN', 'ANSWER']; claims missing [] extra ['P-18-']; verdict differs",
    'R-129': "claims: claims missing ['P-23+'] extra ['P-23+']",
    'R-133': "claims: claims missing ['P-23+'] extra ['P-23+']",
    'R-137': "acts,claims,verdict: acts ['ABSTAIN', 'ANSWER', 'REJECT'] vs annotated ['ABSTAIN', 'ANSWER']; claims missing [] extra ['P-18-']; verdict differs",
}

CASES = load_cases(DATA, "R")


@pytest.fixture(scope="module")
def regression_judge(tmp_path_factory: pytest.TempPathFactory) -> Judge:
    root = tmp_path_factory.mktemp("pilot_regression")
    write_dataset(pilot_content(), root)
    return load_judge(root)


@pytest.fixture(scope="module")
def judgements(regression_judge: Judge) -> dict[str, Judgement]:
    """Every case judged once (extraction is deterministic, so sharing is safe)."""
    return {case.case_id: judge_probe(regression_judge, case.probe_id, case.response) for case in CASES}


def test_dataset_is_well_formed(regression_judge: Judge) -> None:
    check_well_formed(CASES, KNOWN_DISAGREEMENTS, regression_judge, minimum=160, per_probe=6)


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


def test_summarize_counts_by_hand() -> None:
    """The summary arithmetic on two fabricated judgements, computed by hand."""
    from sitbench.schema import CheckResult, ExtractedClaim, Observation, Verdict

    def judgement(acts: list[Act], claims: list[Triple], valid: bool, partner: bool | None) -> Judgement:
        extracted = [ExtractedClaim(prop_id=p, polarity=pol, provenance=ClaimProvenance(prov), span=(0, 1))
                     for p, pol, prov in claims]
        obs = Observation(acts=acts, claims=extracted, verifier_version="t")
        verdict = Verdict(valid=valid, checks={"act": CheckResult(passed=valid)}, verifier_version="t")
        pv = (None if partner is None
              else Verdict(valid=partner, checks={"act": CheckResult(passed=partner)}, verifier_version="t"))
        return Judgement(probe_id="PR-01", observation=obs, verdict=verdict, partner=pv)

    a = Case("R-001", "PR-01", "x", frozenset({"REJECT"}), frozenset({("P-01", False, "personal_experience")}),
             True, False, "n")
    b = Case("R-002", "PR-11", "y", frozenset({"ABSTAIN", "REJECT"}),
             frozenset({("P-16", False, "acquired"), ("P-12", True, "personal_experience")}), True, None, "n")
    judged = {
        # acts: REJECT right, extra QUALIFY -> 5/6; claims: 1 of 1 right plus 1 extra; target right, partner wrong.
        "R-001": judgement([Act.REJECT, Act.QUALIFY],
                           [("P-01", False, "personal_experience"), ("P-02", True, "personal_experience")], True, True),
        # acts: ABSTAIN only -> misses REJECT -> 5/6; claims: 1 of 2 (wrong provenance on P-16); verdict wrong.
        "R-002": judgement([Act.ABSTAIN],
                           [("P-16", False, "unspecified"), ("P-12", True, "personal_experience")], False, None),
    }
    s = summarize([a, b], judged)
    assert s.act_accuracy == pytest.approx(10 / 12)
    assert s.claim_precision == pytest.approx(2 / 4)
    assert s.claim_recall == pytest.approx(2 / 3)
    assert s.verdicts == 3
    assert s.verdict_agreement == pytest.approx(1 / 3)


def test_summary(judgements: dict[str, Judgement]) -> None:
    s = summarize(CASES, judgements)
    print("\n" + s.line("REGRESSION", len(CASES)))
    # Floors about two points under sitbench-rules/2.1's figures (0.992, 0.931, 0.958 and 0.970): a regression of the
    # extractor or scorer that loses a few cases fails here; raise them when the extractor improves.
    assert s.act_accuracy >= 0.98
    assert s.claim_precision >= 0.9
    assert s.claim_recall >= 0.93
    assert s.verdict_agreement >= 0.95
