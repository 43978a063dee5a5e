"""The explanations: glossary and configurations table, letters with names, cited references, next steps."""

from __future__ import annotations

import html as html_lib
import json
import re
from pathlib import Path

import pytest
from _report_runs import small_run

from sitbench import glossary
from sitbench.cli import main
from sitbench.report import write_report
from sitbench.schema import CATEGORY_METRICS, Category

README = Path(__file__).resolve().parents[2] / "README.md"


def _text(page: str) -> str:
    """The page's visible words: tags removed, entities decoded."""
    body = page.split("<body>", 1)[1].split("<script>", 1)[0]
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", body))


def test_readme_glossary_matches_the_code() -> None:
    text = README.read_text(encoding="utf-8")
    assert text.count(glossary.README_START) == 1 and text.count(glossary.README_END) == 1
    section = text.split(glossary.README_START, 1)[1].split(glossary.README_END, 1)[0]
    assert section.strip("\n") == glossary.readme_markdown().strip("\n"), (
        "README glossary differs from sitbench.glossary; paste sitbench.glossary.readme_markdown() between the markers"
    )


def test_glossary_covers_every_configuration_category_and_metric() -> None:
    assert [c.letter for c in glossary.CONFIGURATIONS] == [*"ABCDEFGHI", "G_budget"]
    assert [c.letter for c in glossary.CATEGORIES] == [c.value for c in Category]
    assert [c.metric for c in glossary.CATEGORIES] == [CATEGORY_METRICS[c] for c in Category]
    keys = {m.key for m in glossary.METRICS}
    assert {"Macro SIT", "LAA", "IC_wrong", "IC_none", "FMR", "TL", "UEL"} <= keys
    for entry in (*glossary.CONFIGURATIONS, *glossary.CATEGORIES, *glossary.METRICS):
        assert entry.source.startswith("seed §"), entry
    assert glossary.category_label("C") == "cat. C · epistemic provenance"
    assert glossary.config_label("B") == "config. B"


def test_uncited_finds_bare_references_only() -> None:
    found = glossary.uncited("shaped like Table 6; see Eq. 40 and Theorem 1")
    assert [f.split(" in '")[0] for f in found] == ["Table 6", "Eq. 40", "Theorem 1"]
    assert glossary.uncited("shaped like seed paper Table 6 (seed §8.2, Eq. 40; seed §3.4, Theorem 1)") == []
    assert glossary.uncited(README.read_text(encoding="utf-8")) == []


def test_report_explains_itself(tmp_path: Path) -> None:
    run = small_run(tmp_path / "r1")
    out = tmp_path / "out" / "report.html"
    page = write_report([run], out).read_text(encoding="utf-8")
    text = _text(page)
    # Glossary and configurations table, from the same entries as the README.
    assert "<section id='glossary'>" in page and "href='#glossary'" in page
    for entry in glossary.CONFIGURATIONS:
        assert f"config. {entry.letter}" in text and entry.shows in text and entry.source in text
    for entry in glossary.CATEGORIES:
        assert glossary.category_label(entry.letter) in text and entry.tests in text
    for metric in glossary.METRICS:
        assert f"<tr data-term='{html_lib.escape(metric.key, quote=True)}'>" in page and metric.meaning in text
    # Every numbered table, equation and theorem on the page names the seed.
    assert glossary.uncited(text) == []
    # Category letters never stand alone beside configuration letters.
    svg = page.split("<div class='chart'><h4>Validity", 1)[1].split("</svg>", 1)[0]
    assert ">config. A</text>" in svg and ">cat. C</text>" in svg
    assert "config. B × cat. A · autobiographical positive: 50.0%" in svg
    assert "<span class='pill'>config. B</span><span class='pill'>cat. A · autobiographical positive</span>" in page
    assert "<option value='B'>cat. B · autobiographical negative</option>" in page
    assert "<option value='B'>config. B</option>" in page


def test_what_to_do_next_box(tmp_path: Path, demo_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = small_run(tmp_path / "r1")  # B:PR-04 is dropped
    out = tmp_path / "out" / "report.html"
    page = write_report([run], out).read_text(encoding="utf-8")
    box = html_lib.unescape(page.split("<aside class='next' id='next'>", 1)[1].split("</aside>", 1)[0])
    commands = re.findall(r"<code class='cmd'>([^<]*)</code>", box)
    assert commands[0].startswith("sitbench run ") and f"--out {run} --resume && sitbench score {run}" in commands[0]
    assert "1 trial dropped" in box
    assert any(c.startswith(f"sitbench analyze {run} --json > analysis.json") and f"--out {out}" in c
               for c in commands)
    assert any(c.startswith("sitbench show ") for c in commands)
    # With an analysis given, the box no longer asks for one.
    capsys.readouterr()
    assert main(["analyze", str(demo_runs / "run-oracle"), "--json"]) == 0
    page = write_report([run], out, analysis=json.loads(capsys.readouterr().out)).read_text(encoding="utf-8")
    assert "sitbench analyze" not in page.split("<aside class='next' id='next'>", 1)[1].split("</aside>", 1)[0]


def test_demo_report_with_its_analysis_cites_every_reference(demo_runs: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    run = demo_runs / "run-oracle"
    capsys.readouterr()
    assert main(["analyze", str(run), "--json"]) == 0
    analysis = json.loads(capsys.readouterr().out)
    page = write_report([run], tmp_path / "report.html", analysis=analysis).read_text(encoding="utf-8")
    assert glossary.uncited(_text(page)) == []
    # The default analysis of the pilot computes what the pilot supports: only E5 and E6 stay incomplete.
    assert {e["id"] for e in analysis["experiments"] if e["status"] == "incomplete"} == {"E5", "E6"}


def test_show_names_the_category(demo_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(demo_runs / "pilot"), "PR-05"]) == 0
    head = capsys.readouterr().out.splitlines()[1]
    assert head.startswith("probe PR-05 · category H · cross-session continuity (A_session)")
