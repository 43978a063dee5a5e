"""Reference agents: configurations D, F and G as agents over a candidate give the configurations'
verdicts, except where the agent's own session memory stands in for the dataset's session record."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sitbench.agents import AgentSubject
from sitbench.cli import main
from sitbench.runs import RunStore, agent_subject, agent_turn
from sitbench.stores import load_dataset


def _verdicts(run: Path) -> dict[str, bool]:
    return {s.probe_id: s.verdict.valid for s in RunStore(run).scores() if s.verdict is not None}


@pytest.mark.parametrize(("config", "factory"), [("D", "full_context"), ("F", "filtered_rag"),
                                                 ("G", "structured_state")])
def test_a_reference_agent_gives_its_configurations_verdicts(pilot: Path, tmp_path: Path, config: str,
                                                             factory: str) -> None:
    agent_run, config_run = tmp_path / "agent", tmp_path / "config"
    assert main(["run", str(pilot), "--agent", f"sitbench.agents:{factory}", "--agent-option", "model=mock/oracle",
                 "--out", str(agent_run)]) == 0
    assert main(["run", str(pilot), "--config", config, "--model", "mock/oracle", "--out", str(config_run)]) == 0
    assert main(["score", str(agent_run)]) == 0 and main(["score", str(config_run)]) == 0
    manifest = RunStore(agent_run).manifest()
    assert manifest.agent.options == {"model": "mock/oracle"} and manifest.agent.info.model == "mock/oracle"
    assert manifest.agent.state_policy.value == "fork"
    ds = load_dataset(pilot)
    one_session = {p.probe_id for p in ds.hidden.probes.values()
                   if len({t.session for t in ds.visible.queries[p.query_key].turns}) == 1}
    ours, theirs = _verdicts(agent_run), _verdicts(config_run)
    assert len(ours) == len(theirs) == 22
    assert {p: ours[p] for p in one_session} == {p: theirs[p] for p in one_session}


def test_any_configuration_a_to_h_as_a_reference_agent(pilot: Path, tmp_path: Path) -> None:
    agent_run, config_run = tmp_path / "agent", tmp_path / "config"
    assert main(["run", str(pilot), "--agent", "sitbench.agents:reference", "--agent-option", "config=B",
                 "--agent-option", "model=mock/collapse", "--out", str(agent_run)]) == 0
    assert main(["run", str(pilot), "--config", "B", "--model", "mock/collapse", "--out", str(config_run)]) == 0
    assert main(["score", str(agent_run)]) == 0 and main(["score", str(config_run)]) == 0
    # B shows only the profile, so the agent's own session memory changes nothing: every verdict matches.
    assert _verdicts(agent_run) == _verdicts(config_run)


def test_end_session_writes_the_conversation_into_the_agents_memory(pilot: Path) -> None:
    from sitbench.agents import structured_state

    ds = load_dataset(pilot)
    query = next(q for q in ds.visible.queries.values() if len({t.session for t in q.turns}) > 1)
    subject: AgentSubject = agent_subject(ds.visible.subjects[query.subject], query)
    assert subject.withheld_records == 1
    agent = structured_state(model="mock/oracle")

    async def drive() -> None:
        await agent.ingest(subject)
        await agent.respond(agent_turn(query, 0))
        await agent.end_session()

    asyncio.run(drive())
    assert agent.subject is not None
    written = [r for r in agent.subject.records if r.kind.value == "session" and r.t == query.turns[0].t]
    assert len(written) == 1 and query.turns[0].utterance in written[0].text
    assert agent.conversation == []


@pytest.mark.parametrize(("option", "needle"), [("", "needs a candidate: add --agent-option model=SPEC"),
                                                ("model", "use KEY=VALUE"),
                                                ("model=nowhere/x", "unknown candidate"),
                                                ("config=I", "so it is no agent")])
def test_reference_agent_options_are_checked(pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             option: str, needle: str) -> None:
    extra = ["--agent-option", option] if option else []
    factory = "reference" if option.startswith("config=") else "structured_state"
    assert main(["run", str(pilot), "--agent", f"sitbench.agents:{factory}", *extra,
                 "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err
