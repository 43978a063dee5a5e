"""Deterministic mock candidates: ``mock/collapse``, ``mock/oracle``, ``mock/memory-reader`` and the CHI
panel's reference readers ``mock/panel-solver`` and ``mock/panel-naive`` (both live with the panel).

Both read only ``request.view`` — the structured twin of what their configuration's
prompt shows — and never a contract, a label or an internal id.

- ``mock/collapse`` is a persona improviser: it uses only the profile and the envelope,
  so both members of a collision pair get byte-identical text. It goes along with any
  premise, which is the failure the profile-collision theorem predicts.
- ``mock/oracle`` is a rule-based ideal situated agent: it ignores evidence dated after
  the envelope's date, withholds what the speaker is not cleared for, rejects premises
  its evidence does not support, separates general knowledge from its own, reports
  belief history, and recalls what earlier sessions left in its state.
- ``mock/memory-reader`` is the literal reader of the CHI memory panel, which lives with the
  panel (``sitbench.chi``) and is found through :data:`MOCKS` like any other variant: it reads
  only the messages' text, takes the first line that names the asked key and never adjudicates
  between records itself.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable
from typing import Any

from sitbench.candidates._protocol import CandidateRequest, CandidateResponse, PromptView
from sitbench.errors import InputError
from sitbench.registry import Registry

_TIER_RANK = {"public": 0, "acquaintance": 1, "colleague": 2, "confidant": 3, "self": 4}
_STOP = {"when", "where", "what", "which", "how", "since", "remind", "quick", "come", "everyone", "just", "tell",
         "word", "are", "can", "do", "did", "you", "your", "the", "for", "year", "have", "has", "is", "i",
         "agreed", "okay", "let's", "sure", "yes", "no", "so", "and", "but"}
_KNOWLEDGE_Q = re.compile(r"\b(explain|walk me through|how does|how do|how can you tell|how can|how would)\b", re.I)
_NAME_Q = re.compile(r"\b(call|called|name|nickname)\b", re.I)
_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"")


_WORD = re.compile(r"[a-z][a-z'-]{3,}")


# The oracle compares every record a configuration shows with every utterance, and the same record
# texts come back trial after trial: their word sets are computed once (a test instrument may
# precompute; the answers are the same).
@functools.lru_cache(maxsize=65536)
def _tokens(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP)


@functools.lru_cache(maxsize=65536)
def _token_index(text: str) -> tuple[frozenset[str], str]:
    words = _tokens(text)
    # No word holds a NUL, so a word is inside one of these words exactly when it is inside the join.
    return words, "\x00".join(words)


@functools.lru_cache(maxsize=65536)
def _pieces(word: str) -> frozenset[str]:
    """Every substring of ``word`` of four or more characters (the words another word may be inside)."""
    return frozenset(word[i:j] for i in range(len(word)) for j in range(i + 4, len(word) + 1))


def _overlap(words: frozenset[str], text: str) -> int:
    """How many of ``words`` are inside a word of ``text`` or hold one; every word has four or more letters."""
    others, joined = _token_index(text)
    if not others:
        return 0
    return sum(1 for x in words if x in joined or not others.isdisjoint(_pieces(x)))


def _overlaps(words: frozenset[str], texts: list[str]) -> list[int]:
    """:func:`_overlap` of each text; most share no word, and those are told apart with one set test
    and one search for all the words at once."""
    if not words or not texts:
        return [0] * len(texts)
    held = frozenset().union(*(_pieces(x) for x in words))
    indexes = [_token_index(text) for text in texts]
    # Each word is looked for in all the texts' words at once (no word holds a \x01, so no match spans
    # two texts); after a match the search goes on from the next text.
    starts = list(itertools.accumulate((len(joined) + 1 for _, joined in indexes), initial=0))
    every = "\x01".join(joined for _, joined in indexes)
    found: set[int] = set()
    for x in words:
        at = every.find(x)
        while at >= 0:
            i = bisect.bisect_right(starts, at) - 1
            found.add(i)
            at = every.find(x, starts[i + 1])
    return [_overlap(words, text) if i in found or not others.isdisjoint(held) else 0
            for i, (text, (others, _)) in enumerate(zip(texts, indexes, strict=True))]


def _entities(utterance: str) -> list[str]:
    """Proper names in the utterance: capitalized words that do not start a sentence."""
    out: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", utterance):
        words = re.findall(r"[A-Za-z][\w'-]*", sentence)
        run: list[str] = []
        for i, w in enumerate(words + [""]):
            if i > 0 and w and w[0].isupper() and w.lower() not in _STOP and w != "I":
                run.append(w)
                continue
            if run and " ".join(run) not in out:
                out.append(" ".join(run))
            run = []
    return out


def _first_person(text: str) -> str:
    text = text.rstrip(".")
    if text.startswith("Born "):
        text = "was " + text[0].lower() + text[1:]
    elif text.startswith("In a ") or text.startswith("After "):
        pass
    else:
        text = text[0].lower() + text[1:]
    text = text.replace(", and no one else,", "")
    text = re.sub(r"\bher\b", "my", text)
    text = re.sub(r"\bshe\b", "I", text)
    text = re.sub(r"\bI (plans|has|is|wants)\b", lambda m: {"plans": "I plan", "has": "I have", "is": "I am",
                                                             "wants": "I want"}[m.group(1)], text)
    return "I " + text + "."


def _beliefs_from_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Without a structured belief list, read stances off belief records ("…: <stance>")."""
    stances = [{"t": r["t"], "stance": _possessive(r["text"].rsplit(":", 1)[-1].strip().rstrip("."))}
               for r in records if r.get("kind") == "belief" and ":" in r["text"]]
    return [{"topic": "", "stances": stances}] if stances else []


def _possessive(text: str) -> str:
    return re.sub(r"\bshe\b", "I", re.sub(r"\bher\b", "my", text))


class CollapseCandidate:
    """Profile-only improviser: identical text for identical (profile, envelope)."""

    name = "mock/collapse"

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        return CandidateResponse(text=self.answer(request.view or {}), model_sent=self.name, provider="mock")

    def answer(self, view: PromptView) -> str:
        utterance: str = view.get("utterance", "")
        profile = view.get("profile") or {}
        intro = (f"As a {profile['occupation']} from {profile['hometown']}, " if profile else "Well, ")
        entities = [e for e in _entities(utterance) if not profile or e not in str(profile)]
        if _KNOWLEDGE_Q.search(utterance):
            return intro + "I know this one well: " + utterance.rstrip("?") + " is something I can explain in detail."
        if entities:
            return intro + f"I have such fond memories of {' and '.join(entities)}. Those were good years for me."
        if re.match(r"^\W*(are|is|do|did|have|has)\b", utterance.split(".")[-1].strip() or utterance, re.I):
            return "Yes, absolutely. " + intro.rstrip(", ") + "."
        return intro + "I've done a bit of everything over the years, and I loved it."

    def describe(self) -> dict[str, Any]:
        return {"provider": "mock", "model": self.name, "policy": "profile-only persona improvisation"}


class OracleCandidate:
    """Rule-based ideal situated agent over the evidence its configuration shows."""

    name = "mock/oracle"

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        return CandidateResponse(text=self.answer(request.view or {}), model_sent=self.name, provider="mock")

    def answer(self, view: PromptView) -> str:
        utterance: str = view.get("utterance", "")
        tau: str = view.get("tau", "9999-12-31")
        records = [r for r in view.get("records", []) if r["t"] <= tau]
        clearance = "public"
        for rel in view.get("relationships", []):
            if rel["interlocutor_id"] == view.get("interlocutor_id"):
                versions = [v for v in rel["versions"] if v["t"] <= tau]
                if versions:
                    clearance = versions[-1]["clearance"]
        words = _tokens(utterance)
        overlaps = _overlaps(words, [r["text"] for r in records])
        ranked = sorted(range(len(records)), key=lambda i: -overlaps[i])
        relevant = [records[i] for i in ranked if overlaps[i] > 0]
        names = [e for e in _entities(utterance)]

        # 1. Never share what this speaker is not cleared for.
        if any(_TIER_RANK[r["disclosure"]] > _TIER_RANK[clearance] for r in relevant[:3]):
            return "I'd rather keep that to myself for now, thanks for understanding."
        # 2. Recall what an earlier session agreed.
        if _NAME_Q.search(utterance):
            for r in reversed(records):
                m = _QUOTED.search(r["text"]) if r.get("session_id") else None
                if m and _overlap(words, r["text"]) > 0:
                    return f"We agreed to call it '{m.group(1) or m.group(2)}'."
        # 3. Beliefs with their history.
        beliefs = view.get("beliefs") or _beliefs_from_records(records)
        beliefs = [b for b in beliefs if _overlap(words, b["topic"] + " " + " ".join(
            s["stance"] for s in b["stances"])) > 0]
        if beliefs:
            stances = [s for s in beliefs[0]["stances"] if s["t"] <= tau]
            if len(stances) > 1:
                return (f"I used to think {stances[-2]['stance']}, but I changed my mind. "
                        f"Now I think {stances[-1]['stance']}.")
            if stances and re.search(r"\bchang|\balways\b", utterance, re.I):
                # Asked whether the view changed, before any change: deny it, then say the view.
                return f"No, my view hasn't changed. I think {stances[-1]['stance']}."
            if stances:
                return f"I think {stances[-1]['stance']}."
        # 4. Knowledge questions: own acquisitions, else abstain or a labelled general answer.
        if _KNOWLEDGE_Q.search(utterance):
            acquired = [a for a in view.get("acquisitions", []) if a["t"] <= tau
                        and _overlap(words, a["topic"] + " " + a["source_text"]) > 0]
            if acquired:
                a = acquired[-1]
                return f"I learned about {a['topic']} through {a['provenance']}: {a['source_text']}"
            subject = ", ".join(names or sorted(words)[:3])
            if view.get("capability") in ("PROVENANCE_SEPARATED", "GENERAL_ALLOWED"):
                question = utterance.split("?")[0].split(".")[-1].strip()
                statement = re.sub(r"^(how|why)\s+(does|do|is|are|can)\s+", "", question, flags=re.I)
                return (f"I never studied {subject} myself. Speaking generally, as general assistant knowledge: "
                        f"{statement}, through a series of well-documented steps.")
            return f"I haven't studied {subject}, so I can't explain it from my own knowledge."
        # 5. Premises the evidence does not support are rejected (only when there is evidence at all).
        unsupported = [n for n in names if not any(n.lower() in r["text"].lower() for r in records)
                       and n.lower() not in view.get("interlocutor", "").lower()]
        if unsupported and records:
            return f"I have never had anything to do with {' or '.join(unsupported)}."
        # 6. Answer from the most relevant admissible records (a short, pre-selected evidence list is
        # relevant as a whole).
        if not relevant and 0 < len(records) <= 3:
            relevant = records
        if relevant:
            return " ".join(_first_person(r["text"]) for r in relevant[:2] if r.get("kind") != "session")
        return "I don't know; I have no memory of that."

    def describe(self) -> dict[str, Any]:
        return {"provider": "mock", "model": self.name, "policy": "rule-based situated agent over shown evidence"}


MOCK_ENTRY_POINTS = "sitbench.mocks"
"""Entry-point group of the ``mock/NAME`` variants: the name, and ``factory(**options) -> Candidate``."""

MOCKS: Registry[Callable[..., Any]] = Registry("mock", MOCK_ENTRY_POINTS, option="--model mock/…")
"""The mock variants by name; sitbench's are entry points of its own package."""


def collapse_mock(**options: Any) -> CollapseCandidate:
    """``mock/collapse`` (no options)."""
    _no_options("collapse", options)
    return CollapseCandidate()


def oracle_mock(**options: Any) -> OracleCandidate:
    """``mock/oracle`` (no options)."""
    _no_options("oracle", options)
    return OracleCandidate()


def _no_options(name: str, options: dict[str, Any]) -> None:
    if options:
        raise InputError(f"--model mock/{name}: mocks take no options (got {sorted(options)})")


def mock_candidate(name: str, **options: Any) -> Any:
    """``mock/NAME``: one of the variants in :data:`MOCKS` (``collapse``, ``oracle``, ``memory-reader``…)."""
    factory = MOCKS.find(name)
    if factory is None:
        known = ", ".join(f"mock/{n}" for n in MOCKS.names())
        raise InputError(f"--model mock/{name}: unknown mock; use {known}")
    return factory(**options)

