"""Lineage instances H: events, acquisitions, relationships, beliefs, checkpoints, profile."""

from __future__ import annotations

from pydantic import Field

from sitbench.schema._common import (
    EventKind,
    Frozen,
    IsoDate,
    Provenance,
    SignedProp,
    Tier,
)


class Event(Frozen):
    """One timestamped developmental event (seed Eq. 3)."""

    event_id: str
    """Id unique within the lineage, e.g. ``E-007``."""
    t: IsoDate
    """Date of the event."""
    kind: EventKind
    """What the event records."""
    asserts: list[SignedProp] = Field(default_factory=list)
    """Canonical propositions the event makes true (or false) for the identity from ``t`` on."""
    retracts: list[str] = Field(default_factory=list)
    """Prop ids the event ends (e.g. moving away ends ``lives_in``; a belief transition ends the old stance)."""
    participants: list[str] = Field(default_factory=list)
    """Interlocutor ids or names of the people involved."""
    place: str | None = None
    """Where it happened."""
    provenance: Provenance
    """How the identity came to hold what the event asserts."""
    disclosure: Tier = Tier.PUBLIC
    """Clearance an interlocutor needs before this event's content may be shared."""
    source_event: str | None = None
    """Event this one derives from (an acquisition's course, a belief's trigger)."""
    session_id: str | None = None
    """For ``session`` events: the conversation session that produced them."""
    text: str
    """Natural-language realization, written after the symbolic checks. Candidate-visible."""


class AcquisitionEdge(Frozen):
    """Knowledge the identity acquired: (lineage, prop, t, source event, provenance)."""

    prop_id: str
    """Acquired proposition."""
    t: IsoDate
    """When it was acquired; never before the source event (inv3)."""
    source_event: str
    """Event through which it was acquired."""
    provenance: Provenance
    """How it was acquired."""


class RelationshipVersion(Frozen):
    """State of a relationship from a date on."""

    t: IsoDate
    """When this version starts."""
    relation: str
    """Relation in words, e.g. ``sister``, ``colleague``."""
    clearance: Tier
    """What this interlocutor may be told."""
    event_id: str | None = None
    """Event recording the transition, when there is one."""


class Relationship(Frozen):
    """One interlocutor and the dated history of the relationship."""

    interlocutor_id: str
    """Stable id used by queries, e.g. ``jo``."""
    name: str
    """How the identity knows them."""
    versions: list[RelationshipVersion] = Field(min_length=1)
    """Dated versions, in time order."""
    shared_events: list[str] = Field(default_factory=list)
    """Events this interlocutor shared with the identity."""


class BeliefVersion(Frozen):
    """One stance of a belief, valid from ``t``."""

    t: IsoDate
    """When the stance was adopted."""
    prop_id: str
    """Proposition stating the stance."""
    event_id: str
    """The belief event that recorded this stance (inv5: every change is an explicit event)."""


class Belief(Frozen):
    """A belief with its dated history of stances."""

    belief_id: str
    """Id, e.g. ``B-phones``."""
    topic: str
    """Topic in words."""
    versions: list[BeliefVersion] = Field(min_length=1)
    """Stances in time order."""
    change_prop_id: str | None = None
    """Proposition "the identity changed its mind on this topic", true from the second version on."""


class Profile(Frozen):
    """The public profile S_τ: the only fields a persona summary exposes (docs/concepts.md: S_τ)."""

    alias: str
    """Public alias; identical for both members of a pair."""
    age: int
    """Age at the checkpoint."""
    occupation: str
    """Occupation at the checkpoint."""
    hometown: str
    """Hometown."""
    education: str
    """Education."""
    hobbies: list[str]
    """Hobbies."""
    traits: list[str]
    """Personality traits."""


class ProfileVersion(Frozen):
    """Profile fields from a date on (profile-level transitions are applied to both pair members)."""

    t: IsoDate
    """When these fields take effect."""
    occupation: str
    """Occupation from ``t``."""


class Invariants(Frozen):
    """Immutable facts about the identity."""

    alias: str
    """Public alias."""
    birth_date: IsoDate
    """Date of birth (age is derived from it)."""
    hometown: str
    """Hometown."""
    education: str
    """Education."""
    hobbies: list[str]
    """Hobbies."""
    traits: list[str]
    """Personality traits."""


class Lineage(Frozen):
    """A lineage instance H (hidden store). ``lineage_id`` and ``subject`` never reach a prompt."""

    lineage_id: str
    """Evaluator-only id."""
    subject: str
    """Opaque key of this identity's candidate-visible evidence file."""
    invariants: Invariants
    """Immutable invariants."""
    occupations: list[ProfileVersion] = Field(min_length=1)
    """Occupation history (profile-level; must match the partner's)."""
    checkpoints: list[IsoDate] = Field(min_length=5, max_length=5)
    """Five checkpoint dates t0 < … < t4."""
    events: list[Event]
    """Time-ordered events."""
    acquisitions: list[AcquisitionEdge] = Field(default_factory=list)
    """Epistemic acquisition graph."""
    relationships: list[Relationship] = Field(default_factory=list)
    """Relationships with clearance tiers."""
    beliefs: list[Belief] = Field(default_factory=list)
    """Beliefs with explicit transitions."""

    def event(self, event_id: str) -> Event | None:
        """The event with this id, or None."""
        for e in self.events:
            if e.event_id == event_id:
                return e
        return None
