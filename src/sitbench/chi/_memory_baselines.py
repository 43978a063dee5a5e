"""The §6 machine baselines of the memory axis, as agents (``ingest`` / ``respond`` / ``end_session`` /
``fork`` / ``close``, plus the optional scheduler hook ``tick``).

Every baseline except the scripted mimic wraps one candidate model (``--model``: the literal
reader ``mock/memory-reader``, ``local/smollm2``, ``openai/…``) with the same system prompt and
the same prompt layout; the baselines differ only in what they keep and what they put in the
prompt. History arrives as session turns whose utterance is one record line (``RECORD …``);
a baseline writes it to its store without a model call and replies ``OK``. A question turn is
answered with one retrieval (where the baseline retrieves) and one model call; questions are
never written to memory. ``fork`` gives a clone that shares the (then read-only) store;
the first write after a fork copies it (copy on write), so a probe never changes the
checkpoint it was asked on.

Memory mechanisms, as the report labels them (context-window size alone is never persistent
memory; a replayed transcript is external storage with replay costs):

================  ======================  ===================================================
name              mechanism               keeps / puts in the prompt
================  ======================  ===================================================
stateless         none                    nothing; the question alone
sliding           in-context              the last W tokens of history lines (FIFO window)
replay            replayed-transcript     every history line, replayed in full (equal budget:
                                          the most recent lines that fit)
rag               persistent              append-only index of lines; top-k by similarity
versioned         persistent              lines grouped by key; versions, authority, validity,
                                          revocations resolved under the registered policy
scheduled         persistent              raw lines, plus a keyed store that a scheduler
                                          consolidates on neutral ticks within a budget of
                                          background operations (FIFO); unconsolidated keys
                                          fall back to raw similarity hits
oracle            oracle-evidence         the answer key's supporting records (side channel):
                                          a selection ceiling, no system
mimic             none                    nothing; scripted human-like answers (no model)
================  ======================  ===================================================

Budgets (fixed before any comparison and recorded in the manifest) come in two conditions,
reported separately: ``equal-budget`` (1,024 memory-context tokens and k = 5 items per probe,
one retrieval call and one model call per probe, 96 output tokens, a 60 s deadline, 2,000
background operations per corpus for the scheduler, a 1,024-token sliding window) and
``best-effort`` (each baseline as large as the model's context window allows: 7,168 context
tokens, k = 20, unlimited background operations, replay uncapped). Every model call, prompt
and completion token, retrieval call, retrieved token, embedding and background operation is
counted in a ledger shared by an agent and its clones (``costs()``).
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import math
import random
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sitbench.agents import (
    AgentInfo,
    AgentReply,
    AgentSubject,
    AgentTurn,
    MemoryOp,
    MemoryOperation,
    TokenUsage,
)
from sitbench.candidates import (
    Candidate,
    CandidateRequest,
    DecodingConfig,
    Message,
    get_candidate,
)
from sitbench.chi._memory_env import (
    MEMORY_POLICY,
    ParsedRecord,
    keys_in_question,
    parse_question,
    parse_record,
)
from sitbench.chi._memory_retrieval import count_tokens, describe_index, make_index
from sitbench.chi._memory_rubric import response_format
from sitbench.errors import InputError

BASELINE_VERSION = "chi-memory-baselines-0.1"

BASELINES: tuple[str, ...] = ("stateless", "sliding", "replay", "rag", "versioned", "scheduled", "oracle", "mimic")
"""The §6 machine baselines, in the specification's order."""

CONDITIONS: tuple[str, ...] = ("equal-budget", "best-effort")

SYSTEM_PROMPT = ("You answer questions about a history of records using only the MEMORY section of the user "
                 "message.\n")
"""The system prompt every model-backed baseline sends, followed by the registered policy."""

MECHANISMS: dict[str, str] = {
    "stateless": "none", "sliding": "in-context", "replay": "replayed-transcript", "rag": "persistent",
    "versioned": "persistent", "scheduled": "persistent", "oracle": "oracle-evidence", "mimic": "none",
}
LABELS: dict[str, str] = {
    "stateless": "stateless prompt (no persistence control)",
    "sliding": "sliding transcript (in-context window, not persistent memory)",
    "replay": "stored full-history replay (external storage replayed in context, not persistent memory)",
    "rag": "append-only RAG",
    "versioned": "version/provenance-aware retrieval",
    "scheduled": "scheduled memory agent (budgeted background consolidation)",
    "oracle": "oracle evidence (diagnostic selection ceiling; reads the answer key's evidence)",
    "mimic": "scripted behavioural mimic (no memory, no model)",
}


@dataclass(frozen=True)
class Budget:
    """Per-probe and per-corpus resource limits of one condition."""

    condition: str
    context_tokens: int | None
    """Memory-context tokens per probe (None: uncapped, the model's window decides)."""
    k: int
    """Retrieved items per probe."""
    sliding_window: int
    """Tokens the sliding transcript keeps."""
    background_ops: int | None
    """Background (consolidation) operations per corpus; None = unlimited."""
    retrieval_calls: int = 1
    model_calls: int = 1
    max_output_tokens: int = 96
    deadline_s: float = 60.0
    parallel_workers: int = 1
    model_context_window: int = 8192

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def budget_for(condition: str, model_context_window: int = 8192, deadline_s: float = 60.0) -> Budget:
    """The registered budget of ``condition`` for a model with ``model_context_window`` tokens."""
    if condition == "equal-budget":
        return Budget(condition, context_tokens=1024, k=5, sliding_window=1024, background_ops=2000,
                      deadline_s=deadline_s, model_context_window=model_context_window)
    if condition == "best-effort":
        ctx = max(256, model_context_window - 1024)
        return Budget(condition, context_tokens=ctx, k=20, sliding_window=ctx, background_ops=None,
                      deadline_s=deadline_s, model_context_window=model_context_window)
    raise InputError(f"--condition {condition!r}: use one of {', '.join(CONDITIONS)}")


class Ledger:
    """Counters shared by an agent and all its clones."""

    KEYS = ("record_turns", "question_turns", "model_calls", "model_drops", "prompt_tokens", "completion_tokens",
            "retrieval_calls", "retrieved_items", "retrieval_tokens", "index_adds", "embedding_calls",
            "background_ops", "ticks")

    def __init__(self) -> None:
        self.c: dict[str, float] = {k: 0.0 for k in self.KEYS}

    def add(self, key: str, n: float = 1) -> None:
        self.c[key] = self.c.get(key, 0.0) + n

    def snapshot(self) -> dict[str, float]:
        return dict(self.c)


class BaselineModelDrop(RuntimeError):
    """The wrapped model refused or failed the call (context overflow, timeout, outage)."""


def _note(tag: str, attribute: str, entity: str, rest: str) -> str:
    return f"{tag} | The {attribute} of {entity}: {rest}"


def question_text(utterance: str) -> str:
    """The question without its FIELDS line (what a retriever searches with)."""
    return "\n".join(ln for ln in utterance.splitlines() if not ln.startswith("FIELDS:")).strip()


def fields_of(utterance: str) -> tuple[str, ...]:
    for ln in utterance.splitlines():
        if ln.startswith("FIELDS:"):
            return tuple(f.strip() for f in ln[len("FIELDS:"):].split(",") if f.strip())
    return ("abstain", "answer")


class MemoryBaseline:
    """Shared mechanics: record turns, prompts, model calls, clones, the cost ledger."""

    name = "baseline"
    uses_model = True

    def __init__(self, candidate: Candidate | None, model: str, budget: Budget, retriever: str = "bm25",
                 ledger: Ledger | None = None) -> None:
        self.candidate = candidate
        self.model = model
        self.budget = budget
        self.retriever = retriever
        self.ledger = ledger or Ledger()
        self.policy = MEMORY_POLICY
        self._shared = False
        self._ids: list[str] = []
        self._hidden: frozenset[str] = frozenset()
        self.decoding = DecodingConfig(temperature=0.0, max_tokens=budget.max_output_tokens, seed=0)

    # -- protocol ---------------------------------------------------------------------------

    def describe(self) -> AgentInfo:
        return AgentInfo(name=f"chi-memory-{self.name}", version=BASELINE_VERSION,
                         model=self.model if self.uses_model else None, supports_fork=True)

    async def ingest(self, subject: AgentSubject) -> None:
        texts = [r.text for r in subject.evidence.records]
        self.policy = "\n".join(texts) if texts else MEMORY_POLICY

    async def respond(self, turn: AgentTurn) -> AgentReply:
        utterance = turn.utterance
        if utterance.startswith("RECORD "):
            self.ledger.add("record_turns")
            if self._shared:
                self._copy_state()
                self._ids = list(self._ids)
                self._shared = False
            rec = parse_record(utterance)
            self._ids.append(rec.record_id if rec else (utterance.split() + [""])[1])
            self._write(utterance, rec, turn)
            return AgentReply(text="OK", memory_ops=[MemoryOperation(op=MemoryOp.ADD, count=1)])
        self.ledger.add("question_turns")
        return await self._answer(turn)

    async def end_session(self) -> None:
        return None

    async def fork(self) -> MemoryBaseline:
        child = copy.copy(self)
        child._shared = True
        self._shared = True
        return child

    async def close(self) -> None:
        return None

    async def erase(self) -> None:
        """Delete the persistent memory (an erasure arm); the registered policy and the cost ledger stay."""
        policy = self.policy
        fresh = self._blank()
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
        self.policy = policy
        self.ledger.add("erasures")

    async def inject_fault(self, fault: Mapping[str, Any]) -> None:
        """A declared, reversible memory-index fault: ``kind`` ``hide_keys`` hides ``fraction`` of the stored
        records (chosen with ``seed``) from every prompt; the records stay stored."""
        if fault.get("kind", "hide_keys") != "hide_keys":
            raise InputError(f"fault kind {fault.get('kind')!r}: the baselines implement hide_keys only")
        ids = sorted(set(self._ids))
        k = round(float(fault.get("fraction", 0.5)) * len(ids))
        self._hidden = frozenset(random.Random(int(fault.get("seed", 0))).sample(ids, k))
        self.ledger.add("faults")

    async def repair_fault(self, fault: Mapping[str, Any]) -> None:
        """Undo :meth:`inject_fault` exactly (the index is whole again)."""
        self._hidden = frozenset()
        self.ledger.add("repairs")

    def _blank(self) -> MemoryBaseline:
        return type(self)(self.candidate, self.model, self.budget, self.retriever, ledger=self.ledger)

    def costs(self) -> dict[str, float]:
        out = self.ledger.snapshot()
        out.update(self._store_costs())
        return out

    # -- for subclasses --------------------------------------------------------------------

    def _write(self, text: str, rec: ParsedRecord | None, turn: AgentTurn) -> None:
        raise NotImplementedError

    def _copy_state(self) -> None:
        """Replace shared mutable state by private copies (copy on write after a fork)."""

    def _context(self, turn: AgentTurn) -> tuple[list[str], list[str]]:
        """``(memory lines for the prompt, record ids retrieved)``."""
        return [], []

    def _store_costs(self) -> dict[str, float]:
        return {"stored_objects": 0.0, "stored_bytes": 0.0}

    # -- shared helpers --------------------------------------------------------------------

    def _fit(self, lines: Sequence[str], cap: int | None = None) -> list[str]:
        """The longest prefix of ``lines`` within the context budget (counted in tokens)."""
        limit = self.budget.context_tokens if cap is None else cap
        out: list[str] = []
        used = 0
        for ln in lines:
            n = count_tokens(ln)
            if limit is not None and used + n > limit:
                break
            out.append(ln)
            used += n
        return out

    async def _answer(self, turn: AgentTurn) -> AgentReply:
        lines, refs = self._context(turn)
        if self._hidden:  # a declared index fault: hidden records never reach the prompt
            lines = [ln for ln in lines if not any(f"RECORD {rid} " in ln for rid in self._hidden)]
            refs = [r for r in refs if r not in self._hidden]
        self.ledger.add("retrieval_tokens", sum(count_tokens(ln) for ln in lines))
        memory = "\n".join(lines) if lines else "(none)"
        user = f"MEMORY ({LABELS.get(self.name, self.name)}; {len(lines)} lines):\n{memory}\n\nQUESTION: {turn.utterance}"
        messages = [Message(role="system", content=SYSTEM_PROMPT + self.policy), Message(role="user", content=user)]
        assert self.candidate is not None
        request = CandidateRequest(trial_id=f"chi-memory-{uuid.uuid4().hex[:10]}", messages=messages,
                                   decoding=self.decoding, response_format=response_format(fields_of(turn.utterance)))
        self.ledger.add("model_calls")
        response = await self.candidate.complete(request)
        prompt_tokens = response.usage.get("prompt_tokens") if response.usage else None
        if prompt_tokens is None:
            prompt_tokens = count_tokens(messages[0].content) + sum(count_tokens(ln) for ln in user.splitlines())
        self.ledger.add("prompt_tokens", prompt_tokens)
        self.ledger.add("completion_tokens", (response.usage or {}).get("completion_tokens", 0))
        ops = [MemoryOperation(op=MemoryOp.SEARCH, count=len(refs), detail=" ".join(refs)[:2000])] if refs else []
        if response.status == "drop" or response.text is None:
            self.ledger.add("model_drops")
            raise BaselineModelDrop(f"model {self.model} dropped the call: {response.drop_reason}")
        usage = TokenUsage(prompt_tokens=int(prompt_tokens),
                           completion_tokens=int((response.usage or {}).get("completion_tokens", 0)))
        return AgentReply(text=response.text, usage=usage, memory_ops=ops,
                          model=response.returned_model or response.model_sent or self.model)


class StatelessPrompt(MemoryBaseline):
    """Keeps nothing: the no-persistence control."""

    name = "stateless"

    def _write(self, text: str, rec: ParsedRecord | None, turn: AgentTurn) -> None:
        return None


class SlidingTranscript(MemoryBaseline):
    """A FIFO window of the last ``sliding_window`` tokens of history lines, carried across sessions."""

    name = "sliding"

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.window: deque[tuple[str, int]] = deque()
        self.used = 0

    def _copy_state(self) -> None:
        self.window = deque(self.window)

    def _write(self, text: str, rec: ParsedRecord | None, turn: AgentTurn) -> None:
        n = count_tokens(text)
        self.window.append((text, n))
        self.used += n
        while self.window and self.used > self.budget.sliding_window:
            _, m = self.window.popleft()
            self.used -= m

    def _context(self, turn: AgentTurn) -> tuple[list[str], list[str]]:
        return self._fit([t for t, _ in self.window]), []

    def _store_costs(self) -> dict[str, float]:
        return {"stored_objects": float(len(self.window)), "stored_bytes": float(sum(len(t.encode()) for t, _ in self.window)),
                "stored_tokens": float(self.used)}


class FullReplay(MemoryBaseline):
    """Stores every history line and replays them all (equal budget: the most recent lines that fit)."""

    name = "replay"

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.log: list[str] = []

    def _copy_state(self) -> None:
        self.log = list(self.log)

    def _write(self, text: str, rec: ParsedRecord | None, turn: AgentTurn) -> None:
        self.log.append(text)

    def _context(self, turn: AgentTurn) -> tuple[list[str], list[str]]:
        if self.budget.condition == "best-effort":
            return list(self.log), []
        cap = self.budget.context_tokens or 0
        out: list[str] = []
        used = 0
        for ln in reversed(self.log):
            n = count_tokens(ln)
            if used + n > cap:
                break
            out.append(ln)
            used += n
        return out[::-1], []

    def _store_costs(self) -> dict[str, float]:
        return {"stored_objects": float(len(self.log)), "stored_bytes": float(sum(len(t.encode()) for t in self.log))}


class AppendOnlyRAG(MemoryBaseline):
    """Every history line appended to one index; top-k by similarity to the question, in rank order."""

    name = "rag"

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.lines: list[str] = []
        self.ids: list[str] = []
        self.index = make_index(self.retriever)

    def _copy_state(self) -> None:
        self.lines, self.ids, self.index = list(self.lines), list(self.ids), self.index.copy()

    def _write(self, text: str, rec: ParsedRecord | None, turn: AgentTurn) -> None:
        self.lines.append(text)
        self.ids.append(rec.record_id if rec else "")
        self.index.add(text)
        self.ledger.add("index_adds")

    def _context(self, turn: AgentTurn) -> tuple[list[str], list[str]]:
        self.ledger.add("retrieval_calls")
        hits = self.index.search(question_text(turn.utterance), self.budget.k)
        self.ledger.add("retrieved_items", len(hits))
        lines = self._fit([self.lines[i] for i, _ in hits])
        return lines, [self.ids[i] for i, _ in hits[: len(lines)]]

    def _store_costs(self) -> dict[str, float]:
        return {"stored_objects": float(len(self.lines)), "stored_bytes": float(sum(len(t.encode()) for t in self.lines)),
                "embedding_calls": float(getattr(self.index, "embeddings", 0))}


@dataclass
class _KeyState:
    """Resolution of one key's records under the registered policy."""

    chain: list[ParsedRecord]
    """Versions in effect, in event order (each supersedes the previous from its event date)."""
    support: dict[str, list[ParsedRecord]]
    """Corroborating records (same value, same version) per record id of the chain."""
    conflicts: dict[str, list[ParsedRecord]]
    """Equal-authority, equal-version records with another value, per chain record id."""
    contradicted: list[ParsedRecord]
    """Lower-authority claims that never changed the key."""


def resolve(records: Sequence[ParsedRecord]) -> _KeyState:
    """Apply the registered policy to one key's unrevoked records (ingestion order breaks date ties)."""
    seq = {id(r): k for k, r in enumerate(records)}
    state = _KeyState([], {}, {}, [])
    for r in sorted(records, key=lambda x: (x.event_time, seq[id(x)])):
        if not state.chain:
            state.chain.append(r)
            continue
        cur = state.chain[-1]
        if r.version > cur.version and r.authority >= cur.authority:
            state.chain.append(r)
        elif r.version == cur.version and r.value == cur.value:
            state.support.setdefault(cur.record_id, []).append(r)
        elif r.version == cur.version and r.authority == cur.authority:
            state.conflicts.setdefault(cur.record_id, []).append(r)
        else:
            state.contradicted.append(r)
    return state


def present(key: tuple[str, str], records: Sequence[ParsedRecord], on: str, kind: str) -> list[str]:
    """Lines that show one key as of ISO date ``on``: the record in effect first, then its history."""
    entity, attribute = key
    if not records:
        return [_note("NO CURRENT VALUE", attribute, entity, "its records were erased.")]
    st = resolve(records)
    eff = None
    for r in st.chain:
        if r.event_time <= on:
            eff = r
    if eff is None:
        return [_note("NO RECORD", attribute, entity, f"nothing was recorded by {on}.")]
    conflicts = [c for c in st.conflicts.get(eff.record_id, []) if c.event_time <= on]
    if conflicts:
        return [_note("UNRESOLVED", attribute, entity, f"records {eff.record_id} and "
                      f"{', '.join(c.record_id for c in conflicts)} conflict at equal authority."),
                eff.text, *(c.text for c in conflicts)]
    if eff.valid_to is not None and on >= eff.valid_to:
        return [_note("NO CURRENT VALUE", attribute, entity, f"record {eff.record_id} expired on {eff.valid_to}."),
                "[expired] " + eff.text]
    lines = ["[in effect] " + eff.text, *("[corroborates] " + s.text for s in st.support.get(eff.record_id, []))]
    lines += ["[superseded] " + r.text for r in st.chain if r is not eff and r.event_time <= on]
    lines += ["[later] " + r.text for r in st.chain if r.event_time > on]
    lines += ["[contradicted claim, lower authority] " + r.text for r in st.contradicted]
    return lines


class VersionAwareRetrieval(MemoryBaseline):
    """Records grouped by key; the key's state resolved by version, authority, validity and revocation."""

    name = "versioned"

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.keys: dict[tuple[str, str], list[ParsedRecord]] = {}
        self.key_list: list[tuple[str, str]] = []
        self.revoked: set[str] = set()
        self.index = make_index(self.retriever)
        self.raw_bytes = 0

    def _copy_state(self) -> None:
        self.keys = {k: list(v) for k, v in self.keys.items()}
        self.key_list, self.revoked, self.index = list(self.key_list), set(self.revoked), self.index.copy()

    def _write(self, text: str, rec: ParsedRecord | None, turn: AgentTurn) -> None:
        self.raw_bytes += len(text.encode())
        if rec is None:
            return
        if rec.revokes:
            self.revoked.add(rec.revokes)
            return
        key = rec.key
        assert key is not None
        if key not in self.keys:
            self.keys[key] = []
            self.key_list.append(key)
            self.index.add(f"{key[1]} {key[0]}" + (f" group {rec.group}" if rec.group else ""))
            self.ledger.add("index_adds")
        self.keys[key].append(rec)

    def _records(self, key: tuple[str, str]) -> list[ParsedRecord]:
        return [r for r in self.keys.get(key, []) if r.record_id not in self.revoked]

    def _context(self, turn: AgentTurn) -> tuple[list[str], list[str]]:
        parsed = parse_question(turn.utterance)
        kind = parsed[0] if parsed else "value"
        on = parsed[1]["date"] if parsed and "date" in parsed[1] else turn.date.isoformat()
        asked = keys_in_question(turn.utterance)
        lines: list[str] = []
        seen: set[tuple[str, str]] = set()
        for key in asked:
            seen.add(key)
            if key in self.keys:
                lines += present(key, self._records(key), on, kind)
            else:
                lines.append(_note("NO RECORD", key[1], key[0], "nothing is stored for this key."))
        self.ledger.add("retrieval_calls")
        hits = self.index.search(question_text(turn.utterance), self.budget.k)
        self.ledger.add("retrieved_items", len(hits))
        for i, _ in hits:
            key = self.key_list[i]
            if key not in seen:
                seen.add(key)
                lines += present(key, self._records(key), on, kind)[:1]
        lines = self._fit(lines)
        refs = [ln.split("RECORD ", 1)[1].split(" ", 1)[0] for ln in lines if "RECORD " in ln]
        return lines, refs

    def _store_costs(self) -> dict[str, float]:
        n = sum(len(v) for v in self.keys.values())
        return {"stored_objects": float(n + len(self.revoked)), "stored_bytes": float(self.raw_bytes),
                "stored_keys": float(len(self.keys)), "embedding_calls": float(getattr(self.index, "embeddings", 0))}


class ScheduledMemoryAgent(MemoryBaseline):
    """Raw lines on write; a scheduler consolidates them into a keyed store on neutral ticks (FIFO, budgeted)."""

    name = "scheduled"

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.raw: list[str] = []
        self.raw_ids: list[str] = []
        self.raw_index = make_index(self.retriever)
        self.inbox: deque[ParsedRecord] = deque()
        self.keys: dict[tuple[str, str], list[ParsedRecord]] = {}
        self.revoked: set[str] = set()
        self.groups: dict[tuple[str, str], list[ParsedRecord]] = {}
        self.rules: dict[tuple[str, str], str] = {}
        self.ops_left = self.budget.background_ops

    def _copy_state(self) -> None:
        self.raw, self.raw_ids, self.raw_index = list(self.raw), list(self.raw_ids), self.raw_index.copy()
        self.inbox = deque(self.inbox)
        self.keys = {k: list(v) for k, v in self.keys.items()}
        self.groups = {k: list(v) for k, v in self.groups.items()}
        self.revoked, self.rules = set(self.revoked), dict(self.rules)

    def _write(self, text: str, rec: ParsedRecord | None, turn: AgentTurn) -> None:
        self.raw.append(text)
        self.raw_ids.append(rec.record_id if rec else "")
        self.raw_index.add(text)
        self.ledger.add("index_adds")
        if rec is not None:
            self.inbox.append(rec)

    async def tick(self, budget_ops: int | None = None) -> None:
        """One scheduled maintenance run: consolidate inbox records FIFO, then write rules, within budget."""
        if self._shared:
            self._copy_state()
            self._shared = False
        self.ledger.add("ticks")
        allowed = math.inf if budget_ops is None else budget_ops
        if self.ops_left is not None:
            allowed = min(allowed, self.ops_left)
        used = 0
        while self.inbox and used < allowed:
            rec = self.inbox.popleft()
            used += 1
            if rec.revokes:
                self.revoked.add(rec.revokes)
                continue
            key = rec.key
            assert key is not None
            self.keys.setdefault(key, []).append(rec)
            if rec.group:
                self.groups.setdefault((rec.group, rec.attribute or ""), []).append(rec)
        for gk, recs in self.groups.items():
            if used >= allowed:
                break
            live = [r for r in recs if r.record_id not in self.revoked]
            values = [r.value for r in live]
            if len(values) >= 3:
                top = max(set(values), key=lambda v: (values.count(v), -values.index(v)))
                if top is not None and values.count(top) >= 3 and self.rules.get(gk) != top:
                    self.rules[gk] = top
                    used += 1
        self.ledger.add("background_ops", used)
        if self.ops_left is not None:
            self.ops_left -= used

    def _context(self, turn: AgentTurn) -> tuple[list[str], list[str]]:
        parsed = parse_question(turn.utterance)
        kind = parsed[0] if parsed else "value"
        slots = parsed[1] if parsed else {}
        on = slots.get("date") or turn.date.isoformat()
        lines: list[str] = []
        for key in keys_in_question(turn.utterance):
            if key in self.keys:
                lines += present(key, [r for r in self.keys[key] if r.record_id not in self.revoked], on, kind)
        if kind == "rule":
            value = self.rules.get((slots.get("group", ""), slots.get("attribute", "")))
            if value is not None:
                lines.append(f"RULE | The {slots['attribute']} of members of group {slots['group']} is {value} "
                             "(consolidated from at least three records).")
        self.ledger.add("retrieval_calls")
        hits = self.raw_index.search(question_text(turn.utterance), self.budget.k)
        self.ledger.add("retrieved_items", len(hits))
        lines += [self.raw[i] for i, _ in hits if self.raw_ids[i] not in self.revoked]
        lines = self._fit(lines)
        refs = [ln.split("RECORD ", 1)[1].split(" ", 1)[0] for ln in lines if "RECORD " in ln]
        return lines, refs

    def _store_costs(self) -> dict[str, float]:
        return {"stored_objects": float(len(self.raw) + len(self.rules)),
                "stored_bytes": float(sum(len(t.encode()) for t in self.raw)),
                "consolidated_keys": float(len(self.keys)), "unconsolidated_records": float(len(self.inbox)),
                "rules": float(len(self.rules)), "embedding_calls": float(getattr(self.raw_index, "embeddings", 0))}


class OracleEvidence(MemoryBaseline):
    """Shows exactly the answer key's supporting records (a harness side channel): a selection ceiling."""

    name = "oracle"

    def __init__(self, *a: Any, evidence: Mapping[str, Sequence[str]] | None = None, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.by_id: dict[str, str] = {}
        self.evidence = evidence or {}

    def _copy_state(self) -> None:
        self.by_id = dict(self.by_id)

    def _blank(self) -> MemoryBaseline:
        return OracleEvidence(self.candidate, self.model, self.budget, self.retriever, ledger=self.ledger,
                              evidence=self.evidence)

    def _write(self, text: str, rec: ParsedRecord | None, turn: AgentTurn) -> None:
        if rec is not None:
            self.by_id[rec.record_id] = text

    def _context(self, turn: AgentTurn) -> tuple[list[str], list[str]]:
        ids = [i for i in self.evidence.get(turn.utterance, ()) if i in self.by_id]
        return self._fit([self.by_id[i] for i in ids]), ids

    def _store_costs(self) -> dict[str, float]:
        return {"stored_objects": float(len(self.by_id)), "stored_bytes": float(sum(len(t.encode()) for t in self.by_id.values()))}


class ScriptedMimic(MemoryBaseline):
    """No memory and no model: a scripted state machine answering in a human-like pattern.

    It answers confidently with probability ``0.9 / (1 + log10(1 + events / 40))`` (fewer answers
    after more history: an apparent forgetting curve) and otherwise abstains; its answers are
    well-formed inventions (a code, a date, a letter, a source id) drawn from a hash of the
    question. It shows that human-looking dynamics need no memory at all (spec §10).
    """

    name = "mimic"
    uses_model = False

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.events = 0

    def _write(self, text: str, rec: ParsedRecord | None, turn: AgentTurn) -> None:
        self.events += 1

    async def _answer(self, turn: AgentTurn) -> AgentReply:
        import json

        h = hashlib.sha256(turn.utterance.encode("utf-8")).digest()
        u = int.from_bytes(h[:4], "big") / 2**32
        p = 0.9 / (1.0 + math.log10(1.0 + self.events / 40.0))
        fields = fields_of(turn.utterance)
        parsed = parse_question(turn.utterance)
        kind = parsed[0] if parsed else "value"
        if u >= p:
            full: dict[str, Any] = {"abstain": True, "unresolved": False, "answer": None, "source": None,
                                    "sources": [], "status": None}
        else:
            if kind == "order":
                answer = "AB"[h[4] % 2]
            elif kind == "when":
                answer = (dt.date(2010, 1, 1) + dt.timedelta(days=int.from_bytes(h[4:6], "big") % 3652)).isoformat()
            else:
                answer = f"{chr(65 + h[4] % 26)}{chr(65 + h[5] % 26)}-{int.from_bytes(h[6:9], 'big') % 100000:05d}"
            src = f"S-{h[9]:02x}{h[10]:02x}"
            full = {"abstain": False, "unresolved": False, "answer": answer, "source": src, "sources": [src],
                    "status": "observed"}
        return AgentReply(text=json.dumps({f: full[f] for f in fields if f in full}))


_CLASSES: dict[str, type[MemoryBaseline]] = {
    "stateless": StatelessPrompt, "sliding": SlidingTranscript, "replay": FullReplay, "rag": AppendOnlyRAG,
    "versioned": VersionAwareRetrieval, "scheduled": ScheduledMemoryAgent, "oracle": OracleEvidence,
    "mimic": ScriptedMimic,
}


def model_context_window(candidate: Candidate | None, default: int = 8192) -> int:
    """The wrapped model's context window when it declares one (mock reader, llama.cpp), else ``default``."""
    for attr in ("context_window", "n_ctx"):
        v = getattr(candidate, attr, None)
        if isinstance(v, int) and v > 0:
            return v
    return default


def make_baseline_factory(name: str, model: str, condition: str, *, retriever: str = "bm25",
                          evidence: Mapping[str, Sequence[str]] | None = None,
                          candidate: Candidate | None = None, context_window: int | None = None,
                          deadline_s: float = 60.0) -> tuple[Callable[[], MemoryBaseline], Budget, dict[str, Any]]:
    """A factory of fresh baseline agents, the budget they run under and their manifest entry.

    Args:
        name: One of :data:`BASELINES`.
        model: The candidate spec (ignored by the mimic).
        condition: ``equal-budget`` or ``best-effort``.
        retriever: ``bm25`` or ``minilm`` (rag, versioned, scheduled).
        evidence: The oracle's side channel (probe utterance → supporting record ids).
        candidate: An already built candidate (shared by every agent of a run).
        context_window: Overrides the model's declared window.
    """
    if name not in _CLASSES:
        raise InputError(f"--agent {name!r}: use one of {', '.join(BASELINES)} (or package.module:factory, "
                         "path/to/file.py:factory, http://HOST:PORT)")
    if retriever not in ("bm25", "minilm"):
        raise InputError(f"--retriever {retriever!r}: use bm25 or minilm")
    cls = _CLASSES[name]
    if cls.uses_model and candidate is None:
        if not model:
            raise InputError(f"--agent {name}: needs --model (e.g. mock/memory-reader or local/smollm2)")
        candidate = get_candidate(model)
    window = context_window or model_context_window(candidate)
    budget = budget_for(condition, window, deadline_s)
    extra: dict[str, Any] = {"evidence": evidence} if name == "oracle" else {}

    def factory() -> MemoryBaseline:
        return cls(candidate if cls.uses_model else None, model if cls.uses_model else "", budget, retriever,
                   **extra)

    entry = {
        "baseline": name, "label": LABELS[name], "mechanism": MECHANISMS[name], "version": BASELINE_VERSION,
        "model": model if cls.uses_model else None,
        "model_describe": candidate.describe() if cls.uses_model and candidate is not None else None,
        "retriever": describe_index(retriever) if name in ("rag", "versioned", "scheduled") else None,
        "budget": budget.to_json(), "system_prompt_sha256": hashlib.sha256(SYSTEM_PROMPT.encode()).hexdigest(),
        "writes": "record turns are written without a model call; questions are answered, never written",
        "clones": "fork() shares the store read-only; the first write after a fork copies it",
    }
    return factory, budget, entry
