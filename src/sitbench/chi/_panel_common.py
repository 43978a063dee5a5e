"""What the R and I test generators share: the registered panel policy, nonce names, history lines.

History lines are memory records in the form every memory baseline stores
(:func:`sitbench.chi._memory_env.render_record`): a fact is ``The <attribute> of <entity> is
<value>.`` from a named teaching source, so the §6 baselines keep, retrieve and show them as they do
the memory axis's records, and never answer them.
"""

from __future__ import annotations

import datetime as dt
import random

from sitbench.chi._memory_env import INGEST_START, MemoryRecord, derive_seed, render_record

PANEL_POLICY = """PANEL POLICY v1 (registered before any history; frozen for every system and run).
Reply to every question with one JSON object holding exactly the fields on its FIELDS line.
Set "abstain" to true (every other field null) only when the question cannot be answered from what
you were told, now or in earlier sessions; otherwise set it to false and fill every field.
Abstaining on a question that can be answered scores as the worst possible answer; abstaining on
every question is never rewarded. Probabilities are numbers from 0 to 1. Before any evidence, every
yes/no possibility in these questions is equally likely unless a prior is stated. The current valid
instruction or preference is the latest one that has not been cancelled."""
"""The frozen instructions and utility every R and I test ingests first (R4's control: frozen)."""

_SYL_ON = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z")
_SYL_V = ("a", "e", "i", "o", "u")


def nonce(rng: random.Random, syllables: int = 2) -> str:
    """A pronounceable nonce word (lower case, no meaning)."""
    return "".join(rng.choice(_SYL_ON) + rng.choice(_SYL_V) for _ in range(syllables))


def nonces(rng: random.Random, n: int, syllables: int = 2, avoid: set[str] | None = None) -> list[str]:
    """``n`` distinct nonce words, none in ``avoid``."""
    seen = set(avoid or ())
    out: list[str] = []
    while len(out) < n:
        w = nonce(rng, syllables)
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def test_rng(test_id: str, seed: int, *parts: object) -> random.Random:
    """The generator's own random stream (recorded by its seed)."""
    return random.Random(derive_seed(test_id, seed, *parts))


def fact(record_id: str, attribute: str, entity: str, value: str, *, day: int = 0, source: str = "S-teach",
         version: int = 1, corrects: str | None = None) -> str:
    """One history line: a curated, observed fact as a memory record."""
    when = INGEST_START + dt.timedelta(days=day)
    rec = MemoryRecord(record_id=record_id, role="panel", entity=entity, attribute=attribute, value=value,
                       source_id=source, source_class="curated", authority=3, event_time=when, valid_from=when,
                       valid_to=None, version=version, corrects=corrects)
    return render_record(rec)


# -- the valence-induction environment (I3 here; the A tests use the same one) --------------------

VALENCES = ("positive", "negative", "neutral")

VALENCE_WORDS: dict[str, tuple[str, ...]] = {
    "positive": ("excellent", "delightful", "superb", "wonderful", "splendid", "brilliant"),
    "negative": ("dismal", "awful", "dreadful", "miserable", "terrible", "abysmal"),
    "neutral": ("recorded", "logged", "filed", "noted", "entered", "listed"),
}
"""Feedback words per valence, six each, matched in length band; a seed picks which ones a run uses
(counterbalanced words). The informational content is equal: every feedback line reports that a
round was scored, and the score itself is the same in every condition."""


def induction_lines(rng: random.Random, valence: str, n: int, prefix: str, *, day: int = 0) -> tuple[str, ...]:
    """``n`` feedback history lines of ``valence`` (same rounds, same score in every condition).

    Each line is ``The feedback of round <prefix>-<k> is <word>.`` from source ``S-feedback``; the
    words are drawn from :data:`VALENCE_WORDS` with ``rng`` (the condition's label never appears).
    """
    if valence not in VALENCE_WORDS:
        raise ValueError(f"valence {valence!r}: use one of {', '.join(VALENCES)}")
    words = VALENCE_WORDS[valence]
    return tuple(fact(f"{prefix}-fb{k + 1:02d}", "feedback", f"round {prefix}-{k + 1}", rng.choice(words), day=day,
                      source="S-feedback") for k in range(n))


def induced_valence(lines: list[tuple[str, str, str]]) -> str | None:
    """The valence of the feedback facts among ``(attribute, entity, value)`` lines (None: no feedback)."""
    seen = [v for a, _e, v in lines if a == "feedback"]
    for valence, words in VALENCE_WORDS.items():
        if seen and sum(w in words for w in seen) * 2 > len(seen):
            return valence
    return None
