"""The metrics table, shaped like the seed paper's Table 6."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table

from sitbench.metrics._compute import ConfigMetrics

NULL = "—"
"""Shown for an undefined value."""

_COLUMNS: tuple[tuple[str, str], ...] = (
    ("A_pos", "A_pos"),
    ("A_neg", "A_neg"),
    ("A_epi", "A_epi"),
    ("A_temp", "A_temp"),
    ("A_rel", "A_rel"),
    ("A_belief", "A_belief"),
    ("A_cf", "A_cf"),
    ("A_session", "A_session"),
    ("macro_sit", "Macro SIT"),
    ("LAA", "LAA"),
    ("IC_wrong", "IC_wrong"),
    ("FMR", "FMR"),
    ("TL", "TL"),
    ("UEL", "UEL"),
)


def format_percent(value: float | None) -> str:
    """A share as a percentage with one decimal (``0.8333`` → ``"83.3"``); ``"—"`` for ``None``."""
    return NULL if value is None else f"{100 * value:.1f}"


def render_table(metrics: Mapping[str, ConfigMetrics], title: str | None = None) -> Table:
    """Build the metrics table: one row per configuration, values in percent.

    Args:
        metrics: configuration → metrics, as returned by :func:`compute_metrics`.
        title: optional table title (e.g. the run name).

    Returns:
        A :class:`rich.table.Table` with columns A_pos … A_session, Macro SIT, LAA,
        IC_wrong, FMR, TL, UEL and completed/attempted.
    """
    table = Table(title=title, caption="values in %; — = undefined (no completed observation); rows are "
                  "configurations A–I, A_pos … A_session the probe categories A–H (`sitbench metrics --help` "
                  "says what each shows, tests and counts)")
    table.add_column("Config", justify="left", no_wrap=True)
    for _, header in _COLUMNS:
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("completed/attempted", justify="right", no_wrap=True)
    for config, row in metrics.items():
        values = row.model_dump()
        table.add_row(
            config,
            *(format_percent(values[field]) for field, _ in _COLUMNS),
            f"{row.n_completed}/{row.n_attempted}",
        )
    return table


def incomplete_notes(metrics: Mapping[str, ConfigMetrics]) -> list[tuple[str, str]]:
    """``(configuration, note)`` for each configuration with unscored trials or answers over the length cap: how
    many, why and what it does to the figures (empty when there are none)."""
    notes: list[tuple[str, str]] = []
    for config, row in metrics.items():
        if row.n_unscored:
            reasons = ", ".join(f"{reason} ×{n}" for reason, n in row.unscored.items())
            notes.append((config, f"{row.n_unscored} of {row.n_attempted} trials unscored ({reasons}): "
                         "attempted, not completed, left out of every figure and never counted as failures; "
                         "`sitbench score RUN` (after `sitbench run ... --resume` for torn or missing trials) "
                         "finishes them"))
        if row.n_over_length:
            notes.append((config, f"{row.n_over_length} answers over the run's length cap, scored invalid "
                                  "(over_length) without being read"))
    return notes
