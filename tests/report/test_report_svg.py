"""The hand-written SVG charts: scales, ticks, cells, bars and escaping."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from sitbench.render import (
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

NS = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # also proves the markup is well-formed XML


def test_scale_color_ends_and_midpoint() -> None:
    assert scale_color(0.0) == "#fff7d6"
    assert scale_color(1.0) == "#173175"
    assert scale_color(0.5) == "#7abe96"
    # Halfway between the 0.0 and 0.25 stops: (255+237)/2, (247+201)/2, (214+120)/2.
    assert scale_color(0.125) == "#f6e0a7"
    assert scale_color(-3.0) == scale_color(0.0) and scale_color(7.0) == scale_color(1.0)


def test_nice_ticks_cover_the_range_with_round_steps() -> None:
    assert nice_ticks(0.0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(69.8, 85.7) == [65.0, 70.0, 75.0, 80.0, 85.0, 90.0]
    assert nice_ticks(-0.3, 0.5) == [-0.4, -0.2, 0.0, 0.2, 0.4, 0.6]
    ticks = nice_ticks(-0.0785, 1.06)
    assert ticks[0] <= -0.0785 and ticks[-1] >= 1.06 and ticks == [-0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25]


def test_heatmap_cells_values_and_undefined() -> None:
    svg = heatmap(["A", "B"], ["X", "Y", "Z"], {("A", "X"): 0.5, ("A", "Y"): 1.0, ("B", "X"): 0.0, ("B", "Z"): None},
                  title="t")
    root = _parse(svg)
    cells = [g for g in root.iter(f"{NS}g") if g.find(f"{NS}rect") is not None]
    assert len(cells) == 6
    labels = [g.find(f"{NS}text").text for g in cells]
    assert labels == ["50.0", "100.0", "—", "0.0", "—", "—"]
    fills = [g.find(f"{NS}rect").get("fill") for g in cells]
    assert fills[0] == scale_color(0.5) and fills[2] == fills[4] == fills[5] == "#e4e4e4"


def test_bar_chart_heights_reference_and_missing_values() -> None:
    svg = bar_chart(["A", "B", "C"], {"LAA": [0.25, None, 1.0]}, title="t", references=[Reference(0.5, "bound")])
    root = _parse(svg)
    bars = [r for r in root.iter(f"{NS}rect") if r.get("fill") == "#4269d0"]
    # The plot is 170 units tall: 0.25 -> 42.5, 1.0 -> 170.
    assert [float(b.get("height")) for b in bars] == [42.5, 170.0]
    assert "—" in svg and "bound" in svg
    dashed = [line for line in root.iter(f"{NS}line") if line.get("stroke-dasharray")]
    assert float(dashed[0].get("y1")) == 26 + 170 * 0.5


def test_labels_are_escaped() -> None:
    hostile = "<script>x</script>&"
    for svg in (
        heatmap([hostile], ["X"], {}, title=hostile),
        bar_chart([hostile], {hostile: [0.5]}, title=hostile),
        forest_plot([IntervalRow(hostile, 0.1, 0.0, 0.2)], title=hostile),
        line_chart([Series(hostile, [(1.0, 0.5), (2.0, None), (4.0, 0.7)])], title=hostile, x_label=hostile, y_label="y"),
    ):
        assert "<script>" not in svg
        _parse(svg)


def test_forest_plot_includes_zero_and_marks_highlighted_rows() -> None:
    svg = forest_plot(
        [IntervalRow("E1", 0.3, 0.1, 0.5, highlight=True), IntervalRow("E2", None), IntervalRow("E3", -0.2, -0.4, 0.0)],
        title="t",
    )
    root = _parse(svg)
    circles = list(root.iter(f"{NS}circle"))
    assert [c.get("fill") for c in circles] == ["#4269d0", "#fff"]
    assert "not computed" in svg
    assert re.search(r">0</text>", svg)  # the zero tick is on the axis


def test_line_chart_breaks_at_missing_points() -> None:
    svg = line_chart([Series("s", [(1.0, 0.5), (2.0, None), (4.0, 0.7), (8.0, 0.6)])], title="t", x_label="x", y_label="y",
                     log2_x=True)
    root = _parse(svg)
    polylines = list(root.iter(f"{NS}polyline"))
    assert [len(p.get("points").split()) for p in polylines] == [1, 2]
