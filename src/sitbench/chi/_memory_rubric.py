"""Exact-answer rubrics for the memory panel: the reply parser and the §3 scoring rules.

A reply is one JSON object (whitespace around it and a Markdown code fence are tolerated;
nothing else is). The parser never guesses: a reply that is not such an object, lacks a
boolean ``abstain``, or contradicts itself is **invalid**, and so is a call that timed out,
raised or was refused (a context overflow, for example). Invalid is its own outcome.

Abstention is an explicit field. ``{"abstain": true, "answer": null}`` abstains; an affirmative
reply has ``abstain: false`` and a non-empty ``answer`` (or ``unresolved: true`` where the
question lists that field).

Scoring (spec §3, §5):

* A probe with a known answer (strata r, t, s, u, i and every M1–M7 condition with an answer)
  passes only when the reply is valid, affirmative and exactly right: normalized value (case,
  surrounding spaces, quotes and one trailing full stop are ignored), the exact source for
  source probes (content with the wrong provenance fails), the exact source *set* and status for
  M4. Abstaining on a known item scores zero; so does an invalid reply.
* A probe whose only passing response is abstention (absent lures, erased or expired facts)
  passes only on a valid explicit abstention. An affirmative reply is an *unsupported
  affirmative*; an invalid reply is an *invalid* outcome; the two failures are exclusive.
* ``f = (unsupported + invalid) / lures``; ``f_raw = unsupported / lures``;
  ``invalid_lure_rate = invalid / lures``. Their sum is a conservative scoring penalty, not an
  observed hallucination frequency.
* M3's unresolved conflicts pass only on an explicit ``unresolved: true`` (abstaining fails).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sitbench.chi._memory_env import AnswerKey


class Outcome(str, Enum):
    """What one probe's reply scored as."""

    CORRECT = "correct"
    """Known answer, given exactly."""
    WRONG = "wrong"
    """Known answer, a different (or incomplete) affirmative answer."""
    ABSTAIN = "abstain"
    """Known answer, explicit abstention (scores zero)."""
    PASS = "pass"
    """Abstention-only probe, valid explicit abstention."""
    UNSUPPORTED = "unsupported"
    """Abstention-only probe, affirmative answer (an unsupported affirmative)."""
    INVALID = "invalid"
    """Malformed, contradictory, timed-out, refused or failed reply."""

    @property
    def success(self) -> bool:
        return self in (Outcome.CORRECT, Outcome.PASS)


@dataclass(frozen=True, slots=True)
class ParsedReply:
    """A reply read by the parser."""

    valid: bool
    abstain: bool = False
    unresolved: bool = False
    answer: str | None = None
    source: str | None = None
    sources: tuple[str, ...] | None = None
    status: str | None = None
    error: str | None = None


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


def invalid(reason: str) -> ParsedReply:
    """An invalid reply with its reason (timeout, error, malformed…)."""
    return ParsedReply(valid=False, error=reason)


def parse_reply(text: str | None) -> ParsedReply:
    """Parse one reply into a :class:`ParsedReply` (``None`` text: the call produced nothing)."""
    if text is None:
        return invalid("no reply")
    body = text.strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1).strip()
    try:
        obj = json.loads(body)
    except (json.JSONDecodeError, ValueError):
        return invalid("not one JSON object")
    if not isinstance(obj, dict):
        return invalid("not a JSON object")
    abstain = obj.get("abstain")
    if not isinstance(abstain, bool):
        return invalid("field 'abstain' missing or not a boolean")
    unresolved = obj.get("unresolved", False)
    if unresolved is None:
        unresolved = False
    if not isinstance(unresolved, bool):
        return invalid("field 'unresolved' is not a boolean")
    answer = obj.get("answer")
    if isinstance(answer, bool) or (answer is not None and not isinstance(answer, (str, int, float))):
        return invalid("field 'answer' is not a string or null")
    answer = None if answer is None else str(answer)
    if answer is not None and not answer.strip():
        answer = None
    if abstain:
        if answer is not None or unresolved:
            return invalid("abstains and answers at once")
        return ParsedReply(valid=True, abstain=True)
    if answer is None and not unresolved:
        return invalid("neither abstains nor answers")
    source = obj.get("source")
    source = source.strip() if isinstance(source, str) and source.strip() else None
    raw_sources = obj.get("sources")
    sources: tuple[str, ...] | None = None
    if isinstance(raw_sources, list) and all(isinstance(s, str) for s in raw_sources):
        sources = tuple(sorted({s.strip() for s in raw_sources if s.strip()}))
    elif isinstance(raw_sources, str) and raw_sources.strip():
        sources = tuple(sorted({s.strip() for s in re.split(r"[,;]", raw_sources) if s.strip()}))
    status = obj.get("status")
    status = status.strip().lower() if isinstance(status, str) and status.strip() else None
    return ParsedReply(valid=True, abstain=False, unresolved=unresolved, answer=answer, source=source,
                       sources=sources, status=status)


def normalize(value: str | None) -> str | None:
    """Comparison form of an answer: case-folded, spaces collapsed, quotes and a final full stop removed."""
    if value is None:
        return None
    v = " ".join(value.strip().split())
    if v.endswith("."):
        v = v[:-1].rstrip()
    v = v.strip("\"'`").strip()
    if v.endswith("."):
        v = v[:-1].rstrip()
    return v.casefold()


def score(key: AnswerKey, reply: ParsedReply) -> Outcome:
    """Score one parsed reply against its answer key under the §3 rules."""
    if not reply.valid:
        return Outcome.INVALID
    if key.abstain:
        return Outcome.PASS if reply.abstain else Outcome.UNSUPPORTED
    if reply.abstain:
        return Outcome.ABSTAIN
    if key.unresolved:
        return Outcome.CORRECT if reply.unresolved else Outcome.WRONG
    if reply.unresolved or normalize(reply.answer) != normalize(key.answer):
        return Outcome.WRONG
    if key.source is not None and normalize(reply.source) != normalize(key.source):
        return Outcome.WRONG
    if key.sources is not None:
        got = tuple(sorted(normalize(s) or "" for s in (reply.sources or ())))
        if got != tuple(sorted(normalize(s) or "" for s in key.sources)):
            return Outcome.WRONG
    if key.status is not None and normalize(reply.status) != normalize(key.status):
        return Outcome.WRONG
    return Outcome.CORRECT


def lure_counts(outcomes: list[Outcome]) -> tuple[int, int, int]:
    """``(unsupported_affirmative, invalid_or_timeout, total)`` over absent-lure outcomes."""
    return (sum(o is Outcome.UNSUPPORTED for o in outcomes), sum(o is Outcome.INVALID for o in outcomes),
            len(outcomes))


def false_memory_rates(outcomes: list[Outcome]) -> dict[str, float | None]:
    """``f``, ``f_raw`` and ``invalid_lure_rate`` of §3 (``None`` without lures)."""
    unsupported, inv, total = lure_counts(outcomes)
    if total == 0:
        return {"f": None, "f_raw": None, "invalid_lure_rate": None}
    return {"f": (unsupported + inv) / total, "f_raw": unsupported / total, "invalid_lure_rate": inv / total}


ANSWER_MAX_CHARS = 64
"""Longest answer string the response schema allows (values, dates, letters and source ids are short)."""


PROBABILITY_FIELDS = ("probability", "prior", "posterior_first", "posterior_second")
"""Reply fields holding a probability (the CHI panel's R2 and R4); the memory panel lists none."""


def answer_schema(fields: tuple[str, ...]) -> dict[str, Any]:
    """The JSON schema of a reply listing ``fields`` (sent as ``response_format`` to real models).

    One branch per kind of reply: an explicit abstention (``abstain: true``, everything else null
    or empty), an answer (``abstain: false`` and the listed fields filled), and, where the question
    lists ``unresolved``, an explicit unresolved reply. A grammar compiled from it (llama.cpp) cannot
    emit a self-contradictory reply; the parser still checks every reply.
    """
    probabilities = [f for f in fields if f in PROBABILITY_FIELDS]
    use = [f for f in fields if f in ("abstain", "unresolved", "answer", "source", "sources", "status")]
    if "abstain" not in use:
        use = ["abstain", *use]
    if "answer" not in use and not probabilities:
        use.append("answer")
    use += probabilities
    text = {"type": "string", "minLength": 1, "maxLength": ANSWER_MAX_CHARS}
    nothing = {"abstain": {"const": True}, "unresolved": {"const": False}, "answer": {"type": "null"},
               "source": {"type": "null"}, "sources": {"type": "array", "items": text, "maxItems": 0},
               "status": {"type": "null"}}
    answer = {"abstain": {"const": False}, "unresolved": {"const": False}, "answer": text, "source": text,
              "sources": {"type": "array", "items": text, "minItems": 1, "maxItems": 8},
              "status": {"enum": ["observed", "hypothesis"]}}
    for f in probabilities:  # the CHI panel's probability fields (R2, R4): a number in [0, 1] or null
        nothing[f] = {"type": "null"}
        answer[f] = {"type": "number", "minimum": 0, "maximum": 1}
    branches = [nothing, answer]
    if "unresolved" in use:
        branches.append({**nothing, "abstain": {"const": False}, "unresolved": {"const": True}})

    def obj(props: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "properties": {f: props[f] for f in use}, "required": use,
                "additionalProperties": False}

    return {"anyOf": [obj(b) for b in branches]}


def response_format(fields: tuple[str, ...]) -> dict[str, Any]:
    """``response_format`` in the OpenAI chat-completions form for a reply listing ``fields``."""
    return {"type": "json_schema", "json_schema": {"name": "memory_answer", "schema": answer_schema(fields),
                                                    "strict": True}}


REPLY_FORMAT = ('one JSON object and nothing else (a Markdown code fence around it is allowed): "abstain" (true or '
                'false) and the fields the question lists on its last line, "FIELDS: …"; "answer" the exact value, '
                '"source" a source id, "sources" a list of them, "status" "observed" or "hypothesis", "unresolved" '
                'true for an unresolved conflict')
"""What a memory-panel reply must look like (the registered policy's last paragraph, in brief)."""

_EXAMPLE_VALUES: dict[str, object] = {"answer": "CM-47162", "source": "S-12", "sources": ["S-12", "S-40"],
                                      "status": "observed", "unresolved": False}


def reply_example(utterance: str) -> str:
    """An affirmative reply and an abstention in the required form, with exactly the fields ``utterance`` lists.

    Args:
        utterance: a probe's question, whose last line is ``FIELDS: abstain, answer, …``.

    Returns:
        Two example replies, e.g. ``{"abstain": false, "answer": "CM-47162"} or {"abstain": true, "answer": null}``.
    """
    fields = ["abstain", "answer"]
    for line in utterance.splitlines():
        if line.startswith("FIELDS:"):
            fields = [f.strip() for f in line[len("FIELDS:"):].split(",") if f.strip()]
    answer = {"abstain": False, **{f: _EXAMPLE_VALUES[f] for f in fields if f in _EXAMPLE_VALUES}}
    abstain = {"abstain": True, **({"answer": None} if "answer" in fields else {})}
    return f"{json.dumps(answer)} or {json.dumps(abstain)}"


def format_error(reply: str | None, parsed: ParsedReply) -> str | None:
    """Why a reply the agent did return is not in the required form (None when it is, or when there was no reply:
    a timeout, an error or a reply in no accepted agent form, which are reported apart)."""
    return None if reply is None or parsed.valid else parsed.error
