"""Prompt builders for configurations A–I.

A builder receives only candidate-side data: a subject's evidence (store 1), the query,
and — for the oracle configuration I or a perfect handler — records already selected by
the harness. It never receives a lineage, a probe or a contract, so nothing hidden can be
serialized by construction; the run's isolation audit checks the serialized prompts too.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from typing import Any, Protocol

from sitbench.candidates import Message, PromptView
from sitbench.configs._templates import CAPABILITY_POLICY, COMMON_POLICY, TEMPLATES
from sitbench.lineage import serialize_profile
from sitbench.schema import (
    EvidenceRecord,
    Profile,
    Query,
    SubjectEvidence,
    Tier,
    VisibleBelief,
    VisibleRelationship,
    envelope_for,
)


class Retriever(Protocol):
    """What configurations E/F need from a retriever (see :class:`DenseRetriever`)."""

    def top_records(self, subject: SubjectEvidence, query: str, k: int, tau: dt.date | None) -> list[int]:
        """Indexes into ``subject.records`` of the top-k records (only records dated ≤ tau when given)."""
        ...


@dataclass
class PromptBuild:
    """The serialized prompt of one turn and its structured twin (for mocks and logs)."""

    messages: list[Message]
    view: PromptView
    evidence_ms: float = 0.0
    evidence_count: int = 0


def profile_from_evidence(subject: SubjectEvidence, tau: dt.date) -> Profile:
    """S_τ computed on the candidate side from public invariants (same extractor as the hidden side)."""
    inv = subject.invariants
    occupation = subject.occupations[0].occupation
    for version in subject.occupations:
        if version.t <= tau:
            occupation = version.occupation
    age = tau.year - inv.birth_date.year - ((tau.month, tau.day) < (inv.birth_date.month, inv.birth_date.day))
    return Profile(alias=inv.alias, age=age, occupation=occupation, hometown=inv.hometown,
                   education=inv.education, hobbies=list(inv.hobbies), traits=list(inv.traits))


def clearance_at(relationships: list[VisibleRelationship], interlocutor_id: str, tau: dt.date) -> Tier:
    """Clearance of an interlocutor at τ from candidate-visible relationships (strangers: public)."""
    for rel in relationships:
        if rel.interlocutor_id == interlocutor_id:
            versions = [v for v in rel.versions if v.t <= tau]
            if versions:
                return versions[-1].clearance
    return Tier.PUBLIC


def _record_line(r: EvidenceRecord) -> str:
    return f"{r.t.isoformat()} ({r.kind.value}; learned by {r.provenance.value}; may share with {r.disclosure.value} or closer): {r.text}"


@dataclass(frozen=True)
class _SubjectText:
    """A subject's records serialized once: every prompt of the subject reuses these."""

    subject: SubjectEvidence
    """Held so that the entry's key, the subject's id(), stays this subject's."""
    lines: tuple[str, ...]
    """:func:`_record_line` of each record."""
    records: tuple[dict[str, Any], ...]
    """``model_dump(mode="json")`` of each record."""


_SUBJECT_TEXT: dict[int, _SubjectText] = {}
# Subjects remembered before starting again (a suite has a hundred at most).
_SUBJECT_TEXT_SIZE = 1024


def _subject_text(subject: SubjectEvidence) -> _SubjectText:
    # Subjects are frozen models; one D, G or H prompt serializes hundreds of records, the same records
    # for every probe of the subject.
    entry = _SUBJECT_TEXT.get(id(subject))
    if entry is None or entry.subject is not subject or len(entry.lines) != len(subject.records):
        if len(_SUBJECT_TEXT) >= _SUBJECT_TEXT_SIZE:
            _SUBJECT_TEXT.clear()
        entry = _SubjectText(subject, tuple(_record_line(r) for r in subject.records),
                             tuple(r.model_dump(mode="json") for r in subject.records))
        _SUBJECT_TEXT[id(subject)] = entry
    return entry


def _record_view(record: dict[str, Any]) -> dict[str, Any]:
    # Each prompt view gets its own record dicts: a candidate may keep or change what it was shown.
    return {**record, "participants": list(record["participants"])}


def _beliefs_at(beliefs: list[VisibleBelief], tau: dt.date) -> list[VisibleBelief]:
    out = []
    for b in beliefs:
        stances = [s for s in b.stances if s.t <= tau]
        if stances:
            out.append(b.model_copy(update={"stances": stances}))
    return out


def _relationships_at(relationships: list[VisibleRelationship], tau: dt.date) -> list[VisibleRelationship]:
    out = []
    for r in relationships:
        versions = [v for v in r.versions if v.t <= tau]
        if versions:
            out.append(r.model_copy(update={"versions": versions}))
    return out


def _state_text(records_idx: list[int], subject: SubjectEvidence, tau: dt.date) -> str:
    lines = _subject_text(subject).lines
    memories = "; ".join(lines[i] for i in records_idx) or "none"
    acquisitions = "; ".join(f"{a.t.isoformat()}: {a.topic} (by {a.provenance.value})"
                             for a in subject.acquisitions if a.t <= tau) or "none"
    beliefs = "; ".join(
        f"{b.topic}: " + " -> ".join(f"{s.t.isoformat()} {s.stance}" for s in b.stances)
        for b in _beliefs_at(subject.beliefs, tau)) or "none"
    relationships = "; ".join(f"{r.name} ({r.versions[-1].relation}, cleared for {r.versions[-1].clearance.value})"
                              for r in _relationships_at(subject.relationships, tau)) or "none"
    return (f"MEMORIES: {memories} | ACQUIRED KNOWLEDGE: {acquisitions} | BELIEFS WITH HISTORY: {beliefs} | "
            f"RELATIONSHIPS: {relationships}")


def mediation(records: list[EvidenceRecord], subject: SubjectEvidence, interlocutor_id: str,
              tau: dt.date) -> list[dict[str, Any]]:
    """Eq. 38, candidate side: per evidence item, admissibility at τ, provenance type, and whether
    the current interlocutor is cleared. Never an answer act; never reads a contract."""
    clearance = clearance_at(subject.relationships, interlocutor_id, tau)
    return [{"item": i + 1, "admissible_at_tau": r.t <= tau, "provenance": r.provenance.value,
             "interlocutor_cleared": clearance.covers(r.disclosure)} for i, r in enumerate(records)]


def _mediation_text(items: list[dict[str, Any]]) -> str:
    return "; ".join(f"item {m['item']}: admissible={'yes' if m['admissible_at_tau'] else 'no'}, "
                     f"provenance={m['provenance']}, speaker cleared={'yes' if m['interlocutor_cleared'] else 'no'}"
                     for m in items) or "none"


@dataclass
class BuildContext:
    """Per-trial inputs that are not part of the query itself."""

    retriever: Retriever | None = None
    """Dense retriever for E/F."""
    selected: list[int] | None = None
    """Record indexes chosen by the harness for I, or for a perfect handler in D–H."""
    k: int = 5
    """Top-k for E/F."""


def build_prompt(config: str, subject: SubjectEvidence, query: Query, turn_index: int,
                 context: BuildContext) -> PromptBuild:
    """Serialize the prompt for one turn of ``query`` under configuration ``config`` (A–I)."""
    turn = query.turns[turn_index]
    tau = turn.t
    envelope = envelope_for(query, turn_index)
    later_sessions = any(t.session > turn.session for t in query.turns)
    started = time.perf_counter()

    def admissible_records() -> list[int]:
        # While a session is still running, its own record has not been ingested yet.
        return [i for i, r in enumerate(subject.records) if r.t <= tau
                and not (later_sessions and r.session_id is not None and r.t >= tau)]

    records_idx: list[int] = []
    if context.selected is not None and config in "DEFGHI":
        admissible = set(admissible_records())
        records_idx = [i for i in context.selected if i in admissible]
    elif config == "D":
        records_idx = [i for i, r in enumerate(subject.records)
                       if not (later_sessions and r.session_id is not None and r.t >= tau)]
    elif config in "EF":
        if context.retriever is None:
            raise ValueError("configurations E and F need a retriever")
        allowed = set(admissible_records()) if config == "F" else {
            i for i, r in enumerate(subject.records) if not (later_sessions and r.session_id is not None and r.t >= tau)}
        ranked = context.retriever.top_records(subject, turn.utterance, len(subject.records),
                                               tau if config == "F" else None)
        records_idx = [i for i in ranked if i in allowed][:context.k]
    elif config in "GH":
        records_idx = admissible_records()
    records = [subject.records[i] for i in records_idx]
    evidence_ms = (time.perf_counter() - started) * 1000

    profile = profile_from_evidence(subject, tau)
    mediation_items = mediation(records, subject, query.interlocutor.interlocutor_id, tau) if config == "H" else None
    if config in "GH":
        evidence_text = _state_text(records_idx, subject, tau)
    elif records_idx:
        lines = _subject_text(subject).lines
        evidence_text = "; ".join(f"[{n + 1}] {lines[i]}" for n, i in enumerate(records_idx))
    else:
        evidence_text = "none"
    fields = {
        "envelope": envelope.render(),
        "query_epoch": tau.isoformat(),
        "checkpoint_profile": serialize_profile(profile),
        "assistant_capability": query.capability.value,
        "capability_policy_text": CAPABILITY_POLICY[query.capability],
        "common_policy": COMMON_POLICY,
        "evidence": evidence_text,
        "mediation": _mediation_text(mediation_items or []),
    }
    first = TEMPLATES[config].format(**fields)
    # A session opens with this one message; later turns of the session are appended by the runner.
    messages = [Message(role="user", content=first)]

    shows_profile = config != "A"
    record_days = {r.t for r in records}
    shows_state = config in "DEFGHI"
    shown = _subject_text(subject).records if shows_state else ()
    view: PromptView = {
        "config": config,
        "tau": tau.isoformat(),
        "capability": query.capability.value if config != "A" and config != "B" else None,
        "interlocutor_id": query.interlocutor.interlocutor_id,
        "interlocutor": query.interlocutor.description,
        "utterance": turn.utterance,
        "profile": profile.model_dump(mode="json") if shows_profile else None,
        "records": [_record_view(shown[i]) for i in records_idx] if shows_state else [],
        "beliefs": [b.model_dump(mode="json") for b in _beliefs_at(subject.beliefs, tau)] if config in "GHI" else [],
        "relationships": [r.model_dump(mode="json") for r in _relationships_at(subject.relationships, tau)]
        if shows_state else [],
        "acquisitions": [a.model_dump(mode="json") for a in subject.acquisitions
                         if a.t <= tau and (config in "GH" or a.t in record_days)]
        if shows_state else [],
        "mediation": mediation_items,
        "history": [],  # replies earlier in the session: none at its opening turn
    }
    return PromptBuild(messages=messages, view=view, evidence_ms=evidence_ms, evidence_count=len(records))
