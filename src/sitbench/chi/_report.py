"""The CHI/CHIS report: every required field of spec §8 from a manifest and its observations.

Aggregation follows §8: values are first taken within each run (trajectory;
one record per run and checkpoint), then averaged with equal weight across
runs. The primary CHI estimand is **CHI of the cluster-balanced mean h**; the
mean of per-run CHI is a different estimand and is reported separately.

An aggregate over runs is ``None`` when any run lacks the value at that
checkpoint (strict missingness); the number of runs missing it is reported
beside it, so nothing is averaged over a silently chosen subset.

Uncertainty: one whole-cluster resample index matrix is drawn per report and
shared by every statistic, so cross-time and cross-load dependence is kept.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from sitbench.chi._chis import Accumulation, memory_accumulation
from sitbench.chi._common import AXES, MEMORY_FACTORS, baseline_weights
from sitbench.chi._interchange import ChiManifest, ChiObservation, validate_records
from sitbench.chi._memory import (
    Counts,
    EIMCResult,
    LureCounts,
    MemoryPoint,
    memory_curve,
)
from sitbench.chi._similarity import chi_array
from sitbench.chi._uncertainty import (
    EIMCCategory,
    EIMCInterval,
    Interval,
    bootstrap_indices,
    check_resampling,
    eimc_bootstrap,
    percentile_interval,
)
from sitbench.stats import resample_means

SPEC_LIMITATIONS: tuple[str, ...] = (
    "The axis taxonomy and transforms are proposed, not psychometrically validated.",
    "Aggregate scores can hide failures and double-count correlated effects.",
    "Mimicry, scripted state machines, priming and scheduler policies can create apparent human-like dynamics.",
    "No score here measures consciousness, sentience, IQ, safety or personhood.",
    "Intervals are pointwise and conditional on the fixed calibration; they cannot certify a whole curve.",
)
"""Limitations every report carries, in addition to the manifest's own."""

DERIVED_DEFINITIONS: dict[str, str] = {
    "distance": "D(v, w) = mean(|v - w|) over the fixed probe feature schema",
    "drift": "D(v_step, v_first_step) per run, then the mean over runs",
    "continuity": "1 - D(v_step, v_previous_step) per run, only when both steps are declared neutral",
    "stability": "1 - mean adjacent D over the declared neutral steps, per run, then the mean over runs",
    "memory_accumulation": "change in EIMC and Q_M between the first and last checkpoint with a memory curve; censored capacities give bounds",
}
"""Definitions of the derived CHIS measures as computed by the report."""


class StepReport(BaseModel):
    """One CHIS checkpoint aggregated over runs."""

    model_config = ConfigDict(extra="forbid")

    step: int
    """Checkpoint index."""
    n_clusters: int
    """Runs with a record at this step."""
    tick: float | None
    """Mean event/tick time over runs (``None`` if any run lacks it)."""
    wall_time: float | None
    """Mean wall-clock seconds over runs."""
    capacity: dict[str, Interval]
    """Capacity ``p`` per axis: cluster-balanced mean and interval."""
    capacity_missing: dict[str, int]
    """Runs missing each axis capacity."""
    human_similarity: dict[str, Interval] | None
    """Similarity ``h`` per axis (``None`` when no record has a similarity profile)."""
    similarity_missing: dict[str, int]
    """Runs missing each axis similarity."""
    chi_of_mean_h: Interval
    """Primary estimand: CHI of the cluster-balanced mean h (estimate ``None`` = null CHI)."""
    mean_of_run_chi: Interval
    """Secondary estimand: mean over runs of each run's CHI."""
    task_results: dict[str, dict[str, Any]]
    """Per test: summed ``correct``/``total`` over runs, runs reporting, mean score."""
    memory: EIMCResult | None
    """Memory Capacity Curve on cluster-balanced mean factors, with EIMC and status."""
    memory_uncertainty: EIMCInterval | None
    """Bootstrap EIMC distribution (categorical) and pointwise Q_M intervals."""
    memory_label: str | None
    """What the curve measures: persistent EIMC, or an in-context / replayed-transcript curve."""
    memory_delay: float | None
    """Mean event delay of the memory sweep over runs (``None`` if any run lacks it)."""
    memory_costs: dict[str, float]
    """Mean of each memory-sweep cost over runs reporting it."""
    drift: Interval | None
    """Mean drift from the first step (``None`` without probe features)."""
    continuity: Interval | None
    """Mean continuity from the previous step, when both are declared neutral."""
    budgets: dict[str, float]
    """Mean of each budget/cost over runs reporting it."""


class ChiReport(BaseModel):
    """A CHI/CHIS report with every field required by spec §8."""

    model_config = ConfigDict(extra="forbid")

    label: str
    """Headline evidence label, e.g. ``SYNTHETIC DEMONSTRATION``."""
    evidence_class: str
    """Evidence class from the manifest."""
    synthetic: bool
    """True when any record is synthetic."""
    protocol_id: str
    """Protocol ID."""
    calibration_id: str | None
    """Calibration (or synthetic reference) ID."""
    reference_kinds: list[str]
    """Reference kinds present in the records."""
    version: str
    """Protocol/kit version."""
    system: dict[str, Any]
    """System boundary and configuration."""
    n_records: int
    """Observation records."""
    n_clusters: int
    """Independent runs (clusters)."""
    clusters: list[str]
    """Run ids."""
    steps: list[int]
    """Checkpoints."""
    weights: dict[str, float]
    """CHI axis weights used."""
    alpha: dict[str, float]
    """Q_M exponents used."""
    tau: float
    """EIMC threshold."""
    load_grid: list[int] | None
    """Registered load grid."""
    uncertainty: dict[str, Any]
    """Unit and type of uncertainty, resamples, seed and level."""
    checkpoints: list[StepReport]
    """The CHIS sequence, aggregated per checkpoint."""
    stability: Interval | None
    """Mean stability over declared neutral steps."""
    memory_accumulation: Accumulation | None
    """EIMC and Q_M change between the first and last memory curve."""
    derived_definitions: dict[str, str]
    """How each derived measure was computed."""
    controls: list[str]
    """Controls run (from the manifest)."""
    exclusions: list[str]
    """Exclusions and failures (from the manifest)."""
    limitations: list[str]
    """Limitations: the manifest's, then the specification's."""
    artifact_hashes: dict[str, str]
    """SHA-256 of the input artifacts and the manifest's dataset hashes."""


_MEMORY_LABELS = {
    "persistent": "persistent EIMC",
    "in-context": "in-context memory curve (not persistent EIMC)",
    "replayed-transcript": "replayed-transcript curve: external storage with replay costs (not persistent EIMC)",
    "none": "no persistent mechanism (control curve, not persistent EIMC)",
    "oracle-evidence": "oracle-evidence curve: a selection ceiling reading the answer key (not a system's EIMC)",
}


def _mean_over_runs(arr: np.ndarray) -> np.ndarray:
    # NaN in any run propagates: strict missingness.
    return arr.mean(axis=0) if arr.shape[0] else np.full(arr.shape[1:], np.nan)


def _interval(values: np.ndarray, reps: np.ndarray | None, n: int, seed: int, level: float) -> Interval:
    est = float(values)
    if math.isnan(est):
        # a null estimate has null uncertainty
        return percentile_interval(None, np.array([]), min(n, 1), seed, level).model_copy(update={"n_clusters": n})
    return percentile_interval(est, np.array([]) if reps is None else reps, n, seed, level)


def _label(evidence_class: str) -> str:
    return {
        "synthetic-demonstration": "SYNTHETIC DEMONSTRATION: not a capacity-only or human-referenced result; its CHI uses a synthetic reference",
        "illustrative-schema-only": "ILLUSTRATIVE SCHEMA ONLY: not evidence",
        "capacity-only": "CAPACITY-ONLY: no human similarity claim",
        "human-referenced": "HUMAN-REFERENCED under the named frozen calibration",
    }[evidence_class]


def _point_factors(p: MemoryPoint) -> list[float]:
    vals = [p.r, p.t, p.s, p.u, p.i, p.f]
    return [math.nan if v is None else float(v) for v in vals]


def _aggregate_point(points: Sequence[MemoryPoint], row: np.ndarray) -> MemoryPoint:
    """Cluster-balanced mean point; pooled counts kept when every run reports them."""
    vals = {k: (None if math.isnan(row[j]) else float(row[j])) for j, k in enumerate(MEMORY_FACTORS)}
    parts = [(p.f_raw, p.invalid_lure_rate) for p in points]
    f_raw = inv = None
    if all(a is not None and b is not None for a, b in parts) and vals["f"] is not None:
        f_raw = math.fsum(a for a, _ in parts) / len(parts)  # type: ignore[misc]
        # Each part is averaged on its own: f - f_raw can come out as -5e-17 when no run has an
        # invalid lure, which is no proportion.
        inv = math.fsum(b for _, b in parts) / len(parts)  # type: ignore[misc]
    counts: dict[str, Counts | LureCounts] | None = None
    point_counts = [p.counts for p in points if p.counts]
    if len(point_counts) == len(points):
        counts = {}
        for name in ("r", "t", "s", "u", "i", "clean_i"):
            cs = [pc.get(name) for pc in point_counts]
            counted = [c for c in cs if isinstance(c, Counts)]
            if len(counted) == len(cs):
                counts[name] = Counts(correct=sum(c.correct for c in counted), total=sum(c.total for c in counted))
        ls = [pc.get("f") for pc in point_counts]
        lures = [c for c in ls if isinstance(c, LureCounts)]
        if len(lures) == len(ls):
            counts["f"] = LureCounts(
                unsupported=sum(c.unsupported for c in lures),
                invalid=sum(c.invalid for c in lures),
                total=sum(c.total for c in lures),
            )
    clean = [p.clean_i for p in points]
    return MemoryPoint(
        r=vals["r"], t=vals["t"], s=vals["s"], u=vals["u"], i=vals["i"],
        f=vals["f"] if f_raw is None else None,
        f_raw=f_raw, invalid_lure_rate=inv,
        clean_i=None if any(c is None for c in clean) else math.fsum(clean) / len(clean),  # type: ignore[arg-type]
        counts=counts,
    )


def build_report(
    manifest: ChiManifest,
    records: Sequence[ChiObservation],
    *,
    artifact_hashes: dict[str, str] | None = None,
    n_resamples: int | None = None,
    seed: int | None = None,
) -> ChiReport:
    """Validate records against the manifest and compute the full report.

    Args:
        manifest: The run manifest.
        records: The observation records.
        artifact_hashes: Hashes of the input files, recorded in the report.
        n_resamples: Overrides ``manifest.analysis.n_resamples`` (at least 2,000).
        seed: Overrides ``manifest.analysis.seed``.

    Returns:
        The :class:`ChiReport`.
    """
    recs = validate_records(manifest, records)
    B = manifest.analysis.n_resamples if n_resamples is None else n_resamples
    sd = manifest.analysis.seed if seed is None else seed
    level = manifest.analysis.level
    runs = sorted({r.run for r in recs})
    steps = sorted({r.step for r in recs})
    n, S = len(runs), len(steps)
    check_resampling(n, B, level)
    ri = {run: k for k, run in enumerate(runs)}
    si = {st: k for k, st in enumerate(steps)}
    weights = baseline_weights(AXES) if manifest.weights is None else dict(manifest.weights)
    alpha = baseline_weights(MEMORY_FACTORS) if manifest.alpha is None else dict(manifest.alpha)
    grid = manifest.load_grid
    probe = manifest.feature_schemas.get("probe")

    caps = np.full((n, S, 5), np.nan)
    sims = np.full((n, S, 5), np.nan)
    ticks = np.full((n, S), np.nan)
    walls = np.full((n, S), np.nan)
    feats = np.full((n, S, len(probe)), np.nan) if probe else None
    mem = np.full((n, S, len(grid), 6), np.nan) if grid else None
    cell: dict[tuple[int, int], ChiObservation] = {}
    for r in recs:
        a, b = ri[r.run], si[r.step]
        cell[(a, b)] = r
        caps[a, b] = [np.nan if r.capacities[x] is None else r.capacities[x] for x in AXES]
        if r.human_similarity is not None:
            sims[a, b] = [np.nan if r.human_similarity[x] is None else r.human_similarity[x] for x in AXES]
        ticks[a, b] = np.nan if r.tick is None else r.tick
        walls[a, b] = r.wall_time
        if feats is not None and r.features is not None:
            feats[a, b] = [np.nan if x is None else x for x in r.features]
        if mem is not None and r.memory is not None:
            for k, load in enumerate(grid):  # type: ignore[arg-type]
                if load in r.memory.points:
                    mem[a, b, k] = _point_factors(r.memory.points[load])

    idx = bootstrap_indices(n, B, sd) if n >= 2 else None

    def boot(arr: np.ndarray) -> np.ndarray | None:
        return None if idx is None else resample_means(arr, idx)

    cap_hat, cap_rep = _mean_over_runs(caps), boot(caps)
    sim_hat, sim_rep = _mean_over_runs(sims), boot(sims)
    chi_hat = chi_array(sim_hat, weights)
    chi_rep = None if sim_rep is None else chi_array(sim_rep, weights)
    run_chi = chi_array(sims, weights)
    rchi_hat, rchi_rep = _mean_over_runs(run_chi), boot(run_chi)

    drift_runs = cont_runs = None
    neutral = set(manifest.neutral_steps)
    if feats is not None:
        drift_runs = np.abs(feats - feats[:, :1, :]).mean(axis=-1)
        cont_runs = np.full((n, S), np.nan)
        for b in range(1, S):
            if steps[b] in neutral and steps[b - 1] in neutral:
                cont_runs[:, b] = 1.0 - np.abs(feats[:, b] - feats[:, b - 1]).mean(axis=-1)
    drift_hat, drift_rep = (None, None) if drift_runs is None else (_mean_over_runs(drift_runs), boot(drift_runs))
    cont_hat, cont_rep = (None, None) if cont_runs is None else (_mean_over_runs(cont_runs), boot(cont_runs))

    stability: Interval | None = None
    nsteps = [si[s_] for s_ in sorted(neutral) if s_ in si]
    if feats is not None and len(nsteps) >= 2:
        adj = np.stack([np.abs(feats[:, b] - feats[:, a_]).mean(axis=-1) for a_, b in itertools.pairwise(nsteps)], axis=1)
        stab_runs = 1.0 - adj.mean(axis=1)
        stability = _interval(_mean_over_runs(stab_runs), boot(stab_runs), n, sd, level)

    checkpoints: list[StepReport] = []
    curves: list[EIMCResult] = []
    for b, st in enumerate(steps):
        present = [a for a in range(n) if (a, b) in cell]
        def rep(x: np.ndarray | None, *key: int) -> np.ndarray | None:
            index: tuple[slice | int, ...] = (slice(None), b, *key)  # noqa: B023 - called only in this iteration
            return None if x is None else x[index]
        memory = memory_unc = None
        if mem is not None and any(cell[(a, b)].memory is not None for a in present):
            pts_by_load: dict[int, MemoryPoint] = {}
            mean_f = _mean_over_runs(mem[:, b])
            for k, load in enumerate(grid):  # type: ignore[arg-type]
                pts = [cell[(a, b)].memory.points.get(load) if cell.get((a, b)) and cell[(a, b)].memory else None for a in range(n)]  # type: ignore[union-attr]
                if all(p is not None for p in pts):
                    pts_by_load[load] = _aggregate_point(pts, mean_f[k])  # type: ignore[arg-type]
            memory = memory_curve(grid, pts_by_load, manifest.tau, alpha)  # type: ignore[arg-type]
            memory_unc = eimc_bootstrap(grid, mem[:, b], tau=manifest.tau, seed=sd, alpha=alpha, n_resamples=B, level=level, indices=idx)  # type: ignore[arg-type]
            curves.append(memory)
        mem_recs = [cell[(a, b)].memory for a in present if cell[(a, b)].memory is not None]
        delays = [mr.delay for mr in mem_recs]  # type: ignore[union-attr]
        mcosts: dict[str, list[float]] = {}
        for mr in mem_recs:
            for key, v in mr.costs.items():  # type: ignore[union-attr]
                mcosts.setdefault(key, []).append(v)
        tasks: dict[str, dict[str, Any]] = {}
        for a in present:
            for t in cell[(a, b)].task_results or []:
                e = tasks.setdefault(t.test_id, {"axis": t.axis, "correct": 0, "total": 0, "n_runs": 0, "scores": []})
                e["n_runs"] += 1
                e["scores"].append(t.value)
                if t.correct is not None and t.total is not None:
                    e["correct"] += t.correct
                    e["total"] += t.total
        for e in tasks.values():
            sc = e.pop("scores")
            e["mean_score"] = None if any(v is None for v in sc) or len(sc) < n else math.fsum(sc) / len(sc)
            e["missing_runs"] = n - len([v for v in sc if v is not None])
        budgets: dict[str, list[float]] = {}
        for a in present:
            for key, v in cell[(a, b)].budgets.items():
                budgets.setdefault(key, []).append(v)
        has_h = any(cell[(a, b)].human_similarity is not None for a in present)
        checkpoints.append(
            StepReport(
                step=st,
                n_clusters=len(present),
                tick=None if np.isnan(ticks[:, b]).any() else float(ticks[:, b].mean()),
                wall_time=None if np.isnan(walls[:, b]).any() else float(walls[:, b].mean()),
                capacity={x: _interval(cap_hat[b, j], rep(cap_rep, j), n, sd, level) for j, x in enumerate(AXES)},
                capacity_missing={x: int(np.isnan(caps[:, b, j]).sum()) for j, x in enumerate(AXES)},
                human_similarity={x: _interval(sim_hat[b, j], rep(sim_rep, j), n, sd, level) for j, x in enumerate(AXES)} if has_h else None,
                similarity_missing={x: int(np.isnan(sims[:, b, j]).sum()) for j, x in enumerate(AXES)},
                chi_of_mean_h=_interval(chi_hat[b], rep(chi_rep), n, sd, level),
                mean_of_run_chi=_interval(rchi_hat[b], rep(rchi_rep), n, sd, level),
                task_results=tasks,
                memory=memory,
                memory_uncertainty=memory_unc,
                memory_label=None if memory is None else _MEMORY_LABELS[manifest.memory_mechanism or "persistent"],
                memory_delay=None if not delays or any(d is None for d in delays) or len(delays) < n else math.fsum(delays) / len(delays),  # type: ignore[arg-type]
                memory_costs={k: math.fsum(v) / len(v) for k, v in sorted(mcosts.items())},
                drift=None if drift_hat is None else _interval(drift_hat[b], rep(drift_rep), n, sd, level),
                continuity=None if cont_hat is None or b == 0 or not (st in neutral and steps[b - 1] in neutral) else _interval(cont_hat[b], rep(cont_rep), n, sd, level),
                budgets={k: math.fsum(v) / len(v) for k, v in sorted(budgets.items())},
            )
        )
    hashes = dict(artifact_hashes or {})
    hashes.update({f"dataset:{k}": v for k, v in manifest.dataset_hashes.items()})
    return ChiReport(
        label=_label(manifest.evidence_class),
        evidence_class=manifest.evidence_class,
        synthetic=any(r.synthetic for r in recs),
        protocol_id=manifest.protocol_id,
        calibration_id=manifest.calibration_id,
        reference_kinds=sorted({r.reference_kind for r in recs}),
        version=manifest.version,
        system=manifest.system,
        n_records=len(recs),
        n_clusters=n,
        clusters=runs,
        steps=steps,
        weights=weights,
        alpha=alpha,
        tau=manifest.tau,
        load_grid=grid,
        uncertainty={
            "unit": "run (independent trajectory); whole runs resampled with all their checkpoints and loads",
            "type": "percentile bootstrap, pointwise, conditional on the fixed calibration" if n >= 2 else "none: fewer than two clusters",
            "n_resamples": B if n >= 2 else 0,
            "seed": sd,
            "level": level,
        },
        checkpoints=checkpoints,
        stability=stability,
        memory_accumulation=memory_accumulation(curves[0], curves[-1]) if len(curves) >= 2 else None,
        derived_definitions=DERIVED_DEFINITIONS,
        controls=list(manifest.controls),
        exclusions=list(manifest.exclusions),
        limitations=list(manifest.limitations) + list(SPEC_LIMITATIONS),
        artifact_hashes=hashes,
    )


def _fmt(x: float | int | None, digits: int = 3) -> str:
    if x is None:
        return "null"
    if isinstance(x, int):
        return str(x)
    return f"{x:.{digits}f}"


def _iv(iv: Interval | None, digits: int = 3) -> str:
    if iv is None:
        return "n/a"
    if iv.estimate is None:
        return "null"
    if iv.lower is None:
        return f"{_fmt(iv.estimate, digits)} [no interval]"
    return f"{_fmt(iv.estimate, digits)} [{_fmt(iv.lower, digits)}, {_fmt(iv.upper, digits)}]"


def _cat(cat: EIMCCategory) -> str:
    if cat.status == "observed":
        return f"N={cat.eimc}"
    if cat.eimc is None:
        return cat.status
    return f">={cat.eimc} ({cat.status})"


def render_text(report: ChiReport) -> str:
    """Human-readable rendering of every report field."""
    out: list[str] = []
    w = out.append
    w(f"== {report.label} ==")
    w(f"evidence class: {report.evidence_class}   synthetic: {str(report.synthetic).lower()}")
    w(f"protocol: {report.protocol_id}   calibration: {report.calibration_id}   reference: {', '.join(report.reference_kinds)}   version: {report.version}")
    w("system: " + ", ".join(f"{k}={v}" for k, v in report.system.items()))
    w(f"samples: {report.n_records} records, {report.n_clusters} clusters, checkpoints {report.steps}")
    w(f"weights: {', '.join(f'{k}={v:.3g}' for k, v in report.weights.items())}   alpha: {', '.join(f'{k}={v:.3g}' for k, v in report.alpha.items())}   tau: {report.tau}   grid: {report.load_grid}")
    u = report.uncertainty
    w(f"uncertainty: {u['type']}; unit {u['unit']}; {u['n_resamples']} resamples, seed {u['seed']}, level {u['level']}")
    for c in report.checkpoints:
        w("")
        # A synthetic record's wall_time is generated, not measured: printing it as a duration would mislead.
        wall = ("wall time: none (synthetic records are generated, not timed)" if report.synthetic
                else f"recorded wall time {_fmt(c.wall_time, 1)} s (mean over the runs, since each run started)")
        w(f"-- checkpoint {c.step}: {c.n_clusters} clusters, tick {_fmt(c.tick, 1)}, {wall}")
        w("   p: " + "  ".join(f"{x}={_iv(c.capacity[x])}" for x in AXES))
        if c.human_similarity is not None:
            w("   h: " + "  ".join(f"{x}={_iv(c.human_similarity[x])}" for x in AXES))
        else:
            w("   h: null (no calibration)")
        w(f"   CHI of mean h: {_iv(c.chi_of_mean_h, 2)}   mean of per-run CHI: {_iv(c.mean_of_run_chi, 2)}")
        if c.task_results:
            w("   tasks: " + "  ".join(f"{k} {v['correct']}/{v['total']}" for k, v in sorted(c.task_results.items())))
        if c.memory is not None:
            m = c.memory
            qiv = c.memory_uncertainty.q_m if c.memory_uncertainty is not None else {}
            w("   Q_M: " + "  ".join(f"N={k}:{_iv(qiv[k]) if k in qiv else _fmt(v)}" for k, v in m.q_m.items()))
            for k, p in m.points.items():
                w(f"     N={k}: r={_fmt(p.r)} t={_fmt(p.t)} s={_fmt(p.s)} u={_fmt(p.u)} i={_fmt(p.i)} f={_fmt(p.f)} (f_raw={_fmt(p.f_raw)}, invalid={_fmt(p.invalid_lure_rate)}; clean={_fmt(p.clean_i)}, i-clean={_fmt(p.interference_gap)})")
            w(f"   memory: {c.memory_label}; delay {_fmt(c.memory_delay, 1)}; costs " + (", ".join(f"{k}={v:g}" for k, v in c.memory_costs.items()) or "none reported"))
            w(f"   EIMC(tau={m.tau}): {_fmt(m.eimc)} [{m.status}]  sustained prefix: {_fmt(m.sustained_prefix_eimc)}  nonmonotone: {str(m.nonmonotone).lower()}  sensitivity: " + ", ".join(f"{k}->{_fmt(v)}" for k, v in m.sensitivity.items()))
            mu = c.memory_uncertainty
            if mu is not None and mu.categories:
                cats = ", ".join(f"{_cat(cat)}: {cat.frequency:.3f}" for cat in mu.categories)
                w(f"   EIMC bootstrap: {cats}")
                w("   crossing frequency: " + ", ".join(f"N={k}:{v:.3f}" for k, v in mu.crossing_frequency.items()))
        if c.drift is not None:
            w(f"   drift from first checkpoint: {_iv(c.drift)}" + (f"   continuity: {_iv(c.continuity)}" if c.continuity is not None else ""))
        if c.budgets:
            w("   resources: " + ", ".join(f"{k}={v:g}" for k, v in c.budgets.items()))
    w("")
    w(f"stability over neutral checkpoints: {_iv(report.stability)}")
    if report.memory_accumulation is not None:
        acc = report.memory_accumulation
        w(f"memory accumulation: EIMC change {_fmt(acc.eimc_change)} ({acc.eimc_change_kind}); Q_M change " + ", ".join(f"N={k}:{_fmt(v)}" for k, v in acc.q_m_change.items()))
    w("derived definitions:")
    for term, definition in report.derived_definitions.items():
        w(f"  {term}: {definition}")
    w("controls: " + ("; ".join(report.controls) or "none declared"))
    w("exclusions/failures: " + ("; ".join(report.exclusions) or "none"))
    w("limitations:")
    for line in report.limitations:
        w(f"  - {line}")
    w("artifact hashes:")
    for artifact, digest in report.artifact_hashes.items():
        w(f"  {artifact}: {digest}")
    w(f"== {report.label} ==")
    return "\n".join(out)
