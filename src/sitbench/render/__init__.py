"""Rendering primitives with no knowledge of runs: HTML escaping and the pages' security policy, and the
hand-written SVG charts (heatmap, bars, forest plot, lines). The report, the audit sheet and the CHI memory
report draw with them."""

from sitbench.render._html import content_security_policy, esc, kv, num
from sitbench.render._svg import (
    PALETTE,
    IntervalRow,
    Reference,
    Series,
    bar_chart,
    forest_plot,
    heatmap,
    line_chart,
    nice_ticks,
    scale_color,
)

__all__ = [
    "PALETTE",
    "IntervalRow",
    "Reference",
    "Series",
    "bar_chart",
    "content_security_policy",
    "esc",
    "forest_plot",
    "heatmap",
    "kv",
    "line_chart",
    "nice_ticks",
    "num",
    "scale_color",
]
