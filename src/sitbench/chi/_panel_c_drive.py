"""Drive a C/A episode through the Agent hooks, and wrap a reference policy as an Agent.

:func:`drive_episode` is the one mapping of an episode's events onto a system under test that
implements :class:`sitbench.agents.Agent` (``respond``, ``end_session``, optionally ``fork`` and
``tick``); a panel runner calls it per episode with its own turn builder, deadline and clone
policy. Decisions (each recorded in the returned :class:`DriveLog`):

* A turn is one ``respond(AgentTurn)``; its reply is read by :func:`sitbench.agents.normalize_reply`.
  A timeout, an exception or a reply in no accepted form gives the episode no reply for that
  event, which its rubric scores as a task failure (§5); the reason is kept.
* A tick calls ``tick(budget_ops)`` when the agent offers it (an agent's own ``declared_hooks()``,
  as the HTTP adapter reads them from ``GET /info``, else the callables it has; so is ``fork``). A hook that accepts an ``observation`` keyword also gets the
  tick's text (the tick number and any record newly placed in the allowed information channel).
  A bare ``tick(budget_ops)`` hook cannot read the channel, so a tick that carries a channel
  record (``Event.observation``) reaches it as a neutral turn instead. What the hook returns
  (``None`` for nothing, or any reply form) is the tick's reply. Without a hook the event's
  :class:`~sitbench.chi._panel_c.NoTick` applies.
* A clone probe forks, asks, ends the clone's session and closes it. An agent without ``fork``
  answers on the live system, and the contamination is counted.
* ``end_session`` advances the session number of later turns.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sitbench.agents import AgentOutputError, AgentTurn, normalize_reply
from sitbench.chi._panel import Hook, agent_hooks
from sitbench.chi._panel_c import Delivery, EpisodeRecord, Event, EventKind, InteractiveEpisode, InteractiveTest, NoTick

TurnBuilder = Callable[[int, int, str], AgentTurn]
"""``(turn index, session, utterance) -> AgentTurn``: the runner's envelope for one turn."""

PANEL_DATE = dt.date(2024, 1, 1)


def neutral_turn(index: int, session: int, utterance: str) -> AgentTurn:
    """The default envelope: identity-only mode, the panel harness as interlocutor, a fixed date."""
    from sitbench.configs import CAPABILITY_POLICY
    from sitbench.schema import CapabilityMode, Interlocutor

    mode = CapabilityMode.IDENTITY_ONLY
    envelope = f"[DATE: {PANEL_DATE.isoformat()}] [SPEAKER: the panel harness] [MESSAGE: {utterance}]"
    return AgentTurn(turn=index, session=session, date=PANEL_DATE,
                     interlocutor=Interlocutor(interlocutor_id="panel-harness", description="the panel harness"),
                     utterance=utterance, capability=mode, capability_policy=CAPABILITY_POLICY[mode],
                     envelope=envelope)


@dataclass
class DriveLog:
    """What happened on the way: failures by reason, live (contaminating) probes, hooks used."""

    failures: list[str] = field(default_factory=list)
    live_probes: int = 0
    ticks_by_hook: int = 0
    ticks_as_turns: int = 0
    ticks_not_invoked: int = 0


async def _maybe(value: Any, timeout: float | None) -> Any:
    if inspect.isawaitable(value):
        return await (asyncio.wait_for(value, timeout) if timeout else value)
    return value


def _accepts_observation(hook: Any) -> bool:
    try:
        params = inspect.signature(hook).parameters
    except (TypeError, ValueError):
        return False
    return "observation" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


class _Driver:
    def __init__(self, agent: Any, make_turn: TurnBuilder, deadline_s: float | None, log: DriveLog) -> None:
        self.agent, self.make_turn, self.deadline_s, self.log = agent, make_turn, deadline_s, log
        self.index, self.session = 0, 1

    async def _call(self, label: str, fn: Callable[[], Any]) -> str | None:
        try:
            out = await _maybe(fn(), self.deadline_s)
            return None if out is None else normalize_reply(out).text
        except AgentOutputError as exc:
            self.log.failures.append(f"{label}: malformed: {exc}")
        except TimeoutError:
            self.log.failures.append(f"{label}: timeout after {self.deadline_s:g} s")
        except Exception as exc:  # noqa: BLE001 - any agent failure is a task failure of its event
            self.log.failures.append(f"{label}: agent error: {exc!r}"[:300])
        return None

    async def _respond(self, target: Any, text: str) -> str | None:
        turn = self.make_turn(self.index, self.session, text)
        self.index += 1
        return await self._call("respond", lambda: target.respond(turn))

    def _hook(self, hook: Hook) -> Any:
        """The agent's hook when it offers it (an HTTP agent's undeclared hook is never called)."""
        return getattr(self.agent, hook.value, None) if hook in agent_hooks(self.agent) else None

    async def _clone(self, text: str) -> str | None:
        fork = self._hook(Hook.FORK)
        if not callable(fork):
            self.log.live_probes += 1
            return await self._respond(self.agent, text)
        try:
            clone = await _maybe(fork(), self.deadline_s)
        except Exception as exc:  # noqa: BLE001 - a failed fork is a failed probe
            self.log.failures.append(f"fork: {exc!r}"[:300])
            return None
        try:
            return await self._respond(clone, text)
        finally:
            try:
                await _maybe(clone.end_session(), self.deadline_s)
                if callable(getattr(clone, "close", None)):
                    await _maybe(clone.close(), self.deadline_s)
            except Exception:  # noqa: BLE001 - cleaning up a discarded clone changes no score
                pass

    async def _tick(self, ev: Event) -> tuple[str | None, Delivery]:
        hook = self._hook(Hook.TICK)
        if callable(hook):
            if _accepts_observation(hook):
                self.log.ticks_by_hook += 1
                return await self._call("tick", lambda: hook(ev.budget_ops, observation=ev.text)), Delivery.HOOK
            if not ev.observation:
                self.log.ticks_by_hook += 1
                return await self._call("tick", lambda: hook(ev.budget_ops)), Delivery.HOOK
        elif ev.no_tick is not NoTick.TURN:
            self.log.ticks_not_invoked += 1
            return None, Delivery.NOT_INVOKED
        self.log.ticks_as_turns += 1
        return await self._respond(self.agent, ev.text), Delivery.TURN

    async def deliver(self, ev: Event) -> tuple[str | None, Delivery]:
        if ev.kind is EventKind.END_SESSION:
            await self._call("end_session", self.agent.end_session)
            self.session += 1
            return None, Delivery.HOOK
        if ev.kind is EventKind.TICK:
            return await self._tick(ev)
        if ev.clone:
            return await self._clone(ev.text), Delivery.HOOK
        return await self._respond(self.agent, ev.text), Delivery.HOOK


async def drive_episode(test: InteractiveTest, episode: InteractiveEpisode, agent: Any, *,
                        make_turn: TurnBuilder = neutral_turn,
                        deadline_s: float | None = 60.0) -> tuple[EpisodeRecord, DriveLog]:
    """Run one episode on an Agent through its hooks.

    Args:
        test: The test.
        episode: One of its episodes.
        agent: A fresh system under test (an :class:`sitbench.agents.Agent`).
        make_turn: The turn envelope builder.
        deadline_s: Per-call deadline in seconds (``None``: none).

    Returns:
        The episode record (a failure reason, when there is one, is appended to its error) and the log.
    """
    log = DriveLog()
    driver = _Driver(agent, make_turn, deadline_s, log)
    session = test.session(episode)
    ev = session.next_event()
    while ev is not None:
        reply, delivery = await driver.deliver(ev)
        session.send(reply, delivery)
        ev = session.next_event()
    record = session.record()
    if record.error and log.failures:
        record = record.model_copy(update={"error": f"{record.error} ({log.failures[0]})"})
    return record, log


class PolicyAgent:
    """A reference policy as an :class:`sitbench.agents.Agent` (a baseline agent for any runner).

    ``respond`` answers the turn's utterance, ``tick(budget_ops, observation)`` forwards to the
    policy's tick when it has one, ``fork`` deep-copies the policy.
    """

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        if not callable(getattr(policy, "tick", None)):
            self.tick = None  # type: ignore[assignment]

    def describe(self) -> dict[str, Any]:
        return {"name": f"reference:{type(self.policy).__name__}", "supports_fork": True}

    async def ingest(self, subject: Any) -> None:
        return None

    async def respond(self, turn: AgentTurn) -> str:
        return str(self.policy.respond(turn.utterance))

    async def tick(self, budget_ops: int, observation: str = "") -> str | None:
        out = self.policy.tick(observation, budget_ops)
        return None if out is None else str(out)

    async def end_session(self) -> None:
        self.policy.end_session()

    async def fork(self) -> PolicyAgent:
        return type(self)(copy.deepcopy(self.policy))
