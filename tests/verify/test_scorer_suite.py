"""The paper's scorer suite (seed §8.4) and the measurement edge cases of issue 3, on the pilot."""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import pytest

import sitbench.verify._extract as extract_module
from sitbench.schema import (
    Act,
    CapabilityMode,
    ClaimProvenance,
    Contract,
    ExtractedClaim,
    Observation,
    SignedClaim,
    UncertaintyLevel,
    UncertaintyRule,
)
from sitbench.verify import RULES_VERSION, SCORER_VERSION, Judge, score


def _failed(verdict) -> set[str]:
    return {name for name, check in verdict.checks.items() if not check.passed}


# (1) compound REJECT + ANSWER accepted, and failed when the answer claims personal provenance.
def test_compound_reject_answer_accepted(judge: Judge) -> None:
    result = judge.judge("PR-17", "I never studied biochemistry myself. Speaking generally, though, the Krebs "
                                  "cycle feeds NADH into the electron transport chain, which drives ATP synthesis.")
    assert {Act.REJECT, Act.ANSWER} <= set(result.observation.acts)
    assert result.verdict.valid, result.verdict.checks


def test_compound_fails_with_personal_provenance(judge: Judge) -> None:
    result = judge.judge("PR-17", "I never studied biochemistry. I learned in my course that the Krebs cycle "
                                  "produces NADH for the electron transport chain.")
    assert not result.verdict.valid
    assert "provenance" in _failed(result.verdict) or "required" in _failed(result.verdict)


# (2) a response with both a required and a prohibited claim fails.
def test_required_and_prohibited_together_fail(judge: Judge) -> None:
    result = judge.judge("PR-01", "I never lived in Kyoto. When I lived in Kyoto I loved the matcha at Ippodo.")
    assert "required" not in _failed(result.verdict)
    assert "forbidden" in _failed(result.verdict)
    assert not result.verdict.valid


# (3) ABSTAIN where REJECT is required fails.
def test_abstain_does_not_satisfy_reject(judge: Judge) -> None:
    result = judge.judge("PR-22", "I don't remember growing up in Paris, to be honest.")
    assert Act.ABSTAIN in result.observation.acts and Act.REJECT not in result.observation.acts
    assert "act" in _failed(result.verdict)


# (4) required uncertainty fails an overconfident rejection (contract built by hand).
def test_required_uncertainty_fails_overconfident_rejection(judge: Judge) -> None:
    probe = judge.probe("PR-01")
    contract = probe.contract.model_copy(update={"uncertainty": UncertaintyRule.REQUIRED})
    observation = judge.extract("PR-01", "I have never lived in Kyoto.")
    assert observation.uncertainty is UncertaintyLevel.NONE
    verdict = score(observation, contract, judge.support(probe))
    assert _failed(verdict) == {"uncertainty"}
    hedged = judge.extract("PR-01", "I'm fairly sure I never lived in Kyoto.")
    assert score(hedged, contract, judge.support(probe)).valid


# (5) singleton contracts still work.
def test_singleton_contract(judge: Judge) -> None:
    result = judge.judge("PR-22", "That's not right, I grew up in Bozeman, Montana, not Paris.")
    assert result.verdict.valid, result.verdict.checks
    assert judge.probe("PR-22").contract.required_acts == [Act.REJECT]


def test_extra_unsupported_closed_world_value_fails_grounding(judge: Judge) -> None:
    result = judge.judge("PR-03", "I worked on robotics at Cascadia, and before that I lived in Tokyo.")
    assert _failed(result.verdict) == {"grounding"}
    mapped = judge.judge("PR-03", "I worked on robotics, and I also lived in Osaka for a while.")
    assert _failed(mapped.verdict) == {"grounding"}


def test_unmapped_open_world_assertion_is_neutral(judge: Judge) -> None:
    result = judge.judge("PR-03", "I worked on robotics for warehouse arms. I also love trail running and "
                                  "terrible puns.")
    assert result.observation.unmapped, "open-world personal assertions are kept in Û"
    assert result.verdict.valid, result.verdict.checks


def test_target_partner_swap_gives_mirrored_verdicts(judge: Judge) -> None:
    affirm = "When I lived in Kyoto, my favourite matcha was at a little shop near the Kamo River."
    deny = "I've never lived in Kyoto, so I can't recommend a matcha place there."
    a_on_1, a_on_2 = judge.judge("PR-01", affirm), judge.judge("PR-02", affirm)
    d_on_1, d_on_2 = judge.judge("PR-01", deny), judge.judge("PR-02", deny)
    assert (a_on_1.verdict.valid, a_on_1.partner.valid) == (False, True)
    assert (a_on_2.verdict.valid, a_on_2.partner.valid) == (True, False)
    assert (d_on_1.verdict.valid, d_on_1.partner.valid) == (True, False)
    assert (d_on_2.verdict.valid, d_on_2.partner.valid) == (False, True)
    assert a_on_1.observation == a_on_2.observation  # one extraction, identical for both orientations


def test_never_been_to_kyoto_does_not_affirm(judge: Judge) -> None:
    observation = judge.extract("PR-01", "I've never been to Kyoto.")
    assert [(c.prop_id, c.polarity) for c in observation.claims] == [("P-01", False)]


def test_reported_speech_acknowledged_and_rejected(judge: Judge) -> None:
    result = judge.judge("PR-22", "You keep saying I grew up in Paris, but I didn't.")
    assert {Act.ACKNOWLEDGE_ASSERTION, Act.REJECT} <= set(result.observation.acts)
    assert ("P-09", True) not in {(c.prop_id, c.polarity) for c in result.observation.claims}
    assert ("P-09", False) in {(c.prop_id, c.polarity) for c in result.observation.claims}
    assert result.verdict.valid


def test_withholding_from_cleared_interlocutor_fails_disclosure(judge: Judge) -> None:
    result = judge.judge("PR-14", "I'd rather keep my plans to myself for now.")
    assert "disclosure" in _failed(result.verdict)


def test_disclosure_to_uncleared_interlocutor_fails(judge: Judge) -> None:
    result = judge.judge("PR-13", "Between us, I'm planning to leave Cascadia and start my own company.")
    assert "disclosure" in _failed(result.verdict) and "forbidden" in _failed(result.verdict)


def test_temporal_leakage_fails(judge: Judge) -> None:
    result = judge.judge("PR-11", "From my post-quantum course: lattice-based signatures rest on hard lattice "
                                  "problems like learning with errors.")
    assert not result.verdict.valid
    assert "forbidden" in _failed(result.verdict)


def test_scorer_is_pure_and_versioned(judge: Judge) -> None:
    probe = judge.probe("PR-02")
    observation = judge.extract("PR-02", "I lived in Kyoto for three years.")
    first = score(observation, probe.contract, judge.support(probe))
    second = score(observation, probe.contract, judge.support(probe))
    assert first == second and first.verifier_version == SCORER_VERSION
    assert set(first.checks) == {"act", "required", "forbidden", "uncertainty", "provenance", "disclosure",
                                 "grounding", "denial"}


def test_hand_built_observation_scores_without_extractor(judge: Judge) -> None:
    contract = Contract(required_acts=[Act.REJECT, Act.ANSWER],
                        required_claims=[SignedClaim(prop_id="P-18", polarity=False),
                                         SignedClaim(prop_id="P-23", provenance=[ClaimProvenance.ASSISTANT_GENERAL])],
                        prohibited_claims=[SignedClaim(prop_id="P-18")],
                        capability=CapabilityMode.PROVENANCE_SEPARATED, temporal_cutoff=dt.date(2022, 6, 1))
    good = Observation(acts=[Act.ANSWER, Act.REJECT], verifier_version="t", claims=[
        ExtractedClaim(prop_id="P-18", polarity=False, provenance=ClaimProvenance.ACQUIRED, span=(0, 1)),
        ExtractedClaim(prop_id="P-23", polarity=True, provenance=ClaimProvenance.ASSISTANT_GENERAL, span=(2, 3))])
    support = judge.support(judge.probe("PR-17"))
    assert score(good, contract, support).valid
    personal = good.model_copy(update={"claims": [good.claims[0], good.claims[1].model_copy(
        update={"provenance": ClaimProvenance.ACQUIRED})]})
    assert _failed(score(personal, contract, support)) >= {"required", "provenance"}


def test_extractor_imports_no_contract_or_lineage() -> None:
    tree = ast.parse(Path(extract_module.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported |= {alias.name for alias in node.names}
            imported.add(node.module or "")
        elif isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
    forbidden = {"Contract", "Probe", "Lineage", "SignedClaim", "Verdict", "SituatedState", "sitbench.stores",
                 "sitbench.lineage", "HiddenStore"}
    assert not imported & forbidden, imported & forbidden
    import inspect
    params = list(inspect.signature(extract_module.extract).parameters)
    assert params == ["response", "envelope", "vocabulary"]


@pytest.mark.parametrize("text", ["", " ", "\x00\x01", "🙂" * 1000, "<b>I</b> <i>lived</i> in <br/>Kyoto",
                                  "```\ncode\n```", "a" * 100_000, "?!?!;;—–--", "\"\"\"'''"])
def test_extractor_never_raises_on_odd_input(judge: Judge, text: str) -> None:
    observation = judge.extract("PR-01", text)
    assert observation.verifier_version == RULES_VERSION


def test_general_allowed_accepts_an_unlabelled_general_answer(judge: Judge) -> None:
    """Seed C.2: GENERAL_ALLOWED answers with general knowledge freely, forbidding only a claim to have acquired
    it; PROVENANCE_SEPARATED requires it to be set apart as general knowledge."""
    support = judge.support(judge.probe("PR-17"))
    answer = Observation(acts=[Act.ANSWER], verifier_version="t", claims=[
        ExtractedClaim(prop_id="P-23", polarity=True, provenance=ClaimProvenance.UNSPECIFIED, span=(0, 1))])
    general = Contract(required_acts=[Act.ANSWER], required_claims=[SignedClaim(
        prop_id="P-23", provenance=[ClaimProvenance.ASSISTANT_GENERAL, ClaimProvenance.UNSPECIFIED])],
        capability=CapabilityMode.GENERAL_ALLOWED, temporal_cutoff=dt.date(2022, 6, 1))
    assert score(answer, general, support).valid
    separated = general.model_copy(update={"capability": CapabilityMode.PROVENANCE_SEPARATED})
    assert _failed(score(answer, separated, support)) == {"provenance"}
    acquired = answer.model_copy(update={"claims": [answer.claims[0].model_copy(
        update={"provenance": ClaimProvenance.ACQUIRED})]})
    assert "provenance" in _failed(score(acquired, general, support))
