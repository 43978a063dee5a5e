"""Helpers of the Inspect integration's tests: run the task, read what sitbench would have written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model

from sitbench.integrations.inspect_ai import TRIAL_STORE_KEY
from sitbench.runs import ScoreRecord, TrialRecord

# Fields of a call that name who answered, and timings: everything else of a trial record is the
# same whichever harness replayed the schedule.
_WHO_AND_WHEN = ("model_sent", "provider", "returned_model", "usage", "latency_s", "retries")


def run_sit(dataset: Path, config: str, model: str | Model, log_dir: Path, *, eval_args: dict[str, Any] | None = None,
            **task_args: Any) -> EvalLog:
    """``inspect eval sitbench/sit`` in process; the log, with its samples, after checking it succeeded."""
    [log] = inspect_eval("sitbench/sit", task_args={"dataset": str(dataset), "config": config, **task_args},
                         model=model, display="none", log_dir=str(log_dir), max_connections=8, **(eval_args or {}))
    assert log.status == "success", log.error
    assert log.samples is not None
    return log


def trials_of(log: EvalLog) -> dict[str, TrialRecord]:
    """The trial records the solver kept in each sample's store, by trial id."""
    assert log.samples is not None
    out = {}
    for sample in log.samples:
        trial = TrialRecord.model_validate(sample.store[TRIAL_STORE_KEY])
        out[trial.trial_id] = trial
    return out


def score_records_of(log: EvalLog) -> dict[str, ScoreRecord]:
    """The score records the scorer left in each sample score's metadata, by trial id."""
    assert log.samples is not None
    out = {}
    for sample in log.samples:
        assert sample.scores is not None
        metadata = dict(sample.scores["sit_verifier"].metadata or {})
        metadata.pop("verifier")
        record = ScoreRecord.model_validate(metadata)
        out[record.trial_id] = record
    return out


def comparable(trial: TrialRecord) -> dict[str, Any]:
    """A trial record without who answered and how long it took."""
    data = trial.model_dump(mode="json")
    data.pop("model")
    data.pop("evidence_ms")
    for turn in data["turns"]:
        for key in _WHO_AND_WHEN:
            turn["response"].pop(key, None)
    return data


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def inspect_metrics(log: EvalLog) -> dict[str, float]:
    """Every metric value of the sitbench scorer in the log's results, keyed ``CONFIG:NAME``."""
    assert log.results is not None
    [scores] = [s for s in log.results.scores if s.name == "sit_verifier"]
    return {key: metric.value for key, metric in scores.metrics.items()}


def sitbench_metric_values(metrics: dict[str, Any]) -> dict[str, float]:
    """``sitbench metrics --json``'s configs, flattened to Inspect's ``CONFIG:NAME`` keys (values only)."""
    names = ["A_pos", "A_neg", "A_epi", "A_temp", "A_rel", "A_belief", "A_cf", "A_session", "macro_sit",
             "LAA", "IC_wrong", "IC_none", "FMR", "TL", "UEL"]
    out = {}
    for config, row in metrics.items():
        row = row if isinstance(row, dict) else row.model_dump()
        for name in names:
            if row[name] is not None:
                out[f"{config}:{name}"] = row[name]
    return out
