"""SIT metrics over scored runs: category validity, Macro SIT, LAA/IC and FMR/TL/UEL (SPEC §2.7), and the
pair-balanced aggregation (Eq. 40) they and the confirmatory statistics share."""

from sitbench.metrics._aggregate import (
    PairAccumulator,
    PairBalanced,
    PairDifferences,
    PairRecord,
    pair_balanced,
    pair_differences,
)
from sitbench.metrics._audited import (
    AUDIT_RESAMPLES,
    AUDIT_SEED,
    Audited,
    AuditStatus,
    AuditSummary,
    audit_metrics,
)
from sitbench.metrics._compute import (
    BANDED,
    CATEGORY_ORDER,
    Band,
    ConfigMetrics,
    LAAOutcome,
    LAAOutcomes,
    TrialCounts,
    compute_metrics,
    iter_scores,
    laa_outcome,
    load_scores,
    run_metrics,
)
from sitbench.metrics._table import (
    format_audited,
    format_band,
    format_corrected,
    format_percent,
    incomplete_notes,
    render_corrected_table,
    render_table,
)
from sitbench.runs import SCORES_FILE

__all__ = [
    "AUDIT_RESAMPLES",
    "AUDIT_SEED",
    "BANDED",
    "CATEGORY_ORDER",
    "SCORES_FILE",
    "AuditStatus",
    "AuditSummary",
    "Audited",
    "Band",
    "ConfigMetrics",
    "LAAOutcome",
    "LAAOutcomes",
    "PairAccumulator",
    "PairBalanced",
    "PairDifferences",
    "PairRecord",
    "TrialCounts",
    "audit_metrics",
    "compute_metrics",
    "format_audited",
    "format_band",
    "format_corrected",
    "format_percent",
    "incomplete_notes",
    "iter_scores",
    "laa_outcome",
    "load_scores",
    "pair_balanced",
    "pair_differences",
    "render_corrected_table",
    "render_table",
    "run_metrics",
]
