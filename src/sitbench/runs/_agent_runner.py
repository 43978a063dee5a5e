"""Run every probe's declared schedule through a user's agent (``sitbench run --agent``).

The agent is the architecture under test, so there is one configuration, ``agent``: trial ids are
``agent:PROBE_ID`` and ``score``, ``metrics`` and ``report`` read the run like any other.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import inspect
import itertools
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from sitbench._version import __version__, git_commit
from sitbench.agents import (
    AgentFailure,
    AgentManifest,
    AgentOutputError,
    AgentSubject,
    AgentTrialRecord,
    AgentTurn,
    IngestReport,
    LoadedAgent,
    MemoryOperation,
    StatePolicy,
    TokenUsage,
    check_agent,
    exit_text,
    make_agent,
    normalize_reply,
)
from sitbench.candidates import CandidateResponse, DecodingConfig, Message, ResponseCache
from sitbench.configs import CAPABILITY_POLICY, TOKENIZER_NAME, templates_sha256
from sitbench.errors import InputError
from sitbench.lineage import IsolationAudit, run_checks
from sitbench.runs._records import RunManifest, TrialRecord, TurnRecord
from sitbench.runs._runner import Runner, RunOptions, dataset_fields
from sitbench.runs._store import RunStore
from sitbench.runs._workers import OnDone
from sitbench.schema import Query, SubjectEvidence, envelope_for
from sitbench.stores import load_dataset
from sitbench.verify import DEFAULT_MAX_RESPONSE_CHARS

#: The one configuration label of an agent run.
AGENT_CONFIG = "agent"

WITHHOLDING = ("in a multi-session schedule, the session records dated on or after its first turn (the "
               "conversations the schedule itself replays) are withheld from ingest; everything else in store 1 "
               "is given as it is")
RESET_POLICY = ("agent: end_session() between sessions ends the conversation; what persists is the agent's own "
                "state (nothing is written into it by the harness)")


def agent_subject(subject: SubjectEvidence, query: Query) -> AgentSubject:
    """The ingest payload of one trial: the subject's store-1 evidence under an opaque key.

    A schedule with later sessions replays its first sessions' conversations, and the chronicle
    already holds their records: those are withheld, as the configurations' builders withhold a
    session's own record while it runs, so the agent has to remember the conversation itself.
    """
    first = query.turns[0]
    multi = any(t.session != first.session for t in query.turns)
    kept = [r for r in subject.records if not (multi and r.session_id is not None and r.t >= first.t)]
    blank = subject.model_copy(update={"subject": "", "records": kept})
    digest = hashlib.sha256(blank.model_dump_json().encode("utf-8")).hexdigest()
    key = f"subject-{digest[:12]}"
    return AgentSubject(subject_key=key, evidence=blank.model_copy(update={"subject": key}),
                        withheld_records=len(subject.records) - len(kept))


def agent_turn(query: Query, index: int) -> AgentTurn:
    """The ``respond`` input of turn ``index``: the envelope and the capability mode."""
    turn = query.turns[index]
    return AgentTurn(turn=index, session=turn.session, date=turn.t, interlocutor=query.interlocutor,
                     utterance=turn.utterance, capability=query.capability,
                     capability_policy=CAPABILITY_POLICY[query.capability],
                     envelope=envelope_for(query, index).render())


class _Drop(Exception):
    """Ends a trial as dropped with ``reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason[:300]


class _AgentInterrupt(Exception):
    """A KeyboardInterrupt raised inside an agent call, carried out of the event loop as an ordinary
    exception (so every trial's coroutine ends cleanly) and raised again as KeyboardInterrupt by
    :func:`run_agent`."""


async def _exits_as_drops(awaitable: Awaitable[Any], what: str) -> Any:
    """``await awaitable``, a SystemExit of the agent's coroutine made a :class:`_Drop` inside the task.

    Caught here, in the coroutine the task runs, neither it nor a KeyboardInterrupt reaches the event
    loop (which would stop at once and leave every other trial's coroutine un-awaited, one "Exception
    ignored" report each).
    """
    try:
        return await awaitable
    except SystemExit as exc:
        raise _Drop(f"{AgentFailure.ERROR.value}: {what}: agent {exit_text(exc)}") from None
    except KeyboardInterrupt:
        raise _AgentInterrupt(what) from None


class _Span:
    """The time an agent call itself took: from its first step to its end.

    An async agent's coroutine may wait in the event loop's queue behind other trials before it first runs;
    that wait is not the agent's time. The span starts when the agent's code first runs (the coroutine's first
    step, or the call of a synchronous method) and ends when it returns; waits the agent itself awaits (a model
    call, I/O) are inside it.
    """

    __slots__ = ("ended", "started")

    def __init__(self) -> None:
        self.started: float | None = None
        self.ended: float | None = None

    @property
    def ms(self) -> float:
        """The span in milliseconds (0 when the call never ran)."""
        if self.started is None or self.ended is None:
            return 0.0
        return (self.ended - self.started) * 1000

    def timed(self, awaitable: Awaitable[Any]) -> Awaitable[Any]:
        """``awaitable``, with the span taken from its first step to its end."""
        span = self

        class _Timed:
            def __await__(self) -> Generator[Any, Any, Any]:
                steps = awaitable.__await__()
                span.started = time.perf_counter()
                try:
                    return (yield from steps)
                finally:
                    span.ended = time.perf_counter()

        return _Timed()


def _validated(value: Any, model: type[BaseModel], what: str) -> Any:
    if value is None and model is IngestReport:
        return IngestReport()
    if isinstance(value, model):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            error = exc.errors()[0]
            raise AgentOutputError(f"{what} returned an invalid {model.__name__}: "
                                   f"{'.'.join(map(str, error['loc'])) or 'body'}: {error['msg']}") from None
    raise AgentOutputError(f"{what} returned {type(value).__name__}; return None or an {model.__name__}")


@dataclass
class _Base:
    """An ingested agent that forks serve (``fork`` policy)."""

    agent: Any
    ingest_ms: float
    report: IngestReport


def _add(total: TokenUsage, usage: TokenUsage | None) -> TokenUsage:
    if usage is None:
        return total
    return TokenUsage(prompt_tokens=total.prompt_tokens + usage.prompt_tokens,
                      completion_tokens=total.completion_tokens + usage.completion_tokens)


class AgentRunner(Runner):
    """Runs each probe's schedule through fresh (or forked) agents into one run directory."""

    def __init__(self, dataset_dir: Path, agent: LoadedAgent, out: Path, options: RunOptions,
                 state_policy: StatePolicy, timeout_s: float = 120.0,
                 on_trial: OnDone | None = None) -> None:
        self.ds = load_dataset(dataset_dir)
        failed = [r.id for r in run_checks(self.ds) if not r.passed]
        if failed:
            raise InputError(f"{dataset_dir}: integrity checks {failed} fail; run `sitbench validate {dataset_dir}`")
        if state_policy is StatePolicy.FORK and not agent.info.supports_fork:
            raise InputError(f"--agent-state fork: {agent.spec} has no fork() (its describe() does not say "
                             "supports_fork); use --agent-state reingest")
        self.agent = agent
        self.state_policy = state_policy
        self.timeout_s = timeout_s
        self.model = agent.spec
        self.options = options
        self.options.configs = [AGENT_CONFIG]
        self.cached = None
        self.retriever = None
        self.store = RunStore(out)
        self.audit = IsolationAudit.for_dataset(self.ds)
        self.on_trial = on_trial
        self.on_stage: Callable[[str], None] = lambda _stage: None
        self._bases: dict[str, asyncio.Task[_Base]] = {}
        self._audited: set[str] = set()

    def _answers_with_cpu(self) -> bool:
        return False  # an agent keeps state and may call a model: its trials stay in one process

    def _check_resumable(self, existing: RunManifest) -> None:
        was_spec = existing.candidate.get("spec")
        if existing.agent is None or was_spec != self.model:
            made = f"--agent {was_spec}" if existing.agent else f"--model {was_spec}"
            raise InputError(f"{self.store.root}: --resume continues the same run, which was made with {made} "
                             f"(now --agent {self.model}); resume with the run's settings, or choose another --out")
        if existing.agent.options != self.agent.options:
            raise InputError(f"{self.store.root}: --resume continues the same run, which was made with --agent-option "
                             f"{existing.agent.options} (now {self.agent.options}); resume with the run's settings, "
                             "or choose another --out")
        super()._check_resumable(existing)
        was = existing.agent.state_policy if existing.agent else None
        if was is not self.state_policy:
            raise InputError(f"{self.store.root}: --resume continues the same run, which was made with "
                             f"--agent-state {was.value if was else 'none'} (now {self.state_policy.value}); "
                             "resume with the run's settings, or choose another --out")

    def manifest(self, started: str, existing: RunManifest | None) -> RunManifest:
        info = self.agent.info
        return RunManifest(
            run_id=existing.run_id if existing else uuid.uuid4().hex[:12],
            created_at=existing.created_at if existing else started,
            package_version=__version__, git_commit=git_commit(), dataset=dataset_fields(self.ds),
            configs=[AGENT_CONFIG], handler="native",
            candidate={"spec": self.model, "provider": "agent", "transport": self.agent.transport.value,
                       **info.model_dump(mode="json")},
            provider="agent", cache=({"enabled": True, "epoch": self.options.epoch, "unit": "trial"}
                                     if self.options.response_cache is not None else {"enabled": False}),
            decoding=DecodingConfig(), retriever=None, templates_sha256=templates_sha256(),
            shard=f"{self.options.shard[0]}/{self.options.shard[1]}" if self.options.shard else None,
            probes=self.options.probes, session_reset_policy=RESET_POLICY,
            verifier_version=existing.verifier_version if existing else None, tokenizer=TOKENIZER_NAME,
            agent=AgentManifest(spec=self.model, transport=self.agent.transport, info=info,
                                state_policy=self.state_policy, timeout_s=self.timeout_s, withholding=WITHHOLDING,
                                options=self.agent.options),
            extra=existing.extra if existing else {}, max_response_chars=self.options.max_response_chars)

    async def _call(self, what: str, call: Callable[[], Any], span: _Span | None = None) -> Any:
        """One agent call under the timeout; every failure becomes a :class:`_Drop` naming it.

        An agent that calls ``sys.exit`` (SystemExit) drops its trial with the reason: the agent's exit is
        never the harness's exit code. KeyboardInterrupt is let through: Python raises it wherever the main
        thread is when the user presses Ctrl-C, often inside the agent's code, and it must stop the run
        (the finished trials are kept; ``--resume`` continues).
        """
        span = span or _Span()
        try:
            span.started = time.perf_counter()
            result = call()
            span.ended = time.perf_counter()
            if inspect.isawaitable(result):
                result = await asyncio.wait_for(_exits_as_drops(span.timed(result), what), self.timeout_s)
            return result
        except SystemExit as exc:
            raise _Drop(f"{AgentFailure.ERROR.value}: {what}: agent {exit_text(exc)}") from None
        except KeyboardInterrupt:
            raise _AgentInterrupt(what) from None
        except _AgentInterrupt:
            raise
        except TimeoutError:
            raise _Drop(f"{AgentFailure.TIMEOUT.value}: {what} ran past {self.timeout_s:g}s") from None
        except AgentOutputError as exc:
            raise _Drop(f"{AgentFailure.MALFORMED.value}: {exc}") from None
        except _Drop:
            raise
        except Exception as exc:  # noqa: BLE001 - an agent that raises is a drop, never a crash or a wrong answer
            raise _Drop(f"{AgentFailure.ERROR.value}: {what}: {exc!r}") from None

    async def _fresh(self) -> Any:
        agent = await self._call("factory", lambda: make_agent(self.agent.factory))
        try:
            check_agent(self.agent.spec, agent)
        except InputError as exc:
            raise _Drop(f"{AgentFailure.MALFORMED.value}: {exc}") from None
        return agent

    async def _ingest(self, agent: Any, subject: AgentSubject) -> tuple[float, IngestReport]:
        span = _Span()
        report = await self._call("ingest", lambda: agent.ingest(subject), span)
        try:
            return span.ms, _validated(report, IngestReport, "ingest")
        except AgentOutputError as exc:
            raise _Drop(f"{AgentFailure.MALFORMED.value}: {exc}") from None

    async def _base(self, subject: AgentSubject) -> _Base:
        agent = await self._fresh()
        try:
            ms, report = await self._ingest(agent, subject)
        except _Drop:
            await self._close(agent)
            raise
        return _Base(agent, ms, report)

    async def _clean_agent(self, subject: AgentSubject, record: dict[str, Any]) -> Any:
        if self.state_policy is StatePolicy.REINGEST:
            agent = await self._fresh()
            record["agent"] = agent
            ms, report = await self._ingest(agent, subject)
            record.update(ingest_ms=ms, ingest_ops=report.memory_ops, usage=_add(record["usage"], report.usage))
            return agent
        task = self._bases.get(subject.subject_key)
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            # A failed ingest is not kept: the next trial of this evidence tries again.
            task = self._bases[subject.subject_key] = asyncio.ensure_future(self._base(subject))
        base = await asyncio.shield(task)
        record.update(ingest_ms=base.ingest_ms, ingest_ops=base.report.memory_ops)
        started = time.perf_counter()
        agent = await self._call("fork", lambda: base.agent.fork())
        record["fork_ms"] = (time.perf_counter() - started) * 1000
        record["agent"] = agent
        try:
            check_agent(self.agent.spec, agent)
        except InputError as exc:
            raise _Drop(f"{AgentFailure.MALFORMED.value}: fork: {exc}") from None
        return agent

    async def _close(self, agent: Any) -> None:
        close = getattr(agent, "close", None)
        if not callable(close):
            return
        try:
            result = close()
            if inspect.isawaitable(result):
                await asyncio.wait_for(result, self.timeout_s)
        except (Exception, SystemExit):  # noqa: BLE001 - releasing a state is best effort; the record is made
            pass

    def _cache_keys(self, payload_json: str, query: Query) -> list[str]:
        """One response-cache key per turn of a trial: the agent, its options, the exact ingest payload,
        the whole schedule and the epoch decide every answer of a deterministic agent."""
        info = self.agent.info
        base = hashlib.sha256(json.dumps({
            "agent": self.model, "name": info.name, "version": info.version, "model": info.model,
            "options": self.agent.options, "evidence": hashlib.sha256(payload_json.encode()).hexdigest(),
            "schedule": [agent_turn(query, i).model_dump(mode="json") for i in range(len(query.turns))],
            "epoch": self.options.epoch}, sort_keys=True).encode()).hexdigest()
        return [f"agent:{base}:{i}" for i in range(len(query.turns))]

    def _from_cache(self, keys: list[str]) -> list[CandidateResponse] | None:
        cache = self.options.response_cache
        if cache is None:
            return None
        found = [cache.get(key) for key in keys]
        return None if any(r is None for r in found) else found  # type: ignore[return-value]

    async def _trial(self, config: str, probe_id: str) -> TrialRecord:
        probe = self.ds.hidden.probes[probe_id]
        query = self.ds.visible.queries[probe.query_key]
        subject = self.ds.visible.subjects[query.subject]
        trial_id = f"{config}:{probe_id}"
        payload = agent_subject(subject, query)
        payload_json = payload.model_dump_json()
        if payload.subject_key not in self._audited:
            # The key is a hash of the evidence: one audit covers every trial that ingests the same payload.
            self.audit.check(trial_id, subject.subject, [Message(role="user", content=payload_json)])
            self._audited.add(payload.subject_key)
        keys = self._cache_keys(payload_json, query) if self.options.response_cache is not None else []
        if (cached := self._from_cache(keys)) is not None:
            return self._cached_trial(trial_id, config, probe_id, query, payload, payload_json, cached)
        record: dict[str, Any] = {"usage": TokenUsage(), "ingest_ms": 0.0, "ingest_ops": [], "fork_ms": None}
        turns: list[TurnRecord] = []
        persisted: list[str] = []
        turn_ops: list[list[MemoryOperation]] = []
        answer_ms, end_sessions = 0.0, 0
        drop: str | None = None
        try:
            agent = await self._clean_agent(payload, record)
            session = query.turns[0].session
            for index, turn in enumerate(query.turns):
                if turn.session != session:
                    await self._call("end_session", agent.end_session)
                    end_sessions += 1
                    persisted.append(f"reset before session {turn.session}: end_session(); the agent kept its "
                                     "own persistent state")
                    session = turn.session
                sent = agent_turn(query, index)
                message = Message(role="user", content=sent.model_dump_json())
                self.audit.check(trial_id, subject.subject, [message])
                started, span = time.perf_counter(), _Span()
                try:
                    result = await self._call("respond", functools.partial(agent.respond, sent), span)
                    reply = normalize_reply(result)
                except (_Drop, AgentOutputError) as exc:
                    reason = exc.reason if isinstance(exc, _Drop) else f"{AgentFailure.MALFORMED.value}: {exc}"
                    turns.append(TurnRecord(turn=index, session=turn.session, messages=[message],
                                            response=CandidateResponse(text=None, status="drop", drop_reason=reason,
                                                                       provider="agent", model_sent=self.model)))
                    raise _Drop(reason) from None
                elapsed = time.perf_counter() - started
                answer_ms += span.ms
                record["usage"] = _add(record["usage"], reply.usage)
                turn_ops.append(reply.memory_ops)
                usage = reply.usage.model_dump() if reply.usage else {}
                turns.append(TurnRecord(turn=index, session=turn.session, messages=[message],
                                        response=CandidateResponse(text=reply.text, provider="agent",
                                                                   model_sent=self.model, returned_model=reply.model,
                                                                   usage=usage, latency_s=elapsed)))
        except _Drop as exc:
            drop = exc.reason
        finally:
            if record.get("agent") is not None:
                await self._close(record["agent"])
        if drop is None and self.options.response_cache is not None:
            for key, turn_record in zip(keys, turns, strict=True):
                self.options.response_cache.put(key, turn_record.response)
        accounting = AgentTrialRecord(
            state_policy=self.state_policy, subject_key=payload.subject_key,
            evidence_sha256=hashlib.sha256(payload_json.encode("utf-8")).hexdigest(),
            withheld_records=payload.withheld_records, ingest_ms=record["ingest_ms"], fork_ms=record["fork_ms"],
            answer_ms=answer_ms, end_sessions=end_sessions, usage=record["usage"], ingest_ops=record["ingest_ops"],
            turn_ops=turn_ops)
        return TrialRecord(trial_id=trial_id, config=config, probe_id=probe_id, model=self.model, turns=turns,
                           persisted=persisted, status="dropped" if drop else "completed", drop_reason=drop,
                           evidence_ms=record["ingest_ms"], agent=accounting)

    def _cached_trial(self, trial_id: str, config: str, probe_id: str, query: Query, payload: AgentSubject,
                      payload_json: str, cached: list[CandidateResponse]) -> TrialRecord:
        """A trial served whole from the response cache: no agent call, nothing timed."""
        turns = [TurnRecord(turn=i, session=t.session,
                            messages=[Message(role="user", content=agent_turn(query, i).model_dump_json())],
                            response=cached[i]) for i, t in enumerate(query.turns)]
        sessions = [t.session for t in query.turns]
        resets = sum(a != b for a, b in itertools.pairwise(sessions))
        usage = TokenUsage(prompt_tokens=sum(r.usage.get("prompt_tokens", 0) for r in cached),
                           completion_tokens=sum(r.usage.get("completion_tokens", 0) for r in cached))
        accounting = AgentTrialRecord(
            state_policy=self.state_policy, subject_key=payload.subject_key,
            evidence_sha256=hashlib.sha256(payload_json.encode("utf-8")).hexdigest(),
            withheld_records=payload.withheld_records, end_sessions=resets, usage=usage,
            turn_ops=[[] for _ in cached])
        persisted = [f"reset before session {b}: end_session(); served from the response cache"
                     for a, b in itertools.pairwise(sessions) if a != b]
        return TrialRecord(trial_id=trial_id, config=config, probe_id=probe_id, model=self.model, turns=turns,
                           persisted=persisted, status="completed", agent=accounting)

    async def run(self, resume: bool = False) -> RunManifest:
        try:
            return await super().run(resume)
        finally:
            bases = [t for t in self._bases.values() if t.done() and not t.cancelled() and t.exception() is None]
            for task in bases:
                await self._close(task.result().agent)
            if self.agent.aclose is not None:
                await self.agent.aclose()


def run_agent(dataset: Path, agent_spec: str, out: Path, *, state: str = "auto", shard: str | None = None,
              resume: bool = False, max_connections: int = 8, timeout_s: float | None = None,
              on_trial: OnDone | None = None,
              on_start: Callable[[AgentRunner], None] | None = None,
              options: dict[str, str] | None = None, response_cache: ResponseCache | None = None,
              epoch: int = 0, max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS, probes: str | None = None,
              probe_limit: int | None = None, limit_seed: int = 0) -> RunManifest:
    """Load ``agent_spec`` and run every probe of ``dataset`` (or those ``probes`` / ``limit`` select, see
    :func:`~sitbench.runs.select_probes`) through it into ``out``.

    Args:
        state: ``auto`` (fork when the agent supports it, else reingest), ``fork`` or ``reingest``.
        timeout_s: limit on each agent call (default 120 s).
        options: keyword arguments for the factory, as strings (``--agent-option KEY=VALUE``).
        response_cache: serve whole trials from (and store completed ones in) this cache.
        epoch: repetition index, part of every cache key.
        max_response_chars: the cap on one answer (:func:`~sitbench.runs.cap_trial`).

    Raises:
        InputError: the agent cannot be loaded, or the options do not fit it.
    """
    from sitbench.agents import load_agent
    from sitbench.runs._runner import parse_shard
    from sitbench.runs._selection import select_probes

    limit = 120.0 if timeout_s is None else timeout_s
    loaded = load_agent(agent_spec, timeout_s=limit, options=options, max_response_chars=max_response_chars)
    choices = {"auto": None, **{p.value: p for p in StatePolicy}}
    if state not in choices:
        raise InputError(f"--agent-state {state!r}: use auto, fork or reingest")
    policy = choices[state] or (StatePolicy.FORK if loaded.info.supports_fork else StatePolicy.REINGEST)
    run_options = RunOptions(configs=[AGENT_CONFIG], max_connections=max_connections, shard=parse_shard(shard),
                             response_cache=response_cache, epoch=epoch, max_response_chars=max_response_chars)
    runner = AgentRunner(dataset, loaded, out, run_options, policy, limit, on_trial=on_trial)
    run_options.probes = select_probes(runner.ds, probes=probes, limit=probe_limit, seed=limit_seed)
    if on_start:
        on_start(runner)
    try:
        return asyncio.run(runner.run(resume=resume))
    except _AgentInterrupt:
        # The run stops as on Ctrl-C (which it may have been: Python raises KeyboardInterrupt wherever the
        # main thread is); the finished trials are kept and --resume continues.
        raise KeyboardInterrupt from None



def parse_agent_options(values: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``KEY=VALUE`` items of ``--agent-option`` as a dict (a later key wins).

    Raises:
        InputError: an item has no ``=`` or an empty key.
    """
    options: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--agent-option {item!r}: use KEY=VALUE, e.g. --agent-option model=mock/oracle")
        options[key.strip()] = value
    return options
