"""The report of a run read by two readers: bands, contested shares, corrected validities with their card, and the
drill-down's contested trials; and a one-reader report without any of the two-reader parts."""

from __future__ import annotations

import json
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from _report_runs import raw_scores

from sitbench.cli import main
from sitbench.report import select_listed, write_report
from sitbench.verify import shipped_card

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Node:
    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag, self.attrs = tag, attrs
        self.parts: list[str | _Node] = []

    def text(self) -> str:
        return "".join(p if isinstance(p, str) else p.text() for p in self.parts)

    def walk(self) -> list[_Node]:
        out: list[_Node] = [self]
        for part in self.parts:
            if isinstance(part, _Node):
                out += part.walk()
        return out

    def find(self, tag: str, **attrs: str) -> list[_Node]:
        """Descendants (and self) with this tag and these attribute values (``class_`` matches one class)."""
        want = {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
        return [n for n in self.walk() if n.tag == tag and all(
            v in (n.attrs.get(k) or "").split() if k == "class" else n.attrs.get(k) == v for k, v in want.items())]


class _Tree(HTMLParser):
    """The page as a tree of elements, to assert on what a reader of the DOM sees."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.root = _Node("#document", {})
        self._stack = [self.root]
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = _Node(tag, dict(attrs))
        self._stack[-1].parts.append(node)
        if tag not in _VOID:
            self._stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        while len(self._stack) > 1:
            if self._stack.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        self._stack[-1].parts.append(data)


def _page(report: Path) -> _Node:
    return _Tree(report.read_text(encoding="utf-8")).root


def _metrics(report: Path) -> dict[str, Any]:
    (run,) = json.loads((report.parent / "metrics.json").read_text(encoding="utf-8"))["runs"].values()
    return run


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def test_every_figure_carries_its_band_beside_the_primary_value(two_reader_report: Path) -> None:
    page, configs = _page(two_reader_report), _metrics(two_reader_report)["configs"]
    name = "run-collapse-2r"
    checked = 0
    for config, m in configs.items():
        for field, band in m["band"].items():
            (cell,) = page.find("td", data_run=name, data_config=config, data_metric=field)
            (span,) = cell.find("span", class_="band")
            assert span.text() == f"{_pct(band['low'])}–{_pct(band['high'])}"
            assert cell.text() == _pct(m[field]) + span.text()  # the value is the primary reader's
            checked += 1
    assert checked == 9 * 15
    # The collapse run's contested verdicts widen A_pos: 62.5 read by rules, 0–62.5 over the contested ones.
    (cell,) = page.find("td", data_run=name, data_config="A", data_metric="A_pos")
    assert cell.text() == "62.50.0–62.5"
    (meaning,) = page.find("p", class_="band-meaning")
    assert "counted as a failure, and as a pass" in meaning.text() and "primary reader's" in meaning.text()


def test_contested_share_per_configuration_and_category(two_reader_report: Path, two_reader_run: Path) -> None:
    page = _page(two_reader_report)
    records = raw_scores(two_reader_run)
    contested = Counter((r["config"], r["category"]) for r in records if r.get("agreement") == "contested")
    completed = Counter((r["config"], r["category"]) for r in records if r["status"] == "completed")
    assert sum(contested.values()) > 0
    (table,) = page.find("table", class_="contested")
    for (config, category), n in completed.items():
        (cell,) = table.find("td", data_config=config, data_contested=category)
        assert cell.text() == f"{contested[(config, category)]} / {n} ({_pct(contested[(config, category)] / n)}%)"
    (total,) = table.find("td", data_config="A", data_contested="all")
    n_a = sum(v for (c, _), v in contested.items() if c == "A")
    assert total.text().startswith(f"{n_a} / 22 ")
    text = page.text()
    assert "Primary reader rules@sitbench-rules/3.1; second reader llm@sitbench-llm/3" in text


def test_corrected_validities_name_the_reader_the_card_and_the_assumption(
        two_reader_report: Path, two_reader_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page, run = _page(two_reader_report), _metrics(two_reader_report)
    (section,) = page.find("section", id="corrected")
    text = section.text()
    assert "rules@sitbench-rules/3.1 → card rules@sitbench-rules/3.1" in text
    assert f"The correction assumes {shipped_card().assumption}" in text
    for config, m in run["configs"].items():
        for field, corrected in m["corrected"].items():
            (cell,) = section.find("td", data_config=config, data_corrected=field)
            assert cell.attrs["data-status"] == corrected["status"]
            if corrected["status"] == "corrected":
                wide = "*" if corrected["high"] - corrected["low"] >= 0.5 else ""  # too wide to inform
                assert cell.text() == (f"{_pct(corrected['estimate'])} "
                                       f"[{_pct(corrected['low'])}, {_pct(corrected['high'])}]{wide}")
    assert "Which figure to quote: the audited value when a human audit" in text
    # The card itself: the same data `sitbench metrics --json` prints, in a collapsible section.
    assert main(["metrics", str(two_reader_run), "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)["verifier_cards"]
    assert [c["reader"] for c in cards] == ["rules@sitbench-rules/3.1"] and run["verifier_cards"] == cards
    (details,) = section.find("details", class_="card")
    for letter, errors in cards[0]["categories"].items():
        (row,) = details.find("tr", data_category=letter)
        cells = [td.text() for td in row.find("td")]
        assert cells[1:3] == [str(errors["n_valid"]), str(errors["n_invalid"])]
        assert cells[3].startswith(f"{errors['false_rejects']}/{errors['n_valid']} ")
        assert cells[4].startswith(f"{errors['false_accepts']}/{errors['n_invalid']} ")
    (raw,) = details.find("pre")
    assert json.loads(raw.text()) == cards[0]


def test_drilldown_lists_contested_trials_with_both_readings(two_reader_report: Path, two_reader_run: Path) -> None:
    page = _page(two_reader_report)
    records = {r["trial_id"]: r for r in raw_scores(two_reader_run)}
    (select,) = page.find("select", id="f-agreement")
    assert [o.attrs["value"] for o in select.find("option")] == ["", "contested", "agreed"]
    rows = page.find("details", class_="trial")
    shown = {row.find("span", class_="tid")[0].text(): row for row in rows}
    contested = {tid for tid, r in records.items() if r.get("agreement") == "contested"}
    failed = {tid for tid, r in records.items() if r["status"] == "completed" and not r["verdict"]["valid"]}
    assert set(shown) == contested | failed and contested - failed  # contested trials the rules reader passed too
    for tid, row in shown.items():
        record = records[tid]
        assert row.attrs["data-agreement"] == record["agreement"]
        if tid not in contested:
            continue
        (table,) = row.find("table", class_="differ")
        assert [tr.find("td")[0].text() for tr in table.find("tbody")[0].find("tr")] == record["contested_checks"]
        second_failed = [n for n, c in record["second"]["verdict"]["checks"].items() if not c["passed"]]
        (note,) = row.find("p", class_="second-failed")
        assert note.text().startswith(f"second reader's failed target checks: {', '.join(second_failed) or '(none)'}")
        assert f"contested: {', '.join(record['contested_checks'])}" in row.find("summary")[0].text()
    (heading,) = page.find("section", id="drilldown")[0].find("h2")
    assert heading.text() == "Failed and contested trials"


def test_a_one_reader_report_has_no_two_reader_parts(demo_runs: Path) -> None:
    report = write_report([demo_runs / "run-collapse"], demo_runs / "one-reader" / "report.html")
    page = _page(report)
    configs = _metrics(report)["configs"]
    assert all(m["band"] is None and m["contested"] == {} for m in configs.values())
    assert not page.find("span", class_="band") and not page.find("table", class_="contested")
    assert not page.find("p", class_="band-meaning") and not page.find("select", id="f-agreement")
    assert not [n for n in page.walk() if "data-agreement" in n.attrs]
    shown = page.find("main")[0].text()
    assert "contested" not in shown.lower() and "Two readers" not in shown and "band" not in shown.lower()
    (cell,) = page.find("td", data_run="run-collapse", data_config="A", data_metric="A_pos")
    assert cell.text() == "62.5"
    assert page.find("section", id="drilldown")[0].find("h2")[0].text() == "Failed trials"
    # The rules reader has a card: its corrected validities are shown for one reader too (SPEC §2.12).
    assert page.find("details", class_="card", data_reader="rules@sitbench-rules/3.1")


def _record(n: int, failed: bool, contested: bool) -> Any:
    return SimpleNamespace(trial_id=f"A:PR-{n:03d}", config="A", category=SimpleNamespace(value="A"),
                           status="completed", verdict=SimpleNamespace(valid=not failed),
                           agreement="contested" if contested else "agreed")


def test_a_capped_drilldown_keeps_contested_trials_among_many_failures() -> None:
    rows = [_record(n, failed=True, contested=False) for n in range(10)]
    rows += [_record(10, failed=False, contested=True), _record(11, failed=True, contested=True)]
    run = SimpleNamespace(name="r", scores=rows)
    listed = select_listed([run], 3)  # type: ignore[list-item]
    assert (listed.failed, listed.contested, listed.total) == (11, 2, 12)
    assert [r.trial_id for _, r in listed.picked] == ["A:PR-000", "A:PR-010", "A:PR-011"]


def test_trials_csv_carries_both_readers(two_reader_report: Path, two_reader_run: Path) -> None:
    import csv

    from sitbench.metrics import load_scores

    with (two_reader_report.parent / "trials.csv").open(encoding="utf-8") as handle:
        rows = {row["trial_id"]: row for row in csv.DictReader(handle)}
    for record in load_scores(two_reader_run):
        row = rows[record.trial_id]
        assert row["agreement"] == (record.agreement or "")
        assert row["contested_checks"] == ";".join(record.contested_checks)
        assert record.second is not None
        assert row["second_valid"] == ("true" if record.second.verdict.valid else "false")
