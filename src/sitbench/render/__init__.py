"""Rendering primitives with no knowledge of runs: HTML escaping and the pages' security policy, the
hand-written SVG charts (heatmap, bars, forest plot, lines), and terminal tables that fit the terminal's width
without cutting a figure. The report, the audit sheet, the CHI memory report and the command line draw with
them."""

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
from sitbench.render._terminal import UNLIMITED_WIDTH, fit_table, fit_width, output_console, print_table, say

__all__ = [
    "PALETTE",
    "UNLIMITED_WIDTH",
    "IntervalRow",
    "Reference",
    "Series",
    "bar_chart",
    "content_security_policy",
    "esc",
    "fit_table",
    "fit_width",
    "forest_plot",
    "heatmap",
    "kv",
    "line_chart",
    "nice_ticks",
    "num",
    "output_console",
    "print_table",
    "say",
    "scale_color",
]
