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

The panel runner runs any registered test (``run_panel``, ``PanelSpec``; ``sitbench chi run``):
a test is a ``PanelTest`` (seeded ``generate``, exact-answer ``grade``, ``score``) registered with
``register_test``; R1–R4, M1–M8 and I1–I6 (with the §7 history-divergence experiment) are built in.
The C (cognitive autonomy) and A (affective modulation) tests C1–C6 and A1–A6 are environments
and exact rubrics behind one episode contract (``InteractiveTest``: seeded episodes with item hashes,
event sessions, scoring), each with a good and a poor reference policy (``CA_PANEL``); the panel
runner drives them through the Agent hooks (``InteractivePanelTest``, ``drive_episode``), so all 30
registered tests run under ``run_panel``. ``reference-good`` / ``reference-poor``
(``ReferenceSystem``) are the good and poor reference systems with every hook.

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
from sitbench.chi._panel import (
    ALL_TESTS,
    REGISTERED,
    Episode,
    Erase,
    Fault,
    FaultSpec,
    Grade,
    Hook,
    PanelProbe,
    PanelTest,
    Repair,
    Say,
    TestInstance,
    TestResult,
)
from sitbench.chi._panel_c import (
    Delivery,
    EpisodeRecord,
    EpisodeSession,
    Event,
    EventKind,
    InteractiveEpisode,
    InteractiveTest,
    NoTick,
    PanelScore,
    malformed_message,
)
from sitbench.chi._panel_c import Outcome as EpisodeOutcome
from sitbench.chi._panel_c import play as play_episode
from sitbench.chi._panel_c_drive import DriveLog, PolicyAgent, drive_episode
from sitbench.chi._panel_c_features import (
    CA_FEATURE_SCHEMA,
    CA_FEATURE_SCHEMA_ID,
    CA_VECTOR_SCHEMA,
    feature_names,
    feature_vector,
    probe_vector,
)
from sitbench.chi._panel_c_registry import (
    CA_PANEL,
    PanelEntry,
    PanelReference,
    StatelessPolicy,
    panel_entry,
    policy_factory,
    run_reference,
)
from sitbench.chi._panel_common import PANEL_POLICY, induction_lines, round_result
from sitbench.chi._panel_interactive import CA_POLICY, InteractivePanelTest
from sitbench.chi._panel_reference import REFERENCE_SYSTEMS, ReferenceSystem, reference_factory
from sitbench.chi._panel_report import (
    PANEL_DEMO_TESTS,
    panel_demo_failures,
    panel_demo_specs,
    panel_demo_table,
    render_panel_html,
)
from sitbench.chi._panel_run import (
    PanelSpec,
    panel_tests,
    parse_panel,
    register_test,
    render_panel_text,
    run_panel,
)
from sitbench.chi._panel_solver import panel_naive_mock, panel_solver_mock
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
    "ALL_TESTS",
    "AXES",
    "BASELINES",
    "CA_FEATURE_SCHEMA",
    "CA_FEATURE_SCHEMA_ID",
    "CA_PANEL",
    "CA_POLICY",
    "CA_VECTOR_SCHEMA",
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
    "PANEL_DEMO_TESTS",
    "PANEL_POLICY",
    "PANEL_QUESTIONS",
    "REFERENCE_SECONDS_PER_MILLION_CALLS",
    "REFERENCE_SYSTEMS",
    "REGISTERED",
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
    "Delivery",
    "DriveLog",
    "EIMCInterval",
    "EIMCResult",
    "EIMCStatus",
    "Episode",
    "EpisodeOutcome",
    "EpisodeRecord",
    "EpisodeSession",
    "Erase",
    "Event",
    "EventKind",
    "EvidenceClass",
    "Fault",
    "FaultSpec",
    "Grade",
    "Hook",
    "Ingest",
    "InteractiveEpisode",
    "InteractivePanelTest",
    "InteractiveTest",
    "Interval",
    "Measure",
    "MemoryBaseline",
    "MemoryCurveRecord",
    "MemoryEnvironment",
    "MemoryHarness",
    "MemoryPoint",
    "MemoryReaderCandidate",
    "MemoryRecord",
    "NoTick",
    "Outcome",
    "PanelEntry",
    "PanelProbe",
    "PanelReference",
    "PanelScore",
    "PanelSpec",
    "PanelTest",
    "ParsedReply",
    "PolicyAgent",
    "Probe",
    "RecoveryResult",
    "ReferenceKind",
    "ReferenceSystem",
    "Repair",
    "RunSpec",
    "Say",
    "StatelessPolicy",
    "StepReport",
    "SweepPlan",
    "TaskScore",
    "TestInstance",
    "TestResult",
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
    "drive_episode",
    "dump_jsonl",
    "eimc_bootstrap",
    "eimc_from_curve",
    "environment_report",
    "experience_divergence",
    "false_memory_rates",
    "feature_names",
    "feature_vector",
    "file_sha256",
    "fit_scales",
    "format_error",
    "generate",
    "generate_memory_panel",
    "generator_hash",
    "hysteresis",
    "induction_lines",
    "load_manifest",
    "load_observations",
    "load_run",
    "lure_counts",
    "make_baseline_factory",
    "malformed_message",
    "memory_accumulation",
    "memory_curve",
    "memory_demo_failures",
    "memory_demo_specs",
    "memory_demo_table",
    "memory_reader_mock",
    "model_context_window",
    "panel_demo_failures",
    "panel_demo_specs",
    "panel_demo_table",
    "panel_entry",
    "panel_naive_mock",
    "panel_solver_mock",
    "panel_tests",
    "parse_panel",
    "parse_question",
    "parse_record",
    "parse_reply",
    "plan_sweep",
    "plan_text",
    "plasticity",
    "play_episode",
    "policy_factory",
    "probe_vector",
    "q_m",
    "read_json",
    "record_lines",
    "recovery",
    "reference_factory",
    "register_test",
    "remaining_estimate",
    "render_html",
    "render_memory_text",
    "render_panel_html",
    "render_panel_text",
    "render_record",
    "render_text",
    "reply_example",
    "round_result",
    "run_memory",
    "run_panel",
    "run_reference",
    "score_panel",
    "score_reply",
    "stability",
    "validate_records",
    "wilson_interval",
]
