"""Runs: the runner, the run store (manifest, responses, scores), scoring, the response cache,
merging shards and offline rescoring."""

from sitbench.runs._cache import CachedCandidate, CacheStats, ResponseCache, request_key
from sitbench.runs._merge import MergeReport, merge_runs
from sitbench.runs._records import (
    RunManifest,
    ScoreRecord,
    TrialRecord,
    TurnRecord,
    reporting_gaps,
)
from sitbench.runs._rescore import RescoreReport, rescore_run
from sitbench.runs._runner import Runner, RunOptions, summarize_trials
from sitbench.runs._store import RunStore

__all__ = [
    "CacheStats",
    "CachedCandidate",
    "MergeReport",
    "RescoreReport",
    "ResponseCache",
    "RunManifest",
    "RunOptions",
    "RunStore",
    "Runner",
    "ScoreRecord",
    "TrialRecord",
    "TurnRecord",
    "merge_runs",
    "reporting_gaps",
    "request_key",
    "rescore_run",
    "summarize_trials",
]
