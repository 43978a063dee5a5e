"""Static SVG charts for the HTML report, written by hand so the page needs no plotting library.

Every function returns one ``<svg>`` element as a string. All text that reaches the
markup goes through :func:`html.escape`; numbers are formatted here, never by the
browser, so what the page shows is exactly what the exports contain.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape

FONT = "font-family='system-ui, sans-serif' font-size='12'"
NULL_FILL = "#e4e4e4"
AXIS = "#555"
GRID = "#ddd"
PALETTE: tuple[str, ...] = ("#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5")
"""Series colours (colour-blind friendly categorical palette)."""

# Sequential scale for validities: pale yellow (0) through green to deep blue (1).
_STOPS: tuple[tuple[float, tuple[int, int, int]], ...] = (
    (0.0, (255, 247, 214)),
    (0.25, (237, 201, 120)),
    (0.5, (122, 190, 150)),
    (0.75, (44, 127, 184)),
    (1.0, (23, 49, 117)),
)


def _f(value: float) -> str:
    """Coordinates with two decimals and no trailing zeros keep the markup small."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def scale_color(value: float) -> str:
    """Colour of a share in [0, 1] on the report's sequential scale (clamped)."""
    v = min(1.0, max(0.0, value))
    for (x0, c0), (x1, c1) in itertools.pairwise(_STOPS):
        if v <= x1:
            t = 0.0 if x1 == x0 else (v - x0) / (x1 - x0)
            r, g, b = (round(a + (b_ - a) * t) for a, b_ in zip(c0, c1, strict=True))
            return f"#{r:02x}{g:02x}{b:02x}"
    r, g, b = _STOPS[-1][1]
    return f"#{r:02x}{g:02x}{b:02x}"


def _text_color(value: float) -> str:
    return "#fff" if value > 0.62 else "#111"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round tick values (steps of 1, 2, 2.5 or 5 × 10^k) covering ``[lo, hi]``."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw - 1e-12)
    first = math.floor(lo / step + 1e-9) * step
    ticks = []
    k = 0
    while True:
        tick = first + k * step
        ticks.append(round(tick, 12) + 0.0)
        if tick >= hi - 1e-9:
            break
        k += 1
    return ticks


def _short_pct(value: float) -> str:
    text = f"{100 * value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _open(width: float, height: float, label: str) -> str:
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {_f(width)} {_f(height)}' "
        f"width='{_f(width)}' height='{_f(height)}' role='img' aria-label='{escape(label, quote=True)}' {FONT}>"
        f"<title>{escape(label)}</title>"
    )


def heatmap(
    rows: Sequence[str],
    columns: Sequence[str],
    values: Mapping[tuple[str, str], float | None],
    *,
    title: str,
    column_labels: Mapping[str, str] | None = None,
    column_heads: Mapping[str, str] | None = None,
    row_heads: Mapping[str, str] | None = None,
    column_tips: Mapping[str, str] | None = None,
) -> str:
    """A rows × columns grid of shares in [0, 1], each cell coloured and labelled in percent.

    Args:
        rows: row keys, top to bottom (configurations).
        columns: column keys, left to right (categories).
        values: ``(row, column)`` → share; ``None`` or a missing key draws a grey "—" cell.
        title: accessible name of the chart.
        column_labels: optional second header line per column key (e.g. the metric name).
        column_heads: optional first header line per column key (default: the key).
        row_heads: optional row label per row key (default: the key).
        column_tips: optional longer column name for the cells' tooltips (default: the head).

    Returns:
        The ``<svg>`` markup.
    """
    heads = column_heads or {}
    row_text = row_heads or {}
    tips = column_tips or {}
    longest = max([len(row_text.get(row, row)) for row in rows] + [1])
    cell_w, cell_h, top = 62.0, 26.0, 40.0
    left = max(44.0, 16 + 7.0 * longest)
    width = left + cell_w * len(columns) + 12
    height = top + cell_h * len(rows) + 44
    parts = [_open(width, height, title)]
    labels = column_labels or {}
    for j, column in enumerate(columns):
        x = left + cell_w * (j + 0.5)
        first = heads.get(column, column)
        head = labels.get(column, column)
        parts.append(f"<text x='{_f(x)}' y='{_f(top - 22)}' text-anchor='middle' font-weight='600'>{escape(first)}</text>")
        if head != column:
            parts.append(f"<text x='{_f(x)}' y='{_f(top - 8)}' text-anchor='middle' fill='{AXIS}' font-size='10'>{escape(head)}</text>")
    for i, row in enumerate(rows):
        y = top + cell_h * i
        shown = row_text.get(row, row)
        parts.append(f"<text x='{_f(left - 8)}' y='{_f(y + cell_h / 2 + 4)}' text-anchor='end' font-weight='600'>{escape(shown)}</text>")
        for j, column in enumerate(columns):
            x = left + cell_w * j
            value = values.get((row, column))
            fill = NULL_FILL if value is None else scale_color(value)
            ink = "#666" if value is None else _text_color(value)
            tip = f"{shown} × {tips.get(column, heads.get(column, column))}: {_pct(value)}{'' if value is None else '%'}"
            parts.append(
                f"<g><title>{escape(tip)}</title><rect x='{_f(x)}' y='{_f(y)}' width='{_f(cell_w - 2)}' "
                f"height='{_f(cell_h - 2)}' fill='{fill}'/><text x='{_f(x + cell_w / 2 - 1)}' "
                f"y='{_f(y + cell_h / 2 + 3)}' text-anchor='middle' fill='{ink}'>{_pct(value)}</text></g>"
            )
    # Legend: the colour ramp from 0 % to 100 %.
    ly = top + cell_h * len(rows) + 14
    steps = 20
    ramp_w = min(240.0, width - left - 60)
    for k in range(steps):
        parts.append(
            f"<rect x='{_f(left + ramp_w * k / steps)}' y='{_f(ly)}' width='{_f(ramp_w / steps + 0.5)}' "
            f"height='10' fill='{scale_color(k / (steps - 1))}'/>"
        )
    parts.append(f"<text x='{_f(left)}' y='{_f(ly + 24)}' fill='{AXIS}' font-size='10'>0%</text>")
    parts.append(f"<text x='{_f(left + ramp_w)}' y='{_f(ly + 24)}' text-anchor='end' fill='{AXIS}' font-size='10'>100%</text>")
    parts.append(
        f"<rect x='{_f(left + ramp_w + 14)}' y='{_f(ly)}' width='10' height='10' fill='{NULL_FILL}'/>"
        f"<text x='{_f(left + ramp_w + 28)}' y='{_f(ly + 9)}' fill='{AXIS}' font-size='10'>— undefined</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Reference:
    """A horizontal reference line drawn across a chart."""

    value: float
    """Position on the value axis."""
    label: str
    """Text drawn beside the line."""
    color: str = "#c0392b"
    """Stroke colour."""


def _value_axis(parts: list[str], left: float, top: float, plot_w: float, plot_h: float, lo: float, hi: float,
                ticks: Sequence[float], fmt: str) -> None:
    for tick in ticks:
        y = top + plot_h * (1 - (tick - lo) / (hi - lo))
        parts.append(f"<line x1='{_f(left)}' x2='{_f(left + plot_w)}' y1='{_f(y)}' y2='{_f(y)}' stroke='{GRID}'/>")
        label = fmt.format(tick)
        parts.append(f"<text x='{_f(left - 6)}' y='{_f(y + 4)}' text-anchor='end' fill='{AXIS}' font-size='10'>{escape(label)}</text>")
    parts.append(f"<line x1='{_f(left)}' x2='{_f(left)}' y1='{_f(top)}' y2='{_f(top + plot_h)}' stroke='{AXIS}'/>")
    parts.append(f"<line x1='{_f(left)}' x2='{_f(left + plot_w)}' y1='{_f(top + plot_h)}' y2='{_f(top + plot_h)}' stroke='{AXIS}'/>")


def bar_chart(
    labels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    title: str,
    references: Sequence[Reference] = (),
    colors: Mapping[str, str] | None = None,
) -> str:
    """Vertical bars of shares in [0, 1]: one group per label, one bar per series.

    Args:
        labels: group labels along the x axis (configurations).
        series: series name → one share (or ``None``, drawn as "—") per label.
        title: accessible name of the chart.
        references: horizontal lines (e.g. the LAA bound 0.5).
        colors: series name → colour (defaults to the palette).

    Returns:
        The ``<svg>`` markup.
    """
    names = list(series)
    left, top, right, bottom = 44.0, 26.0, 16.0, 36.0
    group_w = max(30.0, (22.0 if len(names) > 1 else 16.0) * len(names) + 14)
    plot_w = group_w * max(1, len(labels))
    plot_h = 170.0
    legend_w: float = sum(14 + 7 * len(n) + 18 for n in names) if len(names) > 1 else 0
    legend_w = max([legend_w] + [28 + 6.2 * len(ref.label) for ref in references])
    width = max(left + plot_w + right, left + legend_w + right, 260.0)
    height = top + plot_h + bottom + 14 * len(references)
    parts = [_open(width, height, title)]
    _value_axis(parts, left, top, plot_w, plot_h, 0.0, 1.0, (0.0, 0.25, 0.5, 0.75, 1.0), "{:.0%}")
    bar_w = (group_w - 10) / max(1, len(names))
    palette = colors or {}
    for i, label in enumerate(labels):
        gx = left + group_w * i + 5
        for k, name in enumerate(names):
            value = series[name][i]
            color = palette.get(name, PALETTE[k % len(PALETTE)])
            x = gx + bar_w * k
            tip = f"{label} {name}: {_pct(value)}{'' if value is None else '%'}"
            if value is None:
                parts.append(
                    f"<g><title>{escape(tip)}</title><text x='{_f(x + bar_w / 2)}' y='{_f(top + plot_h - 4)}' "
                    f"text-anchor='middle' fill='#888' font-size='10'>—</text></g>"
                )
                continue
            v = min(1.0, max(0.0, value))
            h = plot_h * v
            parts.append(
                f"<g><title>{escape(tip)}</title><rect x='{_f(x)}' y='{_f(top + plot_h - h)}' width='{_f(bar_w - 1)}' "
                f"height='{_f(max(h, 0.8))}' fill='{color}'/>"
                f"<text x='{_f(x + bar_w / 2)}' y='{_f(top + plot_h - h - 3)}' text-anchor='middle' fill='{AXIS}' "
                f"font-size='{9 if len(names) > 1 else 10}'>{_short_pct(value)}</text></g>"
            )
        parts.append(
            f"<text x='{_f(left + group_w * (i + 0.5))}' y='{_f(top + plot_h + 15)}' text-anchor='middle' "
            f"font-weight='600'>{escape(label)}</text>"
        )
    for r, ref in enumerate(references):
        y = top + plot_h * (1 - ref.value)
        ly = height - 4 - 14 * (len(references) - 1 - r)
        parts.append(
            f"<line x1='{_f(left)}' x2='{_f(left + plot_w)}' y1='{_f(y)}' y2='{_f(y)}' stroke='{ref.color}' "
            f"stroke-width='1.5' stroke-dasharray='6 4'/>"
            f"<line x1='{_f(left)}' x2='{_f(left + 22)}' y1='{_f(ly - 4)}' y2='{_f(ly - 4)}' stroke='{ref.color}' "
            f"stroke-width='1.5' stroke-dasharray='6 4'/>"
            f"<text x='{_f(left + 28)}' y='{_f(ly)}' fill='{ref.color}' font-size='11'>{escape(ref.label)}</text>"
        )
    if len(names) > 1:
        x = left
        for k, name in enumerate(names):
            color = palette.get(name, PALETTE[k % len(PALETTE)])
            parts.append(
                f"<rect x='{_f(x)}' y='{_f(height - 12)}' width='10' height='10' fill='{color}'/>"
                f"<text x='{_f(x + 14)}' y='{_f(height - 3)}' font-size='11'>{escape(name)}</text>"
            )
            x += 14 + 7 * len(name) + 18
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class IntervalRow:
    """One estimate with its interval, for a forest plot."""

    label: str
    """Row label (e.g. ``E1 LAA: D − C``)."""
    estimate: float | None
    """Point estimate; ``None`` draws "not computed"."""
    lower: float | None = None
    """Lower end of the interval."""
    upper: float | None = None
    """Upper end of the interval."""
    highlight: bool = False
    """Draw the marker filled (e.g. rejected under Holm)."""


def forest_plot(rows: Sequence[IntervalRow], *, title: str, zero: float = 0.0) -> str:
    """Point estimates with horizontal intervals and a vertical line at ``zero``.

    The axis spans every finite estimate and bound, and always includes ``zero``.
    Filled markers are highlighted rows; hollow markers are the rest.
    """
    left, right, top, row_h = 230.0, 24.0, 16.0, 24.0
    plot_w = 380.0
    values = [zero] + [v for r in rows for v in (r.estimate, r.lower, r.upper) if v is not None and math.isfinite(v)]
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        lo, hi = lo - 1.0, hi + 1.0
    ticks = nice_ticks(lo, hi)
    lo, hi = ticks[0], ticks[-1]
    height = top + row_h * len(rows) + 30
    width = left + plot_w + right
    parts = [_open(width, height, title)]

    def x_of(v: float) -> float:
        return left + plot_w * (v - lo) / (hi - lo)

    for tick in ticks:
        parts.append(
            f"<line x1='{_f(x_of(tick))}' x2='{_f(x_of(tick))}' y1='{_f(top)}' y2='{_f(height - 24)}' stroke='{GRID}'/>"
            f"<text x='{_f(x_of(tick))}' y='{_f(height - 10)}' text-anchor='middle' fill='{AXIS}' font-size='10'>{tick:.3g}</text>"
        )
    parts.append(
        f"<line x1='{_f(x_of(zero))}' x2='{_f(x_of(zero))}' y1='{_f(top - 4)}' y2='{_f(height - 24)}' "
        f"stroke='{AXIS}' stroke-dasharray='4 3'/>"
    )
    for i, row in enumerate(rows):
        y = top + row_h * i + row_h / 2
        parts.append(f"<text x='{_f(left - 8)}' y='{_f(y + 4)}' text-anchor='end'>{escape(row.label)}</text>")
        if row.estimate is None or not math.isfinite(row.estimate):
            parts.append(f"<text x='{_f(left + 6)}' y='{_f(y + 4)}' fill='#888' font-size='11'>not computed</text>")
            continue
        if row.lower is not None and row.upper is not None:
            parts.append(
                f"<line x1='{_f(x_of(row.lower))}' x2='{_f(x_of(row.upper))}' y1='{_f(y)}' y2='{_f(y)}' "
                f"stroke='{PALETTE[0]}' stroke-width='2'/>"
            )
        fill = PALETTE[0] if row.highlight else "#fff"
        tip = f"{row.label}: {row.estimate:.4g}" + (
            f" [{row.lower:.4g}, {row.upper:.4g}]" if row.lower is not None and row.upper is not None else ""
        )
        parts.append(
            f"<g><title>{escape(tip)}</title><circle cx='{_f(x_of(row.estimate))}' cy='{_f(y)}' r='5' "
            f"fill='{fill}' stroke='{PALETTE[0]}' stroke-width='2'/></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Series:
    """One line of a line chart, with an optional band (e.g. a confidence interval)."""

    name: str
    """Legend text."""
    points: Sequence[tuple[float, float | None]]
    """``(x, y)``; ``None`` breaks the line."""
    band: Sequence[tuple[float, float, float]] = field(default_factory=tuple)
    """``(x, lower, upper)`` drawn as a shaded area."""
    markers: Sequence[tuple[float, float, str]] = field(default_factory=tuple)
    """``(x, y, tooltip)`` drawn as hollow diamonds (e.g. the EIMC)."""


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_range: tuple[float, float] | None = None,
    log2_x: bool = False,
    references: Sequence[Reference] = (),
    x_ticks: Sequence[float] | None = None,
) -> str:
    """Lines over a shared x axis, optionally log2-scaled, with shaded bands and references."""
    left, right, top, bottom = 52.0, 16.0, 16.0, 58.0
    plot_w, plot_h = 440.0, 190.0
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points if y is not None]
    ys += [v for s in series for _, lo, hi in s.band for v in (lo, hi)]
    ys += [r.value for r in references]
    if not xs:
        xs = [0.0, 1.0]
    if not ys:
        ys = [0.0, 1.0]

    def tx(x: float) -> float:
        return math.log2(x) if log2_x and x > 0 else x

    x_lo, x_hi = min(tx(x) for x in xs), max(tx(x) for x in xs)
    if x_hi - x_lo < 1e-12:
        x_lo, x_hi = x_lo - 1, x_hi + 1
    y_lo, y_hi = y_range if y_range else (min(ys), max(ys))
    if y_hi - y_lo < 1e-12:
        y_lo, y_hi = y_lo - 1, y_hi + 1
    y_ticks = nice_ticks(y_lo, y_hi)
    if not y_range:
        y_lo, y_hi = min(y_lo, y_ticks[0]), max(y_hi, y_ticks[-1])

    def px(x: float) -> float:
        return left + plot_w * (tx(x) - x_lo) / (x_hi - x_lo)

    def py(y: float) -> float:
        return top + plot_h * (1 - (y - y_lo) / (y_hi - y_lo))

    legend_rows = math.ceil(len(series) / 3)
    width = left + plot_w + right
    height = top + plot_h + bottom + 16 * max(0, legend_rows - 1)
    parts = [_open(width, height, title)]
    _value_axis(parts, left, top, plot_w, plot_h, y_lo, y_hi, [t for t in y_ticks if y_lo <= t <= y_hi], "{:.4g}")
    for x in x_ticks if x_ticks is not None else sorted(set(xs)):
        parts.append(
            f"<text x='{_f(px(x))}' y='{_f(top + plot_h + 14)}' text-anchor='middle' fill='{AXIS}' "
            f"font-size='10'>{x:g}</text>"
        )
    parts.append(
        f"<text x='{_f(left + plot_w / 2)}' y='{_f(top + plot_h + 30)}' text-anchor='middle' fill='{AXIS}'>{escape(x_label)}</text>"
        f"<text transform='translate(12 {_f(top + plot_h / 2)}) rotate(-90)' text-anchor='middle' fill='{AXIS}'>{escape(y_label)}</text>"
    )
    for ref in references:
        parts.append(
            f"<line x1='{_f(left)}' x2='{_f(left + plot_w)}' y1='{_f(py(ref.value))}' y2='{_f(py(ref.value))}' "
            f"stroke='{ref.color}' stroke-dasharray='6 4'/>"
            f"<text x='{_f(left + 6)}' y='{_f(py(ref.value) + 12)}' fill='{ref.color}' "
            f"font-size='10'>{escape(ref.label)}</text>"
        )
    for k, s in enumerate(series):
        color = PALETTE[k % len(PALETTE)]
        if s.band:
            upper = " ".join(f"{_f(px(x))},{_f(py(hi))}" for x, _, hi in s.band)
            lower = " ".join(f"{_f(px(x))},{_f(py(lo))}" for x, lo, _ in reversed(s.band))
            parts.append(f"<polygon points='{upper} {lower}' fill='{color}' fill-opacity='0.15' stroke='none'/>")
        segment: list[str] = []
        segments: list[list[str]] = []
        for x, y in s.points:
            if y is None:
                if segment:
                    segments.append(segment)
                segment = []
                continue
            segment.append(f"{_f(px(x))},{_f(py(y))}")
        if segment:
            segments.append(segment)
        for seg in segments:
            parts.append(f"<polyline points='{' '.join(seg)}' fill='none' stroke='{color}' stroke-width='2'/>")
        for x, y in s.points:
            if y is not None:
                parts.append(
                    f"<g><title>{escape(f'{s.name}: {x:g} → {y:.4g}')}</title>"
                    f"<circle cx='{_f(px(x))}' cy='{_f(py(y))}' r='3' fill='{color}'/></g>"
                )
        for x, y, tip in s.markers:
            cx, cy = px(x), py(y)
            parts.append(
                f"<g><title>{escape(tip)}</title><path d='M{_f(cx)} {_f(cy - 7)} L{_f(cx + 7)} {_f(cy)} "
                f"L{_f(cx)} {_f(cy + 7)} L{_f(cx - 7)} {_f(cy)} Z' fill='none' stroke='{color}' stroke-width='2'/></g>"
            )
        lx = left + (k % 3) * (plot_w / 3)
        ly = top + plot_h + 44 + 16 * (k // 3)
        parts.append(
            f"<rect x='{_f(lx)}' y='{_f(ly - 9)}' width='10' height='10' fill='{color}'/>"
            f"<text x='{_f(lx + 14)}' y='{_f(ly)}' font-size='11'>{escape(s.name)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
