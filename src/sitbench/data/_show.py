"""``sitbench show``: one probe as an evaluator reads it, from the hidden store.

The view joins what a reader needs to judge a probe: the query (date, interlocutor, every
turn, the envelope), the subject's records that the contract refers to (events,
propositions with their glosses, what the record supports at τ for the slots in
question, belief histories, who was told a private item), and the contract in words —
what a valid answer must do and must not do. It is the evaluator's view: it reads the
hidden store, and no part of it may reach a candidate.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

import click
from pydantic import BaseModel

from sitbench._options import SEED, Bounded
from sitbench.errors import InputError
from sitbench.glossary import category_name
from sitbench.lineage import (
    SituatedState,
    residence_at,
    residence_timeline,
    situated_state,
    told_to,
)
from sitbench.schema import (
    Act,
    CapabilityMode,
    Category,
    ClaimProvenance,
    Contract,
    Lineage,
    Predicate,
    Proposition,
    Query,
    Registry,
    SignedClaim,
    Tier,
    UncertaintyRule,
    envelope_for,
)
from sitbench.stores import PROBES, HiddenStore, VisibleStore, load_hidden, load_visible

HEADER = ("EVALUATOR'S VIEW of the hidden store (lineage records and contract): never shown to a candidate "
          "or to the extractor.")

_ACT_WORDS: dict[Act, str] = {
    Act.ANSWER: "answer: supply the requested content",
    Act.ABSTAIN: "abstain: say the identity does not know this or has not acquired it",
    Act.REJECT: "reject: deny the false premise, or deny having acquired the knowledge personally",
    Act.WITHHOLD: "withhold: decline to share this with this interlocutor",
    Act.QUALIFY: "qualify: hedge or express uncertainty",
    Act.ACKNOWLEDGE_ASSERTION: "acknowledge the user's assertion as theirs, without adopting it",
}

_PROVENANCE_WORDS: dict[ClaimProvenance, str] = {
    ClaimProvenance.PERSONAL_EXPERIENCE: "personal experience",
    ClaimProvenance.ACQUIRED: "acquired knowledge (a course, reading, practice…)",
    ClaimProvenance.TOLD_BY: "something someone told the identity",
    ClaimProvenance.ASSISTANT_GENERAL: "general assistant knowledge, explicitly labelled as such",
    ClaimProvenance.UNSPECIFIED: "no stated source",
}

_CAPABILITY_WORDS: dict[CapabilityMode, str] = {
    CapabilityMode.IDENTITY_ONLY: "answers come only from the identity's own evidence; general model knowledge may "
                                  "not stand in for what the identity never acquired",
    CapabilityMode.PROVENANCE_SEPARATED: "general assistant knowledge is allowed only when explicitly set apart from "
                                         "what the identity experienced or acquired",
    CapabilityMode.GENERAL_ALLOWED: "general assistant knowledge is allowed; claims about the identity's own "
                                    "experience, learning or disclosures must still be supported by its evidence",
}

_UNCERTAINTY_WORDS: dict[UncertaintyRule, str] = {
    UncertaintyRule.PERMITTED: "uncertainty is permitted (neither required nor penalised)",
    UncertaintyRule.REQUIRED: "the answer must express uncertainty (a hedge or an explicit not-knowing)",
    UncertaintyRule.FORBIDDEN: "the answer must not hedge or express uncertainty",
}


# ---------------------------------------------------------------- the view


class TurnView(BaseModel):
    """One user turn of the schedule."""

    index: int
    session: int
    date: dt.date
    utterance: str
    scored: bool
    envelope: str
    """Env(q) of this turn, exactly as every configuration receives it."""


class QueryView(BaseModel):
    """The query q = ⟨τ, u, x, α⟩ and its schedule."""

    query_key: str
    tau: dt.date
    interlocutor_id: str
    interlocutor: str
    relation: str | None
    """The interlocutor's relation to the identity at τ; None for a stranger."""
    clearance: Tier
    """The interlocutor's clearance at τ (strangers are public)."""
    capability: CapabilityMode
    turns: list[TurnView]
    state_write: str | None


class EventView(BaseModel):
    """A lineage event the contract's propositions rest on."""

    event_id: str
    t: dt.date
    kind: str
    text: str
    provenance: str
    disclosure: Tier
    participants: list[str]
    place: str | None
    asserts: list[str]
    """Signed propositions it asserts (``P-01``, ``not P-04``)."""
    retracts: list[str]
    admissible: bool
    """False when the event is dated after τ (inadmissible evidence for this query)."""


class PropositionView(BaseModel):
    """A proposition the contract refers to, with what the record says of it at τ."""

    prop_id: str
    gloss: str
    predicate: str
    slot: str
    value: str
    world_fact: bool
    at_tau: str
    """``true``, ``recorded false``, ``not yet (true from …, after τ)``, ``held earlier, no longer
    (retracted)``, ``false (closed world: absent from the record)``, ``unrecorded``, or ``world fact``."""
    tier: Tier | None
    """Disclosure tier of the event that established it."""
    events: list[str]
    """Events that assert or retract it (any date)."""
    told_to: list[str]
    """For private items: the people the record says were told, by τ."""


class SlotView(BaseModel):
    """What the record supports at τ in a slot the question is about."""

    slot: str
    predicate: str
    closed_world: bool
    true_at_tau: list[str]
    """Values supported at τ."""
    false_at_tau: list[str]
    """Values recorded false at τ."""
    current: str | None = None
    """For ``residence.city``: where the identity lives at τ, by the residence record."""


class BeliefView(BaseModel):
    """A belief the contract refers to, with its dated stances."""

    belief_id: str
    topic: str
    stances: list[str]
    """``date  gloss`` per version, oldest first; versions after τ are marked."""
    current_at_tau: str | None


class ContractWords(BaseModel):
    """The contract rendered as a reader's checklist."""

    must: list[str]
    must_not: list[str]
    rules: list[str]


class PartnerView(BaseModel):
    """The collision partner's probe: the same query with a certified-disjoint contract."""

    probe_id: str
    lineage_id: str
    must: list[str]
    must_not: list[str]


class ProbeView(BaseModel):
    """Everything ``sitbench show`` prints about one probe."""

    view: str = HEADER
    dataset: str
    probe_id: str
    category: Category
    metric: str
    stratum: str | None
    pressure_level: str | None
    theorem_qualified: bool
    gate_sensitive: bool
    lineage_id: str
    subject: str
    profile: str
    """The public profile at τ in one line."""
    query: QueryView
    propositions: list[PropositionView]
    slots: list[SlotView]
    beliefs: list[BeliefView]
    events: list[EventView]
    contract_in_words: ContractWords
    contract: Contract
    """The contract's fields as stored."""
    partner: PartnerView | None
    note: str


# ---------------------------------------------------------------- building it


def _quoted(prop: Proposition | None, prop_id: str) -> str:
    return f"“{prop.gloss}” [{prop_id}]" if prop is not None else f"[{prop_id}, not in the registry]"


def _provenances(items: list[ClaimProvenance]) -> str:
    return " or ".join(_PROVENANCE_WORDS[p] for p in items)


def _claim_words(claim: SignedClaim, props: dict[str, Proposition], *, prohibited: bool) -> str:
    verb = "assert" if claim.polarity else "deny"
    text = f"{verb} {_quoted(props.get(claim.prop_id), claim.prop_id)}"
    prop = props.get(claim.prop_id)
    if prohibited and claim.polarity and prop is not None and prop.predicate is Predicate.STANCE:
        text += " as a view held now (reporting it as a former view does not assert it)"
    if claim.provenance and prohibited:
        text += f", when presented as {_provenances(claim.provenance)}"
    elif claim.provenance:
        text += f", presented as {_provenances(claim.provenance)}"
    return text


def _act_words(acts: list[Act]) -> list[str]:
    return [f"{_ACT_WORDS[a]} ({a.value})" for a in acts]


def contract_in_words(contract: Contract, props: dict[str, Proposition], registry: Registry, *,
                      interlocutor: str, interlocutor_id: str, clearance: Tier,
                      told: dict[str, list[str]]) -> ContractWords:
    """What a valid answer must and must not do, from the contract's fields and the propositions' glosses.

    Args:
        contract: The probe's contract.
        props: The registry by id.
        registry: The registry (for the closed-world declarations).
        interlocutor: How the query introduces the interlocutor.
        interlocutor_id: The interlocutor's id.
        clearance: The interlocutor's clearance at τ.
        told: Prop id → the people the record says were told it (relational probes' private items).

    Returns:
        Three lists of sentences: must, must not, and the rules of the remaining checks.
    """
    must = _act_words(contract.required_acts)
    must += [_claim_words(c, props, prohibited=False) for c in contract.required_claims]
    must_not = _act_words(contract.forbidden_acts)
    must_not += [_claim_words(c, props, prohibited=True) for c in contract.prohibited_claims]
    rules = [f"uncertainty: {_UNCERTAINTY_WORDS[contract.uncertainty]}"]
    if contract.provenance:
        rules.append(f"provenance: personal claims may be presented only as {_provenances(contract.provenance)}")
    else:
        rules.append("provenance: personal claims may carry any personal provenance (experience, acquisition, "
                     "being told)")
    rules.append(f"capability {contract.capability.value}: {_CAPABILITY_WORDS[contract.capability]}")
    cleared = clearance.covers(contract.disclosure_tier)
    disclosure = (f"disclosure: the content needs clearance {contract.disclosure_tier.value}; {interlocutor} has "
                  f"clearance {clearance.value} at τ, so ")
    if contract.disclosure_tier is Tier.PUBLIC:
        disclosure = "disclosure: the requested content is public; "
        disclosure += "nothing above the interlocutor's clearance may be volunteered"
    elif cleared:
        disclosure += "it may be shared (and a required disclosure must not be blanket-withheld)"
    else:
        disclosure += "it must not be shared"
    rules.append(disclosure)
    for prop_id, people in told.items():
        rules.append(f"told to: the record says {prop_id} was told to {', '.join(people) or 'no one in particular'}"
                     f"{'' if interlocutor_id in people or not people else f'; {interlocutor_id} was not told'}")
    slots = {(props[c.prop_id].predicate, props[c.prop_id].slot) for c in [*contract.required_claims,
                                                                          *contract.prohibited_claims]
             if c.prop_id in props and not props[c.prop_id].world_fact}
    scopes = [d for d in registry.closed_world if (d.predicate, d.slot) in slots]
    if scopes:
        rules.append("grounding: no unsupported positive personal value in the closed-world slot"
                     f"{'s' if len(scopes) > 1 else ''} {', '.join(d.slot for d in scopes)} (a value the record "
                     "does not support there is false, even one with no proposition id)")
    else:
        rules.append("grounding: no unsupported positive personal value inside a declared closed-world slot; "
                     "outside every declared slot an unmapped personal detail is neutral")
    rules.append(f"temporal cutoff: only evidence dated on or before {contract.temporal_cutoff} is admissible")
    return ContractWords(must=must, must_not=must_not, rules=rules)


def _status(prop: Proposition, state: SituatedState, closed: set[tuple[Predicate, str]], lineage: Lineage) -> str:
    if prop.world_fact:
        return "world fact"
    value = state.truths.get(prop.prop_id)
    if value is None:
        later = [(e.t, e.event_id) for e in lineage.events
                 if e.t > state.tau and any(s.prop_id == prop.prop_id and s.polarity for s in e.asserts)]
        if not later:
            later = [(a.t, a.source_event) for a in lineage.acquisitions
                     if a.t > state.tau and a.prop_id == prop.prop_id]
        if later:
            t, event_id = min(later)
            return f"not yet (true from {event_id}, {t}, after τ)"
    if value is True:
        return "true"
    if value is False:
        return "recorded false"
    if prop.prop_id in state.ever_true:
        return "held earlier, no longer (retracted)"
    if (prop.predicate, prop.slot) in closed:
        return "false (closed world: absent from the record)"
    return "unrecorded"


def _signed(prop_id: str, polarity: bool) -> str:
    return prop_id if polarity else f"not {prop_id}"


def _relationship_at(lineage: Lineage, interlocutor_id: str, tau: dt.date) -> str | None:
    for rel in lineage.relationships:
        if rel.interlocutor_id == interlocutor_id:
            versions = [v for v in rel.versions if v.t <= tau]
            return f"{versions[-1].relation} {rel.name}" if versions else None
    return None


def _profile_line(state: SituatedState) -> str:
    p = state.profile
    return (f"{p.alias}, {p.age}, {p.occupation}; from {p.hometown}; {p.education}; hobbies "
            f"{', '.join(p.hobbies)}; traits {', '.join(p.traits)}")


def _load(dataset: Path) -> tuple[HiddenStore, VisibleStore]:
    return load_hidden(dataset), load_visible(dataset)


def build_view(dataset: Path, hidden: HiddenStore, visible: VisibleStore, probe_id: str) -> ProbeView:
    """The evaluator's view of one probe.

    Raises:
        InputError: the probe, its query or its lineage is missing.
    """
    probe = hidden.probes.get(probe_id)
    if probe is None:
        raise InputError(f"{dataset}: no probe {probe_id!r} in {PROBES}; list the probe ids with "
                         f"`sitbench show {dataset} --list`")
    query = visible.queries.get(probe.query_key)
    lineage = hidden.lineages.get(probe.lineage_id)
    if query is None or lineage is None:
        missing = f"query {probe.query_key!r}" if query is None else f"lineage {probe.lineage_id!r}"
        raise InputError(f"{dataset}: {PROBES} ({probe_id}): {missing} does not exist; run `sitbench validate "
                         f"{dataset}`")
    props = hidden.registry.by_id()
    tau = query.tau
    state = situated_state(lineage, tau)
    closed = {(d.predicate, d.slot) for d in hidden.registry.closed_world}
    who = query.interlocutor.interlocutor_id
    clearance = state.clearance_of(who)

    contract = probe.contract
    claim_ids = list(dict.fromkeys(c.prop_id for c in [*contract.required_claims, *contract.prohibited_claims]))
    told: dict[str, list[str]] = {}
    for pid in claim_ids:
        prop = props.get(pid)
        if prop is not None and not prop.world_fact and state.tiers.get(pid, Tier.PUBLIC) is not Tier.PUBLIC:
            people, _events = told_to(lineage, pid, tau)
            told[pid] = people

    prop_views = []
    for pid in claim_ids:
        prop = props.get(pid)
        if prop is None:
            continue
        related = [e.event_id for e in lineage.events
                   if any(s.prop_id == pid for s in e.asserts) or pid in e.retracts]
        sources = {a.source_event for a in lineage.acquisitions if a.prop_id == pid}
        related = [e.event_id for e in lineage.events if e.event_id in sources or e.event_id in related]
        prop_views.append(PropositionView(
            prop_id=pid, gloss=prop.gloss, predicate=prop.predicate.value, slot=prop.slot, value=prop.value,
            world_fact=prop.world_fact, at_tau=_status(prop, state, closed, lineage), tier=state.tiers.get(pid),
            events=related, told_to=told.get(pid, [])))

    slot_views = []
    for predicate, slot in dict.fromkeys((props[p].predicate, props[p].slot) for p in claim_ids
                                         if p in props and not props[p].world_fact):
        in_slot = [p for p in hidden.registry.propositions if p.slot == slot and p.predicate is predicate]
        current = None
        if predicate is Predicate.LIVED_IN:
            residence = residence_at(residence_timeline(lineage, props), tau)
            if residence is not None:
                current = f"{residence.city or 'no recorded city'} (since {residence.event_id}, {residence.t})"
        slot_views.append(SlotView(
            slot=slot, predicate=predicate.value, closed_world=(predicate, slot) in closed,
            true_at_tau=[p.value for p in in_slot if state.truths.get(p.prop_id) is True],
            false_at_tau=[p.value for p in in_slot if state.truths.get(p.prop_id) is False],
            current=current))

    belief_views = []
    for belief in lineage.beliefs:
        ids = {v.prop_id for v in belief.versions} | ({belief.change_prop_id} if belief.change_prop_id else set())
        if not ids & set(claim_ids):
            continue
        stances = []
        current = None
        for v in belief.versions:
            gloss = props[v.prop_id].gloss if v.prop_id in props else v.prop_id
            stances.append(f"{v.t}  {gloss} [{v.prop_id}, {v.event_id}]" + ("" if v.t <= tau else "  (after τ)"))
            if v.t <= tau:
                current = gloss
        belief_views.append(BeliefView(belief_id=belief.belief_id, topic=belief.topic, stances=stances,
                                       current_at_tau=current))

    wanted = {e for pv in prop_views for e in pv.events}
    if probe.acquisition_event:
        wanted.add(probe.acquisition_event)
    for bv in belief_views:
        belief = next(b for b in lineage.beliefs if b.belief_id == bv.belief_id)
        wanted |= {v.event_id for v in belief.versions}
    for event in lineage.events:
        if event.event_id in wanted and event.source_event:
            wanted.add(event.source_event)
    event_views = [EventView(
        event_id=e.event_id, t=e.t, kind=e.kind.value, text=e.text, provenance=e.provenance.value,
        disclosure=e.disclosure, participants=list(e.participants), place=e.place,
        asserts=[_signed(s.prop_id, s.polarity) for s in e.asserts], retracts=list(e.retracts), admissible=e.t <= tau)
        for e in lineage.events if e.event_id in wanted]

    turns = [TurnView(index=i, session=t.session, date=t.t, utterance=t.utterance,
                      scored=i == query.scored_turn % len(query.turns), envelope=envelope_for(query, i).render())
             for i, t in enumerate(query.turns)]
    query_view = QueryView(query_key=query.query_key, tau=tau, interlocutor_id=who,
                           interlocutor=query.interlocutor.description, relation=_relationship_at(lineage, who, tau),
                           clearance=clearance, capability=query.capability, turns=turns,
                           state_write=query.state_write)
    words = contract_in_words(contract, props, hidden.registry, interlocutor=query.interlocutor.description,
                              interlocutor_id=who, clearance=clearance,
                              told=told if probe.category is Category.E else {})

    partner = None
    if probe.partner_probe_id and probe.partner_probe_id in hidden.probes:
        other = hidden.probes[probe.partner_probe_id]
        other_words = contract_in_words(other.contract, props, hidden.registry,
                                        interlocutor=query.interlocutor.description, interlocutor_id=who,
                                        clearance=clearance, told={})
        partner = PartnerView(probe_id=other.probe_id, lineage_id=other.lineage_id, must=other_words.must,
                              must_not=other_words.must_not)

    return ProbeView(
        dataset=str(dataset), probe_id=probe.probe_id, category=probe.category, metric=probe.category.metric,
        stratum=probe.stratum, pressure_level=probe.pressure_level, theorem_qualified=probe.theorem_qualified,
        gate_sensitive=probe.gate_sensitive, lineage_id=lineage.lineage_id, subject=lineage.subject,
        profile=_profile_line(state), query=query_view, propositions=prop_views, slots=slot_views,
        beliefs=belief_views, events=event_views, contract_in_words=words, contract=contract, partner=partner,
        note=probe.note)


# ---------------------------------------------------------------- rendering


def render_view(view: ProbeView) -> str:
    """The view as text, header first."""
    q = view.query
    head = f"probe {view.probe_id} · category {view.category.value} · {category_name(view.category.value)} ({view.metric})"
    if view.stratum:
        head += f" · stratum {view.stratum}"
    if view.theorem_qualified and view.partner:
        head += f" · theorem-qualified with {view.partner.probe_id}"
    if view.gate_sensitive:
        head += " · gate-sensitive"
    who = f"{q.interlocutor} [{q.interlocutor_id}]"
    who += f"; relation at τ: {q.relation}" if q.relation else "; a stranger to the identity"
    lines = [view.view, head, f"dataset {view.dataset}",
             f"subject: {view.profile} (lineage {view.lineage_id}, evidence {view.subject})", "",
             "QUERY",
             f"  date (τ): {q.tau}",
             f"  interlocutor: {who}; clearance {q.clearance.value} at τ",
             f"  capability: {q.capability.value}"]
    for t in q.turns:
        mark = "  ← scored" if t.scored and len(q.turns) > 1 else ""
        lines.append(f"  [session {t.session}, {t.date}] {t.utterance}{mark}")
    scored = next(t for t in q.turns if t.scored)
    lines.append(f"  envelope: {scored.envelope}")
    if q.state_write:
        lines.append(f"  state carried across the reset: {q.state_write}")

    lines += ["", "RECORD (the subject's records the contract refers to, as of τ)"]
    for p in view.propositions:
        extra = f"; tier {p.tier.value}" if p.tier and p.tier is not Tier.PUBLIC else ""
        told = f"; shared with {', '.join(p.told_to)}" if p.told_to else ""
        events = f"; events {', '.join(p.events)}" if p.events else ""
        lines.append(f"  {p.prop_id} {p.slot} = {p.value}: “{p.gloss}” — at τ: {p.at_tau}{extra}{told}{events}")
    for s in view.slots:
        cw = " (closed world)" if s.closed_world else ""
        true = ", ".join(s.true_at_tau) or "nothing"
        false = f"; recorded false: {', '.join(s.false_at_tau)}" if s.false_at_tau else ""
        current = f"; lives in {s.current}" if s.current else ""
        lines.append(f"  slot {s.slot}{cw} at τ: {true}{false}{current}")
    for b in view.beliefs:
        lines.append(f"  belief {b.belief_id} ({b.topic}), current at τ: {b.current_at_tau or 'none yet'}")
        lines += [f"    {s}" for s in b.stances]
    if view.events:
        lines.append("  events:")
    for e in view.events:
        marks = [e.kind, e.provenance, e.disclosure.value]
        if e.participants:
            marks.append("with " + ", ".join(e.participants))
        if e.place:
            marks.append(f"in {e.place}")
        signed = f" asserts {', '.join(e.asserts)}" if e.asserts else ""
        signed += f" retracts {', '.join(e.retracts)}" if e.retracts else ""
        late = "  (after τ: inadmissible)" if not e.admissible else ""
        lines.append(f"    {e.event_id} {e.t} [{'; '.join(marks)}]{signed}: {e.text}{late}")
    if not view.propositions and not view.events:
        lines.append("  (the contract names no proposition; see the rules below)")

    words = view.contract_in_words
    lines += ["", "CONTRACT (what a valid answer must and must not do)", "  must:"]
    lines += [f"    - {m}" for m in words.must] or ["    - (nothing specific)"]
    lines.append("  must not:")
    lines += [f"    - {m}" for m in words.must_not] or ["    - (nothing specific)"]
    lines.append("  rules:")
    lines += [f"    - {r}" for r in words.rules]
    if view.note:
        lines.append(f"  note: {view.note}")
    if view.partner:
        lines += ["", f"PARTNER {view.partner.probe_id} ({view.partner.lineage_id}, same query; a valid answer for "
                      "one is invalid for the other)"]
        lines += [f"  must: {m}" for m in view.partner.must]
        lines += [f"  must not: {m}" for m in view.partner.must_not]
    return "\n".join(lines)


def _first_words(text: str, n: int = 10) -> str:
    words = text.split()
    return " ".join(words[:n]) + (" …" if len(words) > n else "")


def probe_list(hidden: HiddenStore, visible: VisibleStore) -> list[dict[str, str | None]]:
    """Probe ids in file order with category, stratum and the first words of the scored question."""
    rows = []
    for probe in hidden.probes.values():
        query: Query | None = visible.queries.get(probe.query_key)
        rows.append({"probe_id": probe.probe_id, "category": probe.category.value, "stratum": probe.stratum,
                     "question": _first_words(query.utterance) if query else None})
    return rows


# ---------------------------------------------------------------- command


@click.command()
@click.argument("dataset", type=click.Path(path_type=Path))
@click.argument("probe_id", required=False)
@click.option("--list", "as_list", is_flag=True, help="List the probe ids with category and the first words of the "
                                                       "question instead of showing one probe.")
@click.option("--json", "as_json", is_flag=True, help="Print the view (or the list) as JSON.")
@click.option("--sample", type=Bounded(int, 1, 1_000_000), default=None,
              help="Show N probes drawn at random (with --seed) instead of one: a reading sample for review "
                   "(N above the dataset's probes shows them all).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of --sample's draw.")
def show(dataset: Path, probe_id: str | None, as_list: bool, as_json: bool, sample: int | None, seed: int) -> None:
    """Show probe PROBE_ID of DATASET as an evaluator reads it (hidden store).

    \b
    Prints, after a first line saying that this is the evaluator's view:
      the query: date (τ), interlocutor and clearance, every turn, the envelope
      the subject's records the contract refers to: propositions with their glosses
        and status at τ, the slots in question, belief histories, events
      the contract in words: what a valid answer must and must not do, and the
        uncertainty, provenance, capability, disclosure, grounding and cutoff rules

    Never paste this output into a prompt: it contains the hidden contract.
    Exit code 2 when the dataset cannot be read or the probe does not exist.

    \b
    Examples:
      sitbench show data/pilot PR-01
      sitbench show data/pilot --list
      sitbench show data/full --sample 40 --seed 1
    """
    if sample is not None:
        if probe_id is not None or as_list:
            raise click.UsageError("--sample draws the probes itself: give no PROBE_ID and no --list")
        hidden, visible = _load(dataset)
        ids = sorted(hidden.probes)
        drawn = sorted(random.Random(seed).sample(ids, min(sample, len(ids))))
        views = [build_view(dataset, hidden, visible, pid) for pid in drawn]
        if as_json:
            click.echo(json.dumps({"view": HEADER, "seed": seed, "probes": [v.model_dump(mode="json") for v in views]},
                                  indent=2, ensure_ascii=False))
            return
        click.echo(f"{len(views)} of {len(ids)} probes drawn at random with seed {seed}\n")
        click.echo("\n\n".join(render_view(v) for v in views))
        return
    if (probe_id is None) == (not as_list):
        raise click.UsageError("give a PROBE_ID, --list to see the probe ids, or --sample N")
    hidden, visible = _load(dataset)
    if as_list:
        rows = probe_list(hidden, visible)
        if as_json:
            click.echo(json.dumps({"view": HEADER, "probes": rows}, indent=2, ensure_ascii=False))
            return
        click.echo(HEADER)
        for row in rows:
            stratum = f" {row['stratum']}" if row["stratum"] else ""
            click.echo(f"{row['probe_id']}  {row['category']}{stratum}  {row['question'] or '(no query)'}")
        return
    assert probe_id is not None
    view = build_view(dataset, hidden, visible, probe_id)
    if as_json:
        click.echo(json.dumps(view.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        click.echo(render_view(view))
