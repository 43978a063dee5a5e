"""Nothing hidden reaches an agent; an agent that fails on a fifth of its calls loses and duplicates
no trial, and --resume completes the drops."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from agents_support import EXAMPLES, load_example

from sitbench.agents import AgentSubject, AgentTurn
from sitbench.cli import main
from sitbench.lineage import CONTRACT_FIELD_TOKENS, isolation_tokens
from sitbench.runs import RunStore, run_agent
from sitbench.schema import Act
from sitbench.stores import load_dataset

KEYWORD = f"{EXAMPLES / 'keyword_agent.py'}:make"

RECEIVED: list[str] = []
"""Every payload the recording agent was given, serialized."""


class RecordingAgent:
    """Records everything it receives, as it receives it; answers like the keyword baseline."""

    def __init__(self) -> None:
        self.inner = load_example("keyword_agent").make()

    async def ingest(self, subject: AgentSubject) -> Any:
        RECEIVED.append(subject.model_dump_json())
        return await self.inner.ingest(subject)

    async def respond(self, turn: AgentTurn) -> Any:
        RECEIVED.append(turn.model_dump_json())
        return await self.inner.respond(turn)

    async def end_session(self) -> None:
        RECEIVED.append("end_session")


def make_recording() -> RecordingAgent:
    return RecordingAgent()


def test_an_agent_that_records_everything_finds_no_hidden_id_or_contract_field(pilot: Path, tmp_path: Path) -> None:
    RECEIVED.clear()
    assert main(["run", str(pilot), "--agent", f"{__name__}:make_recording", "--out", str(tmp_path / "r")]) == 0
    ds = load_dataset(pilot)
    assert len([r for r in RECEIVED if r.startswith('{"subject_key"')]) == 22
    everything = "\n".join(RECEIVED)
    tokens = set(re.findall(r"[\w-]+", everything))
    hidden = set(isolation_tokens(ds))  # lineage, pair, proposition, probe ids, store subject and query keys
    assert hidden, "the dataset has hidden ids to look for"
    assert not tokens & hidden
    assert not tokens & set(CONTRACT_FIELD_TOKENS)
    assert not tokens & {a.value for a in Act}
    # Partner records never reach a subject's agent: every record text is from its own evidence.
    own = {s: {r.text for r in e.records} for s, e in ds.visible.subjects.items()}
    for payload in (r for r in RECEIVED if r.startswith('{"subject_key"')):
        subject = AgentSubject.model_validate_json(payload)
        assert any({r.text for r in subject.evidence.records} <= texts for texts in own.values())
    # Keys are opaque content hashes, not the store's keys.
    assert all(re.fullmatch(r"subject-[0-9a-f]{12}", AgentSubject.model_validate_json(p).subject_key)
               for p in RECEIVED if p.startswith('{"subject_key"'))


ATTEMPTS: Counter[str] = Counter()
"""Calls seen per call content: a re-attempted call draws a new fault."""
FAULTS: Counter[str] = Counter()


class FaultyAgent:
    """The keyword baseline that raises, hangs or returns malformed output on 20 % of calls.

    Whether a call fails is a seeded hash of the call's content and how often that content was
    seen, so the faults do not depend on the order concurrent trials reach the agent."""

    def __init__(self) -> None:
        self.inner = load_example("keyword_agent").make()

    def _fault(self, method: str, payload: str) -> str | None:
        key = f"{method}:{payload}"
        ATTEMPTS[key] += 1
        draw = hashlib.sha256(f"seed-7:{key}:{ATTEMPTS[key]}".encode()).digest()
        if draw[0] >= 256 * 0.2:
            return None
        fault = ("raise", "hang", "malformed")[draw[1] % 3]
        FAULTS[fault] += 1
        return fault

    async def ingest(self, subject: AgentSubject) -> Any:
        fault = self._fault("ingest", subject.subject_key)
        if fault == "raise":
            raise RuntimeError("index unavailable")
        if fault == "hang":
            await asyncio.sleep(3600)
        result = await self.inner.ingest(subject)
        return "indexed!" if fault == "malformed" else result

    async def respond(self, turn: AgentTurn) -> Any:
        fault = self._fault("respond", turn.model_dump_json())
        if fault == "raise":
            raise ConnectionError("memory backend went away")
        if fault == "hang":
            await asyncio.sleep(3600)
        result = await self.inner.respond(turn)
        return {"txt": result["text"]} if fault == "malformed" else result

    async def end_session(self) -> None:
        if self._fault("end_session", "") == "raise":
            raise RuntimeError("could not flush the session")
        await self.inner.end_session()


def make_faulty() -> FaultyAgent:
    return FaultyAgent()


def test_faults_on_a_fifth_of_calls_lose_and_duplicate_nothing_and_resume_completes(
        pilot: Path, tmp_path: Path) -> None:
    clean, faulty = tmp_path / "clean", tmp_path / "faulty"
    run_agent(pilot, KEYWORD, clean)
    ATTEMPTS.clear()
    FAULTS.clear()
    manifest = run_agent(pilot, f"{__name__}:make_faulty", faulty, timeout_s=0.2)
    first = RunStore(faulty).trials()
    assert len(first) == 22 and len({t.trial_id for t in first}) == 22
    dropped = [t for t in first if t.status == "dropped"]
    assert dropped and manifest.counts["dropped"] == len(dropped)
    kinds = {t.drop_reason.split(":")[0] for t in dropped}
    assert kinds <= {"agent error", "agent timeout", "agent malformed output"} and len(kinds) >= 2
    assert all(t.drop_reason for t in dropped)
    assert set(FAULTS) == {"raise", "hang", "malformed"}
    for _ in range(10):
        if not [t for t in RunStore(faulty).trials() if t.status == "dropped"]:
            break
        run_agent(pilot, f"{__name__}:make_faulty", faulty, resume=True, timeout_s=0.2)
    final = RunStore(faulty).trials()
    assert [t.trial_id for t in final] == [t.trial_id for t in RunStore(clean).trials()]
    assert all(t.status == "completed" for t in final)
    lines = (faulty / "responses.jsonl").read_text().splitlines()
    assert len(lines) == 22, "the final rewrite keeps one line per trial"
    assert {t.trial_id: t.response_text for t in final} == {t.trial_id: t.response_text
                                                            for t in RunStore(clean).trials()}
    assert main(["score", str(faulty)]) == 0


def test_a_finished_trial_is_never_called_again_on_resume(pilot: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    run_agent(pilot, f"{__name__}:make_recording", out)
    before = (out / "responses.jsonl").read_bytes()
    RECEIVED.clear()
    run_agent(pilot, f"{__name__}:make_recording", out, resume=True)
    assert RECEIVED == []
    assert (out / "responses.jsonl").read_bytes() == before


def test_resume_refuses_another_agent_or_a_candidate_run(pilot: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out, candidate = tmp_path / "r", tmp_path / "c"
    run_agent(pilot, KEYWORD, out)
    assert main(["run", str(pilot), "--agent", f"{__name__}:make_recording", "--out", str(out), "--resume"]) == 2
    assert f"made with --agent {KEYWORD} (now --agent {__name__}:make_recording)" in capsys.readouterr().err
    assert main(["run", str(pilot), "--model", "mock/oracle", "--config", "B", "--out", str(candidate)]) == 0
    assert main(["run", str(pilot), "--agent", KEYWORD, "--out", str(candidate), "--resume"]) == 2
    assert "made with --model mock/oracle" in capsys.readouterr().err


def test_resume_refuses_another_state_policy(pilot: Path, tmp_path: Path, http_agent: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["run", str(pilot), "--agent", http_agent, "--out", str(out)]) == 0
    assert main(["run", str(pilot), "--agent", http_agent, "--out", str(out), "--resume",
                 "--agent-state", "reingest"]) == 2
    assert "--agent-state fork (now reingest)" in capsys.readouterr().err


def test_cache_serves_whole_trials_without_calling_the_agent(pilot: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    recording = f"{__name__}:make_recording"
    args = ["--agent", recording, "--cache", "--cache-path", str(cache)]
    RECEIVED.clear()
    assert main(["run", str(pilot), *args, "--out", str(tmp_path / "first")]) == 0
    assert len(RECEIVED) > 22
    RECEIVED.clear()
    assert main(["run", str(pilot), *args, "--out", str(tmp_path / "second")]) == 0
    assert RECEIVED == [], "every trial came from the cache"
    first, second = RunStore(tmp_path / "first"), RunStore(tmp_path / "second")
    assert [t.response_text for t in second.trials()] == [t.response_text for t in first.trials()]
    counts = second.manifest().counts
    assert counts["cache_hits"] == counts["calls"] == 28
    assert second.manifest().cache == {"enabled": True, "epoch": 0, "unit": "trial"}
    assert main(["score", str(tmp_path / "second")]) == 0
    # Another epoch samples afresh.
    assert main(["run", str(pilot), *args, "--epoch", "1", "--out", str(tmp_path / "third")]) == 0
    assert len(RECEIVED) > 22
