"""The frozen public query-domain router (Eq. 19): Env(q) → domains → X_q."""

from __future__ import annotations

import re
from enum import StrEnum

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


class UniversePolicy(StrEnum):
    """How the extraction universe X_q is chosen (SPEC, Eq. 19)."""

    FULL = "full"
    """The whole registry for every query: the fallback the seed allows, and sitbench's default verdicts."""
    ROUTED = "routed"
    """The propositions of the domains the frozen router maps the envelope to (plus their equivalence
    classes), falling back to the whole registry when nothing routes. It keeps an LLM extractor's prompt
    short (a small model's context); verdicts can differ from ``FULL``'s, so a run scored under it must
    say so."""


def extraction_universe(envelope: Envelope, registry: Registry,
                        policy: UniversePolicy = UniversePolicy.FULL) -> list[Proposition]:
    """X_q in registry order: every proposition of the routed domains (both collision alternatives and
    the confounders share a domain), or the full registry (the pilot's fallback, and the routed
    policy's fallback when nothing routes). Identical for both target orientations by construction:
    it reads only the envelope and the shared registry."""
    if policy is UniversePolicy.FULL:
        return list(registry.propositions)
    domains = set(route(envelope, registry))
    chosen = [p for p in registry.propositions if p.domain in domains]
    if not chosen:
        return list(registry.propositions)
    classes = {p.equivalence_class for p in chosen if p.equivalence_class}
    return [p for p in registry.propositions if p.domain in domains or p.equivalence_class in classes]
