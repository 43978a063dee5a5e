"""Historical projection Π_τ(H), situated state I_τ = F(H_≤τ), and the profile S_τ."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field

from sitbench.schema import (
    AcquisitionEdge,
    Event,
    EventKind,
    Lineage,
    Profile,
    Tier,
)


def project(lineage: Lineage, tau: dt.date) -> Lineage:
    """Π_τ(H) = H_≤τ: the lineage restricted to evidence dated on or before ``tau``."""
    relationships = []
    for rel in lineage.relationships:
        versions = [v for v in rel.versions if v.t <= tau]
        if versions:
            relationships.append(rel.model_copy(update={"versions": versions}))
    beliefs = []
    for belief in lineage.beliefs:
        belief_versions = [v for v in belief.versions if v.t <= tau]
        if belief_versions:
            beliefs.append(belief.model_copy(update={"versions": belief_versions}))
    return lineage.model_copy(
        update={
            "events": [e for e in lineage.events if e.t <= tau],
            "acquisitions": [a for a in lineage.acquisitions if a.t <= tau],
            "relationships": relationships,
            "beliefs": beliefs,
        }
    )


def _age(birth: dt.date, on: dt.date) -> int:
    return on.year - birth.year - ((on.month, on.day) < (birth.month, birth.day))


def profile_at(lineage: Lineage, tau: dt.date) -> Profile:
    """S_τ(H): the fixed public-profile extractor (only profile fields)."""
    inv = lineage.invariants
    occupation = lineage.occupations[0].occupation
    for version in lineage.occupations:
        if version.t <= tau:
            occupation = version.occupation
    return Profile(
        alias=inv.alias,
        age=_age(inv.birth_date, tau),
        occupation=occupation,
        hometown=inv.hometown,
        education=inv.education,
        hobbies=list(inv.hobbies),
        traits=list(inv.traits),
    )


def serialize_profile(profile: Profile) -> str:
    """Canonical byte-stable serialization of a profile (what inv7 compares)."""
    return json.dumps(profile.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def profile_sha256(profile: Profile) -> str:
    """SHA-256 of :func:`serialize_profile`."""
    return hashlib.sha256(serialize_profile(profile).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SituatedState:
    """I_τ: what the identity holds at τ, derived from H_≤τ only."""

    tau: dt.date
    """Evaluation epoch."""
    truths: dict[str, bool]
    """Prop id → polarity the lineage supports at τ (absent = unrecorded)."""
    tiers: dict[str, Tier]
    """Prop id → disclosure tier of the event that established it."""
    memories: list[Event]
    """Episodic and session events ≤ τ."""
    knowledge: list[AcquisitionEdge]
    """Acquisition edges ≤ τ (K_τ)."""
    clearances: dict[str, Tier]
    """Interlocutor id → clearance at τ."""
    beliefs: dict[str, list[str]]
    """Belief id → stance prop ids in order; the last is current."""
    profile: Profile
    """S_τ."""
    ever_true: frozenset[str] = field(default_factory=frozenset)
    """Props that held at some point ≤ τ (for reporting former stances)."""
    onsets: dict[str, tuple[dt.date, ...]] = field(default_factory=dict)
    """Prop id → the dates ≤ τ on which it became true (a move, a start, an acquisition, a change of mind):
    what a date a response gives for a claim is checked against."""

    def clearance_of(self, interlocutor_id: str) -> Tier:
        """Clearance of an interlocutor at τ; strangers are public."""
        return self.clearances.get(interlocutor_id, Tier.PUBLIC)

    def supports(self, prop_id: str, polarity: bool = True) -> bool:
        """True when the lineage supports this signed proposition at τ."""
        return self.truths.get(prop_id) is polarity


# (lineage id, τ) → (the lineage, its state), at most 1,024 (a state can weigh ~50 KB). Scoring asks
# for the same few hundred states across tens of thousands of probes; the lineage is held, so an
# id cannot be reused while cached.
_STATES: dict[tuple[int, dt.date], tuple[Lineage, SituatedState]] = {}


def situated_state(lineage: Lineage, tau: dt.date) -> SituatedState:
    """I_τ = F(H_≤τ): fold the projected events, acquisitions, relationships and beliefs.

    Computed once per (lineage, τ): lineages are frozen and the state is immutable, so callers
    share it."""
    key = (id(lineage), tau)
    hit = _STATES.get(key)
    if hit is not None and hit[0] is lineage:
        return hit[1]
    if len(_STATES) >= 1024:
        _STATES.clear()
    state = _situated_state(lineage, tau)
    _STATES[key] = (lineage, state)
    return state


def _situated_state(lineage: Lineage, tau: dt.date) -> SituatedState:
    past = project(lineage, tau)
    truths: dict[str, bool] = {}
    tiers: dict[str, Tier] = {}
    ever: set[str] = set()
    onsets: dict[str, list[dt.date]] = {}
    for event in past.events:
        for prop_id in event.retracts:
            truths.pop(prop_id, None)
        for signed in event.asserts:
            if signed.polarity and truths.get(signed.prop_id) is not True:
                onsets.setdefault(signed.prop_id, []).append(event.t)
            truths[signed.prop_id] = signed.polarity
            tiers[signed.prop_id] = event.disclosure
            if signed.polarity:
                ever.add(signed.prop_id)
    for edge in past.acquisitions:
        if edge.t not in onsets.get(edge.prop_id, ()):
            onsets.setdefault(edge.prop_id, []).append(edge.t)
        truths[edge.prop_id] = True
        ever.add(edge.prop_id)
        source = past.event(edge.source_event)
        tiers.setdefault(edge.prop_id, source.disclosure if source else Tier.PUBLIC)
    clearances = {rel.interlocutor_id: rel.versions[-1].clearance for rel in past.relationships}
    beliefs = {b.belief_id: [v.prop_id for v in b.versions] for b in past.beliefs}
    memories = [e for e in past.events if e.kind in (EventKind.EPISODIC, EventKind.SESSION)]
    return SituatedState(
        tau=tau,
        truths=truths,
        tiers=tiers,
        memories=memories,
        knowledge=list(past.acquisitions),
        clearances=clearances,
        beliefs=beliefs,
        profile=profile_at(lineage, tau),
        ever_true=frozenset(ever),
        onsets={prop_id: tuple(sorted(dates)) for prop_id, dates in onsets.items()},
    )
