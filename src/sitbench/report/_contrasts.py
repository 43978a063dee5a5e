"""The E1–E8 section in words: which runs it analyses, and what the design's pairs can decide.

With n pairs the exact two-sided sign-flip test cannot give a p below ``2/2^n`` (only the observed signs and
their mirror are as extreme), and Holm over the family multiplies the smallest p by the family's size; so a
design with fewer pairs than :func:`sitbench.stats.pairs_needed` gives decides nothing, whatever the answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sitbench.glossary import AGENT_ROW
from sitbench.render import esc
from sitbench.report._data import LoadedRun
from sitbench.stats import AnalysisReport, ContrastResult, RunSource, pairs_needed, smallest_signflip_p


def _same_path(recorded: str, run: LoadedRun) -> bool:
    try:
        return Path(recorded).resolve() == run.path.resolve()
    except OSError:
        return False


def page_run(source: RunSource, runs: Sequence[LoadedRun]) -> LoadedRun | None:
    """The run on this page an analysis' source is (same run id, else same directory); None when none is."""
    by_id = [run for run in runs if source.run_id and run.manifest.run_id == source.run_id]
    if len(by_id) == 1:
        return by_id[0]
    return next((run for run in by_id or runs if _same_path(source.path, run)), None)


def analysed_names(analysis: AnalysisReport, runs: Sequence[LoadedRun]) -> list[str]:
    """The names of the analysed runs as this page writes them (a run not on the page: its path)."""
    names = []
    for source in analysis.runs:
        run = page_run(source, runs)
        names.append(run.name if run is not None else source.path)
    return names


def _source_html(source: RunSource, runs: Sequence[LoadedRun]) -> str:
    run = page_run(source, runs)
    name = f"<b>{esc(run.name)}</b>" if run is not None else f"<b>{esc(source.path)}</b> (not on this page)"
    agent = run is not None and run.manifest.agent is not None
    who = f"{'agent' if agent else 'model'} {esc(source.model or '?')}"
    configs = ", ".join(source.configs) or "none"
    rows = "row" if source.configs == [AGENT_ROW] else "configurations"
    used = " (feeds E6 only)" if source.used_for == "E6" else ""
    run_id = f" · run id <code>{esc(source.run_id)}</code>" if source.run_id else ""
    return f"<li>{name}{used}: {who} · {rows} {esc(configs)} · {source.records:,} score records{run_id}</li>"


def analysed_runs_html(analysis: AnalysisReport, runs: Sequence[LoadedRun]) -> str:
    """Which run(s) the analysis read, each named as on this page, with what it contributed."""
    count = len(analysis.runs)
    items = "".join(_source_html(source, runs) for source in analysis.runs)
    return (f"<div class='analysed'><p class='note'>This analysis (<code>sitbench analyze</code>) read "
            f"{count} run{'s' if count != 1 else ''}:</p><ul class='note'>{items}</ul></div>")


def _family_words(analysis: AnalysisReport) -> str:
    members = analysis.family.members
    return f"{members[0]}–{members[-1]}" if len(members) > 1 else ", ".join(members) or "the family"


def _needed(analysis: AnalysisReport) -> int:
    return pairs_needed(analysis.alpha, max(1, len(analysis.family.members)))


def _pairs(n: int) -> str:
    return f"{n} pair{'s' if n != 1 else ''}"


def limit_clause(n_pairs: int, analysis: AnalysisReport) -> str:
    """``the smallest possible p is 0.5; at least 9 pairs are needed for p < 0.05 after Holm over E1–E8``."""
    needed = _needed(analysis)
    smallest = f"the smallest possible p is {smallest_signflip_p(n_pairs):.4g}; " if n_pairs >= 1 else ""
    return (f"{smallest}at least {needed} pairs are needed for p < {analysis.alpha:g} after Holm over "
            f"{_family_words(analysis)}")


def power_sentence(n_pairs: int, analysis: AnalysisReport) -> str:
    """What ``n_pairs`` pairs can decide under this analysis' alpha and Holm family, in one sentence."""
    if n_pairs < _needed(analysis):
        return f"with {_pairs(n_pairs)} no contrast can be decided: {limit_clause(n_pairs, analysis)}"
    return (f"with {_pairs(n_pairs)} a contrast can be decided: the smallest possible p is "
            f"{smallest_signflip_p(n_pairs):.4g}, and {_needed(analysis)} pairs are the fewest with which "
            f"p < {analysis.alpha:g} can survive Holm over {_family_words(analysis)}")


def _dataset_pairs(analysis: AnalysisReport, runs: Sequence[LoadedRun]) -> int | None:
    pairs = set()
    for source in analysis.runs:
        run = page_run(source, runs)
        counts = run.manifest.dataset.get("counts") if run is not None else None
        if isinstance(counts, dict) and isinstance(counts.get("pairs"), int):
            pairs.add(counts["pairs"])
    return pairs.pop() if len(pairs) == 1 else None


def _nothing_computed(analysis: AnalysisReport, runs: Sequence[LoadedRun]) -> str:
    configs = sorted({c for source in analysis.runs for c in source.configs})
    out = "No contrast of E1–E8 was computed (each row's status says why), so there is nothing to decide."
    if configs == [AGENT_ROW]:
        out += (" E1–E8 compare two configurations A–I of one model on the same probes; the runs analysed hold "
                "only an agent's row. To set an agent beside configurations of a model, use "
                "<code>sitbench compare AGENT_RUN MODEL_RUN</code>.")
    pairs = _dataset_pairs(analysis, runs)
    if pairs is not None:
        if pairs < _needed(analysis):
            out += (f" Even with every configuration, this dataset's {_pairs(pairs)} could decide no contrast: "
                    f"{esc(limit_clause(pairs, analysis))}.")
        else:
            out += f" With every configuration, this dataset's pairs would suffice: {esc(power_sentence(pairs, analysis))}."
    return out


def power_html(analysis: AnalysisReport, runs: Sequence[LoadedRun]) -> str:
    """Why the decisions are what they are: the most pairs any contrast has, and what that many can decide."""
    computed = [e.n_pairs for e in analysis.experiments if e.status == "computed"]
    if not computed:
        text = _nothing_computed(analysis, runs)
    else:
        n = max(computed)
        sentence = power_sentence(n, analysis)
        text = esc(f"The contrasts have at most {_pairs(n)} each, and {sentence}.")
    needed = _needed(analysis)
    return (f"<p class='note power' data-pairs-needed='{needed}'><b>What this design can decide.</b> {text} "
            "(The exact sign-flip test over n pairs cannot give a p below 2/2^n.)</p>")


def decision_words(entry: ContrastResult, analysis: AnalysisReport) -> str:
    """Why a primary contrast has no decision, in words: not computed, too few pairs, or an incomplete family."""
    if entry.status != "computed":
        return "not computed (the status says why)"
    if entry.n_pairs >= _needed(analysis):
        return entry.decision_note
    return f"{_pairs(entry.n_pairs)}: {limit_clause(entry.n_pairs, analysis)}; {entry.decision_note}"
