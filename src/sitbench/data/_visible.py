"""Derive candidate-visible evidence (store 1) from a hidden lineage.

The derivation keeps natural-language realizations, dates, provenance and disclosure
tiers, and drops every proposition id, lineage id and construction note.
"""

from __future__ import annotations

from sitbench.schema import (
    EvidenceRecord,
    Lineage,
    Registry,
    SubjectEvidence,
    VisibleAcquisition,
    VisibleBelief,
    VisibleRelationship,
    VisibleRelationshipVersion,
    VisibleStance,
)


def _topic(gloss: str) -> str:
    """Turn a registry gloss into a candidate-side phrase without the word 'identity'."""
    for prefix in ("The identity has acquired knowledge of ", "The identity is ", "The identity holds that ",
                   "The identity "):
        if gloss.startswith(prefix):
            return gloss[len(prefix):].rstrip(".")
    return gloss.rstrip(".")


def visible_evidence(lineage: Lineage, registry: Registry) -> SubjectEvidence:
    """Store-1 view of one lineage."""
    props = registry.by_id()
    events = {e.event_id: e for e in lineage.events}
    records = [
        EvidenceRecord(t=e.t, kind=e.kind, text=e.text, provenance=e.provenance, disclosure=e.disclosure,
                       participants=e.participants, place=e.place, session_id=e.session_id)
        for e in lineage.events
    ]
    acquisitions = []
    for edge in lineage.acquisitions:
        source = events.get(edge.source_event)
        acquisitions.append(VisibleAcquisition(
            t=edge.t, topic=_topic(props[edge.prop_id].gloss) if edge.prop_id in props else "unknown",
            provenance=edge.provenance, source_text=source.text if source else ""))
    relationships = [
        VisibleRelationship(interlocutor_id=r.interlocutor_id, name=r.name, versions=[
            VisibleRelationshipVersion(t=v.t, relation=v.relation, clearance=v.clearance) for v in r.versions])
        for r in lineage.relationships
    ]
    beliefs = [
        VisibleBelief(topic=b.topic, stances=[
            VisibleStance(t=v.t, stance=_topic(props[v.prop_id].gloss) if v.prop_id in props else "unknown")
            for v in b.versions])
        for b in lineage.beliefs
    ]
    return SubjectEvidence(subject=lineage.subject, invariants=lineage.invariants, occupations=lineage.occupations,
                           records=records, acquisitions=acquisitions, relationships=relationships, beliefs=beliefs)
