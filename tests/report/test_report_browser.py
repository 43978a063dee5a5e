"""The demo report in headless Chromium: the page's content after its script ran, and a screenshot.

Needs Debian's ``chromium`` on PATH (``.ci/run`` installs it); skipped otherwise.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _browser import chromium, needs_chromium
from _report_runs import raw_scores, small_run

from sitbench.report import write_report

pytestmark = needs_chromium
RUNS = ("run-collapse", "run-oracle", "run-oracle-perfect")
_BLOCKS = frozenset({"p", "div", "li", "ul", "td", "th", "tr", "table", "h2", "h3", "h4", "summary", "details", "dt",
                     "dd", "pre", "br", "aside", "label"})
"""Elements whose start and end separate words in a section's text."""


class _Page(HTMLParser):
    """Collects what the assertions need from the DOM Chromium dumps."""

    def __init__(self) -> None:
        super().__init__()
        self.macro: dict[tuple[str, str], str] = {}
        self.rows = 0
        self.root: dict[str, str | None] = {}
        self.title = ""
        self._cell: tuple[str, str] | None = None
        self._in: str | None = None
        self.texts: dict[str, str] = {}
        self.trials: list[tuple[str | None, bool]] = []
        """Each drill-down row's ``data-agreement`` and whether the page's script hid it."""
        self.band_cells = 0
        self.sections: dict[str, str] = {}
        """Each ``<section>``'s text as the browser holds it after the script ran, by the section's id."""
        self._section: str | None = None
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section":
            self._section = a.get("id") or ""
            self.sections[self._section] = ""
        if tag in ("script", "style"):
            self._skip += 1
        if tag in _BLOCKS and self._section is not None:
            self.sections[self._section] += " "
        if tag == "html":
            self.root = a
        if tag == "title":
            self._in = "title"
        if tag == "details" and "trial" in (a.get("class") or "").split():
            self.rows += 1
            self.trials.append((a.get("data-agreement"), "hidden" in (a.get("class") or "").split()))
        if tag == "span" and a.get("class") == "band":
            self.band_cells += 1
        if tag == "td" and a.get("data-metric") == "macro_sit":
            self._cell = (a["data-run"] or "", a["data-config"] or "")
        if a.get("id") in ("shown", "listed"):
            self._in = a["id"]

    def handle_data(self, data: str) -> None:
        if self._section is not None and not self._skip:
            self.sections[self._section] += data
        if self._cell is not None:
            self.macro[self._cell] = self.macro.get(self._cell, "") + data
        if self._in == "title":
            self.title += data
        elif self._in:
            self.texts[self._in] = self.texts.get(self._in, "") + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self._section = None
        if tag in ("script", "style"):
            self._skip -= 1
        if tag in _BLOCKS and self._section is not None:
            self.sections[self._section] += " "
        if tag == "td":
            self._cell = None
        if tag in ("title", "b", "span"):
            self._in = None


def _dump(tmp: Path, url: str) -> _Page:
    page = _Page()
    page.feed(chromium(tmp, "--virtual-time-budget=5000", "--dump-dom", url).stdout)
    return page


@pytest.fixture(scope="module")
def demo_report(demo_runs: Path) -> Path:
    return write_report([demo_runs / name for name in RUNS], demo_runs / "report" / "report.html")


def _metrics(report: Path) -> dict:
    return json.loads((report.parent / "metrics.json").read_text(encoding="utf-8"))["runs"]


def test_demo_report_inchromium(demo_report: Path, tmp_path: Path) -> None:
    page = _dump(tmp_path, demo_report.as_uri())
    assert page.root.get("data-ready") == "1", "the report's script did not run"
    expected = {
        (run, config): ("—" if m["macro_sit"] is None else f"{100 * m['macro_sit']:.1f}")
        for run, data in _metrics(demo_report).items()
        for config, m in data["configs"].items()
    }
    assert len(expected) == 27
    assert page.macro == expected
    runs_dir = demo_report.parent.parent
    failed = [
        (name, r) for name in RUNS for r in raw_scores(runs_dir / name)
        if r["status"] == "completed" and not r["verdict"]["valid"]
    ]
    assert page.rows == len(failed) > 0
    assert page.texts["shown"] == page.texts["listed"] == str(len(failed))

    # A filter given in the URL is applied by the page's script.
    page = _dump(tmp_path, demo_report.as_uri() + "#run=run-collapse&config=A")
    in_filter = sum(1 for name, r in failed if name == "run-collapse" and r["config"] == "A")
    assert page.texts["shown"] == str(in_filter) and 0 < in_filter < len(failed)

    shot = tmp_path / "demo-report.png"
    chromium(tmp_path, "--hide-scrollbars", f"--screenshot={shot}", "--window-size=1400,3000", demo_report.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_hostile_response_does_not_run_in_the_browser(tmp_path: Path) -> None:
    run = small_run(tmp_path / "r1", response_b="<script>document.title='PWNED'</script><b id='shown'>999</b>")
    report = write_report([run], tmp_path / "report.html")
    page = _dump(tmp_path, report.as_uri())
    assert page.root.get("data-ready") == "1"
    assert "PWNED" not in page.title
    assert page.rows == 3 and page.texts["shown"] == "3"  # A:PR-04, B:PR-01, B:PR-03


def test_contested_view_inchromium(two_reader_report: Path, two_reader_run: Path, tmp_path: Path) -> None:
    records = raw_scores(two_reader_run)
    contested = [r for r in records if r.get("agreement") == "contested"]
    page = _dump(tmp_path, two_reader_report.as_uri())
    assert page.root.get("data-ready") == "1", "the report's script did not run"
    assert page.band_cells == 9 * 15  # every figure of every configuration carries its band
    listed = len(page.trials)
    assert page.texts["shown"] == page.texts["listed"] == str(listed) and listed > len(contested) > 0

    # Filtering to contested trials (a filter given in the URL) leaves exactly the contested ones shown.
    page = _dump(tmp_path, two_reader_report.as_uri() + "#agreement=contested")
    visible = [agreement for agreement, hidden in page.trials if not hidden]
    assert visible == ["contested"] * len(contested)
    assert page.texts["shown"] == str(len(contested)) and page.texts["listed"] == str(listed)
    page = _dump(tmp_path, two_reader_report.as_uri() + "#agreement=contested&config=B")
    assert page.texts["shown"] == str(sum(1 for r in contested if r["config"] == "B"))

    shot = tmp_path / "contested-view.png"
    chromium(tmp_path, "--hide-scrollbars", f"--screenshot={shot}", "--window-size=1400,6000",
              two_reader_report.as_uri() + "#agreement=contested")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_agent_report_inchromium(agent_report: Path, agent_run: Path, tmp_path: Path) -> None:
    page = _dump(tmp_path, agent_report.as_uri())
    assert page.root.get("data-ready") == "1", "the report's script did not run"
    text = " ".join(page.sections.values())
    assert "Transport.PYTHON" not in text and "handler native" not in page.sections["summary"]
    summary = " ".join(page.sections["summary"].split())
    assert "agent keyword-baseline 1" in summary and "in process (a Python factory)" in summary
    assert "Rows are configurations" not in summary and "The row agent is the agent under test" in summary
    # The E1–E8 section names the run it analyses, and says why nothing could be decided.
    contrasts = " ".join(page.sections["contrasts"].split())
    assert contrasts.startswith(f"Confirmatory contrasts E1–E8 (Holm–Bonferroni): {agent_run.name} ")
    assert f"{agent_run.name}: agent " in contrasts and "No contrast of E1–E8 was computed" in contrasts
    # A failed check's reason in words: PR-01 asks about Kyoto, where this identity never lived.
    failed = [r for r in raw_scores(agent_run) if r["status"] == "completed" and not r["verdict"]["valid"]]
    assert page.rows == len(failed) > 0
    reasons = [r["verdict"]["checks"]["required"]["reason"] for r in failed if r["probe_id"] == "PR-01"]
    assert reasons == ["required claims not asserted with an allowed provenance: ['P-01-']"]
    drilldown = " ".join(page.sections["drilldown"].split())
    assert "required claims not asserted with an allowed provenance: “denies: lived in Kyoto” (P-01−)" in drilldown
    assert "['P-" not in drilldown
    agents = " ".join(page.sections["agents"].split())
    assert agents.count("agent's own answer time (ms)") == 2

    shot = tmp_path / "agent-report.png"
    chromium(tmp_path, "--hide-scrollbars", f"--screenshot={shot}", "--window-size=1400,3000", agent_report.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
