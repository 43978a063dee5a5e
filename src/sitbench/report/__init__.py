"""The HTML report of scored runs: one self-contained file plus ``metrics.json`` and ``trials.csv``.

``write_report(run_dirs, out_html)`` renders the summary table (Table 6 layout), static SVG
charts, the corrected validities with their verifier card, the drill-down of failed (and, with two readers,
contested) trials and the run manifests; optional inputs add the E1–E8
contrasts (``sitbench analyze --json``), the CHI/CHIS report and the RES summary.
``write_comparison(report, out_html)`` writes the page of ``sitbench compare --html``.
"""

from sitbench.report._compare import render_comparison, write_comparison
from sitbench.report._data import (
    FailedTrial,
    Listed,
    LoadedRun,
    failed_checks,
    is_contested,
    is_failed,
    load_runs,
    select_failed,
    select_listed,
)
from sitbench.report._exports import (
    METRICS_JSON,
    TRIAL_COLUMNS,
    TRIALS_CSV,
    metrics_document,
    trial_rows,
    write_metrics_json,
    write_trials_csv,
)
from sitbench.report._render import (
    DEFAULT_MAX_FAILED,
    LAA_BOUND,
    render_report,
    write_report,
)
from sitbench.report._sections import load_analysis, load_chi_report, load_res_summary

__all__ = [
    "DEFAULT_MAX_FAILED",
    "LAA_BOUND",
    "METRICS_JSON",
    "TRIALS_CSV",
    "TRIAL_COLUMNS",
    "FailedTrial",
    "Listed",
    "LoadedRun",
    "failed_checks",
    "is_contested",
    "is_failed",
    "load_analysis",
    "load_chi_report",
    "load_res_summary",
    "load_runs",
    "metrics_document",
    "render_comparison",
    "render_report",
    "select_failed",
    "select_listed",
    "trial_rows",
    "write_comparison",
    "write_metrics_json",
    "write_report",
    "write_trials_csv",
]
