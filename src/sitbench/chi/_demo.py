"""The synthetic demonstration of spec §9.

Eight independent synthetic run clusters, five checkpoints each, and the tiny
load grid [1, 2, 4, 8, 16]. Everything is drawn from ``numpy``'s
``default_rng(seed)``; the seed is recorded in the manifest and every record.
The data are labelled synthetic throughout, the similarity reference is an
explicitly synthetic centroid, and the evidence class is
``synthetic-demonstration``: this is neither the 30-test pilot nor a memory
experiment, and its CHI cannot be compared with a human-calibrated CHI.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from sitbench.chi._capacity import TaskScore, axis_capacities
from sitbench.chi._common import AXES, SPEC_VERSION
from sitbench.chi._interchange import Analysis, ChiManifest, ChiObservation, MemoryCurveRecord
from sitbench.chi._memory import MemoryPoint
from sitbench.chi._similarity import axis_similarity, chi_score

DEMO_GRID: list[int] = [1, 2, 4, 8, 16]
"""The demo's tiny load grid."""
DEMO_CLUSTERS = 8
"""Independent synthetic run clusters."""
DEMO_STEPS = 5
"""Checkpoints per run."""
DEMO_PROBES = 40
"""Probes per memory stratum per load (the pilot's allocation)."""
DEMO_SCALE_FLOOR = 0.05
"""Declared scale floor of the synthetic reference (resolution of a 20-item proportion)."""

_TASKS: dict[str, list[str]] = {"R": ["R1", "R2"], "M": ["M1", "M2"], "C": ["C1", "C4"], "A": ["A1", "A2"], "I": ["I1", "I4"]}
_ITEMS = 20
# Synthetic reference centroid and scales (two features per axis); not human data.
_MU = {a: [0.55, 0.45] for a in AXES}
_S = {a: [0.15, 0.2] for a in AXES}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def demo_manifest(seed: int = 0) -> ChiManifest:
    """The manifest of the synthetic demonstration."""
    system = {
        "model": "synthetic-generator",
        "persistent_store": "simulated indexed memory",
        "policy": "none (synthetic)",
        "scheduler": "5 checkpoints, 10 ticks apart",
    }
    config_hash = _sha(json.dumps(system, sort_keys=True))
    return ChiManifest(
        version=SPEC_VERSION,
        protocol_id="chi-chis-0.1-synthetic-demo-grid-1-2-4-8-16",
        calibration_id="synthetic-reference-demo-1",
        evidence_class="synthetic-demonstration",
        system=system,
        feature_schemas={
            "probe": ["answer_rate", "abstain_rate", "revision_rate", "source_precision"],
            **{a: [f"{a}_feature_1", f"{a}_feature_2"] for a in AXES},
        },
        dataset_hashes={"generator": _sha(f"sitbench.chi demo generator v1 seed={seed}")},
        config_hash=config_hash,
        load_grid=DEMO_GRID,
        memory_mechanism="persistent",
        neutral_steps=[2, 3, 4],
        seeds=[seed * 1000 + k for k in range(DEMO_CLUSTERS)],
        analysis=Analysis(seed=seed),
        controls=["none: synthetic data demonstrate scoring mechanics only"],
        exclusions=[],
        limitations=[
            "Synthetic demonstration: the grid [1, 2, 4, 8, 16] is not the 30-test pilot or a memory experiment.",
            f"Similarity uses a synthetic reference centroid with declared scale floor {DEMO_SCALE_FLOOR}; no human calibration.",
        ],
    )


def demo_observations(seed: int = 0) -> list[ChiObservation]:
    """The demo's 8 x 5 observation records (deterministic in ``seed``)."""
    manifest = demo_manifest(seed)
    rng = np.random.default_rng(seed)
    out: list[ChiObservation] = []
    for k in range(DEMO_CLUSTERS):
        run_seed = manifest.seeds[k]
        skill = {a: rng.uniform(0.45, 0.75) for a in AXES}
        memory_skill = rng.uniform(-0.6, 0.6)
        style = rng.uniform(0.2, 0.8, size=4)
        history = ""
        for step in range(DEMO_STEPS):
            history += f"|run{k}-block{step}"
            learn = min(step, 2) * 0.06  # experience accrues during the first three checkpoints
            tasks = []
            for a in AXES:
                for tid in _TASKS[a]:
                    p = float(np.clip(skill[a] + learn + rng.normal(0, 0.05), 0.02, 0.98))
                    c = int(rng.binomial(_ITEMS, p))
                    tasks.append(TaskScore(test_id=tid, axis=a, score=c / _ITEMS, correct=c, total=_ITEMS))
            caps = axis_capacities(tasks, _TASKS)
            h: dict[str, float | None] = {}
            for a in AXES:
                z = [float(np.clip(x, 0, 1)) for x in (_MU[a][0] + rng.normal(0.05, 0.12), _MU[a][1] + rng.normal(-0.05, 0.15))]
                h[a] = axis_similarity(a, z, _MU[a], _S[a], DEMO_SCALE_FLOOR).h
            points = {}
            for j, load in enumerate(DEMO_GRID):
                logit = 2.6 + memory_skill + 0.5 * min(step, 2) - 0.55 * j
                acc = 1.0 / (1.0 + np.exp(-logit))
                rates = [float(np.clip(acc + rng.normal(0, 0.03), 0.0, 1.0)) for _ in range(5)]
                counts = [(int(rng.binomial(DEMO_PROBES, q)), DEMO_PROBES) for q in rates]
                lure_fail = float(np.clip(0.04 + 0.03 * j - 0.01 * min(step, 2), 0.0, 0.5))
                unsupported = int(rng.binomial(DEMO_PROBES, lure_fail))
                invalid = int(rng.binomial(DEMO_PROBES - unsupported, 0.02))
                points[load] = MemoryPoint.from_counts(
                    r=counts[0], t=counts[1], s=counts[2], u=counts[3], i=counts[4],
                    lures=(unsupported, invalid, DEMO_PROBES),
                    clean_i=(int(rng.binomial(DEMO_PROBES, min(1.0, acc + 0.05))), DEMO_PROBES),
                )
            drift_dir = np.array([0.04, -0.03, 0.02, 0.03]) * min(step, 2)
            features = [float(x) for x in np.clip(style + drift_dir + rng.normal(0, 0.02, size=4), 0, 1)]
            out.append(
                ChiObservation(
                    version=manifest.version,
                    config_hash=manifest.config_hash or "",
                    run=f"demo-run-{k:02d}",
                    agent="synthetic-agent",
                    seed=run_seed,
                    step=step,
                    wall_time=float(step * 60 + rng.integers(0, 20)),
                    history_hash=_sha(history),
                    state_hash=_sha(f"{history}|state"),
                    capacities={a: caps[a].capacity for a in AXES},
                    human_similarity=h,
                    chi=chi_score(h),
                    reference_kind="synthetic",
                    synthetic=True,
                    budgets={"model_tokens": 20000.0 + 5000 * step, "retrieval_tokens": 4000.0, "tool_calls": 12.0, "parallel_workers": 1.0, "response_deadline_s": 30.0},
                    tick=float(step * 10),
                    state={"indexed_units": int(sum(DEMO_GRID) * (1 + min(step, 2))), "memory_versions": 1 + step, "active_goals": 1},
                    features=features,
                    memory=MemoryCurveRecord(
                        grid=DEMO_GRID,
                        points=points,
                        delay=10.0,
                        costs={"retrieval_tokens": float(200 * sum(DEMO_GRID)), "tool_calls": float(6 * DEMO_PROBES)},
                    ),
                    task_results=tasks,
                )
            )
    return out
