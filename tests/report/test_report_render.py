"""The HTML report and its exports on hand-built runs and on the real demo runs."""

from __future__ import annotations

import csv
import json
import re
from html import escape
from pathlib import Path

import pytest
from _report_runs import raw_scores, score, small_run, trial, write_run

from sitbench.cli import main
from sitbench.errors import InputError
from sitbench.report import (
    TRIAL_COLUMNS,
    _drilldown,
    load_runs,
    render_report,
    select_failed,
    write_report,
)

MACRO = re.compile(r"<td class='macro' data-run='([^']*)' data-config='([^']*)' data-metric='macro_sit'>([^<]*)</td>")


def _cell(html: str, run: str, config: str, metric: str) -> str:
    match = re.search(
        rf"<td(?: class='macro')? data-run='{re.escape(run)}' data-config='{config}' data-metric='{metric}'>([^<]*)</td>", html
    )
    assert match, (run, config, metric)
    return match.group(1)


def test_small_run_table_holds_hand_computed_values(tmp_path: Path) -> None:
    run = small_run(tmp_path / "r1")
    out = write_report([run], tmp_path / "out" / "report.html")
    html = out.read_text(encoding="utf-8")
    # A: A_pos = 1 (both P1 lineages valid); A_neg = (1 + 0)/2 over P2; other categories empty.
    assert _cell(html, "r1", "A", "A_pos") == "100.0"
    assert _cell(html, "r1", "A", "A_neg") == "50.0"
    assert _cell(html, "r1", "A", "macro_sit") == "—"
    assert _cell(html, "r1", "A", "LAA") == "100.0"
    # B: A_pos = (0 + 1)/2; P2 incomplete (L-2B dropped) so A_neg is undefined, not 0.
    assert _cell(html, "r1", "B", "A_pos") == "50.0"
    assert _cell(html, "r1", "B", "A_neg") == "—"
    assert _cell(html, "r1", "B", "LAA") == "50.0"
    assert _cell(html, "r1", "B", "IC_wrong") == "50.0"
    assert _cell(html, "r1", "B", "FMR") == "100.0"
    assert _cell(html, "r1", "A", "FMR") == "0.0"
    assert _cell(html, "r1", "B", "completed_attempted") == "3 / 4"
    assert "Incomplete pairs" in html and "config. B cat. B · autobiographical negative: pair P2 left out" in html
    # Three failed trials: A:PR-04, B:PR-01, B:PR-03 (the dropped B:PR-04 is not a failure).
    assert html.count("<details class='trial'") == 3
    assert re.findall(r"<span class='tid'>([^<]+)</span>", html) == ["A:PR-04", "B:PR-01", "B:PR-03"]
    assert "data-checks='act required'" in html
    assert "responses.jsonl line 5 of run r1" in html
    assert (tmp_path / "out" / "metrics.json").is_file() and (tmp_path / "out" / "trials.csv").is_file()


def test_trials_csv_has_one_tidy_row_per_trial(tmp_path: Path) -> None:
    run = small_run(tmp_path / "r1")
    write_report([run], tmp_path / "report.html")
    with (tmp_path / "trials.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == TRIAL_COLUMNS
    assert len(rows) == 8
    by_id = {r["trial_id"]: r for r in rows}
    assert by_id["B:PR-01"]["failed_checks"] == "act;required"
    assert by_id["B:PR-01"]["valid"] == "false" and by_id["B:PR-01"]["partner_valid"] == "true"
    assert by_id["B:PR-04"]["status"] == "dropped" and by_id["B:PR-04"]["valid"] == ""
    assert by_id["A:PR-03"]["partner_valid"] == "" and by_id["A:PR-03"]["theorem_qualified"] == "false"
    assert by_id["B:PR-03"]["false_memory"] == "true"
    assert {r["model"] for r in rows} == {"mock/test"} and {r["run"] for r in rows} == {"r1"}
    assert by_id["A:PR-01"]["prompt_tokens"] == "3" and by_id["A:PR-01"]["pair_id"] == "P1"


def test_metrics_json_matches_sitbench_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = small_run(tmp_path / "r1")
    write_report([run], tmp_path / "report.html")
    exported = json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))
    assert main(["metrics", str(run), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert exported["runs"]["r1"]["configs"] == printed["configs"]
    assert exported["runs"]["r1"]["configs"]["B"]["LAA"] == 0.5
    assert exported["runs"]["r1"]["model"] == "mock/test"
    assert exported["runs"]["r1"]["dataset_sha256"] == "ab" * 32
    assert set(exported["runs"]["r1"]["files_sha256"]) == {"manifest.json", "scores.jsonl", "responses.jsonl"}


HOSTILE = "<script>document.title='PWNED'</script><img src=x onerror=\"alert(1)\"></pre></details>&amp;"


def test_untrusted_response_is_escaped_and_script_locked_down(tmp_path: Path) -> None:
    run = small_run(tmp_path / "r1", response_b=HOSTILE)
    html = write_report([run], tmp_path / "report.html").read_text(encoding="utf-8")
    assert HOSTILE not in html
    assert "PWNED" in html  # the text is shown, as text
    assert escape(HOSTILE) in html
    assert html.count("<script") == 1 and html.count("</script>") == 1
    assert "<img" not in html
    # The only script allowed to run is the report's own, by hash.
    csp = re.search(r"content=\"([^\"]+)\"", html).group(1)
    assert "default-src 'none'" in csp and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    import base64
    import hashlib

    body = html.split("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp


def test_nothing_is_loaded_from_the_network(tmp_path: Path) -> None:
    html = write_report([small_run(tmp_path / "r1")], tmp_path / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", html)
    assert "@import" not in html and "url(" not in html


def _many_failures(tmp_path: Path, n_per_group: int) -> Path:
    rows = []
    k = 0
    for config in ("A", "B"):
        for category, lineage in (("A", "L-1A"), ("C", "L-2A")):
            for _ in range(n_per_group):
                k += 1
                tid = f"{config}:PR-{k:03d}"
                rows.append(
                    (trial(tid, config, f"PR-{k:03d}", "no"), score(tid, config, f"PR-{k:03d}", lineage, category, ("act",)))
                )
    return write_run(tmp_path / "many", rows)


def test_drilldown_cap_is_round_robin_and_said_on_the_page(tmp_path: Path) -> None:
    run = _many_failures(tmp_path, 5)  # 4 groups x 5 failures
    runs = load_runs([run])
    picked, total = select_failed(runs, 6)
    assert total == 20
    groups = [(r.config, r.category.value) for _, r in picked]
    # Depth 0 of all four groups, then depth 1 of the first two, kept in file order.
    assert sorted(groups) == sorted([("A", "A"), ("A", "A"), ("A", "C"), ("A", "C"), ("B", "A"), ("B", "C")])
    assert [r.trial_id for _, r in picked] == ["A:PR-001", "A:PR-002", "A:PR-006", "A:PR-007", "B:PR-011", "B:PR-016"]
    html = render_report(runs, max_failed=6)
    assert html.count("<details class='trial'") == 6
    assert "Showing 6 of 20" in html and "capped at 6 trials" in html


def test_long_texts_are_shortened_to_the_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    long_prompt = "[PROFILE: " + "x" * 5000 + "] [MESSAGE: the question at the end]"
    rows = [
        (trial("A:PR-01", "A", "PR-01", "y" * 3000, prompt=long_prompt), score("A:PR-01", "A", "PR-01", "L-1A", "A", ("act",)))
    ]
    run = write_run(tmp_path / "long", rows)
    monkeypatch.setattr(_drilldown, "DRILLDOWN_TEXT_BUDGET", 2000)
    html = render_report(load_runs([run]))
    # Budget 2000 over texts of 5046 and 3000 chars: the cap is 1000 each.
    assert "4,046 characters omitted here; full text in responses.jsonl line 1 of run long" in html
    assert "2,000 characters omitted here" in html
    assert "the question at the end" in html  # the tail (the message) survives
    assert "Texts longer than 1,000 characters are shortened" in html


def _demo_analysis(demo_runs: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["analyze", str(demo_runs / "run-oracle"), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_optional_sections_from_analysis_chi_and_res(tmp_path: Path, demo_runs: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.chi import build_report, demo_manifest, demo_observations
    from sitbench.res import CONDITIONS, load_scenarios

    run = small_run(tmp_path / "r1")
    chi_path = tmp_path / "chi.json"
    chi_path.write_text(build_report(demo_manifest(0), demo_observations(0)).model_dump_json(), encoding="utf-8")
    results = tmp_path / "results.jsonl"
    lines = []
    for s in load_scenarios():
        for condition in CONDITIONS:
            token = s.ideal(condition)
            lines.append(json.dumps({"model": "m/ideal", "scenario_id": s.scenario_id, "condition": condition,
                                     "response": token, "parsed_action": token, "status": "ok"}))
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # A real analysis (the demo's), with chosen values written into E1, E3, the family and a secondary.
    analysis = _demo_analysis(demo_runs, capsys)
    by_id = {e["id"]: e for e in analysis["experiments"]}
    assert by_id["E1"]["first_config"] == "C" and by_id["E1"]["second_config"] == "D"
    by_id["E1"].update(n_pairs=19, mean=0.25, ci_lower=0.1, ci_upper=0.4, p=0.0625, p_holm=0.5,
                       decision="not_rejected", status="computed", reason=None,
                       attempted={"C": 20, "D": 20}, completed={"C": 19, "D": 20})
    by_id["E3"].update(status="incomplete", reason="pair P3 lacks stratum post", n_pairs=0, mean=None)
    analysis["family"]["note"] = "Holm over exactly E1-E8; six are missing"
    analysis["secondary"] = [dict(analysis["secondary"][0], mean=-0.125)]
    analysis["notes"] = ["intervals are percentile bootstrap"]
    html = write_report([run], tmp_path / "report.html", analysis=analysis, chi_report=chi_path,
                        res_summary=results).read_text(encoding="utf-8")
    e1 = re.search(r"<tr data-experiment='E1'>(.*?)</tr>", html).group(1)
    assert re.findall(r"<td[^>]*>(.*?)</td>", e1)[2:] == [
        "D − C", "LAA", "19", "0.25", "[0.1, 0.4]", "0.0625", "0.5", "<b>not_rejected</b>", "C 19/20 · D 20/20", "computed"
    ]
    assert "Temporal checkpoint situatedness" in html  # E3's title
    assert "incomplete — pair P3 lacks stratum post" in html and "Holm over exactly E1-E8; six are missing" in html
    assert "<td data-metric='mean'>-0.125</td>" in html and "intervals are percentile bootstrap" in html
    assert "SYNTHETIC DEMONSTRATION" in html and "Memory Capacity Curve" in html and "CHIS series" in html
    # Every RES cell answered with its ideal: 18 strict triplets, accuracy 100 in all four conditions.
    assert "<td>18/18</td>" in html and "SPECIFICITY_DETECTED" in html
    assert html.count("<td title='18/18; invalid 0, error 0, missing 0'>100.0</td>") == 4
    assert "<th>valid answers</th>" in html and "<td>72/72</td>" in html and "<th>triplets observed</th>" in html
    assert "strict triplets 18 ≥ 15 and peer–fiction agreement 18 ≥ 16" in html


def test_missing_manifest_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = small_run(tmp_path / "r1")
    (run / "manifest.json").unlink()
    with pytest.raises(InputError, match=r"manifest\.json: file not found"):
        write_report([run], tmp_path / "report.html")
    assert main(["report", str(run), "--out", str(tmp_path / "report.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "manifest.json" in err


def test_cli_writes_report_and_prints_its_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = small_run(tmp_path / "r1")
    out = tmp_path / "o" / "r.html"
    assert main(["report", str(run), "--out", str(out), "--max-failed", "1"]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert out.read_text(encoding="utf-8").count("<details class='trial'") == 1


def test_demo_report_macro_sit_and_drilldown_rows(
    demo_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["run-collapse", "run-oracle", "run-oracle-perfect"]
    html = write_report([demo_runs / n for n in names], tmp_path / "report.html").read_text(encoding="utf-8")
    macro = {(run, config): value for run, config, value in MACRO.findall(html)}
    assert len(macro) == 27
    capsys.readouterr()
    assert main(["metrics", *(str(demo_runs / n) for n in names), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["runs"]
    for (run, config), shown in macro.items():
        value = printed[run]["configs"][config]["macro_sit"]
        assert shown == ("—" if value is None else f"{100 * value:.1f}")
        # Eq. 42 on the page itself: Macro SIT is the plain mean of the eight category cells.
        cells = [_cell(html, run, config, metric) for metric in
                 ("A_pos", "A_neg", "A_epi", "A_temp", "A_rel", "A_belief", "A_cf", "A_session")]
        if "—" not in cells:
            assert abs(float(shown) - sum(map(float, cells)) / 8) <= 0.1 + 1e-9  # each shown value is rounded to 0.05
    failed = sum(
        1 for n in names for r in raw_scores(demo_runs / n) if r["status"] == "completed" and not r["verdict"]["valid"]
    )
    assert failed > 0
    assert html.count("<details class='trial'") == failed


def test_real_analyze_output_renders(demo_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = demo_runs / "run-oracle"
    capsys.readouterr()
    assert main(["analyze", str(run), "--json"]) == 0
    analysis = json.loads(capsys.readouterr().out)
    html = write_report([run], tmp_path / "report.html", analysis=analysis).read_text(encoding="utf-8")
    for entry in analysis["experiments"]:
        row = re.search(rf"<tr data-experiment='{entry['id']}'>(.*?)</tr>", html).group(1)
        mean = re.search(r"<td data-metric='mean'>([^<]*)</td>", row).group(1)
        assert mean == ("—" if entry["mean"] is None else f"{entry['mean']:.4g}")
        assert f"<b>{entry['decision']}</b>" in row
    assert html.count("<tr data-experiment=") == len(analysis["experiments"]) + len(analysis["secondary"])


def test_an_analysis_of_the_wrong_shape_is_bad_input_naming_the_field(tmp_path: Path, demo_runs: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    analysis = _demo_analysis(demo_runs, capsys)
    del analysis["experiments"][0]["p_holm"]
    path = tmp_path / "analysis.json"
    path.write_text(json.dumps(analysis), encoding="utf-8")
    out = tmp_path / "report.html"
    assert main(["report", str(demo_runs / "run-oracle"), "--analysis", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "experiments[0].p_holm: Field required" in err
    assert not out.exists()
    with pytest.raises(InputError, match="sitbench analyze"):
        write_report([demo_runs / "run-oracle"], out, analysis={"experiments": []})
