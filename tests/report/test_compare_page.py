"""The comparison page without a browser: what it holds, escaping, the atomic write and ``compare --html``."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.errors import OutputError
from sitbench.report import render_comparison, write_comparison
from sitbench.stats import CompareReport, compare_runs


@pytest.fixture(scope="module")
def report(demo_runs: Path) -> CompareReport:
    return compare_runs([demo_runs / "run-oracle-perfect", demo_runs / "run-collapse"], seed=1)


def test_page_holds_every_comparison_and_loads_nothing(report: CompareReport) -> None:
    page = render_comparison(report, generated_at="2026-01-01T00:00:00Z")
    assert page == render_comparison(report, generated_at="2026-01-01T00:00:00Z")
    assert "default-src 'none'" in page and " src=" not in page and "<link" not in page
    assert page.count("<table class='endpoints'") == len(report.comparisons) == 17
    assert page.count("data-role='decidability'") == 17
    assert page.count("<tr class='change'") == sum(len(c.changes) for c in report.comparisons)
    assert "at least 9 pairs are needed for p &lt; 0.05 after Holm over 8 categories" in page


def test_labels_are_escaped(report: CompareReport) -> None:
    hostile = "<img src=x onerror=alert(1)>"
    first = report.comparisons[0].model_copy(update={"arm": hostile})
    page = render_comparison(report.model_copy(update={"comparisons": [first], "baseline": hostile}))
    assert hostile not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_write_is_atomic_and_names_the_file(report: CompareReport, tmp_path: Path) -> None:
    target = tmp_path / "out" / "compare.html"
    assert write_comparison(report, target) == target
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in target.parent.iterdir()] == ["compare.html"]
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(OutputError) as error:
        write_comparison(report, blocker / "compare.html")
    message = str(error.value)
    assert message.startswith(f"{blocker}: ") and "choose another --html FILE" in message and "\n" not in message


def test_cli_writes_the_page(demo_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "page.html"
    assert main(["compare", str(demo_runs / "run-oracle"), "--baseline", "run-oracle:I", "--html", str(out),
                 "--max-changes", "0"]) == 0
    captured = capsys.readouterr()
    assert f"comparison page: {out}" in captured.err
    assert "run-oracle:A vs run-oracle:I" in captured.out and "(+" in captured.out
    assert "<h2>run-oracle:G vs run-oracle:I</h2>" in out.read_text(encoding="utf-8")
