"""Multi-turn schedules on the pilot: a G probe keeps its session history, H probes reset between
sessions, and each configuration carries exactly what its reset policy declares."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from sitbench.candidates import CandidateRequest, CandidateResponse
from sitbench.configs import SESSION_RESET_POLICY
from sitbench.runs import Runner, RunOptions, TrialRecord
from sitbench.schema import Category, envelope_for
from sitbench.stores import LoadedDataset

ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
QUOTED = re.compile(r"'([A-Z][a-z]+)'")


class Recorder:
    """Answers every call with a reply unique to the call, and keeps every request it was sent."""

    name = "test/recorder"

    def __init__(self, reply: str = "Noted, reply number {n}.") -> None:
        self.requests: dict[str, CandidateRequest] = {}
        self.reply = reply

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        self.requests[request.trial_id] = request
        n = len(self.requests)
        return CandidateResponse(text=self.reply.format(n=n), provider="test")

    def describe(self) -> dict[str, Any]:
        return {"provider": "test", "model": self.name}


class Run:
    def __init__(self, ds: LoadedDataset, trials: dict[str, TrialRecord], recorder: Recorder,
                 policy: str) -> None:
        self.ds, self.trials, self.recorder, self.policy = ds, trials, recorder, policy


@pytest.fixture(scope="module")
def run(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("schedules")
    recorder = Recorder()
    runner = Runner(pilot, recorder, "test/recorder", root / "run",
                    RunOptions(configs=list("ABCDEFGHI"), cache_dir=root / "embeddings"))
    manifest = asyncio.run(runner.run())
    assert manifest.counts["completed"] == 198
    trials = {t.trial_id: t for t in runner.store.trials()}
    return Run(runner.ds, trials, recorder, manifest.session_reset_policy)


def _text(messages: list[Any]) -> str:
    return "\n".join(m.content for m in messages)


def test_store_logs_exactly_what_the_candidate_was_sent(run: Run) -> None:
    calls = 0
    for trial in run.trials.values():
        for turn in trial.turns:
            request = run.recorder.requests[f"{trial.trial_id}#{turn.turn}"]
            assert request.messages == turn.messages
            calls += 1
    # 22 probes + 4 second turns + 2 extra PR-21 turns = 28 calls per configuration.
    assert calls == len(run.recorder.requests) == 9 * 28


@pytest.mark.parametrize("config", list("ABCDEFGHI"))
def test_g_probe_carries_its_earlier_turns_and_replies(run: Run, config: str) -> None:
    trial = run.trials[f"{config}:PR-21"]
    probe = run.ds.hidden.probes["PR-21"]
    assert probe.category is Category.G
    query = run.ds.visible.queries[probe.query_key]
    assert [t.session for t in query.turns] == [1, 1, 1]
    assert trial.persisted == []  # one session: no reset
    assert [t.turn for t in trial.turns] == [0, 1, 2]
    third = trial.turns[2].messages
    assert [m.role for m in third] == ["user", "assistant", "user", "assistant", "user"]
    envelopes = [envelope_for(query, i).render() for i in range(3)]
    # First user message: the configuration's full wrapper around turn 0's envelope. E and F retrieve
    # again for each turn's utterance, so their wrapper carries the current turn's records; every
    # other configuration's evidence is fixed for the session and repeats byte for byte.
    assert third[0].content.endswith(envelopes[0])
    assert third[0].content.startswith("[PROFILE AT 2022-06-01: ") or config == "A"
    if config not in "EF":
        assert third[0].content == trial.turns[0].messages[0].content
    assert third[1].content == trial.turns[0].response.text
    assert third[2].content == envelopes[1]
    assert third[3].content == trial.turns[1].response.text
    assert third[4].content == envelopes[2]
    # The second call already carried turn 0 and its reply.
    assert trial.turns[1].messages[1:] == third[1:3]
    if config not in "EF":
        assert trial.turns[1].messages[0] == third[0]
    for turn in query.turns:
        assert turn.utterance in _text(third)


H_PROBES = ["PR-05", "PR-06", "PR-09", "PR-10"]


@pytest.mark.parametrize("config", list("ABCDEFGHI"))
@pytest.mark.parametrize("probe_id", H_PROBES)
def test_h_probe_resets_between_sessions(run: Run, config: str, probe_id: str) -> None:
    trial = run.trials[f"{config}:{probe_id}"]
    query = run.ds.visible.queries[run.ds.hidden.probes[probe_id].query_key]
    assert [(t.turn, t.session) for t in trial.turns] == [(0, 1), (1, 2)]
    session_two = trial.turns[1].messages
    assert [m.role for m in session_two] == ["user"]
    text = _text(session_two)
    assert query.turns[0].utterance not in text
    assert envelope_for(query, 0).render() not in text
    assert trial.turns[0].response.text not in text
    assert query.turns[1].utterance in text
    assert trial.persisted == [f"reset before session 2: {SESSION_RESET_POLICY[config]}"]
    assert f"{config}: {SESSION_RESET_POLICY[config]}" in run.policy


def _nickname(run: Run, probe_id: str) -> str:
    query = run.ds.visible.queries[run.ds.hidden.probes[probe_id].query_key]
    match = QUOTED.search(query.turns[0].utterance)
    assert match
    return match.group(1)


@pytest.mark.parametrize("probe_id", H_PROBES)
def test_profile_only_configurations_forget_the_nickname(run: Run, probe_id: str) -> None:
    name = _nickname(run, probe_id)
    assert name in {"Bluefin", "Kestrel", "Periwinkle", "Saltmarsh"}
    for config in "ABC":
        trial = run.trials[f"{config}:{probe_id}"]
        assert name in _text(trial.turns[0].messages)  # said in session 1 …
        assert name not in _text(trial.turns[1].messages)  # … and gone after the reset
        assert run.recorder.requests[f"{config}:{probe_id}#1"].view["records"] == []


@pytest.mark.parametrize("config", ["G", "H"])
@pytest.mark.parametrize("probe_id", H_PROBES)
def test_state_configurations_write_the_session_record(run: Run, config: str, probe_id: str) -> None:
    name = _nickname(run, probe_id)
    query = run.ds.visible.queries[run.ds.hidden.probes[probe_id].query_key]
    subject = run.ds.visible.subjects[query.subject]
    sessions = [r for r in subject.records if r.session_id is not None]
    assert len(sessions) == 1 and name in sessions[0].text
    record = sessions[0]
    assert record.t == query.turns[0].t  # written on the day of session 1
    trial = run.trials[f"{config}:{probe_id}"]
    request_one = run.recorder.requests[f"{config}:{probe_id}#0"]
    request_two = run.recorder.requests[f"{config}:{probe_id}#1"]
    # Not yet ingested while session 1 runs; present in the projected state of session 2.
    assert record.text not in _text(trial.turns[0].messages)
    assert not any(r["kind"] == "session" for r in request_one.view["records"])
    assert record.text in _text(trial.turns[1].messages)
    assert [r["text"] for r in request_two.view["records"] if r["kind"] == "session"] == [record.text]
    assert "declared state-write" in trial.persisted[0]


def test_chronicle_exposes_post_tau_records_and_projected_state_never_does(run: Run) -> None:
    leaks_d = []
    for probe_id, probe in run.ds.hidden.probes.items():
        query = run.ds.visible.queries[probe.query_key]
        for index, turn in enumerate(query.turns):
            when = turn.t.isoformat()
            for config in "GH":
                request = run.recorder.requests[f"{config}:{probe_id}#{index}"]
                view = request.view
                assert all(r["t"] <= when for r in view["records"]), f"{config}:{probe_id}#{index}"
                assert all(a["t"] <= when for a in view["acquisitions"])
                assert all(s["t"] <= when for b in view["beliefs"] for s in b["stances"])
                dates = ISO_DATE.findall(_text(request.messages))
                assert dates and max(dates) <= when, f"{config}:{probe_id}#{index}: {max(dates)} > {when}"
            d = run.recorder.requests[f"D:{probe_id}#{index}"]
            if any(r["t"] > when for r in d.view["records"]):
                assert max(ISO_DATE.findall(_text(d.messages))) > when
                leaks_d.append(probe_id)
    # Every probe before the subject's last record sees the future in D: PR-11 (2018) sees the 2021 course.
    assert "PR-11" in leaks_d
    pr11 = run.recorder.requests["D:PR-11#0"]
    assert {"2021-01-11", "2021-03-15"} <= set(ISO_DATE.findall(_text(pr11.messages)))


def test_candidate_reply_in_history_is_not_audited_as_a_leak(pilot: Path, tmp_path: Path) -> None:
    """A candidate's own earlier reply is not harness payload.

    The isolation audit looks for contract-field words ("gold", "contract", …) in what the harness
    writes. A multi-turn schedule also sends the candidate's earlier replies back; an ordinary
    English answer on PR-21's first turn must not stop the run as if the harness had leaked.
    """
    recorder = Recorder(reply="I won gold at a regatta once, and signed a contract to coach ({n}).")
    runner = Runner(pilot, recorder, "test/recorder", tmp_path / "run", RunOptions(configs=["B"]))
    manifest = asyncio.run(runner.run())
    assert manifest.counts["completed"] == 22
    third = {t.trial_id: t for t in runner.store.trials()}["B:PR-21"].turns[2].messages
    assert "gold" in third[1].content
