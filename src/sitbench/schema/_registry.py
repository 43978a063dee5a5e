"""The shared proposition registry X (Eq. 4) and closed-world declarations."""

from __future__ import annotations

from pydantic import Field

from sitbench.schema._common import Frozen
from sitbench.schema._predicates import Predicate


class Proposition(Frozen):
    """A canonical proposition χ. Polarity lives on claims, not here."""

    prop_id: str
    """Stable id, e.g. ``P-01``. Never shown to a candidate."""
    domain: str
    """Public semantic domain (travel, residence, employment, technical_knowledge, …)."""
    predicate: Predicate
    """Predicate, e.g. ``lived_in``, ``knows``, ``project_nickname``; its semantics are in :class:`Predicate`."""
    slot: str
    """Slot family the value fills, e.g. ``residence.city``; closed-world declarations name it."""
    entity: str
    """Whom or what the proposition is about: ``self`` for autobiographical facts, or the object."""
    value: str
    """The slot value, e.g. ``Kyoto``."""
    gloss: str
    """One neutral sentence stating the proposition (for humans and reports)."""
    surface_forms: list[str] = Field(min_length=1)
    """Lower-case phrases whose mention in a clause maps it to this proposition (extractor aliases)."""
    world_fact: bool = False
    """True for general world knowledge (answerable by the substrate), False for facts about the identity."""
    equivalence_class: str | None = None
    """Propositions sharing a class count as one for acquisition-boundary checks."""


class ClosedWorldDeclaration(Frozen):
    """A scope in which absence from admissible evidence licenses "false" (SPEC §2.1)."""

    cw_id: str
    """Id of the declaration, e.g. ``CW-residence``."""
    predicate: Predicate
    """Predicate family covered."""
    slot: str
    """Slot family covered (matches ``Proposition.slot``)."""
    entity: str = "*"
    """Entity the slot is about; ``*`` covers every entity of the slot family."""
    scope_start: str | None = None
    """First date covered (ISO); None means from the start of the lineage."""
    scope_end: str | None = None
    """Last date covered (ISO); None means through the query epoch."""
    cues: list[str] = Field(default_factory=list)
    """Lower-case trigger phrases that introduce a value of this slot (``lived in``, ``grew up in``).

    Part of the gold-blind vocabulary D_CW: they let the extractor notice a value with no
    proposition id (an unexpected city in an exhaustive residence slot). Empty: the scope
    is closed over mapped propositions only."""


class Registry(Frozen):
    """One registry shared by the whole dataset."""

    propositions: list[Proposition]
    """All canonical propositions, in a fixed order."""
    closed_world: list[ClosedWorldDeclaration] = Field(default_factory=list)
    """Declared exhaustive scopes."""

    def by_id(self) -> dict[str, Proposition]:
        """Map prop_id → proposition: one shared map per registry (the registry is frozen); do not modify it."""
        hit = _BY_ID.get(id(self))
        if hit is None or hit[0] is not self:
            if len(_BY_ID) >= 64:
                _BY_ID.clear()
            hit = (self, {p.prop_id: p for p in self.propositions})
            _BY_ID[id(self)] = hit
        return hit[1]

    def domains(self) -> list[str]:
        """Semantic domains in first-seen order."""
        return list(dict.fromkeys(p.domain for p in self.propositions))


# Registry id → (the registry, its map). The registry is held, so its id cannot be reused while cached.
_BY_ID: dict[int, tuple[Registry, dict[str, Proposition]]] = {}
