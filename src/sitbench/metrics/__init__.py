"""SIT metrics over scored runs: category validity, Macro SIT, LAA/IC and FMR/TL/UEL (SPEC §2.7)."""

from sitbench.metrics._compute import (
    CATEGORY_ORDER,
    SCORES_FILE,
    ConfigMetrics,
    LAAOutcomes,
    TrialCounts,
    compute_metrics,
    load_scores,
)
from sitbench.metrics._table import format_percent, render_table

__all__ = [
    "CATEGORY_ORDER",
    "SCORES_FILE",
    "ConfigMetrics",
    "LAAOutcomes",
    "TrialCounts",
    "compute_metrics",
    "format_percent",
    "load_scores",
    "render_table",
]
