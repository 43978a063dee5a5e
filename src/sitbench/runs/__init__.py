"""Runs: the runner (candidates and agents), the run store (manifest, responses, scores), trial schedules,
scoring, merging shards, observation and offline rescoring."""

from sitbench.runs._agent_runner import AgentRunner, agent_subject, agent_turn, parse_agent_options, run_agent
from sitbench.runs._drops import DropKind, DropReason, drop_kind, summarize_drops
from sitbench.runs._merge import MergeReport, merge_runs
from sitbench.runs._observe import observe_run, run_agreement
from sitbench.runs._progress import INTERVAL_ENV, LineProgress, progress_display
from sitbench.runs._records import (
    FORMAT_VERSION,
    RUN_SCHEMAS,
    ProbeSelection,
    RunManifest,
    ScoreRecord,
    SecondReading,
    TrialRecord,
    TurnRecord,
    reporting_gaps,
)
from sitbench.runs._rescore import RescoreReport, rescore_run, run_dataset_dir
from sitbench.runs._runner import (
    Runner,
    RunOptions,
    dataset_fields,
    parse_configs,
    parse_shard,
    trial_ids,
    verify_run_dataset,
)
from sitbench.runs._schedule import cap_trial, run_trial, session_prompt
from sitbench.runs._scoring import (
    NOT_RUN_REASON,
    TORN_REASON,
    ScoreTally,
    check_trials_in_dataset,
    describe_unscored,
    iter_score_lines,
    iter_score_trials,
    missing_trials,
    score_trials,
    score_workers,
)
from sitbench.runs._selection import select_probes
from sitbench.runs._store import DUPLICATE_HINT, RunStore, score_problem
from sitbench.runs._store import MANIFEST as MANIFEST_FILE
from sitbench.runs._store import RESPONSES as RESPONSES_FILE
from sitbench.runs._store import SCORES as SCORES_FILE
from sitbench.runs._summary import TrialSummary, summarize_trials
from sitbench.runs._workers import PARALLEL_MIN_TRIALS, TrialDone, run_workers

__all__ = [
    "DUPLICATE_HINT",
    "FORMAT_VERSION",
    "INTERVAL_ENV",
    "MANIFEST_FILE",
    "NOT_RUN_REASON",
    "PARALLEL_MIN_TRIALS",
    "RESPONSES_FILE",
    "RUN_SCHEMAS",
    "SCORES_FILE",
    "TORN_REASON",
    "AgentRunner",
    "DropKind",
    "DropReason",
    "LineProgress",
    "MergeReport",
    "ProbeSelection",
    "RescoreReport",
    "RunManifest",
    "RunOptions",
    "RunStore",
    "Runner",
    "ScoreRecord",
    "ScoreTally",
    "SecondReading",
    "TrialDone",
    "TrialRecord",
    "TrialSummary",
    "TurnRecord",
    "agent_subject",
    "agent_turn",
    "cap_trial",
    "check_trials_in_dataset",
    "dataset_fields",
    "describe_unscored",
    "drop_kind",
    "iter_score_lines",
    "iter_score_trials",
    "merge_runs",
    "missing_trials",
    "observe_run",
    "parse_agent_options",
    "parse_configs",
    "parse_shard",
    "progress_display",
    "reporting_gaps",
    "rescore_run",
    "run_agent",
    "run_agreement",
    "run_dataset_dir",
    "run_trial",
    "run_workers",
    "score_problem",
    "score_trials",
    "score_workers",
    "select_probes",
    "session_prompt",
    "summarize_drops",
    "summarize_trials",
    "trial_ids",
    "verify_run_dataset",
]
