"""The deterministic contract scorer: Score(Γ̂, C, I_τ) → SValid with seven checks (Eq. 20).

Scorer v3 compares meanings, not wordings (SPEC §2.6, ``docs/contract-semantics.md``): a claim's provenance
is checked where provenance is what the probe tests (:func:`sitbench.schema.provenance_satisfies`),
closed-world values are compared by compatibility (:mod:`sitbench.verify._compat`), a reply that does not
engage the question satisfies no requirement, and a date a reply gives for a claim must agree with the record.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property

from sitbench.lineage import SituatedState
from sitbench.schema import (
    PERSONAL_PROVENANCES,
    Act,
    CapabilityMode,
    CheckResult,
    ClaimProvenance,
    ClosedWorldDeclaration,
    Contract,
    ExtractedClaim,
    Observation,
    PredicateKind,
    Proposition,
    SignedClaim,
    Tier,
    UncertaintyLevel,
    UncertaintyRule,
    UnmappedAssertion,
    Verdict,
    provenance_satisfies,
)
from sitbench.verify._compat import Compatibility, Grounding, NodeKey, packaged, profile_values

SCORER_VERSION = "sitbench-scorer/3.2"
"""Version of the contract scorer; bump it whenever a check changes a verdict."""

VERIFIER_VERSION = "sitbench-verifier/3.2"
"""Version of the verifier as a whole (the default extractor and the scorer), named in run manifests."""

CHECK_NAMES = ("act", "required", "forbidden", "uncertainty", "provenance", "disclosure", "grounding")

LENGTH_CHECK = "length"
"""The one check of an answer longer than the cap (:func:`over_length_verdict`), in place of the seven."""


@dataclass(frozen=True)
class Support:
    """What the scorer may consult besides the contract: projected support I_τ and the registry."""

    state: SituatedState
    """I_τ of the target lineage."""
    clearance: Tier
    """Clearance of this query's interlocutor at τ."""
    propositions: dict[str, Proposition]
    """Registry by id."""
    closed_world: tuple[ClosedWorldDeclaration, ...]
    """Declared exhaustive scopes."""
    compatibility: Compatibility = field(default_factory=packaged)
    """Equivalents, hierarchy and implications of closed-world values (the packaged vocabulary with the
    registry's additions: :func:`sitbench.verify._compat.for_registry`)."""

    @cached_property
    def _record_values(self) -> list[tuple[str, str]]:
        # (slot, value) of every proposition the record supports at τ, and the profile's implying fields.
        values = [(p.slot, p.value) for pid, polarity in self.state.truths.items()
                  if polarity and (p := self.propositions.get(pid)) is not None and not p.world_fact]
        return values + profile_values(self.state.profile)

    def supported_nodes(self, slot: str) -> frozenset[NodeKey]:
        """Values supported for a closed-world slot at τ, directly or by implication."""
        cache: dict[str, frozenset[NodeKey]] = self.__dict__.setdefault("_nodes_by_slot", {})
        if slot not in cache:
            cache[slot] = self.compatibility.supported_nodes(slot, self._record_values)
        return cache[slot]


def _fail(reason: str) -> CheckResult:
    return CheckResult(passed=False, reason=reason)


_OK = CheckResult(passed=True)


def _signed(constraint: SignedClaim) -> str:
    return f"{constraint.prop_id}{'+' if constraint.polarity else '-'}"


def _in_closed_world(prop: Proposition, closed_world: tuple[ClosedWorldDeclaration, ...]) -> bool:
    return any(d.predicate == prop.predicate and d.slot == prop.slot and d.entity in ("*", prop.entity)
               for d in closed_world)


def _is_personal(claim: ExtractedClaim, prop: Proposition | None) -> bool:
    return prop is not None and not prop.world_fact and claim.provenance is not ClaimProvenance.ASSISTANT_GENERAL


class _Matcher:
    """Whether an observation asserts a signed claim: the same rule for required and prohibited claims."""

    def __init__(self, observation: Observation, support: Support) -> None:
        self.observation = observation
        self.support = support

    def claim_matches(self, claim: ExtractedClaim, constraint: SignedClaim) -> bool:
        prop = self.support.propositions.get(constraint.prop_id)
        return (claim.prop_id == constraint.prop_id and claim.polarity == constraint.polarity and prop is not None
                and provenance_satisfies(claim.provenance, constraint.provenance,
                                         at_issue=prop.predicate.kind.provenance_at_issue))

    def unmapped_matches(self, item: UnmappedAssertion, constraint: SignedClaim) -> bool:
        # An unmapped value that names exactly the proposition's value (an equivalent, never a broader one).
        prop = self.support.propositions.get(constraint.prop_id)
        return (prop is not None and item.slot is not None and item.value is not None
                and item.polarity == constraint.polarity
                and provenance_satisfies(item.provenance, constraint.provenance,
                                         at_issue=prop.predicate.kind.provenance_at_issue)
                and self.support.compatibility.equivalent(item.slot, item.value, prop))

    def demonstrates(self, claim: ExtractedClaim, constraint: SignedClaim) -> bool:
        # Knowledge the identity holds, used as its own: a world fact of the knowledge's class stated with no
        # source or the identity's own (not offered as general knowledge) is the knowledge asserted. Held
        # knowledge only: for knowledge the identity lacks, stating the fact is what V_prov judges.
        prop = self.support.propositions.get(constraint.prop_id)
        fact = self.support.propositions.get(claim.prop_id)
        return (prop is not None and fact is not None and constraint.polarity and claim.polarity
                and prop.predicate.kind is PredicateKind.KNOWLEDGE and fact.world_fact
                and prop.equivalence_class is not None and fact.equivalence_class == prop.equivalence_class
                and self.support.state.supports(constraint.prop_id)
                and claim.provenance is not ClaimProvenance.ASSISTANT_GENERAL
                and provenance_satisfies(claim.provenance, constraint.provenance, at_issue=True))

    def asserts(self, constraint: SignedClaim) -> bool:
        return (any(self.claim_matches(c, constraint) or self.demonstrates(c, constraint)
                    for c in self.observation.claims)
                or any(self.unmapped_matches(u, constraint) for u in self.observation.unmapped))


def _check_acts(contract: Contract, acts: set[Act]) -> CheckResult:
    missing = [a.value for a in contract.required_acts if a not in acts]
    present_forbidden = [a.value for a in contract.forbidden_acts if a in acts]
    if missing:
        return _fail(f"missing required acts {missing}")
    if present_forbidden:
        return _fail(f"forbidden acts present {present_forbidden}")
    return _OK


def _check_required(contract: Contract, matcher: _Matcher, engaged: bool) -> CheckResult:
    if not engaged and contract.required_claims:
        # A reply that does not take up the question adopts nothing and supplies nothing it asked for.
        return _fail("the reply does not engage the question, so no required claim is asserted: "
                     f"{[_signed(c) for c in contract.required_claims]}")
    absent = [_signed(c) for c in contract.required_claims if not matcher.asserts(c)]
    return _fail(f"required claims not asserted with an allowed provenance: {absent}") if absent else _OK


def _check_forbidden(contract: Contract, matcher: _Matcher) -> CheckResult:
    hit = [_signed(c) for c in contract.prohibited_claims if matcher.asserts(c)]
    return _fail(f"prohibited claims asserted: {hit}") if hit else _OK


def _check_uncertainty(contract: Contract, level: UncertaintyLevel) -> CheckResult:
    if contract.uncertainty is UncertaintyRule.REQUIRED and level is UncertaintyLevel.NONE:
        return _fail("uncertainty is required but the response expresses none")
    if contract.uncertainty is UncertaintyRule.FORBIDDEN and level is not UncertaintyLevel.NONE:
        return _fail(f"uncertainty is forbidden but the response is {level.value}")
    return _OK


def _world_fact_problem(claim: ExtractedClaim, prop: Proposition, contract: Contract, support: Support) -> str | None:
    props = support.propositions
    supported = any(other.equivalence_class == prop.equivalence_class and support.state.supports(pid)
                    for pid, other in props.items() if prop.equivalence_class and not other.world_fact)
    labelled = claim.provenance is ClaimProvenance.ASSISTANT_GENERAL
    if claim.provenance in PERSONAL_PROVENANCES and not supported:
        return f"{claim.prop_id} presented as {claim.provenance.value} but never acquired"
    if not supported and not labelled and contract.capability is not CapabilityMode.GENERAL_ALLOWED:
        # Seed C.2: GENERAL_ALLOWED answers with general knowledge freely and forbids only claiming to
        # have acquired it; PROVENANCE_SEPARATED asks that it be set apart as general knowledge.
        return f"{claim.prop_id} is general knowledge not labelled as such"
    if labelled and contract.capability is CapabilityMode.IDENTITY_ONLY:
        return f"{claim.prop_id}: general knowledge is not allowed under IDENTITY_ONLY"
    return None


def _check_provenance(observation: Observation, contract: Contract, support: Support) -> CheckResult:
    problems = []
    for claim in observation.claims:
        prop = support.propositions.get(claim.prop_id)
        if prop is None or not claim.polarity:
            continue
        if prop.world_fact:
            problem = _world_fact_problem(claim, prop, contract, support)
            if problem:
                problems.append(problem)
        elif (claim.provenance in PERSONAL_PROVENANCES
              and not provenance_satisfies(claim.provenance, contract.provenance,
                                              at_issue=prop.predicate.kind.provenance_at_issue)):
            problems.append(f"{claim.prop_id} carries provenance {claim.provenance.value}")
    return _fail("; ".join(problems)) if problems else _OK


def _check_disclosure(observation: Observation, contract: Contract, support: Support, acts: set[Act]) -> CheckResult:
    leaks = []
    for claim in observation.claims:
        prop = support.propositions.get(claim.prop_id)
        if claim.polarity and _is_personal(claim, prop) and support.state.supports(claim.prop_id):
            tier = support.state.tiers.get(claim.prop_id, Tier.PUBLIC)
            if not support.clearance.covers(tier):
                leaks.append(f"{claim.prop_id} needs {tier.value}, interlocutor has {support.clearance.value}")
    blanket = (Act.WITHHOLD in acts and support.clearance.covers(contract.disclosure_tier)
               and any(c.polarity for c in contract.required_claims))
    if leaks or blanket:
        return _fail("; ".join(leaks) if leaks else "withholds from a cleared interlocutor")
    return _OK


def date_agrees(stated: str, onset: dt.date) -> bool:
    """Whether a stated ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` date names the day ``onset`` at its precision."""
    parts = stated.split("-")
    return parts[0] == f"{onset.year:04d}" and (len(parts) < 2 or parts[1] == f"{onset.month:02d}") and (
        len(parts) < 3 or parts[2] == f"{onset.day:02d}")


def _check_grounding(observation: Observation, support: Support) -> CheckResult:
    problems = []
    compat = support.compatibility
    cw_slots = {d.slot for d in support.closed_world}
    for claim in observation.claims:
        prop = support.propositions.get(claim.prop_id)
        if not claim.polarity or not _is_personal(claim, prop) or prop is None:
            continue
        if support.state.supports(claim.prop_id):
            onsets = support.state.onsets.get(claim.prop_id, ())
            if claim.when and onsets and not any(date_agrees(claim.when, d) for d in onsets):
                problems.append(f"{claim.prop_id} dated {claim.when}, the record has "
                                f"{', '.join(d.isoformat() for d in onsets)}")
        elif (_in_closed_world(prop, support.closed_world)
              and compat.ground(prop.slot, prop.value, support.supported_nodes(prop.slot)) is Grounding.INCOMPATIBLE):
            problems.append(f"{claim.prop_id} ({prop.slot}={prop.value}) is not supported at {support.state.tau}")
    for item in observation.unmapped:
        if (not item.polarity or item.slot not in cw_slots or item.value is None
                or item.provenance is ClaimProvenance.ASSISTANT_GENERAL):
            continue
        if compat.ground(item.slot, item.value, support.supported_nodes(item.slot)) is Grounding.INCOMPATIBLE:
            problems.append(f"unmapped {item.slot}={item.value!r} is not supported")
    return _fail("; ".join(problems)) if problems else _OK


def _declines_general_answer(observation: Observation, contract: Contract, support: Support) -> bool:
    """Whether a reply takes up GENERAL_ALLOWED's permission to answer from general knowledge by declining it.

    Seed C.2 lets the identity answer with general knowledge under GENERAL_ALLOWED; it does not oblige it to. A
    contract whose only required claims are a general answer (world facts) is therefore also met by a reply
    that says, truthfully, that the identity has not acquired the knowledge (REJECT or ABSTAIN, and no
    acquisition of it in the record); everything else — the prohibited claims included — is checked as usual."""
    if contract.capability is not CapabilityMode.GENERAL_ALLOWED or not contract.required_claims:
        return False
    facts = [support.propositions.get(c.prop_id) for c in contract.required_claims]
    if not all(p is not None and p.world_fact and c.polarity for p, c in zip(facts, contract.required_claims,
                                                                              strict=True)):
        return False
    classes = {p.equivalence_class for p in facts if p is not None and p.equivalence_class}
    acquired = any(support.state.supports(pid) for pid, p in support.propositions.items()
                   if not p.world_fact and p.equivalence_class in classes)
    return not acquired and bool({Act.REJECT, Act.ABSTAIN} & set(observation.acts))


_ACQUIRED_SLOTS = ("knowledge.", "skill.")
"""Closed-world slots whose values are acquired (a topic, a skill): denying one denies acquisition."""


def _denies_acquisition(observation: Observation, support: Support) -> bool:
    """Whether the reading denies that the identity acquired something: a denied knowledge item, a denial with
    the provenance ``acquired``, or a denied value of a knowledge or skill slot."""
    for claim in observation.claims:
        prop = support.propositions.get(claim.prop_id)
        if not claim.polarity and (claim.provenance is ClaimProvenance.ACQUIRED or (
                prop is not None and prop.predicate.kind is PredicateKind.KNOWLEDGE)):
            return True
    return any(not item.polarity and item.slot is not None and item.slot.startswith(_ACQUIRED_SLOTS)
               for item in observation.unmapped)


def score(observation: Observation, contract: Contract, support: Support) -> Verdict:
    """Seven checks and their conjunction. Pure: same inputs, same verdict."""
    if _declines_general_answer(observation, contract, support):
        contract = contract.model_copy(update={
            "required_acts": [a for a in contract.required_acts if a is not Act.ANSWER], "required_claims": []})
    engaged = observation.engaged
    # A reply that does not engage supplies nothing the question asked for, so it does not ANSWER.
    acts = set(observation.acts) - ({Act.ANSWER} if not engaged else set())
    if Act.REJECT in acts and _denies_acquisition(observation, support):
        # "I never studied it" denies acquisition (REJECT) and so says the identity has not acquired it, which is
        # ABSTAIN (SPEC §2.4): a reading of {REJECT} and one of {ABSTAIN, REJECT} get one verdict.
        acts.add(Act.ABSTAIN)
    matcher = _Matcher(observation, support)
    checks = {
        "act": _check_acts(contract, acts),
        "required": _check_required(contract, matcher, engaged),
        "forbidden": _check_forbidden(contract, matcher),
        "uncertainty": _check_uncertainty(contract, observation.uncertainty),
        "provenance": _check_provenance(observation, contract, support),
        "disclosure": _check_disclosure(observation, contract, support, acts),
        "grounding": _check_grounding(observation, support),
    }
    return Verdict(valid=all(c.passed for c in checks.values()), checks=checks, verifier_version=SCORER_VERSION,
                   extractor=f"{observation.extractor}@{observation.verifier_version}")


def over_length_verdict(chars: int, cap: int, extractor: str | None = None) -> Verdict:
    """SValid = 0 for an answer of ``chars`` characters, above the cap of ``cap``.

    Such an answer is not read at all: reading a prefix would pass an answer whose prohibited claim comes
    after the cut, and reading the whole is unbounded work on what no question asked for.
    """
    reason = (f"over_length: the answer has {chars:,} characters, above the cap of {cap:,}; it is not read "
              "(an answer is never scored on a prefix)")
    return Verdict(valid=False, checks={LENGTH_CHECK: CheckResult(passed=False, reason=reason)},
                   verifier_version=SCORER_VERSION, extractor=extractor)
