"""Validities corrected by a human audit of the run (seed §8.3, SPEC §2.12): a difference estimator.

The audit's adjudicated reference gives a human reading of each audited response; the shared contract scorer
turns it into a human verdict. For each configuration and category, the corrected validity is

    observed validity (the primary reader's, pair-balanced) + Δ̂,

where Δ̂ estimates the pair-balanced mean of (human verdict − verifier verdict) over the category's completed
trials. Because the pair-balanced mean (Eq. 40) is linear in the trials' verdicts, the true validity is exactly
the observed one plus that mean; Δ̂ is its Hájek estimate from the audited trials, each weighted by
``1/π_i`` (the audit's inclusion probability, adjusted for its stratum's unannotated draws) times the trial's
share ``a_i`` of the pair-balanced mean (``1 / (pairs · lineages of its pair · completed trials of its
lineage)``): ``Δ̂ = Σ w_i a_i d_i / Σ w_i a_i``. An answer over the length cap is invalid by rule, whoever reads
it, so its difference is 0. The corrected value is bounded to [0, 1]. Its interval resamples the audited
responses within the audit's strata (:func:`sitbench.audit.stratified_draws`: one-response strata pooled), the
observed validity held fixed: it covers the audit's sampling, not the sampling of pairs. Macro SIT is the mean
of the eight corrected validities, resampled together.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict

from sitbench.audit import (
    AuditReference,
    AuditSample,
    Interval,
    item_weights,
    load_audit,
    reference_observation,
    stratified_draws,
    summarize,
)
from sitbench.errors import InputError
from sitbench.runs import SCORES_FILE, RunStore, ScoreRecord
from sitbench.schema import CATEGORY_METRICS, Category

if TYPE_CHECKING:
    from sitbench.metrics._compute import ConfigMetrics
    from sitbench.verify import Judge

AUDIT_SEED = 0
"""Seed of the stratified bootstrap behind every audited interval (fixed, recorded, so a figure is reproducible)."""

AUDIT_RESAMPLES = 1000
"""Resamples of that bootstrap."""

AUDIT_CI = 0.95

_UNIT = "audited responses within the audit's strata (one-response strata pooled)"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class AuditStatus(str, Enum):
    """Whether a validity was corrected by the audit, and if not why."""

    CORRECTED = "corrected"
    """Observed validity plus the audit's estimate of (human − verifier verdict)."""
    UNAUDITED = "unaudited"
    """The audit holds no trial of this configuration and category (for Macro SIT: of some category)."""
    UNDEFINED = "undefined"
    """The validity itself is undefined (no completed trial)."""


class Audited(_Model):
    """A validity corrected by a human audit of the run."""

    status: AuditStatus
    estimate: float | None = None
    """Observed validity + correction, bounded to [0, 1]; None unless corrected."""
    observed: float | None = None
    """The primary reader's validity (the metrics table's figure)."""
    correction: float | None = None
    """Estimated pair-balanced mean of (human verdict − verifier verdict), each −1, 0 or +1."""
    interval: Interval | None = None
    """Stratified bootstrap interval of ``estimate`` (seed and resamples recorded in it)."""
    audited: int = 0
    """Audited trials of this configuration and category (Macro SIT: of all eight)."""
    disagreements: int = 0
    """Of those, trials whose human verdict differs from the verifier's."""


class AuditSummary(_Model):
    """Which audit corrected a run's validities, and how much of the run it read."""

    reference: str
    """The adjudicated reference (``sitbench audit agree ... --out``)."""
    sample_id: str
    phase: str
    synthetic: bool
    """Some annotation is scripted: the corrected figures demonstrate the method, not a human reading."""
    run: str
    """The run's name in the sample."""
    audited: int
    """Annotated trials of this run."""
    disagreements: int
    """Of those, trials whose human verdict differs from the verifier's."""
    seed: int
    resamples: int
    ci: float
    method: str = ("difference estimator: observed validity + Σ w·a·(human − verifier) / Σ w·a over the "
                   "audited trials of the configuration and category, w = 1/π (inclusion probability, adjusted "
                   "for unannotated draws), a = the trial's share of the pair-balanced mean; bounded to [0, 1]; "
                   "interval: stratified bootstrap of the audited responses, observed validity fixed")


@dataclass(frozen=True)
class _Row:
    """One annotated response of the audit: its stratum, weight and (for a trial of this run) what it says."""

    stratum: str
    weight: float
    domain: tuple[str, Category] | None = None
    share: float = 0.0
    diff: float = 0.0


# --------------------------------------------------------------------------- which trials of the run


def _source_names(sample: AuditSample, run: Path, reference_path: Path) -> set[str]:
    """The sample's names of ``run``, matched by run id and the SHA-256 of its scores.

    Raises:
        InputError: the sample was not drawn from this run, or the run was scored again since.
    """
    from sitbench.stores import sha256_file

    store = RunStore(run).require()
    run_id = store.manifest().run_id
    sha = sha256_file(store.scores_path) if store.has_scores() else ""
    same_run = [s for s in sample.runs if s.run_id == run_id]
    drawn = {s.name for s in same_run if s.scores_sha256 == sha}
    if drawn:
        return drawn
    fix = (f"draw a sample of it (`sitbench audit sample {run} ... --out SAMPLE`), annotate and adjudicate it, "
           "and give that reference")
    if same_run:
        raise InputError(f"{run}: scored again since audit sample {sample.sample_id} ({reference_path}) was drawn "
                         f"from it ({SCORES_FILE} SHA-256 differs), so the audit's strata are of other verdicts; {fix}")
    raise InputError(f"{run}: audit {reference_path} (sample {sample.sample_id}) was not drawn from this run (it "
                     f"drew from {', '.join(s.path for s in sample.runs)}); {fix}")


class _Shares:
    """Each completed trial's share of its configuration and category's pair-balanced mean (Eq. 40)."""

    def __init__(self, records: Iterable[ScoreRecord]) -> None:
        # (config, category) → pair → lineage → completed trials (a lineage with records but none completed
        # makes its pair incomplete, as in the metrics).
        self.cells: dict[tuple[str, Category], dict[str, dict[str, int]]] = {}
        for record in records:
            lineages = self.cells.setdefault((record.config, record.category), {}).setdefault(record.pair_id, {})
            lineages[record.lineage_id] = lineages.get(record.lineage_id, 0) + (record.status == "completed")

    def share(self, record: ScoreRecord) -> float:
        pairs = self.cells[(record.config, record.category)]
        complete = [p for p, lineages in pairs.items() if all(lineages.values())]
        lineages = pairs[record.pair_id]
        if record.pair_id not in complete:
            return 0.0
        return 1.0 / (len(complete) * len(lineages) * lineages[record.lineage_id])


def _judge(run: Path) -> Judge:
    """The contract scorer over the dataset the run was made with."""
    from sitbench.runs import run_dataset_dir, verify_run_dataset
    from sitbench.stores import load_dataset
    from sitbench.verify import Judge

    manifest = RunStore(run).manifest()
    ds = load_dataset(run_dataset_dir(run, manifest))
    verify_run_dataset(ds, manifest.dataset, run)
    return Judge(ds.hidden, ds.visible.queries)


def _rows(run: Path, reference: AuditReference, sample: AuditSample, names: set[str]) -> list[_Row]:
    """Every annotated response of the audit; those of this run carry their domain, share and difference.

    Raises:
        InputError: an audited trial of this run is not a completed trial of its scores.
    """
    weights = item_weights(reference, sample)
    items = sample.item_map()
    wanted = {items[a.item_id].trial_id for a in reference.items if items[a.item_id].run in names}
    records = list(RunStore(run).iter_scores(summary=True))
    shares = _Shares(records)
    by_trial = {r.trial_id: r for r in records if r.trial_id in wanted}
    judge = _judge(run) if wanted else None
    props = {p.prop_id: p for p in sample.vocabulary.propositions}
    rows = []
    for annotation in reference.items:
        item = items[annotation.item_id]
        if item.run not in names:
            rows.append(_Row(item.stratum, weights[annotation.item_id]))
            continue
        record = by_trial.get(item.trial_id)
        if record is None or record.verdict is None or judge is None:
            raise InputError(f"{run / SCORES_FILE}: audited trial {item.trial_id!r} is not a completed trial here; "
                             "give the run the audit sample was drawn from")
        verifier = record.verdict.valid
        # An answer over the length cap is invalid by rule, whoever reads it.
        human = verifier if record.over_length is not None else \
            judge.score_observation(record.probe_id, reference_observation(annotation, props)).verdict.valid
        rows.append(_Row(item.stratum, weights[annotation.item_id], (record.config, record.category),
                         shares.share(record), float(human) - float(verifier)))
    return rows


# --------------------------------------------------------------------------- the estimates


@dataclass(frozen=True)
class _Draws:
    """The bootstrap's row indices (resamples × rows), shared by every figure so Macro SIT resamples them together."""

    indices: np.ndarray
    seed: int
    ci: float

    @property
    def resamples(self) -> int:
        return int(self.indices.shape[0])


def _category(observed: float | None, rows: list[_Row], domain: tuple[str, Category],
              draws: _Draws) -> tuple[Audited, np.ndarray | None]:
    """One configuration and category: the corrected validity and its bootstrap values."""
    inside = [r.domain == domain and r.share > 0 for r in rows]
    audited = sum(inside)
    disagreements = sum(1 for r, i in zip(rows, inside, strict=True) if i and r.diff)
    if observed is None:
        return Audited(status=AuditStatus.UNDEFINED, audited=audited, disagreements=disagreements), None
    w = np.asarray([r.weight * r.share if i else 0.0 for r, i in zip(rows, inside, strict=True)])
    d = np.asarray([r.diff for r in rows])
    if not audited:
        return Audited(status=AuditStatus.UNAUDITED, observed=observed), None
    correction = float((w * d).sum() / w.sum())
    num, den = (w * d)[draws.indices].sum(axis=1), w[draws.indices].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(den > 0, np.clip(observed + num / np.where(den > 0, den, 1.0), 0.0, 1.0), np.nan)
    return Audited(status=AuditStatus.CORRECTED, estimate=min(1.0, max(0.0, observed + correction)), observed=observed,
                   correction=correction, interval=summarize(values, draws.resamples, draws.seed, draws.ci, unit=_UNIT),
                   audited=audited, disagreements=disagreements), values


def _macro(observed: float | None, parts: list[tuple[Audited, np.ndarray | None]], draws: _Draws) -> Audited:
    """Macro SIT: the mean of the eight corrected validities, their bootstrap values averaged draw by draw."""
    counts = {"audited": sum(a.audited for a, _ in parts), "disagreements": sum(a.disagreements for a, _ in parts)}
    statuses = {a.status for a, _ in parts}
    if observed is None or AuditStatus.UNDEFINED in statuses:
        return Audited(status=AuditStatus.UNDEFINED, **counts)
    if AuditStatus.UNAUDITED in statuses:
        return Audited(status=AuditStatus.UNAUDITED, observed=observed, **counts)
    estimates = [a.estimate for a, _ in parts if a.estimate is not None]
    corrections = [a.correction for a, _ in parts if a.correction is not None]
    values = np.mean(np.stack([v for _, v in parts if v is not None]), axis=0)
    return Audited(status=AuditStatus.CORRECTED, estimate=math.fsum(estimates) / len(estimates), observed=observed,
                   correction=math.fsum(corrections) / len(corrections),
                   interval=summarize(values, draws.resamples, draws.seed, draws.ci, unit=_UNIT), **counts)


def _config(config: str, metrics: ConfigMetrics, rows: list[_Row], draws: _Draws) -> dict[str, Audited]:
    out: dict[str, Audited] = {}
    parts = []
    for category in Category:
        metric = CATEGORY_METRICS[category]
        result = _category(getattr(metrics, metric), rows, (config, category), draws)
        out[metric] = result[0]
        parts.append(result)
    out["macro_sit"] = _macro(metrics.macro_sit, parts, draws)
    return out


def audit_metrics(run: Path, metrics: Mapping[str, ConfigMetrics], reference_path: Path, *, seed: int = AUDIT_SEED,
                  resamples: int = AUDIT_RESAMPLES, ci: float = AUDIT_CI) -> tuple[dict[str, ConfigMetrics],
                                                                                   AuditSummary]:
    """The run's metrics with each category validity and Macro SIT corrected by a human audit of the run.

    Args:
        run: the run directory ``metrics`` were computed from.
        metrics: its metrics (:func:`run_metrics`).
        reference_path: the adjudicated reference (``sitbench audit agree ... --out``) of a sample drawn from it.
        seed: seed of the stratified bootstrap.
        resamples: bootstrap resamples.
        ci: interval coverage.

    Returns:
        The metrics with :attr:`ConfigMetrics.audited` set, and which audit it was.

    Raises:
        InputError: the reference or its sample is missing or malformed, the sample was not drawn from this
            run, or the run was scored again since it was drawn.
    """
    reference, sample = load_audit(reference_path)
    names = _source_names(sample, run, reference_path)
    rows = _rows(run, reference, sample, names)
    draws = _Draws(stratified_draws([r.stratum for r in rows], resamples, seed), seed, ci)
    corrected = {config: row.model_copy(update={"audited": _config(config, row, rows, draws)})
                 for config, row in metrics.items()}
    ours = [r for r in rows if r.domain is not None]
    summary = AuditSummary(reference=str(reference_path), sample_id=sample.sample_id, phase=sample.phase,
                           synthetic=reference.synthetic, run=", ".join(sorted(names)), audited=len(ours),
                           disagreements=sum(1 for r in ours if r.diff), seed=seed, resamples=resamples, ci=ci)
    return corrected, summary
