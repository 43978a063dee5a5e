"""The report's explanations: the "what to do next" box and the glossary with the configurations table.

Every text comes from :mod:`sitbench.glossary`, the same entries the README's tables are
checked against, so the page and the README cannot drift apart.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from sitbench.glossary import CATEGORIES, CONCEPTS_DOC, CONFIGURATIONS, METRICS, REFERENCES, SEED
from sitbench.render import esc
from sitbench.report._data import LoadedRun, is_failed
from sitbench.report._readers import has_two_readers
from sitbench.stats import AnalysisReport


def _q(value: object) -> str:
    return shlex.quote(str(value))


def _dataset(run: LoadedRun) -> str:
    return str(run.manifest.dataset.get("path") or "DATASET")


def next_commands(
    runs: Sequence[LoadedRun], *, analysis: AnalysisReport | None, out_html: Path | None
) -> list[tuple[str, str]]:
    """What to type next, given what the runs hold: ``(why, command)`` pairs, most pressing first."""
    steps: list[tuple[str, str]] = []
    # One pass over each run's scores: its dropped trials, and how many configurations each probe failed in.
    failures: Counter[tuple[str, str]] = Counter()
    for run in runs:
        dropped, unscored = 0, 0
        for s in run.scores:
            if s.status == "dropped":
                dropped += 1
            elif s.status == "unscored":
                unscored += 1
            elif is_failed(s):
                failures[(run.name, s.probe_id)] += 1
        if dropped:
            m = run.manifest
            agent = getattr(m, "agent", None)
            if agent is not None:
                who = f"--agent {_q(agent.spec)}"
            else:
                configs = ",".join(m.configs) if m.configs else "all"
                who = f"--model {_q(run.model)} --config {configs} --handler {m.handler}"
            steps.append((
                (f"{run.name}: {dropped} trial{'s' if dropped != 1 else ''} dropped (not scored); re-attempt them "
                 "with the run's own options (add the --base-url, timeout and decoding options it used), "
                 "then score again"),
                (f"sitbench run {_q(_dataset(run))} {who} --out {_q(run.path)} --resume && "
                 f"sitbench score {_q(run.path)}"),
            ))
        if unscored:
            steps.append((
                (f"{run.name}: {unscored} trial{'s' if unscored != 1 else ''} unscored (the verifier could not read "
                 "them, or the run holds no whole record of them: the summary's note says why); they are left out "
                 "of every figure until scored: resume the run if it is unfinished, then score again with the "
                 "run's extractor"),
                f"sitbench score {_q(run.path)}",
            ))
    paths = " ".join(_q(run.path) for run in runs)
    report_out = _q(out_html) if out_html is not None else "report.html"
    if all(run.manifest.agent is not None for run in runs):
        steps.append((
            ("set the agent beside configurations of a model on the same dataset, probe by probe (E1–E8 compare "
             "configurations A–I of one model, not agents)"),
            (f"sitbench run {_q(_dataset(runs[0]))} --config G,H --model openai/MODEL --out runs/MODEL && "
             f"sitbench score runs/MODEL && sitbench compare {paths} runs/MODEL --html compare.html"),
        ))
    elif analysis is None:
        steps.append((
            "test the confirmatory contrasts E1–E8 (one model per analysis) and add them to this page",
            (f"sitbench analyze {_q(runs[0].path)} --json > analysis.json && "
             f"sitbench report {paths} --analysis analysis.json --out {report_out}"),
        ))
    if failures:
        (name, probe), count = failures.most_common(1)[0]
        run = next(r for r in runs if r.name == name)
        where = (f"in {name}" if run.manifest.agent is not None
                 else f"{count} configuration{'s' if count != 1 else ''} in {name}")
        steps.append((
            f"read the probe that failed most often ({probe}, {where}) as the evaluator sees it: records and "
            "contract in words",
            f"sitbench show {_q(_dataset(run))} {_q(probe)}",
        ))
    if not has_two_readers(runs[0]):
        steps.append((
            "check the rule-based reading of the answers with a second extractor (its measured error is in the "
            "README)",
            f"sitbench observe {_q(runs[0].path)} --extractor llm:openai/MODEL && sitbench agreement {_q(runs[0].path)}",
        ))
    steps.append((
        "run another model on the same dataset and compare it here",
        (f"sitbench run {_q(_dataset(runs[0]))} --config all --model openai/MODEL --out runs/MODEL && "
         f"sitbench score runs/MODEL && sitbench report {paths} runs/MODEL --out {report_out}"),
    ))
    return steps


def next_steps_box(
    runs: Sequence[LoadedRun], *, analysis: AnalysisReport | None, out_html: Path | None
) -> str:
    """The "what to do next" box at the top of the page."""
    items = "".join(
        f"<li>{esc(why)}:<br><code class='cmd'>{esc(command)}</code></li>"
        for why, command in next_commands(runs, analysis=analysis, out_html=out_html)
    )
    return (
        "<aside class='next' id='next'><h2>What to do next</h2><ol>" + items + "</ol>"
        "<p class='note'>Failed trials are listed <a href='#drilldown'>below</a> with the checks they failed and "
        "why, in words; "
        "the letters and figures are explained in the <a href='#glossary'>glossary</a>.</p></aside>"
    )


def glossary_section() -> str:
    """Configurations A–I, probe categories A–H, the metrics and the numbered references, one line each."""
    configs = "".join(
        f"<tr><td class='l'><b>config. {esc(c.letter)}</b></td><td class='l'>{esc(c.name)}</td>"
        f"<td class='l'>{esc(c.shows)}</td><td class='l'>{esc(c.post_tau)}</td><td class='l muted'>{esc(c.source)}</td></tr>"
        for c in CONFIGURATIONS
    )
    categories = "".join(
        f"<tr><td class='l'><b>cat. {esc(c.letter)}</b></td><td class='l'>{esc(c.name)}</td>"
        f"<td class='l'>{esc(c.tests)}</td><td class='l'><code>{esc(c.metric)}</code></td>"
        f"<td class='l muted'>{esc(c.source)}</td></tr>"
        for c in CATEGORIES
    )
    metrics = "".join(
        f"<tr data-term='{esc(m.key)}'><td class='l'><b>{esc(m.key)}</b></td><td class='l'>{esc(m.name)}</td>"
        f"<td class='l'>{esc(m.meaning)}</td><td class='l'>{esc(m.better)}</td>"
        f"<td class='l muted'>{esc(m.source)}</td></tr>"
        for m in METRICS
    )
    references = "".join(f"<li data-ref='{esc(key)}'>{esc(text)}</li>" for key, text in REFERENCES.items())
    return (
        "<p class='note'>Configuration letters (what the candidate is shown) and category letters (what a probe "
        "tests) are different: this page writes them <b>config. B</b> and <b>cat. C · epistemic provenance</b>. "
        f"“seed §…” points into {esc(SEED)}; τ is the date a query is asked at. Every symbol on this page is "
        f"defined in {esc(CONCEPTS_DOC)} of the sitbench source.</p>"
        "<h3>Configurations</h3><table class='glossary' id='glossary-configs'><thead><tr><th class='l'>config.</th>"
        "<th class='l'>name</th><th class='l'>the prompt holds (besides the query envelope)</th>"
        "<th class='l'>after-τ evidence</th><th class='l'>seed</th></tr></thead>"
        f"<tbody>{configs}</tbody></table>"
        "<h3>Probe categories</h3><table class='glossary' id='glossary-categories'><thead><tr><th class='l'>cat.</th>"
        "<th class='l'>name</th><th class='l'>a probe asks the agent to</th><th class='l'>column</th>"
        f"<th class='l'>seed</th></tr></thead><tbody>{categories}</tbody></table>"
        "<h3>Metrics</h3><table class='glossary' id='glossary-metrics'><thead><tr><th class='l'>metric</th>"
        "<th class='l'>name</th><th class='l'>what it counts</th><th class='l'>better</th><th class='l'>seed</th>"
        f"</tr></thead><tbody>{metrics}</tbody></table>"
        f"<h3>References</h3><ul class='note'>{references}</ul>"
    )
