"""The band and the correction side by side: band ends that contain the value, intervals too wide to inform
marked, a note where the corrected validity leaves the band, and one rule for which figure to quote."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sitbench.cli._main import cli
from sitbench.metrics import (
    FIGURE_RULE,
    Band,
    format_band,
    format_corrected,
    reading_notes,
    render_corrected_table,
    run_metrics,
    whole_percent_range,
)
from sitbench.verify import Corrected, CorrectionStatus


@pytest.mark.parametrize(("low", "high", "shown"), [
    (0.0, 0.625, "0–63"),     # half-to-even would print 0–62, putting 62.5 outside its own band
    (0.125, 0.875, "12–88"),
    (0.29, 0.5, "29–50"),     # 0.29 is 28.999… in floating point: still 29
    (0.0, 1.0, "0–100"),
])
def test_band_ends_round_outward(low: float, high: float, shown: str) -> None:
    assert format_band(Band(low=low, high=high)) == shown == whole_percent_range(low, high)


def test_corrected_interval_rounds_outward_and_a_wide_one_is_marked() -> None:
    narrow = Corrected(status=CorrectionStatus.CORRECTED, estimate=0.979, low=0.585, high=0.995)
    assert format_corrected(narrow) == "97.9 (58–100)"
    wide = Corrected(status=CorrectionStatus.CORRECTED, estimate=0.496, low=0.01, high=0.97)
    assert format_corrected(wide) == "49.6 (1–97)*"


@pytest.fixture(scope="module")
def two_reader_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(cli, ["demo", "--two-readers", "--out", str(root)])
    assert result.exit_code == 0, result.output
    return root


def test_a_corrected_validity_outside_its_band_is_noted_and_the_band_quoted(two_reader_demo: Path) -> None:
    result = run_metrics(two_reader_demo / "run-collapse")
    row = result["A"]
    assert row.band is not None
    corrected, band = row.corrected["A_pos"], row.band["A_pos"]
    assert corrected.estimate is not None and band.high is not None
    assert corrected.estimate > band.high  # the case the notes are for: the correction ignores the second reader
    [outside] = [note for config, note in reading_notes(result) if config == "A" and "outside" in note]
    assert "the corrected validity lies outside the two-reader band (A_pos corrected 68.3 against band " \
           "0.0–62.5" in outside
    assert outside.endswith("quote the band")
    table = render_corrected_table(result)
    assert table is not None and "interval in parentheses" in str(table.caption)
    assert "brackets" not in str(table.caption)


def test_metrics_states_the_rule_and_the_next_command(two_reader_demo: Path) -> None:
    run = two_reader_demo / "run-collapse"
    result = CliRunner().invoke(cli, ["metrics", str(run)])
    assert result.exit_code == 0, result.output
    assert f"which figure to quote: {FIGURE_RULE}" in result.output
    assert "config A, B, C, D, E, F, G, H, I: the corrected validity lies outside the two-reader band" in result.output
    assert "50 points wide or more (*): too wide to inform" in result.output
    assert f"next: sitbench report {run} --out report.html" in result.output
