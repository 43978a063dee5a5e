"""The report's agent parts: who the agent is, in words, and per-trial ingest and answer times, tokens and memory
operations."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import NamedTuple

from sitbench.agents import AgentManifest, StatePolicy, Transport
from sitbench.render import esc, num
from sitbench.report._data import LoadedRun

TRANSPORT_WORDS: dict[Transport, str] = {
    Transport.PYTHON: "in process (a Python factory)",
    Transport.HTTP: "over HTTP (the agent protocol)",
}
"""Where an agent ran, in words."""

STATE_WORDS: dict[StatePolicy, str] = {
    StatePolicy.FORK: "fork: the evidence ingested once, every trial on a fork of that state",
    StatePolicy.REINGEST: "reingest: a fresh agent ingests the evidence for every trial",
}
"""How each trial of an agent run started from a clean state, in words."""

ANSWER_TIME = "agent's own answer time"
"""What ``answer_ms`` is: the agent's own time, from its code's first step to its return (all turns together);
time its call queued behind other trials is not counted, waits it awaits itself (a model call) are."""


def agent_words(agent: AgentManifest) -> list[str]:
    """The agent as a run header says it: name and version, what it wraps, its spec, transport and state policy."""
    info = agent.info
    name = " ".join(x for x in (info.name, info.version) if x)
    wraps = f" wrapping {info.model}" if info.model else ""
    return [
        f"agent {name}{wraps} ({agent.spec})",
        f"runs {TRANSPORT_WORDS.get(agent.transport, str(agent.transport.value))}",
        f"state policy {STATE_WORDS.get(agent.state_policy, agent.state_policy.value)}",
        f"call timeout {num(agent.timeout_s)} s",
    ]


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


_NOTE = ("<p class='note'>Times in milliseconds, as median / total over the run's trials. The <b>agent's own answer "
         "time</b> runs from the moment the agent's code first runs on a turn to its return, all turns of a trial "
         "together: time its call waited behind other trials in flight is not counted; waits the agent awaits "
         "itself (a model call, a database) are. Under the <code>fork</code> state policy one ingest of each "
         "evidence is shared by its trials (each trial shows that ingest's time). Tokens and memory operations are "
         "what the agent reported; sitbench does not check them.</p>")


def _run_tables(run: LoadedRun, agent: AgentManifest) -> str:
    # The few fields shown, not whole score records: an agent run may have tens of thousands of trials.
    rows = [_AgentRow(r.trial_id, r.category.value, r.status, r.ingest_ms, r.answer_ms, r.agent_tokens,
                      r.memory_ops) for r in run.scores if r.ingest_ms is not None]
    head = ("<table class='agent'><thead><tr><th class='l'>agent</th><th class='l'>runs</th>"
            "<th class='l'>state policy</th><th>trials</th><th>ingest ms</th>"
            f"<th>{ANSWER_TIME} (ms)</th><th>tokens</th><th>memory ops</th></tr></thead><tbody>")
    summary = (f"<tr><td class='l'>{esc(agent.info.name)} {esc(agent.info.version)}</td>"
               f"<td class='l'>{esc(TRANSPORT_WORDS.get(agent.transport, agent.transport.value))}</td>"
               f"<td class='l'>{esc(STATE_WORDS.get(agent.state_policy, agent.state_policy.value))}</td>"
               f"<td>{len(rows)}</td><td>{_ms([r.ingest_ms for r in rows if r.ingest_ms is not None])}</td>"
               f"<td>{_ms([r.answer_ms for r in rows if r.answer_ms is not None])}</td>"
               f"<td>{sum(r.agent_tokens or 0 for r in rows)}</td>"
               f"<td>{sum(r.memory_ops or 0 for r in rows)}</td></tr></tbody></table>")
    trials = "".join(
        f"<tr><td class='l'>{esc(r.trial_id)}</td><td>{esc(r.category)}</td><td>{esc(r.status)}</td>"
        f"<td>{num(r.ingest_ms, 3)}</td><td>{num(r.answer_ms, 3)}</td><td>{num(r.agent_tokens)}</td>"
        f"<td>{num(r.memory_ops)}</td></tr>" for r in rows)
    return (f"<h3>{esc(run.name)}</h3>{head}{summary}<details><summary>per trial</summary>"
            "<table class='agent'><thead><tr><th>trial</th><th>category</th><th>status</th>"
            f"<th>ingest ms</th><th>{ANSWER_TIME} (ms)</th><th>tokens</th><th>memory ops</th></tr></thead>"
            f"<tbody>{trials}</tbody></table></details>")


def agent_section(runs: Sequence[LoadedRun]) -> str | None:
    """One summary row per agent run and a table of its trials; None when no run is an agent run."""
    tables = [_run_tables(run, run.manifest.agent) for run in runs if run.manifest.agent is not None]
    return _NOTE + "".join(tables) if tables else None
