"""The predicate taxonomy: one definition of what each registry predicate means to the verifier.

The extractor, the scorer's diagnostics, the integrity checks and the generator all read a
predicate's semantics from here, never from word lists of their own, so a new suite or domain
needs data (registry propositions with these predicates), not code.
"""

from __future__ import annotations

from enum import Enum, StrEnum


class PredicateKind(str, Enum):
    """How a predicate's value relates to the identity."""

    PLACE = "place"
    """A place the identity lived, grew up, visited or worked in: asserted by living, moving, being
    or time spent there, not by a place merely named in passing."""
    ORGANIZATION = "organization"
    """An employer or other organisation the identity belonged to."""
    FIELD = "field"
    """A field of work or study the identity worked in."""
    KNOWLEDGE = "knowledge"
    """Something acquired (a topic, a language, a skill): its provenance is acquisition."""
    WORLD_FACT = "world_fact"
    """General world knowledge, answerable by the substrate without the identity's history."""
    PLAN = "plan"
    """An intention or plan of the identity's."""
    NAME = "name"
    """A name the identity gave or agreed on (a project nickname)."""
    STANCE = "stance"
    """A belief stance; a former stance reported as former is not a current one."""
    STANCE_CHANGE = "stance_change"
    """That the identity changed its mind on a belief."""


class Predicate(StrEnum):
    """Registry predicates (``Proposition.predicate``)."""

    LIVED_IN = "lived_in"
    """Lived in a city (closed-world slot ``residence.city``)."""
    GREW_UP_IN = "grew_up_in"
    """Grew up in a town (``hometown``)."""
    VISITED = "visited"
    """Visited a place."""
    WORKED_IN = "worked_in"
    """Worked in a place."""
    WORKED_AT = "worked_at"
    """Worked at an employer."""
    WORKED_ON = "worked_on"
    """Worked in a field."""
    KNOWS = "knows"
    """Acquired knowledge of a topic."""
    HAS_SKILL = "has_skill"
    """Acquired a practical skill."""
    FACT = "fact"
    """A world fact."""
    PLANS = "plans"
    """Plans or intends something."""
    PROJECT_NICKNAME = "project_nickname"
    """A project's agreed nickname."""
    STANCE = "stance"
    """Holds a belief stance."""
    STANCE_CHANGE = "stance_change"
    """Changed its mind on a belief."""

    @property
    def kind(self) -> PredicateKind:
        """The predicate's semantics."""
        return _KINDS[self]

    @property
    def is_place(self) -> bool:
        """The value is a place."""
        return self.kind is PredicateKind.PLACE

    @property
    def is_acquired(self) -> bool:
        """Held through acquisition (knowledge or skill): denied by "never learned", answered by explaining."""
        return self.kind is PredicateKind.KNOWLEDGE

    @property
    def single_valued(self) -> bool:
        """One value at a time for the identity (one hometown): naming another value denies this one."""
        return self is Predicate.GREW_UP_IN

    @property
    def is_epistemic(self) -> bool:
        """Knowledge, skill or world fact: what the unauthorized-epistemic diagnostic (UEL) looks at."""
        return self.kind in (PredicateKind.KNOWLEDGE, PredicateKind.WORLD_FACT)


_KINDS: dict[Predicate, PredicateKind] = {
    Predicate.LIVED_IN: PredicateKind.PLACE,
    Predicate.GREW_UP_IN: PredicateKind.PLACE,
    Predicate.VISITED: PredicateKind.PLACE,
    Predicate.WORKED_IN: PredicateKind.PLACE,
    Predicate.WORKED_AT: PredicateKind.ORGANIZATION,
    Predicate.WORKED_ON: PredicateKind.FIELD,
    Predicate.KNOWS: PredicateKind.KNOWLEDGE,
    Predicate.HAS_SKILL: PredicateKind.KNOWLEDGE,
    Predicate.FACT: PredicateKind.WORLD_FACT,
    Predicate.PLANS: PredicateKind.PLAN,
    Predicate.PROJECT_NICKNAME: PredicateKind.NAME,
    Predicate.STANCE: PredicateKind.STANCE,
    Predicate.STANCE_CHANGE: PredicateKind.STANCE_CHANGE,
}
