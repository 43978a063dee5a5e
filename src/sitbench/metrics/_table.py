"""The metrics table, shaped like the seed paper's Table 6."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table

from sitbench.metrics._audited import Audited, AuditStatus
from sitbench.metrics._compute import Band, ConfigMetrics
from sitbench.verify import Corrected, CorrectionStatus

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
        if row.audited is not None:
            # A human audit of the run measures what the two readers' band only brackets: it takes its place.
            table.add_row("  audited", *(format_audited(row.audited.get(field)) for field, _ in _COLUMNS),
                          _audited_count(row.audited))
        elif row.band is not None:
            contested = sum(row.contested.values())
            table.add_row(
                "  band",
                *(format_band(row.band.get(field)) for field, _ in _COLUMNS),
                f"{contested} contested",
            )
    if any(row.audited is not None for row in metrics.values()):
        table.caption = (f"{table.caption}; audited: the validity corrected by the human audit (observed + the "
                         "inverse-probability-weighted mean of human − verifier verdict over its audited trials), "
                         "95% stratified bootstrap interval in brackets (zero width: every resample agreed, as "
                         "with few audited trials or none that differ; not certainty); n/a = no audited trial there")
    elif any(row.band is not None for row in metrics.values()):
        table.caption = (f"{table.caption}; band: the figure with every contested verdict (two readers differ) "
                         "counted as a failure and as a pass")
    return table


def _audited_count(audited: Mapping[str, Audited]) -> str:
    macro = audited.get("macro_sit")
    if macro is None:
        return ""
    return f"{macro.audited} audited\n{macro.disagreements} differ"


def format_audited(audited: Audited | None) -> str:
    """An audit-corrected validity in percent, its interval on a second line as ``(low–high)`` (so the row fits
    the table's columns); ``n/a`` where the audit holds no trial, ``—`` where the validity is undefined, blank for
    a figure the audit does not correct."""
    if audited is None:
        return ""
    if audited.status is AuditStatus.CORRECTED and audited.estimate is not None:
        interval = audited.interval
        bounds = "" if interval is None or interval.lower is None or interval.upper is None else \
            f"\n({100 * interval.lower:.0f}–{100 * interval.upper:.0f})"
        return f"{format_percent(audited.estimate)}{bounds}"
    return "n/a" if audited.status is AuditStatus.UNAUDITED else NULL


_VALIDITIES = _COLUMNS[:9]


def render_corrected_table(metrics: Mapping[str, ConfigMetrics], title: str | None = None) -> Table | None:
    """The validities beside their card-corrected estimates, one row per configuration; None when no
    configuration's reader has a verifier card."""
    if not any(_has_card(row) for row in metrics.values()):
        return None
    readers = sorted({row.reader for row in metrics.values() if row.reader and _has_card(row)})
    table = Table(title=title, caption=(
        f"validities corrected for the reader's measured false rejects and false accepts (verifier card of "
        f"{', '.join(readers)}, Rogan–Gladen), 95% interval in brackets, in %; small = the card has under 30 "
        "annotated answers of a verdict there, n/i = the reader is no better than chance there; the correction "
        "assumes the reader errs on these answers as it erred on the card's"))
    table.add_column("Config", justify="left", no_wrap=True)
    for _, header in _VALIDITIES:
        table.add_column(header, justify="right", no_wrap=True)
    for config, row in metrics.items():
        if not _has_card(row):
            continue
        table.add_row(config, *(format_corrected(row.corrected.get(field)) for field, _ in _VALIDITIES))
    return table


def _has_card(row: ConfigMetrics) -> bool:
    return any(c.status is not CorrectionStatus.NO_CARD for c in row.corrected.values())


def format_corrected(corrected: Corrected | None) -> str:
    """A corrected estimate as ``value (low–high)`` in percent; ``small`` when the card is too small to correct,
    ``n/i`` when its reader is no better than chance there, blank where nothing is corrected."""
    if corrected is None:
        return ""
    if corrected.status is CorrectionStatus.CORRECTED and corrected.estimate is not None:
        interval = "" if corrected.low is None or corrected.high is None else \
            f" ({100 * corrected.low:.0f}–{100 * corrected.high:.0f})"
        return f"{format_percent(corrected.estimate)}{interval}"
    return {CorrectionStatus.TOO_SMALL: "small", CorrectionStatus.UNINFORMATIVE: "n/i",
            CorrectionStatus.UNDEFINED: NULL}.get(corrected.status, "")


def format_band(band: Band | None) -> str:
    """A band as ``low–high`` in whole percent; ``"—"`` when there is none."""
    if band is None or band.low is None or band.high is None:
        return NULL
    return f"{100 * band.low:.0f}–{100 * band.high:.0f}"


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
