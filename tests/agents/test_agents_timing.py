"""An agent's answer time is its own: from the moment its code first runs to its return.

With eight trials in flight, an async agent's coroutine can wait in the event loop's queue behind the others before
it first runs; that wait used to be counted as the agent's time (230 ms for an agent that answers in under 1 ms).
"""

from __future__ import annotations

from pathlib import Path

from sitbench.cli import main
from sitbench.runs import RunStore

_AGENT = '''
import time


class Agent:
    async def ingest(self, subject):
        return {}

    async def respond(self, turn):
        time.sleep(0.02)            # 20 ms of the agent's own work, holding the event loop meanwhile
        return "I do not remember."

    async def end_session(self):
        pass

    def describe(self):
        return {"name": "steady"}


def make():
    return Agent()
'''


def test_answer_time_excludes_waiting_behind_other_trials(tmp_path: Path, pilot: Path) -> None:
    agent = tmp_path / "steady_agent.py"
    agent.write_text(_AGENT, encoding="utf-8")
    out = tmp_path / "run"
    assert main(["run", str(pilot), "--agent", f"{agent}:make", "--out", str(out), "--max-connections", "8"]) == 0
    trials = list(RunStore(out).iter_trials())
    assert len(trials) == 22
    for trial in trials:
        assert trial.agent is not None
        turns = len(trial.turns)
        # Each respond holds the loop 20 ms: its own span is 20 ms and a little, whatever else was queued.
        assert 20 * turns <= trial.agent.answer_ms < 20 * turns + 15 * turns, trial.agent.answer_ms
    # Wall time per turn includes the queue: with eight in flight some turns waited for several others.
    walls = [turn.response.latency_s for trial in trials for turn in trial.turns]
    assert max(walls) > 0.06
