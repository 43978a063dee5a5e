"""The report leaves nothing to guess: every section names its run, no_decision says what the design's pairs can
decide, check reasons are spelled out with the propositions' glosses, agent runs read as agents."""

from __future__ import annotations

import html as html_lib
import json
import re
import shutil
from pathlib import Path

from _report_runs import raw_scores

from sitbench.report import write_report
from sitbench.stats import analyze_runs, pairs_needed, smallest_signflip_p

_INLINE = re.compile(r"</?(?:b|code|span|a)\b[^>]*>")


def _text(fragment: str) -> str:
    """Visible words of an HTML fragment: inline tags dropped, others a space, entities decoded, whitespace
    collapsed."""
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", _INLINE.sub("", fragment))).split())


def _sections(page: str) -> dict[str, str]:
    """Each ``<section id=…>``'s words, by id."""
    return {m.group(1): _text(m.group(2)) for m in re.finditer(r"<section id='([^']+)'>(.*?)</section>", page, re.S)}


def _report(runs: list[Path], out: Path, **kwargs: object) -> dict[str, str]:
    return _sections(write_report(runs, out, **kwargs).read_text(encoding="utf-8"))  # type: ignore[arg-type]


def test_every_section_of_one_runs_data_names_the_run(demo_runs: Path, tmp_path: Path) -> None:
    collapse, oracle = demo_runs / "run-collapse", demo_runs / "run-oracle"
    sections = _report([collapse, oracle], tmp_path / "report.html", analysis=analyze_runs([oracle]))
    for key in ("summary", "charts", "drilldown", "manifest"):
        assert "run-collapse" in sections[key] and "run-oracle" in sections[key], key
    contrasts = sections["contrasts"]
    # The analysis is of run-oracle alone: its section says so, and does not name the other run.
    assert contrasts.startswith("Confirmatory contrasts E1–E8 (Holm–Bonferroni): run-oracle This analysis")
    assert "read 1 run: run-oracle: model mock/oracle · configurations A, B, C, D, E, F, G, H, I" in contrasts
    assert "run-collapse" not in contrasts.split("Full analysis JSON")[0]
    assert "across 2 runs (run-collapse, run-oracle)" in sections["drilldown"]


def test_an_analysis_of_a_run_not_on_the_page_says_so(demo_runs: Path, tmp_path: Path) -> None:
    analysis = analyze_runs([demo_runs / "run-oracle"])
    contrasts = _report([demo_runs / "run-collapse"], tmp_path / "report.html", analysis=analysis)["contrasts"]
    assert f"{demo_runs / 'run-oracle'} (not on this page): model mock/oracle" in contrasts


def test_no_decision_says_what_the_pairs_can_decide(demo_runs: Path, tmp_path: Path) -> None:
    run = demo_runs / "run-oracle"
    analysis = analyze_runs([run])
    pairs = {e.id: e.n_pairs for e in analysis.experiments}
    assert max(pairs.values()) == 2 and {e.decision for e in analysis.experiments} == {"no_decision"}
    # 2/2^n: the exact test's floor, and Holm over eight contrasts needs nine pairs to get under 0.05.
    assert smallest_signflip_p(2) == 0.5 and pairs_needed(0.05, 8) == 9
    contrasts = _report([run], tmp_path / "report.html", analysis=analysis)["contrasts"]
    assert ("The contrasts have at most 2 pairs each, and with 2 pairs no contrast can be decided: the smallest "
            "possible p is 0.5; at least 9 pairs are needed for p < 0.05 after Holm over E1–E8.") in contrasts
    # Each row's decision says why: E3 has one pair, E5 was not computed.
    assert pairs["E3"] == 1 and "no_decision 1 pair: the smallest possible p is 1; at least 9 pairs" in contrasts
    assert "no_decision not computed (the status says why)" in contrasts
    assert "incomplete — no pair has eligible trials in every required lineage" in contrasts
    # The figure follows the analysis' alpha (the stats package computes it, nothing is fixed on the page).
    strict = analyze_runs([run], alpha=0.01)
    contrasts = _report([run], tmp_path / "strict.html", analysis=strict)["contrasts"]
    needed = pairs_needed(0.01, 8)
    assert needed == 11 and f"at least {needed} pairs are needed for p < 0.01 after Holm over E1–E8" in contrasts


def _failed_reasons(run: Path) -> list[str]:
    return [c["reason"] for r in raw_scores(run) if r["status"] == "completed" and not r["verdict"]["valid"]
            for c in r["verdict"]["checks"].values() if not c["passed"]]


def test_check_reasons_name_propositions_in_words(demo_runs: Path, tmp_path: Path) -> None:
    run = demo_runs / "run-collapse"
    assert "prohibited claims asserted: ['P-01+']" in _failed_reasons(run)
    drilldown = _report([run], tmp_path / "report.html")["drilldown"]
    assert "prohibited claims asserted: “affirms: lived in Kyoto” (P-01+)" in drilldown
    assert "required claims not asserted with an allowed provenance: “denies: lived in Kyoto” (P-01−)" in drilldown
    assert "missing required acts: REJECT (denies a false premise or a personal acquisition)" in drilldown
    assert "['" not in drilldown and "claim “affirms: lived in Kyoto” (P-01+)" in drilldown
    assert f"glosses of the registry of {demo_runs / 'pilot'}" in drilldown


def _moved(run: Path, to: Path, dataset: Path) -> Path:
    shutil.copytree(run, to)
    manifest = json.loads((to / "manifest.json").read_text(encoding="utf-8"))
    manifest["dataset"]["path"] = str(dataset)
    (to / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return to


def test_reasons_fall_back_to_ids_without_the_runs_dataset(demo_runs: Path, tmp_path: Path) -> None:
    gone = _moved(demo_runs / "run-collapse", tmp_path / "gone", tmp_path / "no-such-dataset")
    drilldown = _report([gone], tmp_path / "gone.html")["drilldown"]
    assert "prohibited claims asserted: P-01+" in drilldown and "affirms:" not in drilldown
    assert "is not reachable from here, so propositions are shown by id" in drilldown
    # A dataset edited since the run is not the run's: its glosses are not used either.
    edited = tmp_path / "edited-pilot"
    shutil.copytree(demo_runs / "pilot", edited)
    with (edited / "manifest.json").open("a", encoding="utf-8") as handle:
        handle.write("\n")
    changed = _moved(demo_runs / "run-collapse", tmp_path / "changed", edited)
    drilldown = _report([changed], tmp_path / "changed.html")["drilldown"]
    assert "prohibited claims asserted: P-01+" in drilldown and "is no longer the one changed was made with" in drilldown


def test_contested_checks_spell_out_both_readers_reasons(two_reader_report: Path) -> None:
    page = two_reader_report.read_text(encoding="utf-8")
    tables = [_text(t) for t in re.findall(r"<table class='differ'>.*?</table>", page, re.S)]
    assert tables and all("['" not in t for t in tables)
    assert any("failed — missing required acts: ANSWER (supplies the requested content)" in t for t in tables)


def test_an_agent_run_reads_as_an_agent(agent_report: Path, agent_run: Path) -> None:
    page = agent_report.read_text(encoding="utf-8")
    sections = _sections(page)
    everything = " ".join(sections.values())
    assert "Transport.PYTHON" not in everything and "StatePolicy." not in everything
    summary = sections["summary"]
    assert "handler native" not in summary and "temperature 0" not in summary
    assert ("agent keyword-baseline 1 (" in summary and "runs in process (a Python factory) · state policy "
            "reingest: a fresh agent ingests the evidence for every trial" in summary)
    assert "Rows are configurations" not in summary and "no configuration A–I applies" in summary
    assert "<td class='l' title='agent: the agent under test" in page and ">config. agent<" not in page
    assert "Validity: agent (rows) × probe category (columns)" in sections["charts"]
    assert "decoding (recorded; not used by an agent)" in sections["manifest"]
    # What to do next: compare the agent with a model's configurations, not E1–E8.
    assert f"sitbench compare {agent_run} runs/MODEL --html compare.html" in html_lib.unescape(page)


def test_the_agents_answer_time_is_labelled_its_own(agent_report: Path, agent_run: Path) -> None:
    sections = _sections(agent_report.read_text(encoding="utf-8"))
    agents = sections["agents"]
    assert agents.count("agent's own answer time (ms)") == 2 and "answer ms" not in agents
    assert "time its call waited behind other trials in flight is not counted" in agents
    failed = [r for r in raw_scores(agent_run) if r["status"] == "completed" and not r["verdict"]["valid"]]
    drilldown = sections["drilldown"]
    assert drilldown.count("agent's own answer time ") == len(failed) > 0 and "prompt tokens" not in drilldown


def test_the_readme_states_the_designs_limit_as_the_stats_package_computes_it() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    text = " ".join(readme.split())
    assert (f"no contrast can be decided (smallest p {smallest_signflip_p(2):g}; at least {pairs_needed(0.05, 8)} "
            "pairs are needed for p < 0.05 after Holm over E1–E8)") in text
    assert "drill-down of the failed trials — and, with two readers, the contested ones —" in text
