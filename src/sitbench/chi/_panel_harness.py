"""The §5 protocol through the agent hooks, for any :class:`~sitbench.chi._panel.PanelTest`.

Per episode (one fresh agent from the factory):

1. ``ingest`` gets the episode's preamble (store-1 evidence whose only record is the test's
   registered policy, so the policy precedes history).
2. The steps, in order: history (``Say`` lines, or the memory axis's ``Ingest`` records) as one
   ``respond`` turn each, ``end_session`` after every session; declared neutral scheduler ticks
   (``tick(budget_ops)`` when the agent has it: a non-invoked system's waiting creates no
   opportunity to act; every tick advances the calendar one day); ``erase()``; a declared
   ``inject_fault`` / ``repair_fault``; checkpoints.
3. A checkpoint clears transient context (``end_session``) and asks its probes blind, in a seeded
   random order, each on its own ``fork()`` clone that is discarded after one question. An agent
   without ``fork`` answers on the live agent, one session per probe, the order reversed on odd
   trajectories (counterbalanced); the run discloses the contamination.
4. Every reply is graded by the test's rubric. An in-budget timeout, agent error or reply in no
   accepted form is graded as a failed call (a task failure), never dropped.

A test whose :attr:`~sitbench.chi._panel.PanelTest.hooks` name a hook the agent lacks is not run
on that agent: :func:`missing_hooks` says which, and the runner records the test missing.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import inspect
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from sitbench.agents import (
    AgentFailure,
    AgentOutputError,
    AgentSubject,
    AgentTurn,
    normalize_reply,
)
from sitbench.chi._memory_env import INGEST_START, MEMORY_POLICY, Checkpoint, Ingest, Ticks
from sitbench.chi._panel import (
    Episode,
    EpisodeRun,
    Erase,
    Fault,
    Grade,
    Hook,
    ProbeRecord,
    Repair,
    Say,
    agent_hooks,
)

_INTERLOCUTOR: Any = None


def _interlocutor() -> Any:
    global _INTERLOCUTOR
    if _INTERLOCUTOR is None:
        from sitbench.schema import Interlocutor

        _INTERLOCUTOR = Interlocutor(interlocutor_id="memory-harness", description="the memory harness")
    return _INTERLOCUTOR


def preamble_subject(policy: str = MEMORY_POLICY) -> AgentSubject:
    """The ingest payload: store-1 evidence whose only record is the registered ``policy``."""
    from sitbench.schema import (
        EventKind,
        EvidenceRecord,
        Invariants,
        Provenance,
        SubjectEvidence,
        Tier,
    )

    record = EvidenceRecord(t=INGEST_START, kind=EventKind.EPISODIC, text=policy, provenance=Provenance.TOLD_BY,
                            disclosure=Tier.PUBLIC)
    key = "memory-" + hashlib.sha256(policy.encode()).hexdigest()[:12]
    evidence = SubjectEvidence(subject=key, invariants=Invariants(alias="memory harness", birth_date=dt.date(2000, 1, 1),
                                                                    hometown="n/a", education="n/a", hobbies=[],
                                                                    traits=[]),
                               occupations=[], records=[record])
    return AgentSubject(subject_key=key, evidence=evidence)


def _turn(index: int, session: int, date: dt.date, utterance: str, validate: bool = False) -> AgentTurn:
    from sitbench.configs import CAPABILITY_POLICY
    from sitbench.schema import CapabilityMode

    mode = CapabilityMode.IDENTITY_ONLY
    envelope = f"[DATE: {date.isoformat()}] [SPEAKER: the memory harness] [MESSAGE: {utterance}]"
    fields = dict(turn=index, session=session, date=date, interlocutor=_interlocutor(), utterance=utterance,
                  capability=mode, capability_policy=CAPABILITY_POLICY[mode], envelope=envelope)
    return AgentTurn(**fields) if validate else AgentTurn.model_construct(**fields)


async def _maybe(value: Any, timeout: float | None = None) -> Any:
    if inspect.isawaitable(value):
        return await (asyncio.wait_for(value, timeout) if timeout else value)
    return value


def _reply_text(reply: Any) -> tuple[str, dict[str, int], list[str]]:
    """Text, usage and memory references of a ``respond`` result, read by the agent protocol's one reader.

    Raises:
        AgentOutputError: the reply is in no accepted form (see :func:`sitbench.agents.normalize_reply`).
    """
    normal = normalize_reply(reply)
    usage = normal.usage
    refs = [op.detail for op in normal.memory_ops if op.detail]
    u = {} if usage is None else {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}
    return normal.text, u, refs


class Grader(Protocol):
    """What the harness grades with: a test's id and rubric (every :class:`PanelTest` is one)."""

    test_id: str

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade: ...


class EvaluatorOutage(RuntimeError):
    """The evaluator (a rubric or a scorer), not the agent, failed: the affected block is invalidated."""


def missing_hooks(agent: Any, needed: Iterable[Hook]) -> list[str]:
    """Names of the hooks in ``needed`` that ``agent`` lacks (empty: the test can run)."""
    have = agent_hooks(agent)
    return sorted(h.value for h in needed if h not in have)


class PanelHarness:
    """Runs the episodes of one test's instance through an agent factory."""

    def __init__(self, factory: Callable[[], Any], test: Grader, *, deadline_s: float = 60.0,
                 pre_exposure: int = 0) -> None:
        self.factory = factory
        self.test = test
        self.deadline_s = deadline_s
        self.pre_exposure = pre_exposure

    async def fresh(self, preamble: str | None) -> Any:
        """A new agent from the factory that has ingested ``preamble`` (the test's policy)."""
        agent = self.factory()
        agent = await _maybe(agent)
        await _maybe(agent.ingest(preamble_subject(preamble) if preamble else preamble_subject()), self.deadline_s)
        return agent

    async def ask(self, agent: Any, episode: str, probe: Any, date: dt.date, session: int,
                  cloned: bool) -> ProbeRecord:
        """One probe on a fresh clone (or the live agent), graded; a failed call is a graded failure."""
        start = time.perf_counter()
        target = agent
        text: str | None = None
        usage: dict[str, int] = {}
        refs: list[str] = []
        error: str | None = None
        try:
            if cloned:
                target = await _maybe(agent.fork(), self.deadline_s)
            reply = await _maybe(target.respond(_turn(0, session, date, probe.utterance, validate=True)),
                                 self.deadline_s)
            text, usage, refs = _reply_text(reply)
        except AgentOutputError as exc:
            error = f"{AgentFailure.MALFORMED.value}: {exc}"
        except TimeoutError:
            error = f"timeout after {self.deadline_s:g} s"
        except Exception as exc:  # noqa: BLE001 - any agent failure is a task failure, graded as such
            error = f"agent error: {exc!r}"[:300]
        finally:
            try:
                await _maybe(target.end_session(), self.deadline_s)
                if cloned and target is not agent and callable(getattr(target, "close", None)):
                    await _maybe(target.close(), self.deadline_s)
            except Exception:  # noqa: BLE001 - a failing cleanup of a discarded clone changes no score
                pass
        try:
            grade: Grade = self.test.grade(probe, text, error)
        except Exception as exc:  # the rubric failed, not the agent: the block is invalid (§5)
            raise EvaluatorOutage(f"{self.test.test_id} rubric failed on probe {probe.probe_id}: {exc!r}"[:300]) from exc
        return ProbeRecord(episode, probe, text, grade, time.perf_counter() - start, usage, refs)

    async def run_episode(self, episode: Episode, trajectory: int, rng: random.Random) -> EpisodeRun:
        """Every step of ``episode`` on one fresh agent; its probe records, costs and event counts."""
        start = time.perf_counter()
        state = _State(await self.fresh(getattr(episode, "preamble", None)))
        state.cloned = Hook.FORK in agent_hooks(state.agent)
        pre: list[ProbeRecord] = []
        if self.pre_exposure and state.cloned:  # §5.3: a sample asked on clones of the fresh agent
            for p in rng.sample(list(episode.probes), min(self.pre_exposure, len(episode.probes))):
                r = await self.ask(state.agent, episode.name, p, state.date, state.session, True)
                r.phase = "pre_exposure"
                pre.append(r)
            state.session += 1
        pre_costs = state.costs()
        state.wall["setup_s"] += time.perf_counter() - start
        records: list[ProbeRecord] = []
        for step in episode.steps:
            t0 = time.perf_counter()
            before = state.costs()
            try:
                records.extend(await self._step(state, episode, step, trajectory, rng))
            except EvaluatorOutage:
                raise
            except Exception as exc:  # noqa: BLE001 - the agent failed between probes: what is left fails (§5)
                asked = {r.probe.probe_id for r in records}
                reason = f"agent error during the {type(step).__name__.lower()} step: {exc!r}"[:300]
                records.extend(self._failed(episode.name, p, reason) for p in episode.probes if p.probe_id not in asked)
                break
            finally:
                phase = "probe" if isinstance(step, Checkpoint) else "history"
                for key, v in state.costs().items():
                    state.spent[f"{phase}.{key}"] += v - before.get(key, 0.0)
                state.wall[_WALL[type(step)]] += time.perf_counter() - t0
        close = getattr(state.agent, "close", None)
        if callable(close):
            await _maybe(close(), self.deadline_s)
        final = state.costs()
        if not callable(getattr(state.agent, "costs", None)):
            for r in records:
                for key in ("prompt_tokens", "completion_tokens"):
                    state.spent[f"probe.{key}"] += r.usage.get(key, 0)
        state.wall["total_s"] = time.perf_counter() - start
        return EpisodeRun(episode, records, dict(state.spent), dict(state.wall), state.events, state.ticks,
                          state.cloned, pre_exposure=pre, pre_costs=pre_costs, final_costs=final)

    async def _step(self, state: _State, episode: Episode, step: Any, trajectory: int,
                    rng: random.Random) -> list[ProbeRecord]:
        """One step through the agent's hooks; a checkpoint returns its probe records."""
        if isinstance(step, (Say, Ingest)):
            await self._history(state, step)
        elif isinstance(step, Ticks):
            await self._ticks(state, step)
        elif isinstance(step, Checkpoint):
            return await self._checkpoint(state, episode, step, trajectory, rng)
        elif isinstance(step, Erase):
            await _maybe(state.agent.end_session(), self.deadline_s)
            if not step.sham:
                await _maybe(state.agent.erase(), self.deadline_s)
        elif isinstance(step, (Fault, Repair)):
            await _maybe(state.agent.end_session(), self.deadline_s)
            if not step.spec.sham:
                hook = state.agent.inject_fault if isinstance(step, Fault) else state.agent.repair_fault
                await _maybe(hook(step.spec.to_json()), self.deadline_s)
        return []

    def _failed(self, episode: str, probe: Any, reason: str) -> ProbeRecord:
        """A probe never asked because the agent failed before it: graded as a failed call."""
        try:
            grade = self.test.grade(probe, None, reason)
        except Exception as exc:  # the rubric failed, not the agent: the block is invalid (§5)
            raise EvaluatorOutage(f"{self.test.test_id} rubric failed on probe {probe.probe_id}: {exc!r}"[:300]) from exc
        return ProbeRecord(episode, probe, None, grade, 0.0, {}, [])

    async def _history(self, state: _State, step: Say | Ingest) -> None:
        lines = step.lines if isinstance(step, Say) else tuple(r.text for r in step.records)
        for k in range(0, len(lines), step.session_size):
            for line in lines[k:k + step.session_size]:
                await _maybe(state.agent.respond(_turn(state.turn, state.session, state.date, line)), self.deadline_s)
                state.turn += 1
                state.events += 1
            await _maybe(state.agent.end_session(), self.deadline_s)
            state.session += 1
            state.date += dt.timedelta(days=1)

    async def _ticks(self, state: _State, step: Ticks) -> None:
        await _maybe(state.agent.end_session(), self.deadline_s)
        tick = getattr(state.agent, "tick", None) if Hook.TICK in agent_hooks(state.agent) else None
        for _ in range(step.n):
            if tick is not None:
                await _maybe(tick(step.ops_per_tick), self.deadline_s)
            state.ticks += 1
            state.date += dt.timedelta(days=1)

    async def _checkpoint(self, state: _State, episode: Episode, step: Checkpoint, trajectory: int,
                          rng: random.Random) -> list[ProbeRecord]:
        await _maybe(state.agent.end_session(), self.deadline_s)
        probes = episode.probes_at(step.name)
        order = list(range(len(probes)))
        rng.shuffle(order)
        if not state.cloned and trajectory % 2 == 1:
            order.reverse()
        out = []
        for j in order:
            state.session += 1
            out.append(await self.ask(state.agent, episode.name, probes[j], state.date, state.session, state.cloned))
        return out


_WALL: dict[type, str] = {Say: "ingest_s", Ingest: "ingest_s", Ticks: "ticks_s", Checkpoint: "probe_s",
                          Erase: "erase_s", Fault: "fault_s", Repair: "repair_s"}
"""Wall-time bucket of each kind of step (history, scheduler ticks, probes, and the declared hooks)."""


class _State:
    """One episode's live agent and its counters."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.cloned = False
        self.date = INGEST_START
        self.session, self.turn, self.events, self.ticks = 1, 0, 0, 0
        self.spent: dict[str, float] = defaultdict(float)
        self.wall: dict[str, float] = defaultdict(float)

    def costs(self) -> dict[str, float]:
        costs = getattr(self.agent, "costs", None)
        return dict(costs()) if callable(costs) else {}
