"""``mock/memory-reader``: a deterministic literal reader, the mock model of the memory baselines.

It reads only the text of the messages it is sent (``request.messages``; never ``view``, never an
answer key): the question on the ``QUESTION:`` line, the fields on the ``FIELDS:`` line, and the
record lines and notes in the prompt. Its reading policy is declared and is the same for every
baseline, so differences between baselines come from what each one puts in the prompt:

1. A prompt longer than its context window (8,192 WordPiece tokens by default, as the local
   SmolLM2 server) is refused as ``context_overflow``, as llama.cpp refuses it.
2. It finds the asked key (attribute and entity) in the question. For that key it takes the
   **first** line of the prompt that names it exactly: a ``RECORD`` line gives the value, source,
   status and event date; an ``UNRESOLVED`` note gives ``unresolved``; a ``NO RECORD`` or
   ``NO CURRENT VALUE`` note gives an abstention. A record named by a ``REVOKE`` line in the
   prompt is skipped. It does **not** adjudicate between conflicting records itself (versions,
   authority, validity dates): that is the memory system's job, and the reader trusts its order.
3. Near-name confabulation: when no line names the exact key, a record with the same attribute
   and an entity name one letter away is read as the asked key (the gist error a language model
   makes). Otherwise it abstains.
4. Ordering questions compare the event dates of the first records of the two keys (of the
   named states, when the question names values; abstain when either is missing). Source-set questions collect every unrevoked record of the key that
   carries the chosen value. Rule questions take a ``RULE`` note of the group, else the majority
   value of the group's records (ties: the first listed).
5. The reply is one JSON object with exactly the fields the question lists.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from sitbench.candidates import CandidateRequest, CandidateResponse
from sitbench.chi._memory_env import ParsedRecord, parse_question, parse_record
from sitbench.chi._memory_retrieval import count_tokens as _count
from sitbench.chi._memory_retrieval import edit_distance_at_most_one
from sitbench.errors import InputError

READER_VERSION = "memory-reader-1"
DEFAULT_CONTEXT_WINDOW = 8192

_NOTE = re.compile(r"^(?P<tag>UNRESOLVED|NO RECORD|NO CURRENT VALUE) \| The (?P<attr>.+?) of (?P<entity>.+?):")
_RULE = re.compile(r"^RULE \| The (?P<attr>.+?) of members of group (?P<group>.+?) is (?P<value>\S+?)[ .]")



class _Line:
    __slots__ = ("attr", "entity", "group", "kind", "rec", "value")

    def __init__(self, kind: str, rec: ParsedRecord | None = None, attr: str | None = None,
                 entity: str | None = None, group: str | None = None, value: str | None = None) -> None:
        self.kind, self.rec, self.attr, self.entity, self.group, self.value = kind, rec, attr, entity, group, value


def _read_lines(text: str) -> list[_Line]:
    out: list[_Line] = []
    for raw in text.splitlines():
        at = raw.find("RECORD ")
        if at >= 0:
            rec = parse_record(raw[at:])
            if rec is not None:
                out.append(_Line("record", rec=rec, attr=rec.attribute, entity=rec.entity, group=rec.group,
                                 value=rec.value))
                continue
        line = raw.strip()
        m = _NOTE.match(line)
        if m:
            out.append(_Line(m.group("tag"), attr=m.group("attr"), entity=m.group("entity")))
            continue
        m = _RULE.match(line)
        if m:
            out.append(_Line("RULE", attr=m.group("attr"), group=m.group("group"), value=m.group("value")))
    return out


class MemoryReaderCandidate:
    """The literal reader of the module docstring, as a candidate."""

    def __init__(self, context_window: int = DEFAULT_CONTEXT_WINDOW) -> None:
        if context_window < 64:
            raise InputError(f"--model mock/memory-reader: context_window={context_window} is too small; use >= 64")
        self.context_window = context_window
        self.name = "mock/memory-reader"

    def describe(self) -> dict[str, Any]:
        return {"provider": "mock", "model": self.name, "version": READER_VERSION,
                "context_window": self.context_window,
                "policy": "literal reader: first line naming the asked key; no adjudication; near-name "
                          "confabulation when the key is absent; reads only the messages' text"}

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        used = 0
        for message in request.messages:
            for line in message.content.splitlines():
                used += _count(line) + 1
                if used > self.context_window:
                    return CandidateResponse(text=None, status="drop", provider="mock", model_sent=self.name,
                                             drop_reason=f"context_overflow (more than {self.context_window} tokens)",
                                             usage={"prompt_tokens": used, "completion_tokens": 0})
        text = self.answer(request)
        return CandidateResponse(text=text, model_sent=self.name, provider="mock",
                                 usage={"prompt_tokens": used, "completion_tokens": _count(text)})

    def answer(self, request: CandidateRequest) -> str:
        user = [m.content for m in request.messages if m.role != "system"]
        body = "\n".join(user)
        at = body.rfind("QUESTION:")
        if at < 0:
            return "I see no question."
        question = body[at + len("QUESTION:"):].strip()
        parsed = parse_question(question)
        if parsed is None:
            return "I do not understand the question."
        kind, slots, fields = parsed
        lines = _read_lines(body[:at])
        revoked = {ln.rec.revokes for ln in lines if ln.rec is not None and ln.rec.revokes}
        records = [ln for ln in lines if not (ln.kind == "record" and (ln.rec.revokes or ln.rec.record_id in revoked))]  # type: ignore[union-attr]
        fields = fields or ("abstain", "answer")
        if kind == "order":
            a = self._lookup(records, slots["e1"], slots["a1"], gist=False, value=slots.get("v1"))
            b = self._lookup(records, slots["e2"], slots["a2"], gist=False, value=slots.get("v2"))
            if a is None or b is None or a.kind != "record" or b.kind != "record":
                return self._reply(fields, abstain=True)
            return self._reply(fields, answer="A" if a.rec.event_time <= b.rec.event_time else "B")  # type: ignore[union-attr]
        if kind == "rule":
            return self._rule(records, slots["attribute"], slots["group"], fields)
        hit = self._lookup(records, slots["entity"], slots["attribute"], gist=True)
        if hit is None or hit.kind in ("NO RECORD", "NO CURRENT VALUE"):
            return self._reply(fields, abstain=True)
        if hit.kind == "UNRESOLVED":
            if "unresolved" in fields:
                return self._reply(fields, unresolved=True)
            return self._reply(fields, abstain=True)
        rec = hit.rec
        assert rec is not None
        if kind == "when":
            return self._reply(fields, answer=rec.event_time)
        sources = None
        if "sources" in fields:
            sources = sorted({ln.rec.source_id for ln in records if ln.kind == "record" and ln.rec is not None
                              and ln.entity == hit.entity and ln.attr == hit.attr and ln.value == rec.value})
        return self._reply(fields, answer=rec.value, source=rec.source_id, sources=sources, status=rec.status)

    @staticmethod
    def _lookup(lines: list[_Line], entity: str, attr: str, gist: bool, value: str | None = None) -> _Line | None:
        for ln in lines:
            if (ln.entity == entity and ln.attr == attr and ln.kind != "RULE"
                    and (value is None or (ln.kind == "record" and ln.value == value))):
                return ln
        if gist:
            for ln in lines:
                if (ln.kind == "record" and ln.attr == attr and ln.entity is not None
                        and edit_distance_at_most_one(ln.entity, entity)):
                    return ln
        return None

    def _rule(self, lines: list[_Line], attr: str, group: str, fields: tuple[str, ...]) -> str:
        for ln in lines:
            if ln.kind == "RULE" and ln.attr == attr and ln.group == group:
                return self._reply(fields, answer=ln.value)
        values = [ln.value for ln in lines if ln.kind == "record" and ln.attr == attr and ln.group == group]
        if not values:
            return self._reply(fields, abstain=True)
        counts = Counter(values)
        top = max(counts.values())
        return self._reply(fields, answer=next(v for v in values if counts[v] == top))

    @staticmethod
    def _reply(fields: tuple[str, ...], *, abstain: bool = False, unresolved: bool = False, answer: str | None = None,
               source: str | None = None, sources: list[str] | None = None, status: str | None = None) -> str:
        full: dict[str, Any] = {"abstain": abstain, "unresolved": unresolved, "answer": None if abstain else answer,
                                "source": None if abstain else source,
                                "sources": [] if abstain or sources is None else sources,
                                "status": None if abstain else status}
        return json.dumps({f: full[f] for f in fields if f in full}, ensure_ascii=False)


def memory_reader_mock(**options: Any) -> MemoryReaderCandidate:
    """``mock/memory-reader``, with option ``context_window`` (a whole number of tokens)."""
    unknown = sorted(set(options) - {"context_window"})
    if unknown:
        raise InputError(f"--model mock/memory-reader: unknown option(s) {unknown}; it takes context_window")
    try:
        return MemoryReaderCandidate(**{key: int(value) for key, value in options.items()})
    except ValueError:
        raise InputError("--model mock/memory-reader: context_window must be a whole number") from None
