"""An Inspect log of ``sitbench/sit`` as a sitbench run directory (``sitbench import-inspect``).

Each sample's store holds the trial record the solver wrote (every call of the schedule with its
messages and response, what crossed each reset), so the run's ``responses.jsonl`` is the one
``sitbench run`` would have written for the same answers; ``score``, ``rescore``, ``analyze`` and
``report`` then work on it as on any run. A sample Inspect could not finish (an error, a limit) is a
dropped trial: attempted, never scored as wrong.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log

from sitbench._urls import redact_url
from sitbench.candidates import DecodingConfig
from sitbench.errors import InputError
from sitbench.integrations.inspect_ai._context import (
    SAMPLE_METADATA_KEY,
    TRIAL_STORE_KEY,
)
from sitbench.runs import (
    RunManifest,
    RunStore,
    TrialRecord,
    dataset_fields,
    summarize_trials,
    trial_ids,
    verify_run_dataset,
)
from sitbench.stores import load_dataset, make_dirs, write_jsonl


@dataclass(frozen=True)
class ImportReport:
    """What ``import-inspect`` wrote."""

    trials: int
    completed: int
    dropped: int
    other_epochs: int
    """Samples of other epochs than the one imported (left out)."""


def _read_log(path: Path) -> EvalLog:
    if not path.is_file():
        raise InputError(f"{path}: no such log file; pass the .eval (or .json) file `inspect eval` wrote "
                         "(`inspect log list` shows them)")
    try:
        return read_eval_log(str(path))
    except Exception as exc:  # noqa: BLE001 - Inspect raises several kinds for a file that is not a log
        raise InputError(f"{path}: not a readable Inspect log ({type(exc).__name__}: {str(exc)[:200]})") from None


def _iso(value: str | None) -> str | None:
    if not value:
        return None
    try:
        return dt.datetime.fromisoformat(value).astimezone(dt.UTC).isoformat(timespec="seconds")
    except ValueError:
        return value


def _decoding(log: EvalLog) -> DecodingConfig:
    """The decoding Inspect used: the eval's generate config over the task's (sitbench's defaults)."""
    defaults = DecodingConfig()
    fields: dict[str, Any] = {}
    for config in (log.plan.config, log.eval.model_generate_config):
        for name in ("temperature", "top_p", "max_tokens", "seed"):
            value = getattr(config, name, None)
            if value is not None:
                fields[name] = value
    return defaults.model_copy(update=fields)


def _dropped(fields: dict[str, Any], model: str, reason: str) -> TrialRecord:
    return TrialRecord(trial_id=fields["trial_id"], config=fields["config"], probe_id=fields["probe_id"], model=model,
                       status="dropped", drop_reason=reason[:300])


def import_inspect_log(log_path: Path, dataset: Path, out: Path, epoch: int = 1) -> ImportReport:
    """Write ``out`` (manifest.json, responses.jsonl) from the Inspect log at ``log_path``.

    Args:
        dataset: the dataset the eval ran on (the same bytes: its manifest hash is checked).
        epoch: which epoch to import when the eval ran several (one run holds one epoch).

    Raises:
        InputError: the log is not of ``sitbench/sit``, holds no samples, names another dataset, or
            ``out`` already holds a run.
    """
    log = _read_log(log_path)
    meta = (log.eval.metadata or {}).get("sitbench")
    if not isinstance(meta, dict) or "dataset" not in meta:
        raise InputError(f"{log_path}: not a log of the sitbench/sit task (task {log.eval.task!r}; its metadata has "
                         "no sitbench fields); run `inspect eval sitbench/sit ...` to make one")
    if not log.samples:
        raise InputError(f"{log_path}: holds no samples (status {log.status}); import a log whose samples were "
                         "written (the eval ran; `inspect eval` was not given --no-log-samples)")
    if dataset.is_file() or not (dataset / "manifest.json").is_file():
        raise InputError(f"--dataset {dataset}: not a dataset directory (no manifest.json); pass the dataset the "
                         "eval ran on")
    ds = load_dataset(dataset)
    recorded = meta["dataset"].get("manifest_sha256")
    here = dataset_fields(ds).get("manifest_sha256")
    if recorded and here != recorded:
        raise InputError(f"--dataset {dataset}: its manifest.json has SHA-256 {here}, but the eval in {log_path} ran "
                         f"on {meta['dataset'].get('path')} (SHA-256 {recorded}); pass that dataset")
    verify_run_dataset(ds, meta["dataset"], log_path)
    store = RunStore(out)
    if store.has_manifest():
        raise InputError(f"{out}: already holds a run; choose another --out")
    model = log.eval.model
    by_trial: dict[str, TrialRecord] = {}
    other_epochs = 0
    for sample in log.samples:
        if sample.epoch != epoch:
            other_epochs += 1
            continue
        fields = (sample.metadata or {}).get(SAMPLE_METADATA_KEY)
        if not isinstance(fields, dict) or "trial_id" not in fields:
            raise InputError(f"{log_path}: sample {sample.id!r} has no sitbench metadata; the log was not written "
                             "by the sitbench/sit task")
        stored = (sample.store or {}).get(TRIAL_STORE_KEY)
        if stored is not None and sample.error is None:
            trial = TrialRecord.model_validate(stored)
        elif sample.error is not None:
            trial = _dropped(fields, model, f"inspect error: {sample.error.message}")
        else:
            trial = _dropped(fields, model, "inspect: the sample ended before its schedule did")
        by_trial[trial.trial_id] = trial
    if not by_trial:
        raise InputError(f"{log_path}: no sample of epoch {epoch} (the eval ran {log.eval.config.epochs or 1} "
                         "epochs); pass --epoch N")
    order = {f"{c}:{p}": k for k, (c, p) in enumerate(trial_ids(ds, list(meta["configs"]), None))}
    trials = sorted(by_trial.values(), key=lambda t: order.get(t.trial_id, len(order)))
    api = model.split("/", 1)[0]
    decoding = _decoding(log)
    packages = log.eval.packages or {}
    manifest = RunManifest(
        run_id=(log.eval.eval_id or log.eval.run_id or "inspect")[:12],
        created_at=_iso(log.stats.started_at) or _iso(log.eval.created) or "",
        finished_at=_iso(log.stats.completed_at),
        package_version=str(meta.get("version") or ""),
        git_commit=None,
        dataset=dataset_fields(ds),
        configs=list(meta["configs"]),
        handler=meta.get("handler", "native"),
        candidate={"spec": model, "provider": f"inspect/{api}", "harness": "inspect",
                   **({"base_url": redact_url(log.eval.model_base_url)} if log.eval.model_base_url else {})},
        provider=f"inspect/{api}",
        cache={"enabled": False, "bypassed": "an Inspect eval: its own cache settings apply"},
        decoding=decoding,
        retriever=meta.get("retriever"),
        templates_sha256=str(meta.get("templates_sha256") or ""),
        seeds={"decoding": decoding.seed} if decoding.seed is not None else {},
        session_reset_policy=str(meta.get("session_reset_policy") or ""),
        tokenizer=str(meta.get("tokenizer") or "whitespace words"),
        extra={"inspect": {"log": str(log_path.resolve()), "eval_id": log.eval.eval_id, "run_id": log.eval.run_id,
                           "task": log.eval.task, "task_version": log.eval.task_version, "status": log.status,
                           "inspect_ai": packages.get("inspect_ai"), "epoch": epoch,
                           "extractor": meta.get("extractor"), "sitbench_task_version": meta.get("task_version")}},
        **summarize_trials(trials),
    )
    make_dirs(out)
    write_jsonl(store.responses_path, trials)
    store.write_manifest(manifest)
    completed = sum(t.status == "completed" for t in trials)
    return ImportReport(trials=len(trials), completed=completed, dropped=len(trials) - completed,
                        other_epochs=other_epochs)
