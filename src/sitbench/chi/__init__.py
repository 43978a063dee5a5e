"""CHI/CHIS scoring and logging kit (source: *CHI/CHIS Specification v0.1*, Dmitry Chistyakov, 2026-09-20;
a "§n" below is a section of it, and ``docs/concepts.md`` defines every symbol the outputs use).

Capacity ``p`` (equal-weight means of registered task scores) and calibrated
similarity ``h`` are separate objects. CHI aggregates ``h`` over all five axes
and is ``None`` whenever a similarity or the calibration is missing. Memory
quality ``Q_M`` and EIMC report the whole Memory Capacity Curve with an
explicit status. CHIS sequences carry the derived measures of §4; uncertainty
is a whole-cluster bootstrap; interchange is JSON manifests plus JSONL records.

The memory axis runs: seeded generators for M1–M8 (``generate_memory_panel``), exact-answer
rubrics (``parse_reply``, ``score_reply``), the §6 machine baselines as agents
(``make_baseline_factory``), the §3/§5 protocol through the Agent hooks (``MemoryHarness``,
``run_memory``) and the memory report (``sitbench chi memory …``).

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
    ChiManifest,
    ChiObservation,
    EvidenceClass,
    MemoryCurveRecord,
    ReferenceKind,
    dump_jsonl,
    file_sha256,
    load_manifest,
    load_observations,
    read_json,
    record_lines,
    validate_records,
)
from sitbench.chi._memory import (
    DEFAULT_TAU,
    EIMCResult,
    EIMCStatus,
    MemoryPoint,
    eimc_from_curve,
    memory_curve,
    q_m,
)
from sitbench.chi._memory_baselines import (
    BASELINES,
    CONDITIONS,
    LABELS,
    MECHANISMS,
    Budget,
    MemoryBaseline,
    budget_for,
    make_baseline_factory,
    model_context_window,
)
from sitbench.chi._memory_demo import (
    MEMORY_DEMO_GRID,
    MEMORY_DEMO_MODEL,
    MEMORY_DEMO_SEED,
    MEMORY_DEMO_SYSTEMS,
    MEMORY_DEMO_TRAJECTORIES,
    PANEL_QUESTIONS,
    memory_demo_failures,
    memory_demo_specs,
    memory_demo_table,
)
from sitbench.chi._memory_env import (
    M8_GRID,
    MEMORY_POLICY,
    AnswerKey,
    Arm,
    Checkpoint,
    Ingest,
    MemoryEnvironment,
    MemoryRecord,
    Probe,
    Ticks,
    environment_report,
    generate,
    generator_hash,
    parse_question,
    parse_record,
    render_record,
)
from sitbench.chi._memory_env import PANELS as MEMORY_PANELS
from sitbench.chi._memory_env import generate as generate_memory_panel
from sitbench.chi._memory_plan import (
    REFERENCE_SECONDS_PER_MILLION_CALLS,
    SweepPlan,
    plan_sweep,
    plan_text,
    remaining_estimate,
)
from sitbench.chi._memory_reader import MemoryReaderCandidate, memory_reader_mock
from sitbench.chi._memory_report import load_run, render_html, render_memory_text
from sitbench.chi._memory_retrieval import BM25Index
from sitbench.chi._memory_rubric import (
    REPLY_FORMAT,
    Outcome,
    ParsedReply,
    false_memory_rates,
    format_error,
    lure_counts,
    parse_reply,
    reply_example,
)
from sitbench.chi._memory_rubric import score as score_reply
from sitbench.chi._memory_run import MemoryHarness, RunSpec, run_memory, score_panel
from sitbench.chi._report import ChiReport, StepReport, build_report, render_text
from sitbench.chi._similarity import (
    AxisSimilarity,
    Calibration,
    axis_similarity,
    chi_score,
    delta_squared,
    fit_scales,
)
from sitbench.chi._uncertainty import (
    MIN_RESAMPLES,
    EIMCInterval,
    Interval,
    bootstrap_indices,
    cluster_bootstrap,
    eimc_bootstrap,
    wilson_interval,
)

__all__ = [
    "AXES",
    "BASELINES",
    "CONDITIONS",
    "DEFAULT_TAU",
    "LABELS",
    "M8_GRID",
    "MECHANISMS",
    "MEMORY_DEMO_GRID",
    "MEMORY_DEMO_MODEL",
    "MEMORY_DEMO_SEED",
    "MEMORY_DEMO_SYSTEMS",
    "MEMORY_DEMO_TRAJECTORIES",
    "MEMORY_FACTORS",
    "MEMORY_PANELS",
    "MEMORY_POLICY",
    "MIN_RESAMPLES",
    "PANEL_QUESTIONS",
    "REFERENCE_SECONDS_PER_MILLION_CALLS",
    "REPLY_FORMAT",
    "SPEC_VERSION",
    "Accumulation",
    "AnswerKey",
    "Arm",
    "Axis",
    "AxisCapacity",
    "AxisSimilarity",
    "BM25Index",
    "Budget",
    "CHISRecord",
    "Calibration",
    "Checkpoint",
    "ChiManifest",
    "ChiObservation",
    "ChiReport",
    "EIMCInterval",
    "EIMCResult",
    "EIMCStatus",
    "EvidenceClass",
    "Ingest",
    "Interval",
    "Measure",
    "MemoryBaseline",
    "MemoryCurveRecord",
    "MemoryEnvironment",
    "MemoryHarness",
    "MemoryPoint",
    "MemoryReaderCandidate",
    "MemoryRecord",
    "Outcome",
    "ParsedReply",
    "Probe",
    "RecoveryResult",
    "ReferenceKind",
    "RunSpec",
    "StepReport",
    "SweepPlan",
    "TaskScore",
    "Ticks",
    "axis_capacities",
    "axis_similarity",
    "bootstrap_indices",
    "budget_for",
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
    "dump_jsonl",
    "eimc_bootstrap",
    "eimc_from_curve",
    "environment_report",
    "experience_divergence",
    "false_memory_rates",
    "file_sha256",
    "fit_scales",
    "format_error",
    "generate",
    "generate_memory_panel",
    "generator_hash",
    "hysteresis",
    "load_manifest",
    "load_observations",
    "load_run",
    "lure_counts",
    "make_baseline_factory",
    "memory_accumulation",
    "memory_curve",
    "memory_demo_failures",
    "memory_demo_specs",
    "memory_demo_table",
    "memory_reader_mock",
    "model_context_window",
    "parse_question",
    "parse_record",
    "parse_reply",
    "plan_sweep",
    "plan_text",
    "plasticity",
    "q_m",
    "read_json",
    "record_lines",
    "recovery",
    "remaining_estimate",
    "render_html",
    "render_memory_text",
    "render_record",
    "render_text",
    "reply_example",
    "run_memory",
    "score_panel",
    "score_reply",
    "stability",
    "validate_records",
    "wilson_interval",
]
