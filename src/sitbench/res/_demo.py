"""The offline RES demonstration: the battery run with two reference agents, no key and no server.

Both agents answer through the agent protocol (``sitbench res run --agent``), one battery, one
results file: what a good pattern (owner-aware) and a poor one (owner-blind) look like under the
preregistered scoring.
"""

from __future__ import annotations

from pathlib import Path

from sitbench.agents import load_agent
from sitbench.candidates import Candidate, DecodingConfig
from sitbench.res._agents import AgentCandidate
from sitbench.res._runner import run_battery
from sitbench.res._scenarios import load_scenarios, scenarios_sha256
from sitbench.res._score import ResScore

DEMO_AGENTS: dict[str, str] = {
    "sitbench.res:owner_aware": "good: acts on a record only when it is its own (or it portrays the owner)",
    "sitbench.res:owner_blind": "poor: acts on every record as if it were its own",
}
"""The demo's agents (``--agent`` specs) and what each stands for."""


def demo_candidates() -> dict[str, Candidate]:
    """The two reference agents as RES answerers, labelled ``agent:SPEC``."""
    built = [AgentCandidate(load_agent(spec, timeout_s=30.0)) for spec in DEMO_AGENTS]
    return {c.name: c for c in built}


async def run_demo(out_dir: Path) -> ResScore:
    """Run the packaged battery with both reference agents into ``out_dir`` and score it.

    Raises:
        OutputError: a file of ``out_dir`` cannot be written.
    """
    candidates = demo_candidates()
    return await run_battery(list(candidates), candidates, load_scenarios(None), out_dir,
                             scenarios_source="sitbench.res/scenarios.jsonl", scenarios_sha256=scenarios_sha256(None),
                             decoding=DecodingConfig(), concurrency=8, progress=False)
