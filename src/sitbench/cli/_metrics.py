"""``sitbench metrics``: SIT metrics of one or more scored runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sitbench.glossary import metrics_help
from sitbench.metrics import (
    AGENT_ROW,
    FIGURE_RULE,
    AuditSummary,
    ConfigMetrics,
    audit_metrics,
    incomplete_notes,
    reading_notes,
    render_corrected_table,
    render_table,
    run_metrics,
)
from sitbench.render import output_console, print_table, say
from sitbench.verify import CorrectionStatus, card_key, shipped_card


def _configs_json(metrics: dict[str, ConfigMetrics], audit: AuditSummary | None = None) -> dict[str, Any]:
    readers = {card_key(row.reader) for row in metrics.values() if row.reader}
    cards = [card.model_dump(mode="json") for card in shipped_card().readers if card.reader in readers]
    data: dict[str, Any] = {"configs": {config: row.model_dump(mode="json") for config, row in metrics.items()},
                            "verifier_cards": cards}
    if audit is not None:
        data["audit"] = audit.model_dump(mode="json")
    return data


def _grouped(notes: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The same note of several configurations once, naming them all (``A, B, C``), in first-seen order."""
    configs: dict[str, list[str]] = {}
    for config, note in notes:
        configs.setdefault(note, []).append(config)
    return [(", ".join(names), note) for note, names in configs.items()]


def corrected_shown(row: ConfigMetrics) -> bool:
    """Whether the row's reader has a card, so that its corrected validities are printed."""
    return any(c.status is not CorrectionStatus.NO_CARD for c in row.corrected.values())


def _run_names(runs: tuple[Path, ...]) -> list[str]:
    names = [run.name or str(run) for run in runs]
    # Two runs may share a directory name (runs/a/r1, runs/b/r1): fall back to the path given.
    return [name if names.count(name) == 1 else str(run) for name, run in zip(names, runs, strict=True)]


Result = tuple[dict[str, ConfigMetrics], AuditSummary | None]


def _run_metrics(run: Path, audit: Path | None) -> Result:
    result = run_metrics(run)
    if audit is None:
        return result, None
    return audit_metrics(run, result, audit)


def _audit_line(name: str, audit: AuditSummary) -> str:
    who = "SYNTHETIC annotators (scripted, not human judgements)" if audit.synthetic else "human annotators"
    return (f"audit: {name}: {audit.reference} (sample {audit.sample_id}, {audit.phase}, {who}): {audit.audited} "
            f"audited trials of this run, {audit.disagreements} with a human verdict that differs from the "
            f"verifier's; intervals: {audit.resamples} stratified bootstrap resamples, seed {audit.seed}")


@click.command(epilog=metrics_help())
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--audit", "audit", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="REFERENCE",
              help="Correct each validity by a human audit of the run: the adjudicated reference written by "
                   "`sitbench audit agree ... --out REFERENCE`, of a sample drawn from every RUN.")
def metrics(runs: tuple[Path, ...], as_json: bool, audit: Path | None) -> None:
    """Category validities, Macro SIT, LAA/IC and FMR/TL/UEL of scored RUNS.

    \b
    Reads RUN/scores.jsonl (written by `sitbench score RUN`). Category validities
    and LAA/IC are pair-balanced; FMR, TL and UEL are plain shares over completed
    trials; dropped and unscored trials (an answer the verifier could not read, a
    torn record) count as attempted, never as failures; a note under the table
    says how many and why. With several
    runs the JSON is keyed by run directory name: {"runs": {NAME: {"configs": …}}}.

    \b
    With --audit REFERENCE (a human audit: `sitbench audit sample RUN …`,
    annotation, `sitbench audit agree … --out REFERENCE`), each category
    validity and Macro SIT is corrected by it: the observed validity plus the
    inverse-probability-weighted mean of (human verdict − verifier verdict)
    over the audited trials of that configuration and category (each also
    weighted by its share of the pair-balanced mean), bounded to [0, 1], with
    a 95% stratified bootstrap interval (1000 resamples of the audited
    responses within the audit's strata, seed 0, recorded). The table shows
    it in an "audited" row in place of the two-reader band; the JSON adds
    configs.X.audited and "audit". n/a: the audit holds no trial of that
    configuration and category. A sample that was not drawn from RUN, or
    drawn before RUN was scored again, is refused.

    \b
    Examples:
      sitbench metrics runs/oracle
      sitbench metrics runs/oracle runs/gpt --json
      sitbench metrics runs/gpt --audit audit/reference.json
    """
    names = _run_names(runs)
    results = {name: _run_metrics(run, audit) for name, run in zip(names, runs, strict=True)}
    if as_json:
        if len(runs) == 1:
            data: dict[str, Any] = _configs_json(*results[names[0]])
        else:
            data = {"runs": {name: _configs_json(*result) for name, result in results.items()}}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))
        return
    console = output_console()
    for name, (result, summary) in results.items():
        print_table(console, render_table(result, title=name))
        if summary is not None:
            say(_audit_line(name, summary))
        corrected = render_corrected_table(result, title=f"{name}: corrected validity")
        if corrected is not None:
            print_table(console, corrected)
        for configs, note in _grouped([*incomplete_notes(result), *reading_notes(result)]):
            say(f"note: {name} config {configs}: {note}")
    if any(row.band is not None or row.audited is not None or corrected_shown(row)
           for result, _ in results.values() for row in result.values()):
        say(f"which figure to quote: {FIGURE_RULE}")
    named = " ".join(str(run) for run in runs)
    agents_only = all(set(result) <= {AGENT_ROW} for result, _ in results.values())
    then = (f"sitbench compare RUN_OF_A_MODEL {named} (your agent against configurations, probe by probe)"
            if agents_only else f"sitbench analyze {named} (E1–E8)")
    say(f"next: sitbench report {named} --out report.html (charts, the failed trials with reasons), {then}")
