"""The mem0 adapter (examples/mem0_agent.py) runs the pilot for real, offline: mem0's Memory with a local
Qdrant store and sitbench's MiniLM embeddings; forks are copy on write."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

import pytest
from agents_support import EXAMPLES

from sitbench.agents import load_agent
from sitbench.cli import main
from sitbench.runs import RunStore, agent_subject, agent_turn
from sitbench.stores import load_dataset

# Not imported here: the adapter sets mem0's environment (no telemetry, a private MEM0_DIR) before mem0 loads.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("mem0") is None,
                                reason='needs mem0ai (pip install -e ".[memory]")')


def test_mem0_runs_the_pilot_end_to_end(pilot: Path, tmp_path: Path) -> None:
    out = tmp_path / "mem0"
    assert main(["run", str(pilot), "--agent", f"{EXAMPLES / 'mem0_agent.py'}:make", "--out", str(out)]) == 0
    assert main(["score", str(out)]) == 0
    assert main(["metrics", str(out)]) == 0
    assert main(["report", str(out), "--out", str(out / "report.html")]) == 0
    trials = RunStore(out).trials()
    assert len(trials) == 22 and all(t.status == "completed" for t in trials)
    manifest = RunStore(out).manifest()
    assert manifest.agent.info.name == "mem0" and manifest.agent.state_policy.value == "fork"
    assert all(t.agent.ingest_ops[0].detail == "mem0 infer=False" for t in trials)
    assert any(t.response_text.startswith("From what I remember:") for t in trials)


def test_mem0_forks_do_not_see_each_others_memories(pilot: Path) -> None:
    # The module the --agent loader imported: mem0 allows one local Memory per process.
    loaded = load_agent(f"{EXAMPLES / 'mem0_agent.py'}:make")
    module = sys.modules[loaded.factory.__module__]
    ds = load_dataset(pilot)
    query = next(q for q in ds.visible.queries.values() if len({t.session for t in q.turns}) > 1)
    subject = agent_subject(ds.visible.subjects[query.subject], query)

    async def drive() -> tuple[list[str], list[str]]:
        base = module.make()
        await base.ingest(subject)
        one, two = await base.fork(), await base.fork()
        await one.respond(agent_turn(query, 0))  # the session-1 agreement, now in fork one's memory only
        said = query.turns[0].utterance
        seen = []
        for agent in (one, two):
            hits = [h["memory"] for scope in agent.scopes for h in module.memory().search(
                said, filters={"user_id": agent.user, "run_id": scope}, top_k=50)["results"]]
            seen.append([h for h in hits if said in h])
        return seen[0], seen[1]

    in_one, in_two = asyncio.run(drive())
    assert len(in_one) == 1 and in_two == []
