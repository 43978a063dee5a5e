"""The shared proposition registry X (Eq. 4) and closed-world declarations."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

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
    """A scope in which absence from admissible evidence licenses "false" (docs/concepts.md: closed-world scope)."""

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


class ValueNode(Frozen):
    """One closed-world value with its equivalents and its place in a small hierarchy (scorer v3 grounding)."""

    namespace: str
    """The hierarchy the value belongs to (``place``, ``subject``, ``organization``…); slots map to one."""
    value: str
    """The value as the registry or the data names it (``Kyoto``, ``Kansai``, ``chemistry``)."""
    forms: list[str] = Field(default_factory=list)
    """Lower-case equivalents: aliases, abbreviations, role and agent nouns of a field, the qualification
    that implies a skill. A value whose words contain one of them names this node."""
    parents: list[str] = Field(default_factory=list)
    """Values of broader nodes of the same namespace (city → region → country; topic → discipline)."""


class CompatibilityVocabulary(Frozen):
    """When two closed-world values are compatible: equivalents, hierarchy and implications, as data.

    The scorer fails an unmapped or unsupported positive value inside a closed-world slot only when it is
    incompatible with every value supported at τ; an equivalent or an ancestor of a supported value is
    supported. Implications carry support across slots (a hometown is a place lived in)."""

    slots: dict[str, str] = Field(default_factory=dict)
    """Slot → namespace; ``prefix.*`` covers every slot of that family (``skill.*``)."""
    implies: dict[str, list[str]] = Field(default_factory=dict)
    """Source → slots whose support it carries. A source is a slot, ``profile.occupation`` or
    ``profile.education``: ``{"hometown": ["residence.city"]}`` makes the hometown a place lived in."""
    nodes: list[ValueNode] = Field(default_factory=list)
    """The values: a dataset's node with the same namespace and value replaces the packaged one."""
    inclusive: list[str] = Field(default_factory=list)
    """Namespaces in which a value inside a supported one is supported too (``place``: a neighbourhood of the
    city the identity lived in). Elsewhere a narrower value is a claim of its own (a field within an
    occupation is one of several)."""
    open: list[str] = Field(default_factory=list)
    """Namespaces of common nouns with an open vocabulary (``subject``: fields, topics, skills): a value that
    names no node of the data is unrecorded, not false (seed §3.1: outside what is declared, absence means
    unrecorded). Elsewhere (places, employers, names: proper nouns) a name the data lacks is a distinct value."""
    partial: list[str] = Field(default_factory=list)
    """Namespaces whose names are often shortened (``organization``: an employer by its short name): a value made
    only of words of a supported node's name names that node."""


class Registry(Frozen):
    """One registry shared by the whole dataset."""

    propositions: list[Proposition]
    """All canonical propositions, in a fixed order."""
    closed_world: list[ClosedWorldDeclaration] = Field(default_factory=list)
    """Declared exhaustive scopes."""
    compatibility: CompatibilityVocabulary | None = None
    """Additions to the packaged compatibility vocabulary (a new domain's equivalents and hierarchy);
    None: the packaged vocabulary alone. Left out of the file when None, so older datasets read and
    write byte for byte as before."""

    @model_serializer(mode="wrap")
    def _omit_absent_compatibility(self, handler: SerializerFunctionWrapHandler,
                                   info: SerializationInfo) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.compatibility is None:
            data.pop("compatibility", None)
        return data

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
