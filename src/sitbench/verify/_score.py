"""The deterministic contract scorer: Score(Γ̂, C, I_τ) → SValid with seven checks (Eq. 20).

Scorer v3 compares meanings, not wordings (SPEC §2.6, ``docs/contract-semantics.md``): a claim's provenance
is checked where provenance is what the probe tests (:func:`sitbench.schema.provenance_satisfies`),
closed-world values are compared by compatibility (:mod:`sitbench.verify._compat`), a reply that does not
engage the question satisfies no requirement, and a date a reply gives for a claim must agree with the record.
"""

from __future__ import annotations

import datetime as dt
import re
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
    Provenance,
    SignedClaim,
    Tier,
    UncertaintyLevel,
    UncertaintyRule,
    UnmappedAssertion,
    Verdict,
    provenance_satisfies,
)
from sitbench.verify._compat import Compatibility, Grounding, NodeKey, normalise, packaged, profile_values

SCORER_VERSION = "sitbench-scorer/3.3"
"""Version of the contract scorer; bump it whenever a check changes a verdict."""

VERIFIER_VERSION = "sitbench-verifier/3.3"
"""Version of the verifier as a whole (the default extractor and the scorer), named in run manifests."""

CHECK_NAMES = ("act", "required", "forbidden", "uncertainty", "provenance", "disclosure", "grounding", "denial")
"""The checks of a verdict: the seed's seven (Eq. 20) and ``denial`` (scorer 3.3)."""

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

    def acquired_scope(self, slot: str) -> frozenset[NodeKey] | None:
        """The nodes the closed world of an acquired slot covers (knowledge topics, skills), or None for a slot
        whose closed world is its whole namespace.

        No synthetic life can enumerate everything a chef knows: the closed world of knowledge is the topics
        the registry declares (acquired by either member of a pair, or shared boundary topics neither
        acquired) with their equivalence classes — derived from the registry alone, so a frozen dataset
        derives it the same way. A value that names none of them is unrecorded, never false."""
        if not any(d.slot == slot and d.predicate.kind is PredicateKind.KNOWLEDGE for d in self.closed_world):
            return None
        return _registry_topics(self.propositions, self.compatibility).get(
            self.compatibility.namespace(slot) or "", frozenset())

    @cached_property
    def record_texts(self) -> tuple[str, ...]:
        """The admissible record's event texts at τ (episodic and session events ≤ τ), normalised: what a proper
        name the data has no node for is looked up in."""
        return tuple(normalise(event.text) for event in self.state.memories)

    def supported_nodes(self, slot: str) -> frozenset[NodeKey]:
        """Values supported for a closed-world slot at τ, directly or by implication."""
        cache: dict[str, frozenset[NodeKey]] = self.__dict__.setdefault("_nodes_by_slot", {})
        if slot not in cache:
            cache[slot] = self.compatibility.supported_nodes(slot, self._record_values)
        return cache[slot]


_TOPICS: dict[int, tuple[dict[str, Proposition], Compatibility, dict[str, frozenset[NodeKey]]]] = {}


def _registry_topics(propositions: dict[str, Proposition], compat: Compatibility) -> dict[str, frozenset[NodeKey]]:
    """Namespace → the nodes named by the registry's knowledge and skill propositions (values and surface forms,
    with every proposition of their equivalence classes), computed once per registry."""
    hit = _TOPICS.get(id(propositions))
    if hit is not None and hit[0] is propositions and hit[1] is compat:
        return hit[2]
    classes = {p.equivalence_class for p in propositions.values()
               if p.predicate.kind is PredicateKind.KNOWLEDGE and p.equivalence_class}
    nodes: dict[str, set[NodeKey]] = {}
    for prop in propositions.values():
        knowledge = prop.predicate.kind is PredicateKind.KNOWLEDGE
        if prop.world_fact or not (knowledge or (prop.equivalence_class and prop.equivalence_class in classes)):
            continue
        namespace = compat.namespace(prop.slot)
        if namespace is None:
            continue
        for text in (prop.value, *(f for f in prop.surface_forms if "+" not in f)):
            for alternatives in compat.names(namespace, text):
                nodes.setdefault(namespace, set()).update(alternatives)
    topics = {namespace: frozenset(keys) for namespace, keys in nodes.items()}
    if len(_TOPICS) >= 64:
        _TOPICS.clear()
    _TOPICS[id(propositions)] = (propositions, compat, topics)
    return topics


def _fail(reason: str) -> CheckResult:
    return CheckResult(passed=False, reason=reason)


_OK = CheckResult(passed=True)

_TAUGHT = frozenset({Provenance.CONVERSATION, Provenance.TOLD_BY})
"""Acquisitions made by learning from a person: what "X taught me" (``told_by``) is compatible with."""


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

    def provenance_meets(self, given: ClaimProvenance, constraint: SignedClaim, prop: Proposition) -> bool:
        """The scorer's provenance rule, with learning from a person as the acquisition it is (scorer 3.3)."""
        return (provenance_satisfies(given, constraint.provenance, at_issue=prop.predicate.kind.provenance_at_issue)
                or self.taught(given, constraint, prop))

    def taught(self, given: ClaimProvenance, constraint: SignedClaim, prop: Proposition) -> bool:
        """Whether "my neighbour taught me" (``told_by``) meets an ``acquired`` requirement.

        Learning in conversation is an acquisition route of the seed (§5.3), while ``told_by`` is elsewhere a
        report someone made (AssertedBy, which never implies the fact, inv5). So it counts only for knowledge,
        only for a positive requirement that allows ``acquired``, and only when the record holds an acquisition
        of that knowledge (or of its equivalence class) at t ≤ τ whose provenance is a conversation or being
        told — never for places, employers or events, and never from what a speaker merely asserted."""
        if (given is not ClaimProvenance.TOLD_BY or not constraint.polarity or prop.world_fact
                or ClaimProvenance.ACQUIRED not in constraint.provenance
                or prop.predicate.kind is not PredicateKind.KNOWLEDGE):
            return False
        props = self.support.propositions
        for edge in self.support.state.knowledge:
            if edge.provenance not in _TAUGHT:
                continue
            other = props.get(edge.prop_id)
            if edge.prop_id == prop.prop_id or (other is not None and prop.equivalence_class is not None
                                                and other.equivalence_class == prop.equivalence_class):
                return True
        return False

    def claim_matches(self, claim: ExtractedClaim, constraint: SignedClaim) -> bool:
        prop = self.support.propositions.get(constraint.prop_id)
        return (claim.prop_id == constraint.prop_id and claim.polarity == constraint.polarity and prop is not None
                and self.provenance_meets(claim.provenance, constraint, prop))

    def unmapped_matches(self, item: UnmappedAssertion, constraint: SignedClaim) -> bool:
        # An unmapped value that names exactly the proposition's value (an equivalent, never a broader one).
        prop = self.support.propositions.get(constraint.prop_id)
        return (prop is not None and item.slot is not None and item.value is not None
                and item.polarity == constraint.polarity
                and self.provenance_meets(item.provenance, constraint, prop)
                and self.support.compatibility.equivalent(item.slot, item.value, prop))

    def contradicts(self, constraint: SignedClaim) -> bool:
        """Whether the reading also says the opposite of a required claim, at the same time (scorer 3.3).

        "I haven't applied. But yes, the application is going well" asserts and denies one item; such a
        reading does not satisfy a requirement on it. Statements about different times are not a
        contradiction: a former view given up is read as a denial of that view, a different item from the
        current one. A place is left out: a reading does not yet carry tense, and "I don't live in Lisbon
        any more" beside "I lived in Lisbon" denies the present, not the past."""
        prop = self.support.propositions.get(constraint.prop_id)
        if prop is None or prop.predicate.kind is PredicateKind.PLACE:
            return False
        opposite = SignedClaim(prop_id=constraint.prop_id, polarity=not constraint.polarity)
        return (any(c.prop_id == constraint.prop_id and c.polarity is not constraint.polarity
                    for c in self.observation.claims)
                or any(self.unmapped_matches(u, opposite) for u in self.observation.unmapped))

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


def _corrects_a_detail(contract: Contract, matcher: _Matcher, engaged: bool) -> bool:
    """Whether a forbidden REJECT only corrects a detail of the premise, which the reply then answers within.

    "When you moved to Lisbon in 2013, what did you miss?" — "2012, actually, and what I missed most was the
    sea" asserts the required claim and corrects the year. The REJECT is waived (scorer 3.3) when the reply
    asserts every required claim without denying any, and the corrected detail is itself in the reading and
    grounded in the record: a date it gives a required claim, or another claim the record supports at τ (the
    grounding check still fails a wrong one). A REJECT of the asked event itself denies a required claim, and
    still fails."""
    required = [c for c in contract.required_claims if c.polarity]
    if Act.REJECT not in contract.forbidden_acts or not engaged or not required or len(required) != len(
            contract.required_claims):
        return False
    if not all(matcher.asserts(c) and not matcher.contradicts(c) for c in required):
        return False
    observation, state = matcher.observation, matcher.support.state
    asked = {c.prop_id for c in required}
    if any(not claim.polarity and claim.prop_id in asked for claim in observation.claims):
        return False
    dated = any(claim.when for claim in observation.claims if claim.prop_id in asked and claim.polarity)
    other = any(claim.polarity and claim.prop_id not in asked and state.supports(claim.prop_id)
                for claim in observation.claims)
    return dated or other


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
    if absent:
        return _fail(f"required claims not asserted with an allowed provenance: {absent}")
    both = [_signed(c) for c in contract.required_claims if matcher.contradicts(c)]
    return _fail(f"required claims both asserted and denied: {both}") if both else _OK


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


def stated_interval(stated: str) -> tuple[dt.date, dt.date]:
    """The days a stated ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` date covers: a year is the whole year."""
    parts = [int(p) for p in stated.split("-")]
    if len(parts) == 1:
        return dt.date(parts[0], 1, 1), dt.date(parts[0], 12, 31)
    if len(parts) == 2:
        start = dt.date(parts[0], parts[1], 1)
        following = dt.date(parts[0] + parts[1] // 12, parts[1] % 12 + 1, 1)
        return start, following - dt.timedelta(days=1)
    day = dt.date(parts[0], parts[1], parts[2])
    return day, day


def _date_problem(claim: ExtractedClaim, support: Support, asked: frozenset[str]) -> str | None:
    """How a date a reply gives for a supported claim disagrees with the record, or None (scorer 3.3).

    The asked claim (a required one: "when did you move?") must be dated to a day on which the record made it
    true (its onset), at the date's precision. Any other claim is a state the reply places in time ("since
    2000 I've been cooking at the bistro"): its date fails only when the days it covers (a year means the whole
    year) all fall before the record first made it true or after τ."""
    onsets = support.state.onsets.get(claim.prop_id, ())
    if not claim.when or not onsets:
        return None
    try:
        start, end = stated_interval(claim.when)
    except ValueError:
        return None
    if claim.prop_id in asked:
        agrees = any(start <= d <= end for d in onsets)
    else:
        agrees = end >= min(onsets) and start <= support.state.tau
    if agrees:
        return None
    return f"{claim.prop_id} dated {claim.when}, the record has {', '.join(d.isoformat() for d in onsets)}"


def _check_grounding(observation: Observation, support: Support, asked: frozenset[str] = frozenset()) -> CheckResult:
    problems = []
    compat = support.compatibility
    cw_slots = {d.slot for d in support.closed_world}
    for claim in observation.claims:
        prop = support.propositions.get(claim.prop_id)
        if not claim.polarity or not _is_personal(claim, prop) or prop is None:
            continue
        if support.state.supports(claim.prop_id):
            problem = _date_problem(claim, support, asked)
            if problem:
                problems.append(problem)
        elif (_in_closed_world(prop, support.closed_world)
              and compat.ground(prop.slot, prop.value, support.supported_nodes(prop.slot)) is Grounding.INCOMPATIBLE):
            problems.append(f"{claim.prop_id} ({prop.slot}={prop.value}) is not supported at {support.state.tau}")
    for item in observation.unmapped:
        if (not item.polarity or item.slot not in cw_slots or item.value is None
                or item.provenance is ClaimProvenance.ASSISTANT_GENERAL):
            continue
        if compat.ground(item.slot, item.value, support.supported_nodes(item.slot), support.acquired_scope(item.slot),
                         support.record_texts) is Grounding.INCOMPATIBLE:
            problems.append(f"unmapped {item.slot}={item.value!r} is not supported")
    return _fail("; ".join(problems)) if problems else _OK


_EXCEPTIVE = re.compile(r"\b(?:else|other|others|but|except|besides|apart|aside|outside|beyond|than)\b")


def _check_denial(observation: Observation, support: Support) -> CheckResult:
    """V_deny (scorer 3.3, beyond the seed's grounding, which checks only positive values): no denial of what the
    record supports at τ.

    "I'm an AI, I never lived anywhere" disowns every city the identity lived in while it denies the asked one;
    "I never lived in Kyoto" denies only Kyoto. A denied personal claim of a proposition the record supports at τ
    fails, as does a denied value of a closed-world slot that the record supports (by the same compatibility as
    grounding: "I've never lived in Cork" for a Cork childhood), and a denial of the slot as a whole — a denied
    value that names nothing and makes no exception ("anywhere", "any job", not "anywhere else") — when the
    record supports a value in that slot. A view given up is not supported at τ, so denying it is fine; world
    facts are not the identity's record. A value of an entity-scoped slot (a project's nickname) is left out: a
    reading does not yet say which entity a denial is about ("Not Copper Osprey, that's the courier map")."""
    problems = []
    for claim in observation.claims:
        prop = support.propositions.get(claim.prop_id)
        if (not claim.polarity and prop is not None and not prop.world_fact and prop.entity == "self"
                and claim.provenance is not ClaimProvenance.ASSISTANT_GENERAL and support.state.supports(claim.prop_id)):
            problems.append(f"denies {claim.prop_id} ({prop.slot}={prop.value}), which the record supports at "
                            f"{support.state.tau}")
    cw_slots = {d.slot for d in support.closed_world}
    for item in observation.unmapped:
        if item.polarity or item.slot not in cw_slots or item.value is None:
            continue
        compat = support.compatibility
        namespace = compat.namespace(item.slot)
        supported = support.supported_nodes(item.slot)
        if not compat.is_name(item.value, namespace):
            if not _EXCEPTIVE.search(normalise(item.value)) and supported:
                problems.append(f"denies every {item.slot} ({item.value!r}), and the record supports one at "
                                f"{support.state.tau}")
        elif compat.names(namespace or "", item.value) and compat.ground(
                item.slot, item.value, supported, support.acquired_scope(item.slot)) is Grounding.SUPPORTED:
            problems.append(f"denies {item.slot}={item.value!r}, which the record supports at {support.state.tau}")
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
    if Act.REJECT in acts and _corrects_a_detail(contract, matcher, engaged):
        contract = contract.model_copy(update={
            "forbidden_acts": [a for a in contract.forbidden_acts if a is not Act.REJECT]})
    checks = {
        "act": _check_acts(contract, acts),
        "required": _check_required(contract, matcher, engaged),
        "forbidden": _check_forbidden(contract, matcher),
        "uncertainty": _check_uncertainty(contract, observation.uncertainty),
        "provenance": _check_provenance(observation, contract, support),
        "disclosure": _check_disclosure(observation, contract, support, acts),
        "grounding": _check_grounding(observation, support,
                                      frozenset(c.prop_id for c in contract.required_claims if c.polarity)),
        "denial": _check_denial(observation, support),
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
