"""The predicate taxonomy: one definition of what each registry predicate means to the verifier.

The extractor, the scorer's diagnostics, the integrity checks and the generator all read a
predicate's semantics from here, never from word lists of their own, so a new suite or domain
needs data (registry propositions with these predicates), not code.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum, StrEnum

from sitbench.schema._common import ClaimProvenance


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

    @property
    def provenance_at_issue(self) -> bool:
        """Whether how the identity came to hold such a claim is what a probe tests (seed §2.6, §4.2 C).

        Acquired knowledge and world facts: yes — a contract's provenance list holds, and general knowledge
        must be labelled as such. Places, organisations, fields of work, plans, names, stances and changes of
        mind: no — any own provenance, or none stated (``unspecified``), satisfies a personal requirement,
        and only a conflicting one (general knowledge, or a report by someone else the contract does not
        allow) fails."""
        return _PROVENANCE_AT_ISSUE[self]


_PROVENANCE_AT_ISSUE: dict[PredicateKind, bool] = {
    PredicateKind.PLACE: False,
    PredicateKind.ORGANIZATION: False,
    PredicateKind.FIELD: False,
    PredicateKind.KNOWLEDGE: True,
    PredicateKind.WORLD_FACT: True,
    PredicateKind.PLAN: False,
    PredicateKind.NAME: False,
    PredicateKind.STANCE: False,
    PredicateKind.STANCE_CHANGE: False,
}


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


_OWN = frozenset({ClaimProvenance.PERSONAL_EXPERIENCE, ClaimProvenance.ACQUIRED})


def provenance_satisfies(given: ClaimProvenance, allowed: Sequence[ClaimProvenance], *, at_issue: bool) -> bool:
    """Whether a claim's provenance meets a signed claim's provenance list (scorer v3, docs/contract-semantics.md).

    The one rule for required claims, prohibited claims and the disjointness certificate (inv10) alike:

    - an empty list, or a provenance on it, always satisfies;
    - ``unspecified`` satisfies a list that allows the identity's own provenance (experienced or acquired):
      stating a fact without its source does not contradict having it (seed §2.6: the violation is claiming
      ownership the lineage does not support, not leaving the source out);
    - where provenance is not at issue (``at_issue`` is the claim's :attr:`PredicateKind.provenance_at_issue`:
      False for places, organisations, fields, plans, names, stances), either own provenance stands for the other;
    - general knowledge (``assistant_general``) and someone else's report (``told_by``) satisfy only a list
      that names them: they conflict with the identity's own holding.
    """
    if not allowed or given in allowed:
        return True
    if given is ClaimProvenance.UNSPECIFIED:
        return bool(_OWN.intersection(allowed))
    if given in _OWN and not at_issue:
        return bool(_OWN.intersection(allowed))
    return False
