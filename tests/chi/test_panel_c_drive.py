"""Driving C/A episodes through the Agent hooks (respond, tick, end_session, fork)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from sitbench.agents import AgentTurn
from sitbench.chi._panel_c import Delivery, EventKind, Outcome, play
from sitbench.chi._panel_c_drive import PolicyAgent, drive_episode
from sitbench.chi._panel_c_goal import PromptOnly
from sitbench.chi._panel_c_registry import CA_PANEL, panel_entry


@pytest.mark.parametrize("entry", CA_PANEL, ids=lambda e: e.test.test_id)
def test_driving_an_agent_gives_the_records_the_in_process_driver_gives(entry: Any) -> None:
    for ep in entry.test.generate(3)[:2]:
        direct = play(entry.test, ep, entry.good())
        driven, log = asyncio.run(drive_episode(entry.test, ep, PolicyAgent(entry.good())))
        assert driven.outcome is direct.outcome and driven.features == direct.features
        assert not log.failures and log.live_probes == 0


def test_a_bare_tick_hook_gets_channel_records_as_turns_and_neutral_ticks_by_hook() -> None:
    from sitbench.chi._panel_c_evidence import RevisionReference

    class Bare(PolicyAgent):
        async def tick(self, budget_ops: int) -> str | None:  # type: ignore[override]
            return None

        async def respond(self, turn: AgentTurn) -> str:
            if turn.utterance.startswith("TICK"):
                return self.policy.tick(turn.utterance, 1) or "{}"
            return await super().respond(turn)

    t = panel_entry("C3").test
    ep = t.generate(3)[0]
    rec, log = asyncio.run(drive_episode(t, ep, Bare(RevisionReference())))
    ticks = [s for s in rec.steps if s.kind is EventKind.TICK]
    assert [s.delivery for s in ticks].count(Delivery.TURN) == 1 == log.ticks_as_turns
    assert log.ticks_by_hook == len(ticks) - 1
    assert rec.outcome is Outcome.SUCCESS


def test_an_agent_without_tick_is_not_invoked_on_c6() -> None:
    t = panel_entry("C6").test
    rec, log = asyncio.run(drive_episode(t, t.generate(1)[0], PolicyAgent(PromptOnly())))
    assert rec.outcome is Outcome.NOT_INVOKED and log.ticks_not_invoked == 1


def test_failures_are_task_failures_with_their_reason() -> None:
    class Slow(PolicyAgent):
        async def respond(self, turn: AgentTurn) -> str:
            await asyncio.sleep(1)
            return "{}"

    class Broken(PolicyAgent):
        async def respond(self, turn: AgentTurn) -> Any:
            return 42

    t = panel_entry("C4").test
    ep = t.generate(1)[0]
    rec, log = asyncio.run(drive_episode(t, ep, Slow(PromptOnly()), deadline_s=0.05))
    assert rec.outcome is Outcome.INVALID and "timeout" in (rec.error or "")
    rec, log = asyncio.run(drive_episode(t, ep, Broken(PromptOnly())))
    assert rec.outcome is Outcome.INVALID and "malformed" in log.failures[0]


def test_without_fork_clone_probes_are_live_and_counted() -> None:
    class NoFork(PolicyAgent):
        fork = None  # type: ignore[assignment]

    entry = panel_entry("A2")
    ep = entry.test.generate(1)[0]
    rec, log = asyncio.run(drive_episode(entry.test, ep, NoFork(entry.good())))
    assert log.live_probes == sum(s.clone for s in rec.steps) > 0


def test_turns_carry_sessions_that_advance_at_end_session() -> None:
    seen: list[int] = []

    class Recorder(PolicyAgent):
        async def respond(self, turn: AgentTurn) -> str:
            seen.append(turn.session)
            return json.dumps({"ack": True, "choice": "A"})

    entry = panel_entry("A3")
    asyncio.run(drive_episode(entry.test, entry.test.generate(1)[0], Recorder(entry.good())))
    assert seen[0] == 1 and max(seen) == 2
