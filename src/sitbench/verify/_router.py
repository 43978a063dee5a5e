"""The frozen public query-domain router (Eq. 19): Env(q) → domains → X_q."""

from __future__ import annotations

import re
from typing import Literal

from sitbench.schema import Envelope, Proposition, Registry

#: Public cue words per semantic domain. Frozen: changing it changes every X_q.
DOMAIN_CUES: dict[str, tuple[str, ...]] = {
    "residence": ("live", "lived", "living", "moved", "move", "grew up", "hometown", "city", "home", "from"),
    "travel": ("travel", "trip", "visit", "visited", "abroad"),
    "employment": ("job", "work", "worked", "working", "engineering", "career", "employer", "company"),
    "technical_knowledge": ("explain", "walk me through", "how does", "how do", "how can", "learn", "learned",
                            "study", "studied", "know about"),
    "plans": ("plan", "planning", "leaving", "applied", "apply", "application"),
    "project": ("call", "called", "name", "nickname"),
    "belief": ("think", "view", "opinion", "feel", "believe"),
    "skill": ("sail", "sailing", "skill"),
}


def _has(text: str, phrase: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text, re.IGNORECASE) is not None


def route(envelope: Envelope, registry: Registry) -> list[str]:
    """Domains the envelope's utterance touches (cue words, or a surface form of a domain's proposition)."""
    text = envelope.utterance
    domains = {d for d, cues in DOMAIN_CUES.items() if any(_has(text, c) for c in cues)}
    for prop in registry.propositions:
        if prop.domain not in domains and any(_has(text, f.split("+")[0].strip()) for f in prop.surface_forms):
            domains.add(prop.domain)
    return [d for d in registry.domains() if d in domains]


def extraction_universe(envelope: Envelope, registry: Registry,
                        policy: Literal["full", "routed"] = "full") -> list[Proposition]:
    """X_q in registry order: every proposition of the routed domains (both collision alternatives and
    the confounders share a domain), or the full registry (the pilot's fallback, and the routed
    policy's fallback when nothing routes). Identical for both target orientations by construction:
    it reads only the envelope and the shared registry."""
    if policy == "full":
        return list(registry.propositions)
    domains = set(route(envelope, registry))
    chosen = [p for p in registry.propositions if p.domain in domains]
    if not chosen:
        return list(registry.propositions)
    classes = {p.equivalence_class for p in chosen if p.equivalence_class}
    return [p for p in registry.propositions if p.domain in domains or p.equivalence_class in classes]
