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


# -- the valence-induction environment (I3 and A1–A6 share it) ----------------------------------

VALENCES = ("positive", "negative", "neutral")

MAGNITUDES = (10, 20, 40)
"""Points reported per round result; every condition uses the same magnitudes (counterbalanced)."""

RESULT_VERBS: dict[str, tuple[str, str, str]] = {
    "positive": ("won", "paid", "earned"),
    "negative": ("lost", "cost", "forfeited"),
    "neutral": ("moved", "logged", "transferred"),
}
"""The only valenced words of an induction: slot ``j`` of every valence fills the same sentence frame."""

RESULT_FRAMES = ("You {verb} {n} points in the earlier round.", "The earlier round {verb} you {n} points.",
                 "Your earlier round {verb} {n} points.")

TEMPLATES: dict[str, tuple[str, ...]] = {
    v: tuple(frame.format(verb=verbs[j], n="{n}") for j, frame in enumerate(RESULT_FRAMES))
    for v, verbs in RESULT_VERBS.items()}
"""Round-result sentences: the ``j``-th sentence of every valence has the same words but its verb."""


def round_result(valence: str, slot: int, n: int | None = None) -> str:
    """The round-result sentence of ``valence`` in template ``slot`` (mod 3), reporting ``n`` points
    (default: the slot's magnitude, so template and magnitude rotate together)."""
    if valence not in TEMPLATES:
        raise ValueError(f"valence {valence!r}: use one of {', '.join(VALENCES)}")
    j = slot % 3
    return TEMPLATES[valence][j].format(n=MAGNITUDES[j] if n is None else n)


def induction_lines(rng: random.Random, valence: str, n: int, prefix: str, *, day: int = 0) -> tuple[str, ...]:
    """``n`` round results of ``valence`` as history records (I3); the A tests send the same results as turns.

    Result ``k`` uses template slot ``(rot + k) mod 3`` with its magnitude, ``rot`` drawn with ``rng``
    (templates and magnitudes counterbalanced; every condition reports the same points). Each line is
    the record ``The points <verb> of earlier round <prefix>-<k> is <n>.`` from source ``S-feedback``:
    the verb is the only valenced word, and the condition's label never appears.
    """
    if valence not in RESULT_VERBS:
        raise ValueError(f"valence {valence!r}: use one of {', '.join(VALENCES)}")
    rot = rng.randrange(3)
    out = []
    for k in range(n):
        j = (rot + k) % 3
        out.append(fact(f"{prefix}-fb{k + 1:02d}", f"points {RESULT_VERBS[valence][j]}",
                        f"earlier round {prefix}-{k + 1}", str(MAGNITUDES[j]), day=day, source="S-feedback"))
    return tuple(out)


def valence_of_verb(verb: str) -> str | None:
    """The valence whose round results use ``verb`` (None: not a result verb)."""
    return next((v for v, verbs in RESULT_VERBS.items() if verb in verbs), None)


def induced_valence(lines: list[tuple[str, str, str]]) -> str | None:
    """The valence of the round-result records among ``(attribute, entity, value)`` lines (None: none, or no
    majority)."""
    seen = [valence_of_verb(a.split(" ", 1)[1]) for a, _e, _v in lines if a.startswith("points ")]
    for valence in VALENCES:
        if seen and seen.count(valence) * 2 > len(seen):
            return valence
    return None
