"""The metrics table, shaped like the seed paper's Table 6."""

from __future__ import annotations

import math
from collections.abc import Mapping

from rich.table import Table

from sitbench.metrics._audited import Audited, AuditStatus
from sitbench.metrics._compute import Band, ConfigMetrics
from sitbench.verify import Corrected, CorrectionStatus

NULL = "—"
"""Shown for an undefined value."""

AGENT_ROW = "agent"
"""The configuration name of an agent run's trials (``agent:PROBE_ID``)."""

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


WIDE_INTERVAL = 0.5
"""A corrected or audited interval at least this wide (50 percentage points) is too wide to inform: marked ``*``."""

FIGURE_RULE = (
    "the audited value when a human audit of this run exists; else, when two readers read "
    "the run, the band (it brackets the figure with both readers' verdicts on these very answers; the corrected "
    "validity reads the primary reader's card alone and ignores the second reader, so where the two disagree, "
    "quote the band); else the corrected validity, when the reader has a card and its interval is not marked * "
    "(too wide to inform); else the observed value, beside the card's error rates")
"""The one rule for choosing between the observed value, the band, the corrected and the audited validity."""


def _floor_percent(value: float) -> int:
    # Rounded to 1e-6 first, so a share such as 0.29 (28.999… in floating point) is 29, not 28.
    return math.floor(round(100 * value, 6))


def _ceil_percent(value: float) -> int:
    return math.ceil(round(100 * value, 6))


def whole_percent_range(low: float, high: float) -> str:
    """``low–high`` in whole percent, rounded outward (62.5 → 62 below, 63 above), so a value inside the range
    never prints outside it."""
    return f"{_floor_percent(low)}–{_ceil_percent(high)}"


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
    rows = ("the agent (its run is one arm)" if set(metrics) <= {AGENT_ROW}
            else "configurations A–I and the agent" if AGENT_ROW in metrics else "configurations A–I")
    table = Table(title=title, caption=f"values in %; — = undefined (no completed observation); rows are {rows}, "
                  "A_pos … A_session the probe categories A–H (`sitbench metrics --help` says what each shows, "
                  "tests and counts)")
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
                         "95% stratified bootstrap interval in parentheses, in whole percent rounded outward (zero "
                         "width: every resample agreed, as with few audited trials or none that differ; not "
                         "certainty; * = 50 points wide or more, too wide to inform); n/a = no audited trial there")
    elif any(row.band is not None for row in metrics.values()):
        table.caption = (f"{table.caption}; band: the figure with every contested verdict (two readers differ) "
                         "counted as a failure and as a pass, in whole percent rounded outward")
    return table


def _audited_count(audited: Mapping[str, Audited]) -> str:
    macro = audited.get("macro_sit")
    if macro is None:
        return ""
    return f"{macro.audited} audited\n{macro.disagreements} differ"


def format_audited(audited: Audited | None) -> str:
    """An audit-corrected validity in percent, its interval on a second line as ``(low–high)`` rounded outward
    (so the row fits the table's columns), ``*`` after an interval too wide to inform; ``n/a`` where the audit holds
    no trial, ``—`` where the validity is undefined, blank for a figure the audit does not correct."""
    if audited is None:
        return ""
    if audited.status is AuditStatus.CORRECTED and audited.estimate is not None:
        interval = audited.interval
        bounds = "" if interval is None or interval.lower is None or interval.upper is None else \
            f"\n({whole_percent_range(interval.lower, interval.upper)}){_wide(interval.lower, interval.upper)}"
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
        f"{', '.join(readers)}, Rogan–Gladen), in %, 95% interval in parentheses in whole percent rounded outward; "
        "* = the interval is 50 points wide or more, too wide to inform; small = the card has under 30 "
        "annotated answers of a verdict there, n/i = the reader is no better than chance there; the correction "
        "reads the primary reader alone and assumes it errs on these answers as it erred on the card's"))
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
    """A corrected estimate as ``value (low–high)`` in percent, the interval rounded outward and ``*`` after it when
    it is too wide to inform; ``small`` when the card is too small to correct, ``n/i`` when its reader is no better
    than chance there, blank where nothing is corrected."""
    if corrected is None:
        return ""
    if corrected.status is CorrectionStatus.CORRECTED and corrected.estimate is not None:
        interval = "" if corrected.low is None or corrected.high is None else \
            f" ({whole_percent_range(corrected.low, corrected.high)}){_wide(corrected.low, corrected.high)}"
        return f"{format_percent(corrected.estimate)}{interval}"
    return {CorrectionStatus.TOO_SMALL: "small", CorrectionStatus.UNINFORMATIVE: "n/i",
            CorrectionStatus.UNDEFINED: NULL}.get(corrected.status, "")


def format_band(band: Band | None) -> str:
    """A band as ``low–high`` in whole percent, rounded outward (a band 0–62.5 prints 0–63, so the value it holds
    never prints outside it); ``"—"`` when there is none."""
    if band is None or band.low is None or band.high is None:
        return NULL
    return whole_percent_range(band.low, band.high)


def _wide(low: float, high: float) -> str:
    return "*" if high - low >= WIDE_INTERVAL else ""


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


def reading_notes(metrics: Mapping[str, ConfigMetrics]) -> list[tuple[str, str]]:
    """``(configuration, note)`` where the figures beside one another need the rule :data:`FIGURE_RULE`: a
    corrected validity that lies outside its two-reader band (the band is the one to quote), and corrected
    intervals too wide to inform.

    Args:
        metrics: configuration → metrics.

    Returns:
        The notes, in configuration order; empty when nothing needs one.
    """
    notes: list[tuple[str, str]] = []
    for config, row in metrics.items():
        outside = []
        wide = []
        for field, header in _VALIDITIES:
            corrected = row.corrected.get(field)
            if corrected is None or corrected.status is not CorrectionStatus.CORRECTED or corrected.estimate is None:
                continue
            if corrected.low is not None and corrected.high is not None and \
                    corrected.high - corrected.low >= WIDE_INTERVAL:
                wide.append(header)
            band = (row.band or {}).get(field)
            if band is None or band.low is None or band.high is None:
                continue
            if not band.low - 1e-9 <= corrected.estimate <= band.high + 1e-9:
                outside.append(f"{header} corrected {format_percent(corrected.estimate)} against band "
                               f"{format_percent(band.low)}–{format_percent(band.high)}")
        if outside:
            notes.append((config, f"the corrected validity lies outside the two-reader band ({'; '.join(outside)}): "
                                  "the correction reads the primary reader's card alone, the band both readers' "
                                  "verdicts on these answers: quote the band"))
        if wide:
            notes.append((config, f"the corrected intervals of {', '.join(wide)} are 50 points wide or more (*): too "
                                  "wide to inform; quote the observed value (or the band) with the card's error rates"))
    return notes
