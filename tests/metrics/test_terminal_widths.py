"""Every figure of `metrics`, `analyze` and `demo` reads whole at 80, 120 and 200 columns and in a pipe.

The width is set the way a user's shell sets it (``COLUMNS``); unset, the output is a file (the test's
capture), which is never wrapped. A figure counts as whole when it stands in a cell of its own,
exactly as the table's cells hold it; no line is wider than the width, and nothing ends in "…".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.table import Table

from sitbench.cli._main import cli
from sitbench.metrics import render_corrected_table, render_table, run_metrics
from sitbench.render import fit_table

WIDTHS = (80, 120, 200)


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The two-reader demo, run once at 80 columns (its runs carry bands and corrected validities)."""
    root = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(cli, ["demo", "--two-readers", "--out", str(root)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    yield root, result.output


def _cells(output: str) -> set[str]:
    """The text of every cell of every table printed (split on the column rules)."""
    found: set[str] = set()
    for line in output.splitlines():
        if "│" in line or "┃" in line:
            found.update(cell.strip() for cell in re.split("[│┃]", line))
    return found


def _expected(table: Table) -> set[str]:
    """Each line of each cell of a table as rendered (a cell may hold a value and its interval)."""
    return {part.strip() for column in table.columns for cell in column.cells for part in str(cell).splitlines()}


def _invoke(args: list[str], width: int | None) -> str:
    env = {"COLUMNS": str(width)} if width is not None else {"COLUMNS": ""}
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    return result.output


def _assert_fits(output: str, width: int | None) -> None:
    cut = [cell for cell in _cells(output) if cell.endswith("…")]
    assert not cut, f"cells cut at COLUMNS={width}: {cut[:5]}"
    if width is not None:
        # A table's lines; a command to copy is printed whole and left to the terminal to wrap.
        widest = max(len(line) for line in output.splitlines() if re.search("[│┃┏└]", line))
        assert widest <= width, f"a table line of {widest} columns at COLUMNS={width}"


@pytest.mark.parametrize("width", [*WIDTHS, None])
def test_metrics_every_figure_whole(demo_root: tuple[Path, str], width: int | None) -> None:
    root, _ = demo_root
    run = root / "run-collapse"
    output = _invoke(["metrics", str(run)], width)
    _assert_fits(output, width)
    result = run_metrics(run)
    expected = _expected(render_table(result))
    corrected = render_corrected_table(result)
    assert corrected is not None
    expected |= _expected(corrected)
    missing = expected - _cells(output)
    assert not missing, f"figures not shown whole at COLUMNS={width}: {sorted(missing)[:10]}"
    if width is None:
        assert "(1/" not in output  # a file gets each table whole, in one piece


@pytest.mark.parametrize("width", [*WIDTHS, None])
def test_analyze_every_figure_whole(demo_root: tuple[Path, str], width: int | None) -> None:
    root, _ = demo_root
    run = root / "run-oracle"
    output = _invoke(["analyze", str(run)], width)
    _assert_fits(output, width)
    report = json.loads(_invoke(["analyze", str(run), "--json"], None))
    cells = _cells(output)
    for contrast in report["experiments"] + report["secondary"]:
        assert contrast["id"] in cells
        if contrast["mean"] is not None:
            assert f"{contrast['mean']:.4g}" in cells
        if contrast["ci_lower"] is not None:
            interval = f"[{contrast['ci_lower']:.4g}, {contrast['ci_upper']:.4g}]"
            assert any(cell.startswith(interval) for cell in cells), interval


def test_demo_fits_80_columns(demo_root: tuple[Path, str]) -> None:
    root, output = demo_root
    _assert_fits(output, 80)
    for name in ("collapse", "oracle", "oracle-perfect"):
        missing = _expected(render_table(run_metrics(root / f"run-{name}"))) - _cells(output)
        assert not missing, f"{name}: {sorted(missing)[:10]}"
    assert "band" in _cells(output)


def test_too_narrow_for_one_column_gives_one_figure_a_line() -> None:
    table = Table(title="t", caption="a caption")
    table.add_column("Config")
    table.add_column("a long header of a column")
    table.add_column("B")
    table.add_row("A", "12.5", "100.0 (31–100)")
    parts = fit_table(table, 24)
    long_form = parts[0]
    assert isinstance(long_form, Table)
    assert [str(c.header) for c in long_form.columns] == ["Config", "figure", "value"]
    assert list(long_form.columns[2].cells) == ["12.5", "100.0 (31–100)"]
    assert len(parts) == 2  # the caption follows as text


def test_a_table_that_fits_is_left_whole() -> None:
    table = Table(title="t")
    table.add_column("Config")
    table.add_column("A_pos")
    table.add_row("A", "12.5")
    assert fit_table(table, 80) == [table]
    assert fit_table(table, None) == [table]
