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

import datetime as dt
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from sitbench.agents import AgentFailure, AgentOutputError
from sitbench.chi._memory_env import INGEST_START, Checkpoint, Ingest, Ticks
from sitbench.chi._memory_run import _maybe, _reply_text, _turn, preamble_subject
from sitbench.chi._panel import (
    Episode,
    EpisodeRun,
    Erase,
    Fault,
    Grade,
    Hook,
    PanelTest,
    ProbeRecord,
    Repair,
    Say,
)


def agent_hooks(agent: Any) -> set[Hook]:
    """The optional hooks ``agent`` offers: an agent's own ``declared_hooks()`` (the HTTP adapter
    reads them from ``GET /info``), else the callables it has."""
    declared = getattr(agent, "declared_hooks", None)
    if callable(declared):
        return {Hook(h) for h in declared()}
    return {h for h in Hook if callable(getattr(agent, h.value, None))}


def missing_hooks(agent: Any, needed: Iterable[Hook]) -> list[str]:
    """Names of the hooks in ``needed`` that ``agent`` lacks (empty: the test can run)."""
    have = agent_hooks(agent)
    return sorted(h.value for h in needed if h not in have)


class PanelHarness:
    """Runs the episodes of one test's instance through an agent factory."""

    def __init__(self, factory: Callable[[], Any], test: PanelTest, *, deadline_s: float = 60.0) -> None:
        self.factory = factory
        self.test = test
        self.deadline_s = deadline_s

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
        grade: Grade = self.test.grade(probe, text, error)
        return ProbeRecord(episode, probe, text, grade, time.perf_counter() - start, usage, refs)

    async def run_episode(self, episode: Episode, trajectory: int, rng: random.Random) -> EpisodeRun:
        """Every step of ``episode`` on one fresh agent; its probe records, costs and event counts."""
        state = _State(await self.fresh(getattr(episode, "preamble", None)))
        state.cloned = Hook.FORK in agent_hooks(state.agent)
        records: list[ProbeRecord] = []
        start = time.perf_counter()
        for step in episode.steps:
            t0 = time.perf_counter()
            before = state.costs()
            if isinstance(step, (Say, Ingest)):
                await self._history(state, step)
            elif isinstance(step, Ticks):
                await self._ticks(state, step)
            elif isinstance(step, Checkpoint):
                records.extend(await self._checkpoint(state, episode, step, trajectory, rng))
            elif isinstance(step, Erase):
                await _maybe(state.agent.end_session(), self.deadline_s)
                if not step.sham:
                    await _maybe(state.agent.erase(), self.deadline_s)
            elif isinstance(step, (Fault, Repair)):
                await _maybe(state.agent.end_session(), self.deadline_s)
                if not step.spec.sham:
                    hook = state.agent.inject_fault if isinstance(step, Fault) else state.agent.repair_fault
                    await _maybe(hook(step.spec.to_json()), self.deadline_s)
            phase = "probe" if isinstance(step, Checkpoint) else "history"
            for key, v in state.costs().items():
                state.spent[f"{phase}.{key}"] += v - before.get(key, 0.0)
            state.wall[f"{type(step).__name__.lower()}_s"] += time.perf_counter() - t0
        close = getattr(state.agent, "close", None)
        if callable(close):
            await _maybe(close(), self.deadline_s)
        if not callable(getattr(state.agent, "costs", None)):
            for r in records:
                for key in ("prompt_tokens", "completion_tokens"):
                    state.spent[f"probe.{key}"] += r.usage.get(key, 0)
        state.wall["total_s"] = time.perf_counter() - start
        return EpisodeRun(episode, records, dict(state.spent), dict(state.wall), state.events, state.ticks,
                          state.cloned)

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
