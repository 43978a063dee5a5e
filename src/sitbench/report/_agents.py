"""The report's agent section: per-trial ingest and answer times, tokens and memory operations."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import NamedTuple

from sitbench.render import esc, num
from sitbench.report._data import LoadedRun


class _AgentRow(NamedTuple):
    trial_id: str
    category: str
    status: str
    ingest_ms: float | None
    answer_ms: float | None
    agent_tokens: int | None
    memory_ops: int | None


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} / {sum(values):.0f}" if values else "—"


def agent_section(runs: Sequence[LoadedRun]) -> str | None:
    """One summary row per agent run and a table of its trials; None when no run is an agent run."""
    agent_runs = [run for run in runs if run.manifest.agent is not None]
    if not agent_runs:
        return None
    parts = [("<p class='note'>Times in milliseconds, as median / total over the run's trials. Under the "
             "<code>fork</code> state policy one ingest of each evidence is shared by its trials (each trial shows "
             "that ingest's time). Tokens and memory operations are what the agent reported; sitbench does not "
             "check them.</p>")]
    for run in agent_runs:
        agent = run.manifest.agent
        assert agent is not None
        # The few fields shown, not whole score records: an agent run may have tens of thousands of trials.
        rows = [_AgentRow(r.trial_id, r.category.value, r.status, r.ingest_ms, r.answer_ms, r.agent_tokens,
                          r.memory_ops) for r in run.scores if r.ingest_ms is not None]
        head = ("<table class='agent'><thead><tr><th>agent</th><th>transport</th><th>state</th><th>trials</th>"
                "<th>ingest ms</th><th>answer ms</th><th>tokens</th><th>memory ops</th></tr></thead><tbody>")
        summary = (f"<tr><td class='l'>{esc(agent.info.name)} {esc(agent.info.version)}</td>"
                   f"<td>{esc(agent.transport)}</td><td>{esc(agent.state_policy.value)}</td><td>{len(rows)}</td>"
                   f"<td>{_ms([r.ingest_ms for r in rows if r.ingest_ms is not None])}</td>"
                   f"<td>{_ms([r.answer_ms for r in rows if r.answer_ms is not None])}</td>"
                   f"<td>{sum(r.agent_tokens or 0 for r in rows)}</td>"
                   f"<td>{sum(r.memory_ops or 0 for r in rows)}</td></tr></tbody></table>")
        trials = "".join(
            f"<tr><td class='l'>{esc(r.trial_id)}</td><td>{esc(r.category)}</td><td>{esc(r.status)}</td>"
            f"<td>{num(r.ingest_ms, 3)}</td><td>{num(r.answer_ms, 3)}</td><td>{num(r.agent_tokens)}</td>"
            f"<td>{num(r.memory_ops)}</td></tr>" for r in rows)
        parts.append(f"<h3>{esc(run.name)}</h3>{head}{summary}<details><summary>per trial</summary>"
                     "<table class='agent'><thead><tr><th>trial</th><th>category</th><th>status</th>"
                     "<th>ingest ms</th><th>answer ms</th><th>tokens</th><th>memory ops</th></tr></thead>"
                     f"<tbody>{trials}</tbody></table></details>")
    return "".join(parts)
