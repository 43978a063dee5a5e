"""CHI/CHIS scoring and logging kit (CHI/CHIS specification v0.1).

Capacity ``p`` (equal-weight means of registered task scores) and calibrated
similarity ``h`` are separate objects. CHI aggregates ``h`` over all five axes
and is ``None`` whenever a similarity or the calibration is missing. Memory
quality ``Q_M`` and EIMC report the whole Memory Capacity Curve with an
explicit status. CHIS sequences carry the derived measures of §4; uncertainty
is a whole-cluster bootstrap; interchange is JSON manifests plus JSONL records.

None of these scores measures consciousness, sentience, IQ, safety or
personhood. Module docstrings record each decision taken where the
specification leaves room.
"""

from sitbench.chi._capacity import AxisCapacity, TaskScore, axis_capacities
from sitbench.chi._chis import (
    Accumulation,
    CHISRecord,
    Measure,
    RecoveryResult,
    continuity,
    decay_half_time,
    distance,
    drift,
    experience_divergence,
    hysteresis,
    memory_accumulation,
    plasticity,
    recovery,
    stability,
)
from sitbench.chi._common import AXES, MEMORY_FACTORS, SPEC_VERSION, Axis
from sitbench.chi._demo import demo_manifest, demo_observations
from sitbench.chi._interchange import (
    EvidenceClass,
    Manifest,
    MemoryCurveRecord,
    Observation,
    ReferenceKind,
    load_manifest,
    load_observations,
    validate_records,
)
from sitbench.chi._memory import (
    EIMCResult,
    EIMCStatus,
    MemoryPoint,
    eimc_from_curve,
    memory_curve,
    q_m,
)
from sitbench.chi._report import ChiReport, StepReport, build_report, render_text
from sitbench.chi._similarity import AxisSimilarity, Calibration, axis_similarity, chi_score, delta_squared, fit_scales
from sitbench.chi._uncertainty import (
    EIMCInterval,
    Interval,
    bootstrap_indices,
    cluster_bootstrap,
    eimc_bootstrap,
    wilson_interval,
)

__all__ = [
    "AXES",
    "MEMORY_FACTORS",
    "SPEC_VERSION",
    "Accumulation",
    "Axis",
    "AxisCapacity",
    "AxisSimilarity",
    "CHISRecord",
    "Calibration",
    "ChiReport",
    "EIMCInterval",
    "EIMCResult",
    "EIMCStatus",
    "EvidenceClass",
    "Interval",
    "Manifest",
    "Measure",
    "MemoryCurveRecord",
    "MemoryPoint",
    "Observation",
    "RecoveryResult",
    "ReferenceKind",
    "StepReport",
    "TaskScore",
    "axis_capacities",
    "axis_similarity",
    "bootstrap_indices",
    "build_report",
    "chi_score",
    "cluster_bootstrap",
    "continuity",
    "decay_half_time",
    "delta_squared",
    "demo_manifest",
    "demo_observations",
    "distance",
    "drift",
    "eimc_bootstrap",
    "eimc_from_curve",
    "experience_divergence",
    "fit_scales",
    "hysteresis",
    "load_manifest",
    "load_observations",
    "memory_accumulation",
    "memory_curve",
    "plasticity",
    "q_m",
    "recovery",
    "render_text",
    "stability",
    "validate_records",
    "wilson_interval",
]
