"""``sitbench metrics``: SIT metrics of one or more scored runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from sitbench.glossary import metrics_help
from sitbench.metrics import ConfigMetrics, incomplete_notes, render_corrected_table, render_table, run_metrics
from sitbench.verify import card_key, shipped_card


def _configs_json(metrics: dict[str, ConfigMetrics]) -> dict[str, Any]:
    readers = {card_key(row.reader) for row in metrics.values() if row.reader}
    cards = [card.model_dump(mode="json") for card in shipped_card().readers if card.reader in readers]
    return {"configs": {config: row.model_dump(mode="json") for config, row in metrics.items()},
            "verifier_cards": cards}


def _run_names(runs: tuple[Path, ...]) -> list[str]:
    names = [run.name or str(run) for run in runs]
    # Two runs may share a directory name (runs/a/r1, runs/b/r1): fall back to the path given.
    return [name if names.count(name) == 1 else str(run) for name, run in zip(names, runs, strict=True)]


def _run_metrics(run: Path) -> dict[str, ConfigMetrics]:
    return run_metrics(run)


@click.command(epilog=metrics_help())
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def metrics(runs: tuple[Path, ...], as_json: bool) -> None:
    """Category validities, Macro SIT, LAA/IC and FMR/TL/UEL of scored RUNS.

    \b
    Reads RUN/scores.jsonl (written by `sitbench score RUN`). Category validities
    and LAA/IC are pair-balanced; FMR, TL and UEL are plain shares over completed
    trials; dropped and unscored trials (an answer the verifier could not read, a
    torn record) count as attempted, never as failures; a note under the table
    says how many and why. With several
    runs the JSON is keyed by run directory name: {"runs": {NAME: {"configs": …}}}.

    \b
    Examples:
      sitbench metrics runs/oracle
      sitbench metrics runs/oracle runs/gpt --json
    """
    names = _run_names(runs)
    results = {name: _run_metrics(run) for name, run in zip(names, runs, strict=True)}
    if as_json:
        if len(runs) == 1:
            data: dict[str, Any] = _configs_json(results[names[0]])
        else:
            data = {"runs": {name: _configs_json(result) for name, result in results.items()}}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))
        return
    console = Console()
    if not console.is_terminal:
        # A pipe or file gets the whole table instead of 80 columns of ellipses.
        console = Console(width=200)
    for name, result in results.items():
        console.print(render_table(result, title=name))
        corrected = render_corrected_table(result, title=f"{name}: corrected validity")
        if corrected is not None:
            console.print(corrected)
        for config, note in incomplete_notes(result):
            click.echo(f"note: {name} config {config}: {note}")
