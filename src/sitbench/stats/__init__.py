"""Confirmatory statistics: sign-flip test, Holm–Bonferroni, cluster bootstrap, E1–E8.

Everything here is a pure function of its inputs (and of an explicit, recorded seed).
"""

from sitbench.metrics import (
    PairBalanced,
    PairDifferences,
    PairRecord,
    pair_balanced,
    pair_differences,
)
from sitbench.stats._analyze import (
    DEFAULT_SEED,
    SECONDARY_COMPARISONS,
    STRATUM_ALIASES,
    AnalysisReport,
    ContrastResult,
    FamilySummary,
    PairResult,
    RunSource,
    analyze,
    analyze_runs,
    load_score_rows,
)
from sitbench.stats._bootstrap import (
    BootstrapResult,
    ResampledCluster,
    bootstrap_mean,
    cluster_bootstrap,
    resample_index_matrix,
    resample_indices,
    resample_means,
    resample_replicates,
)
from sitbench.stats._e6 import (
    DEFAULT_LENGTHS,
    LengthTiming,
    LengthTokens,
    TokenScaling,
    e6_token_scaling,
    truncate_history,
)
from sitbench.stats._experiments import (
    CONFIRMATORY_FAMILY,
    EXPERIMENTS,
    Experiment,
    FamilyResult,
    ProbeFilter,
    get_experiment,
    holm_family,
)
from sitbench.stats._holm import HolmResult, holm
from sitbench.stats._signflip import SignFlipResult, sign_flip_test

__all__ = [
    "CONFIRMATORY_FAMILY",
    "DEFAULT_LENGTHS",
    "DEFAULT_SEED",
    "EXPERIMENTS",
    "SECONDARY_COMPARISONS",
    "STRATUM_ALIASES",
    "AnalysisReport",
    "BootstrapResult",
    "ContrastResult",
    "Experiment",
    "FamilyResult",
    "FamilySummary",
    "HolmResult",
    "LengthTiming",
    "LengthTokens",
    "PairBalanced",
    "PairDifferences",
    "PairRecord",
    "PairResult",
    "ProbeFilter",
    "ResampledCluster",
    "RunSource",
    "SignFlipResult",
    "TokenScaling",
    "analyze",
    "analyze_runs",
    "bootstrap_mean",
    "cluster_bootstrap",
    "e6_token_scaling",
    "get_experiment",
    "holm",
    "holm_family",
    "load_score_rows",
    "pair_balanced",
    "pair_differences",
    "resample_index_matrix",
    "resample_indices",
    "resample_means",
    "resample_replicates",
    "sign_flip_test",
    "truncate_history",
]
