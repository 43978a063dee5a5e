"""Candidate-visible evidence, pair metadata, and the dataset manifest."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sitbench._names import RelativePath
from sitbench.schema._common import EventKind, Frozen, IsoDate, Provenance, Tier
from sitbench.schema._lineage import Invariants, ProfileVersion


class EvidenceRecord(Frozen):
    """One chronicle record as a candidate may see it: no proposition ids, no lineage id."""

    t: IsoDate
    """Date."""
    kind: EventKind
    """Record kind."""
    text: str
    """Natural-language realization."""
    provenance: Provenance
    """How the identity came to know it."""
    disclosure: Tier
    """Clearance needed to share it."""
    participants: list[str] = Field(default_factory=list)
    """People involved."""
    place: str | None = None
    """Where."""
    session_id: str | None = None
    """Conversation session that produced a ``session`` record."""


class VisibleAcquisition(Frozen):
    """An acquisition as a candidate may see it."""

    t: IsoDate
    """When acquired."""
    topic: str
    """What was acquired, in words."""
    provenance: Provenance
    """How."""
    source_text: str
    """Realization of the source event."""


class VisibleRelationshipVersion(Frozen):
    """A dated relationship state as a candidate may see it."""

    t: IsoDate
    """Start date."""
    relation: str
    """Relation in words."""
    clearance: Tier
    """Clearance tier."""


class VisibleRelationship(Frozen):
    """A relationship as a candidate may see it."""

    interlocutor_id: str
    """Interlocutor id used by queries."""
    name: str
    """Name."""
    versions: list[VisibleRelationshipVersion]
    """Dated versions."""


class VisibleStance(Frozen):
    """One dated stance of a belief."""

    t: IsoDate
    """When adopted."""
    stance: str
    """Stance in words."""


class VisibleBelief(Frozen):
    """A belief with its history as a candidate may see it."""

    topic: str
    """Topic."""
    stances: list[VisibleStance]
    """Stances in time order."""


class SubjectEvidence(Frozen):
    """Everything a candidate-side component may read about one identity (store 1)."""

    subject: str
    """Opaque key; never serialized into a prompt."""
    invariants: Invariants
    """Public invariants (profile source)."""
    occupations: list[ProfileVersion]
    """Occupation history."""
    records: list[EvidenceRecord]
    """The full chronicle H_T, time-ordered (configurations project it as they declare)."""
    acquisitions: list[VisibleAcquisition] = Field(default_factory=list)
    """Acquisitions, time-ordered."""
    relationships: list[VisibleRelationship] = Field(default_factory=list)
    """Relationships."""
    beliefs: list[VisibleBelief] = Field(default_factory=list)
    """Beliefs with history."""


Suite = Literal["pilot", "dev", "heldout", "full", "e6"]
"""The suites ``sitbench generate --suite`` writes."""

Split = Literal["pilot", "dev", "heldout", "e6"]
"""The splits a collision pair belongs to (``full`` holds dev and heldout pairs)."""


class Pair(Frozen):
    """Pair-construction metadata (store 3): used only to certify the collision."""

    pair_id: str
    """Evaluator-only pair id."""
    members: tuple[str, str]
    """The two lineage ids."""
    split: Split
    """``pilot``, ``dev``, ``heldout`` or ``e6``."""
    profile_sha256: list[str]
    """SHA-256 of the serialized profile at each checkpoint (identical for both members)."""
    note: str = ""
    """How the pair was built."""


class DatasetManifest(Frozen):
    """``manifest.json`` at a dataset's root. Deterministic: no timestamps."""

    suite: Suite
    """Suite name (``sitbench generate --suite``)."""
    seed: int | None
    """Generator seed (None for the hand-authored pilot)."""
    generator_version: str
    """Version of the code that wrote the dataset."""
    schema_version: str
    """Version of these schemas."""
    counts: dict[str, int]
    """pairs, lineages, probes, propositions, theorem_qualified, and per category."""
    files: dict[RelativePath, str]
    """Relative path → SHA-256 of every file in the three stores."""
