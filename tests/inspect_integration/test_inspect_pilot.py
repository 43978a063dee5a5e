"""The pilot through Inspect, offline: Inspect's own mockllm provider (answering as sitbench's mock
oracle) under two configurations, one of them with session resets and one with pressure turns, and
the same trials as `sitbench run` writes them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason='needs Inspect: pip install -e ".[inspect]" (or ".[dev]")')

from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageUser,
    ModelOutput,
    get_model,
)
from inspect_support import comparable, run_sit, score_records_of, trials_of

from sitbench.cli._runs import execute_run
from sitbench.integrations.inspect_ai import mock_outputs, sample_id
from sitbench.runs import RunStore, TrialRecord, session_prompt
from sitbench.stores import load_dataset, sha256_file

CONFIGS = ["G", "H"]  # G: the three-turn pressure schedule of PR-21; H: the two-session probes PR-05/06/09/10.


@pytest.fixture(scope="module")
def mockllm_log(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    model = get_model("mockllm/model", custom_outputs=mock_outputs("mock/oracle"))
    return run_sit(pilot, ",".join(CONFIGS), model, tmp_path_factory.mktemp("logs"))


@pytest.fixture(scope="module")
def sitbench_run(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "oracle"
    execute_run(pilot, "mock/oracle", out, ",".join(CONFIGS))
    return out


def test_mockllm_runs_every_trial_of_two_configurations(mockllm_log: EvalLog) -> None:
    assert mockllm_log.eval.model == "mockllm/model"
    assert mockllm_log.eval.task == "sitbench/sit"
    assert mockllm_log.samples is not None and len(mockllm_log.samples) == 22 * len(CONFIGS)
    assert all(sample.error is None for sample in mockllm_log.samples)
    trials = trials_of(mockllm_log)
    assert sorted(trials) == sorted(f"{c}:PR-{n:02d}" for c in CONFIGS for n in range(1, 23))
    assert all(t.status == "completed" for t in trials.values())
    # Every sample was scored by sitbench's verifier; most of the oracle's answers are SValid.
    values = [s.scores["sit_verifier"].value for s in mockllm_log.samples if s.scores]
    assert len(values) == len(mockllm_log.samples) and set(values) <= {"C", "I"}
    assert values.count("C") > 0.8 * len(values)


def test_trials_are_the_ones_sitbench_run_writes(mockllm_log: EvalLog, sitbench_run: Path) -> None:
    # Same schedule, same messages, same answers, same reset notes and prompt sizes: only who
    # answered (mockllm vs mock/oracle) and timings differ.
    ours = trials_of(mockllm_log)
    theirs = {t.trial_id: t for t in RunStore(sitbench_run).trials()}
    assert sorted(ours) == sorted(theirs)
    for trial_id, trial in theirs.items():
        assert comparable(ours[trial_id]) == comparable(trial), trial_id


def test_samples_are_the_builder_prompts_with_opaque_ids(mockllm_log: EvalLog, pilot: Path) -> None:
    ds = load_dataset(pilot)
    manifest_sha = sha256_file(pilot / "manifest.json")
    assert mockllm_log.samples is not None
    ids = [sample.id for sample in mockllm_log.samples]
    assert len(set(ids)) == len(ids)
    for sample in mockllm_log.samples:
        fields = sample.metadata["sitbench"]
        # Opaque: neither the probe nor the configuration can be read off the id.
        assert re.fullmatch(r"s[0-9a-f]{15}", str(sample.id))
        assert sample.id == sample_id(manifest_sha, fields["trial_id"])
        expected = session_prompt(ds, fields["config"], fields["probe_id"], 0).build.messages
        assert isinstance(sample.input, list)
        assert [(m.role, m.text) for m in sample.input] == [(m.role, m.content) for m in expected]


def _model_inputs(log: EvalLog, trial_id: str) -> list[list[tuple[str, str]]]:
    """What each model call of one sample was sent, from Inspect's own event log."""
    assert log.samples is not None
    [sample] = [s for s in log.samples if s.metadata["sitbench"]["trial_id"] == trial_id]
    sample = resolve_sample_attachments(sample)  # the log stores long texts once, by reference
    return [[(m.role, m.text) for m in event.input] for event in sample.events if event.event == "model"]


def test_pressure_turns_continue_the_conversation(mockllm_log: EvalLog) -> None:
    trial = trials_of(mockllm_log)["G:PR-21"]
    assert [t.turn for t in trial.turns] == [0, 1, 2] and trial.persisted == []
    calls = _model_inputs(mockllm_log, "G:PR-21")
    assert len(calls) == 3
    for n in (1, 2):
        # Each later call is the previous call, its answer, and the next envelope.
        assert calls[n][: len(calls[n - 1])] == calls[n - 1]
        assert calls[n][len(calls[n - 1])] == ("assistant", trial.turns[n - 1].response.text)
        assert len(calls[n]) == len(calls[n - 1]) + 2
    assert [[(m.role, m.content) for m in t.messages] for t in trial.turns] == calls


def test_session_reset_keeps_only_the_declared_state(mockllm_log: EvalLog) -> None:
    trial: TrialRecord = trials_of(mockllm_log)["H:PR-05"]
    assert [t.session for t in trial.turns] == [1, 2]
    assert len(trial.persisted) == 1 and trial.persisted[0].startswith("reset before session 2:")
    calls = _model_inputs(mockllm_log, "H:PR-05")
    assert len(calls) == 2
    # The second session starts a fresh conversation: one user message, none of session 1's turns.
    assert len(calls[1]) == 1 and calls[1][0][0] == "user"
    assert trial.turns[0].response.text not in calls[1][0][1]
    assert calls[1] == [(m.role, m.content) for m in trial.turns[1].messages]


def test_scorer_metadata_has_checks_and_observation(mockllm_log: EvalLog) -> None:
    records = score_records_of(mockllm_log)
    assert mockllm_log.samples is not None
    for sample in mockllm_log.samples:
        score = sample.scores["sit_verifier"]
        record = records[sample.metadata["sitbench"]["trial_id"]]
        assert record.observation is not None and record.verdict is not None
        assert set(record.verdict.checks) == {"act", "required", "forbidden", "uncertainty", "provenance",
                                              "disclosure", "grounding", "denial"}
        assert score.value == ("C" if record.verdict.valid else "I")
        assert (record.partner is not None) == record.theorem_qualified
        assert score.metadata["verifier"].startswith("sitbench-verifier/")
        assert score.answer == trials_of(mockllm_log)[record.trial_id].response_text


def test_plain_mockllm_runs_offline(pilot: Path, tmp_path: Path) -> None:
    # Inspect's mockllm as shipped (its default answer, its own usage estimate): tiktoken would
    # download its encoding for the estimate; under sitbench/sit it is counted offline instead.
    log = run_sit(pilot, "B", "mockllm/model", tmp_path)
    assert log.samples is not None and len(log.samples) == 22
    assert all(s.error is None and s.scores for s in log.samples)
    trial = next(iter(trials_of(log).values()))
    assert trial.response_text == "Default output from mockllm/model"
    assert trial.turns[0].response.usage["prompt_tokens"] > 0


def test_content_filter_is_a_dropped_trial(pilot: Path, tmp_path: Path) -> None:
    oracle = mock_outputs("mock/oracle")

    def filtered(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        output: ModelOutput = oracle(input, tools, tool_choice, config)
        if len(input) > 1:  # the provider filters every answer after the first of a session
            output.choices[0].stop_reason = "content_filter"
        return output

    log = run_sit(pilot, "G", get_model("mockllm/model", custom_outputs=filtered), tmp_path)
    trials = trials_of(log)
    dropped = {k for k, t in trials.items() if t.status == "dropped"}
    assert "G:PR-21" in dropped  # its second turn is filtered
    assert all(trials[k].drop_reason == "inspect: content_filter" for k in dropped)
    records = score_records_of(log)
    assert log.samples is not None
    for sample in log.samples:
        trial_id = sample.metadata["sitbench"]["trial_id"]
        assert (sample.scores["sit_verifier"].value == "N") == (trial_id in dropped)
        assert (records[trial_id].status == "dropped") == (trial_id in dropped)


def test_input_messages_convert_both_ways() -> None:
    from sitbench.candidates import Message
    from sitbench.integrations.inspect_ai._model import to_sitbench_messages
    from sitbench.integrations.inspect_ai._task import to_inspect_messages

    messages = [Message(role="user", content="a"), Message(role="assistant", content="b"),
                Message(role="user", content="c")]
    converted = to_inspect_messages(messages)
    assert isinstance(converted[0], ChatMessageUser) and isinstance(converted[1], ChatMessageAssistant)
    assert to_sitbench_messages(converted) == messages


def test_a_limit_that_ends_the_schedule_is_a_dropped_trial(pilot: Path, tmp_path: Path) -> None:
    from sitbench.cli import main

    # PR-21's third call carries five messages: a message limit of 3 ends it after its first answer.
    log = run_sit(pilot, "G", "sitbench/mock/oracle", tmp_path / "logs", eval_args={"message_limit": 3})
    assert log.samples is not None
    [sample] = [s for s in log.samples if s.metadata["sitbench"]["trial_id"] == "G:PR-21"]
    assert sample.limit is not None and sample.limit.type == "message"
    score = sample.scores["sit_verifier"]
    assert score.value == "N" and score.explanation.startswith("dropped (inspect: the sample ended before")
    assert main(["import-inspect", log.location, "--dataset", str(pilot), "--out", str(tmp_path / "run")]) == 0
    lines = (tmp_path / "run" / "responses.jsonl").read_text().splitlines()
    dropped = [line for line in lines if '"status":"dropped"' in line]
    assert len(dropped) == 1 and '"trial_id":"G:PR-21"' in dropped[0]
