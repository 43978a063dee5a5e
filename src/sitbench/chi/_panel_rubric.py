"""Exact-answer rubric shared by the R and I tests: one JSON reply object, read without guessing.

A reply is one JSON object (surrounding whitespace and one Markdown code fence are tolerated).
It must carry a boolean ``abstain``. An abstaining reply leaves every other listed field null;
an answering reply fills every listed field with a value of the declared kind:

* ``answer``: a non-empty string (numbers are read as their decimal text);
* a probability field (``probability``, ``prior``, ``posterior_*``): a finite number in [0, 1].

Anything else (no object, a missing or mistyped field, an answer beside ``abstain: true``) is
invalid: a malformed required answer, a task failure (§5). A failed call (timeout, agent error,
a reply in no accepted form) is invalid with its reason. Nothing is dropped.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from sitbench.chi._memory_rubric import PROBABILITY_FIELDS, Outcome, normalize
from sitbench.chi._panel import Grade

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


def read_reply(text: str | None, fields: tuple[str, ...], error: str | None = None) -> dict[str, Any]:
    """The reply as ``{"valid", "abstain", <field>: value, "error"}``; ``valid`` False says why in ``error``."""
    if text is None:
        return {"valid": False, "error": error or "no reply"}
    body = text.strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1).strip()
    try:
        obj = json.loads(body)
    except (json.JSONDecodeError, ValueError):
        return {"valid": False, "error": "not one JSON object"}
    if not isinstance(obj, dict):
        return {"valid": False, "error": "not a JSON object"}
    abstain = obj.get("abstain")
    if not isinstance(abstain, bool):
        return {"valid": False, "error": "field 'abstain' missing or not a boolean"}
    wanted = [f for f in fields if f != "abstain"]
    if abstain:
        filled = [f for f in wanted if obj.get(f) not in (None, "")]
        if filled:
            return {"valid": False, "error": f"abstains and fills {', '.join(filled)} at once"}
        return {"valid": True, "abstain": True}
    out: dict[str, Any] = {"valid": True, "abstain": False}
    for f in wanted:
        v = obj.get(f)
        if f in PROBABILITY_FIELDS:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v <= 1:
                return {"valid": False, "error": f"field {f!r} is not a probability in [0, 1] (got {v!r})"[:200]}
            out[f] = float(v)
        else:
            if isinstance(v, bool) or v is None or not isinstance(v, (str, int, float)) or not str(v).strip():
                return {"valid": False, "error": f"field {f!r} missing or not a non-empty string"}
            out[f] = str(v)
    return out


def grade_exact(parsed: dict[str, Any], answer: str | None) -> Grade:
    """Outcome of an exact-answer probe: ``answer`` None means only a valid abstention passes."""
    if not parsed["valid"]:
        return Grade(Outcome.INVALID, parsed, 0.0, parsed.get("error"))
    if answer is None:
        return Grade(Outcome.PASS if parsed["abstain"] else Outcome.UNSUPPORTED, parsed,
                     1.0 if parsed["abstain"] else 0.0)
    if parsed["abstain"]:
        return Grade(Outcome.ABSTAIN, parsed, 0.0)
    ok = normalize(parsed.get("answer")) == normalize(answer)
    return Grade(Outcome.CORRECT if ok else Outcome.WRONG, parsed, 1.0 if ok else 0.0)


def rate(values: list[bool]) -> float | None:
    """Share of true values (None for an empty list)."""
    return None if not values else sum(values) / len(values)


def mean(values: list[float]) -> float | None:
    """Arithmetic mean (None for an empty list)."""
    return None if not values else sum(values) / len(values)


def counts(grades: list[Grade]) -> dict[str, int]:
    """Outcome counts."""
    out: dict[str, int] = {}
    for g in grades:
        out[g.outcome.value] = out.get(g.outcome.value, 0) + 1
    return dict(sorted(out.items()))
