"""The comparison page of ``sitbench compare --html`` in headless Chromium: its content after its script ran, and
a screenshot.

Needs Debian's ``chromium`` on PATH (``.ci/run`` installs it); skipped otherwise.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from _browser import chromium, needs_chromium

from sitbench.report import write_comparison
from sitbench.stats import CompareReport, compare_runs

pytestmark = needs_chromium


class _Page(HTMLParser):
    """Collects what the assertions need from the DOM Chromium dumps."""

    def __init__(self) -> None:
        super().__init__()
        self.root: dict[str, str | None] = {}
        self.title = ""
        self.decide: list[str] = []
        self.differences: dict[tuple[str, str], str] = {}
        self.change_rows = 0
        self.shown = ""
        self._arm = ""
        self._endpoint = ""
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "html":
            self.root = a
        if tag == "title" and not self.title:
            self._in = "title"  # the document's; the charts' SVG titles come later
        if tag == "table" and "endpoints" in classes:
            self._arm = a.get("data-arm") or ""
        if tag == "tr" and a.get("data-endpoint"):
            self._endpoint = a["data-endpoint"] or ""
        if tag == "tr" and "change" in classes:
            self.change_rows += 1
        if tag == "td" and a.get("data-role") == "difference":
            self._in = "difference"
            self.differences[(self._arm, self._endpoint)] = ""
        if tag == "p" and a.get("data-role") == "decidability":
            self._in = "decide"
            self.decide.append("")
        if a.get("id") == "shown":
            self._in = "shown"

    def handle_data(self, data: str) -> None:
        if self._in == "title":
            self.title += data
        elif self._in == "difference":
            self.differences[(self._arm, self._endpoint)] += data
        elif self._in == "decide":
            self.decide[-1] += data
        elif self._in == "shown":
            self.shown += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("title", "td", "p", "b"):
            self._in = None


def _dump(tmp: Path, url: str) -> _Page:
    page = _Page()
    page.feed(chromium(tmp, "--virtual-time-budget=5000", "--dump-dom", url).stdout)
    return page


@pytest.fixture(scope="module")
def report(demo_runs: Path) -> CompareReport:
    return compare_runs([demo_runs / "run-oracle", demo_runs / "run-collapse"], baseline="run-oracle:G", seed=5)


def test_comparison_page_inchromium(report: CompareReport, tmp_path: Path) -> None:
    path = write_comparison(report, tmp_path / "compare" / "compare.html")
    page = _dump(tmp_path, path.as_uri())
    assert page.root.get("data-ready") == "1", "the page's script did not run"
    assert "run-oracle:G" in page.title
    # The pilot has two pairs: every comparison says why nothing can be decided.
    assert len(report.comparisons) == 17
    assert page.decide == [c.decidability.message for c in report.comparisons]
    assert page.decide[0].startswith("no difference can be decided with 2 pairs")
    expected = {
        (c.arm, e.endpoint): "—" if e.difference is None else f"{100 * e.difference:+.1f}"
        for c in report.comparisons for e in [*c.categories, c.macro_sit, *c.diagnostics]
    }
    assert page.differences == expected
    assert page.differences[("run-collapse:G", "A_neg")] == "-100.0"
    changed = sum(len(c.changes) for c in report.comparisons)
    assert page.change_rows == changed > 0 and page.shown == str(changed)

    shot = tmp_path / "compare-page.png"
    chromium(tmp_path, "--hide-scrollbars", f"--screenshot={shot}", "--window-size=1400,3000", path.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_hostile_arm_label_does_not_run_in_the_browser(report: CompareReport, tmp_path: Path) -> None:
    hostile = "<script>document.title='PWNED'</script><b id='shown'>999</b>"
    first = report.comparisons[0].model_copy(update={"arm": hostile})
    path = write_comparison(report.model_copy(update={"comparisons": [first]}), tmp_path / "hostile.html")
    page = _dump(tmp_path, path.as_uri())
    assert page.root.get("data-ready") == "1"
    assert "PWNED" not in page.title
    assert page.shown == str(len(first.changes))
