"""Inspect metrics that are ``sitbench metrics``: each rebuilds the trials' score records from the
scores' metadata and calls :func:`sitbench.metrics.compute_metrics`, so the numbers are one
computation, not two that might drift.

Each returns one value per configuration, keyed ``CONFIG:NAME`` (``D:macro_sit``, ``D:A_pos``,
``D:LAA``); a value nothing defines (a category with no completed trial, Macro SIT with a category
missing) is left out, as ``sitbench metrics`` prints ``—`` and never ``0``.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from sitbench.metrics import CATEGORY_ORDER, ConfigMetrics, compute_metrics
from sitbench.runs import ScoreRecord
from sitbench.schema import CATEGORY_METRICS


def score_records(scores: list[SampleScore]) -> list[ScoreRecord]:
    """The score records behind Inspect sample scores written by the sitbench scorer."""
    records = []
    for sample_score in scores:
        metadata = dict(sample_score.score.metadata or {})
        metadata.pop("verifier", None)
        records.append(ScoreRecord.model_validate(metadata))
    return records


def sitbench_metrics(scores: list[SampleScore]) -> dict[str, ConfigMetrics]:
    """``sitbench metrics`` of the sample scores, per configuration."""
    return compute_metrics(score_records(scores))


def _per_config(scores: list[SampleScore], names: list[str]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for config, row in sitbench_metrics(scores).items():
        for name in names:
            value = getattr(row, name)
            if value is not None:
                out[f"{config}:{name}"] = float(value)
    return out


@metric
def category_validity() -> Metric:
    """Pair-balanced category validities A_pos … A_session (Eq. 40), per configuration."""

    def compute(scores: list[SampleScore]) -> Value:
        return _per_config(scores, [CATEGORY_METRICS[c] for c in CATEGORY_ORDER])

    return compute


@metric
def macro_sit() -> Metric:
    """Macro SIT (Eq. 42): the unweighted mean of the eight category validities, per configuration."""

    def compute(scores: list[SampleScore]) -> Value:
        return _per_config(scores, ["macro_sit"])

    return compute


@metric
def laa() -> Metric:
    """LAA and the identity-confusion shares IC_wrong and IC_none over theorem-qualified trials (Eq. 48)."""

    def compute(scores: list[SampleScore]) -> Value:
        return _per_config(scores, ["LAA", "IC_wrong", "IC_none"])

    return compute


@metric
def leak_rates() -> Metric:
    """FMR, TL and UEL: plain shares over completed trials, per configuration."""

    def compute(scores: list[SampleScore]) -> Value:
        return _per_config(scores, ["FMR", "TL", "UEL"])

    return compute
