"""Machine-readable exports written beside the report: ``metrics.json`` and ``trials.csv``."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sitbench._version import __version__
from sitbench.report._card import verifier_cards
from sitbench.report._data import LoadedRun, failed_checks
from sitbench.stores import atomic_writer, file_head, write_text_atomic

METRICS_JSON = "metrics.json"
"""File name of the metrics export."""
TRIALS_CSV = "trials.csv"
"""File name of the per-trial export."""

TRIAL_COLUMNS: tuple[str, ...] = (
    "run",
    "trial_id",
    "config",
    "probe_id",
    "pair_id",
    "lineage_id",
    "category",
    "stratum",
    "theorem_qualified",
    "status",
    "valid",
    "partner_valid",
    "failed_checks",
    "false_memory",
    "temporal_leak",
    "unauthorized_epistemic",
    "prompt_tokens",
    "model",
    "ingest_ms",
    "answer_ms",
    "agent_tokens",
    "memory_ops",
    "agreement",
    "contested_checks",
    "second_valid",
    "second_partner_valid",
)
"""Columns of ``trials.csv``, one row per trial. ``run`` is first because trial ids repeat across runs;
``ingest_ms`` … ``memory_ops`` are filled for agent runs only, the last four for runs scored by two readers."""


def metrics_document(runs: Sequence[LoadedRun]) -> dict[str, Any]:
    """The ``metrics.json`` document.

    Shape: ``{"sitbench_version": …, "runs": {NAME: {"path", "run_id", "model",
    "verifier_version", "dataset_sha256", "files_sha256", "configs": {CONFIG: ConfigMetrics},
    "verifier_cards": [ReaderCard]}}}`` — the ``configs`` and ``verifier_cards`` are exactly what
    ``sitbench metrics --json`` prints.
    """
    return {
        "sitbench_version": __version__,
        "runs": {
            run.name: {
                "path": str(run.path),
                "run_id": run.manifest.run_id,
                "model": run.model,
                "verifier_version": run.manifest.verifier_version,
                "dataset_sha256": run.manifest.dataset.get("manifest_sha256"),
                "files_sha256": run.file_sha256,
                "configs": {config: row.model_dump(mode="json") for config, row in run.metrics.items()},
                "verifier_cards": [card.model_dump(mode="json") for card in verifier_cards(run.metrics)],
            }
            for run in runs
        },
    }


def is_metrics_json(path: Path) -> bool:
    """Whether the file at ``path`` is a ``metrics.json`` sitbench wrote (its first key is ``sitbench_version``)."""
    return file_head(path, 64).replace(b" ", b"").replace(b"\n", b"").startswith(b'{"sitbench_version":')


def is_trials_csv(path: Path) -> bool:
    """Whether the file at ``path`` is a ``trials.csv`` sitbench wrote (its header begins with the first columns)."""
    return file_head(path, 64).startswith(",".join(TRIAL_COLUMNS[:3]).encode("ascii") + b",")


def write_metrics_json(runs: Sequence[LoadedRun], path: Path) -> Path:
    """Write :func:`metrics_document` to ``path`` (UTF-8, indented, no NaN), atomically.

    Raises:
        OutputError: ``path`` cannot be written (naming it and the cause).
    """
    write_text_atomic(path, json.dumps(metrics_document(runs), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    return path


def _flag(value: bool | None) -> str:
    return "" if value is None else ("true" if value else "false")


def iter_trial_rows(runs: Sequence[LoadedRun]) -> Iterator[dict[str, str]]:
    """One tidy row per scored trial, as strings in :data:`TRIAL_COLUMNS` order.

    Booleans are ``true``/``false``; an undefined value (the verdict of a dropped trial,
    the partner verdict of a trial outside Q*_disc, a missing stratum) is the empty string.
    ``failed_checks`` joins the names of the failed target checks with ``;``.
    """
    for run in runs:
        model = run.model
        for r in run.scores:
            yield {
                "run": run.name,
                "trial_id": r.trial_id,
                "config": r.config,
                "probe_id": r.probe_id,
                "pair_id": r.pair_id,
                "lineage_id": r.lineage_id,
                "category": r.category.value,
                "stratum": r.stratum or "",
                "theorem_qualified": _flag(r.theorem_qualified),
                "status": r.status,
                "valid": _flag(None if r.verdict is None else r.verdict.valid),
                "partner_valid": _flag(None if r.partner is None else r.partner.valid),
                "failed_checks": ";".join(failed_checks(r)),
                "false_memory": _flag(r.false_memory),
                "temporal_leak": _flag(r.temporal_leak),
                "unauthorized_epistemic": _flag(r.unauthorized_epistemic),
                "prompt_tokens": str(r.prompt_tokens),
                "model": model,
                "ingest_ms": "" if r.ingest_ms is None else f"{r.ingest_ms:.3f}",
                "answer_ms": "" if r.answer_ms is None else f"{r.answer_ms:.3f}",
                "agent_tokens": "" if r.agent_tokens is None else str(r.agent_tokens),
                "memory_ops": "" if r.memory_ops is None else str(r.memory_ops),
                "agreement": r.agreement or "",
                "contested_checks": ";".join(r.contested_checks),
                "second_valid": _flag(None if r.second is None else r.second.verdict.valid),
                "second_partner_valid": _flag(None if r.second is None or r.second.partner is None
                                              else r.second.partner.valid),
            }


def trial_rows(runs: Sequence[LoadedRun]) -> list[dict[str, str]]:
    """Every row of :func:`iter_trial_rows` in a list."""
    return list(iter_trial_rows(runs))


def write_trials_csv(runs: Sequence[LoadedRun], path: Path) -> Path:
    """Write :func:`trial_rows` as CSV (header row, ``\\n`` line ends, UTF-8), atomically.

    Raises:
        OutputError: ``path`` cannot be written (naming it and the cause).
    """
    with atomic_writer(path) as handle:
        writer = csv.DictWriter(handle, fieldnames=TRIAL_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(iter_trial_rows(runs))  # row by row: a run's trials are never all held
    return path
