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

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitbench.data import pilot_content, write_dataset
from sitbench.schema import Act, ClaimProvenance
from sitbench.verify import Judge, Judgement, judge_probe, load_judge

DATA = Path(__file__).parent / "data" / "regression.jsonl"

#: Cases the extractor (sitbench-verifier/1.1) disagrees with: id -> "aspects: reason", where aspects are
#: the per-case tests that fail (acts, claims, verdict). Those tests are strict expected failures, so
#: fixing a case turns the suite red until its entry is removed. Empty: 1.1 agrees on every case.
KNOWN_DISAGREEMENTS: dict[str, str] = {}

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
        assert cases[-1].case_id == f"R-{number:03d}", f"{DATA.name} line {number}: ids must run R-001, R-002, ..."
    return cases


CASES = _load_cases()


def _params(aspect: str) -> list[object]:
    """Cases as parameters; known disagreements are strict expected failures."""
    out: list[object] = []
    for case in CASES:
        reason = KNOWN_DISAGREEMENTS.get(case.case_id)
        marks = ([pytest.mark.xfail(strict=True, reason=reason)]
                 if reason is not None and aspect in reason.split(":", 1)[0].split(",") else [])
        out.append(pytest.param(case, id=case.case_id, marks=marks))
    return out


@pytest.fixture(scope="module")
def regression_judge(tmp_path_factory: pytest.TempPathFactory) -> Judge:
    root = tmp_path_factory.mktemp("pilot_regression")
    write_dataset(pilot_content(), root)
    return load_judge(root)


@pytest.fixture(scope="module")
def judgements(regression_judge: Judge) -> dict[str, Judgement]:
    """Every case judged once (extraction is deterministic, so sharing is safe)."""
    return {case.case_id: judge_probe(regression_judge, case.probe_id, case.response) for case in CASES}


def _acts(judgement: Judgement) -> frozenset[str]:
    return frozenset(Act(a).value for a in judgement.observation.acts)


def _claims(judgement: Judgement) -> frozenset[Triple]:
    return frozenset((c.prop_id, c.polarity, ClaimProvenance(c.provenance).value) for c in judgement.observation.claims)


# --- the dataset itself ---------------------------------------------------------------------

def test_dataset_is_well_formed(regression_judge: Judge) -> None:
    probes = regression_judge.hidden.probes
    props = regression_judge.hidden.registry.by_id()
    acts = {a.value for a in Act}
    provenances = {p.value for p in ClaimProvenance}
    assert len(CASES) >= 160
    per_probe = Counter(c.probe_id for c in CASES)
    assert set(per_probe) == set(probes), "every pilot probe has cases"
    assert min(per_probe.values()) >= 6
    assert len({(c.probe_id, c.response) for c in CASES}) == len(CASES), "no duplicate cases"
    for case in CASES:
        assert case.acts <= acts, case.case_id
        assert {p for p, _, _ in case.claims} <= set(props), case.case_id
        assert {prov for _, _, prov in case.claims} <= provenances, case.case_id
        # At most one polarity per proposition: a response cannot be annotated both ways.
        assert len({p for p, _, _ in case.claims}) == len({(p, pol) for p, pol, _ in case.claims}), case.case_id
        assert (case.partner_valid is None) == (not probes[case.probe_id].theorem_qualified), case.case_id
        assert case.note, case.case_id
    assert set(KNOWN_DISAGREEMENTS) <= {c.case_id for c in CASES}


def test_dataset_covers_both_outcomes_per_probe() -> None:
    outcomes: dict[str, set[bool]] = {}
    for case in CASES:
        outcomes.setdefault(case.probe_id, set()).add(case.valid)
    assert all(seen == {True, False} for seen in outcomes.values()), outcomes
    # Theorem-qualified cases include correct (1,0), wrong-identity (0,1) and neither (0,0).
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
    valid = judgement.verdict.valid
    failed = sorted(name for name, check in judgement.verdict.checks.items() if not check.passed)
    assert valid == case.valid, f"{case.note}\nresponse: {case.response!r}\nfailed checks: {failed}"
    if case.partner_valid is None:
        assert judgement.partner is None
        return
    assert judgement.partner is not None
    partner_valid = judgement.partner.valid
    partner_failed = sorted(n for n, c in judgement.partner.checks.items() if not c.passed)
    assert partner_valid == case.partner_valid, (
        f"partner verdict; {case.note}\nresponse: {case.response!r}\npartner failed checks: {partner_failed}")


# --- summary --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Summary:
    """Agreement of the implementation with the annotations over the whole set."""

    act_accuracy: float
    claim_precision: float
    claim_recall: float
    verdict_agreement: float
    verdicts: int


def summarize(cases: list[Case], judged: dict[str, Judgement]) -> Summary:
    """Act accuracy is per (case, act) presence over all six acts; claim precision and recall
    are micro-averaged over triples; verdict agreement counts target verdicts and the
    partner verdicts of theorem-qualified cases."""
    all_acts = [a.value for a in Act]
    act_hits = tp = extracted = expected = agree = verdicts = 0
    for case in cases:
        judgement = judged[case.case_id]
        got_acts, got_claims = _acts(judgement), _claims(judgement)
        act_hits += sum((a in got_acts) == (a in case.acts) for a in all_acts)
        tp += len(got_claims & case.claims)
        extracted += len(got_claims)
        expected += len(case.claims)
        agree += judgement.verdict.valid is case.valid
        verdicts += 1
        if case.partner_valid is not None and judgement.partner is not None:
            agree += judgement.partner.valid is case.partner_valid
            verdicts += 1
        elif case.partner_valid is not None:
            verdicts += 1
    return Summary(
        act_accuracy=act_hits / (len(all_acts) * len(cases)),
        claim_precision=tp / extracted if extracted else 1.0,
        claim_recall=tp / expected if expected else 1.0,
        verdict_agreement=agree / verdicts,
        verdicts=verdicts,
    )


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
    print(f"\nREGRESSION: act_accuracy={s.act_accuracy:.3f} claim_precision={s.claim_precision:.3f} "
          f"claim_recall={s.claim_recall:.3f} verdict_agreement={s.verdict_agreement:.3f} "
          f"(cases={len(CASES)}, verdicts={s.verdicts})")
    for value in (s.act_accuracy, s.claim_precision, s.claim_recall, s.verdict_agreement):
        assert 0.0 <= value <= 1.0
