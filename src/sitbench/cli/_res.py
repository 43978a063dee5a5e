"""``sitbench res``: run and score the RES actor-indexed battery."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click

from sitbench._options import MAX_CONNECTIONS, MAX_TOKENS, SEED, Bounded
from sitbench.cli._model_options import candidate_options, model_access_options
from sitbench.errors import InputError
from sitbench.res import (
    CLAIM_CEILING,
    CONDITIONS,
    DEFAULT_MODELS,
    RESULTS_FILE,
    ResScore,
    build_messages,
    load_scenarios,
    run_battery,
    scenarios_sha256,
    score_file,
)


@click.group()
def res() -> None:
    """RES: does an identical episode change a model's choice only when the
    record belongs to the assistant deciding?

    18 scenarios x 4 conditions (self, peer, fiction, role), preregistered scoring.

    \b
    Examples:
      sitbench res run --model local/smollm2 --out runs/res1
      sitbench res score runs/res1/results.jsonl --json
      sitbench res show res-ls-01 --condition peer
    """


def _print_score(score: ResScore) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for model, s in score.models.items():
        table = Table(title=f"RES - {model}", show_header=True)
        table.add_column("measure")
        table.add_column("value", justify="right")
        for condition in CONDITIONS:
            c = s.accuracy_counts[condition]
            table.add_row(
                f"accuracy {condition}",
                f"{s.accuracy[condition]:.3f} ({c.correct}/{c.n}; invalid {c.invalid}, "
                f"error {c.error}, missing {c.missing})",
            )
        n = score.n_scenarios
        table.add_row("strict triplets", f"{s.strict_triplets}/{n}")
        table.add_row("owner-sensitive", f"{s.owner_sensitive}/{n}")
        table.add_row("peer-fiction agreement", f"{s.peer_fiction_agreement}/{n}")
        table.add_row("complete triplets", f"{s.complete_triplets}/{n}")
        for category, cs in s.by_category.items():
            table.add_row(f"strict {category}", f"{cs.strict}/{cs.n}")
        table.add_row("classification", s.classification)
        table.add_row("role matches", f"{s.role_matches}/{n}")
        table.add_row("role rival", s.role_rival)
        console.print(table)
    if not score.models:
        console.print("no result rows")
    for warning in score.warnings:
        console.print(f"warning: {warning}")
    console.print(f"Claim ceiling: {CLAIM_CEILING}")


@res.command("run")
@click.option(
    "--model",
    "models",
    multiple=True,
    metavar="SPEC",
    help="Candidate spec (repeatable). Default: the preregistered "
    + " and ".join(DEFAULT_MODELS)
    + ".",
)
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder for results.jsonl, summary.json and manifest.json.",
)
@click.option(
    "--scenarios",
    "scenarios_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Scenario JSONL (default: the 18 packaged scenarios).",
)
@click.option("--concurrency", default=4, show_default=True, type=Bounded(int, 1, MAX_CONNECTIONS),
              help="Maximum calls in flight; cells start in the seeded order.")
@click.option("--max-tokens", default=512, show_default=True, type=Bounded(int, 1, MAX_TOKENS),
              help="Maximum output tokens per call.")
@click.option("--temperature", default=0.0, show_default=True, type=Bounded(float, 0, 2),
              help="Sampling temperature, 0–2 (0 requests greedy decoding).")
@click.option("--top-p", default=1.0, show_default=True, type=Bounded(float, 0, 1, low_open=True),
              help="Nucleus sampling mass, in (0, 1].")
@click.option("--seed", default=0, show_default=True, type=SEED,
              help="Decoding seed for providers that take one (0 … 2**63 − 1); the execution order's seed is "
                   "fixed by the preregistration.")
@model_access_options("the cell is recorded as an error")
@click.option("--max-drop-rate", default=None, type=Bounded(float, 0, 1),
              help="Share of error cells (failed calls) above which the command exits with code 4 after "
                   "writing everything [default: no limit; the preregistration keeps errors as data].")
@click.option("--overwrite", is_flag=True, help="Replace an existing results.jsonl in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def run(
    models: tuple[str, ...],
    out_dir: Path,
    scenarios_path: Path | None,
    concurrency: int,
    max_tokens: int,
    temperature: float,
    top_p: float,
    seed: int,
    base_url: str | None,
    api_key_env: str | None,
    timeout_s: float | None,
    max_retries: int | None,
    cache: bool,
    cache_path: Path | None,
    epoch: int,
    max_drop_rate: float | None,
    overwrite: bool,
    as_json: bool,
) -> None:
    """Run every model x scenario x condition cell once (order shuffled with seed
    20260910), write DIR/results.jsonl as cells finish, then DIR/summary.json and
    DIR/manifest.json. Failed calls stay in the results with status "error".
    Candidates, the response cache (--cache) and the progress display are those
    of `sitbench run`.

    Exit codes: 0 done; 2 bad input; 4 more error cells than --max-drop-rate
    allows (when given).

    \b
    Examples:
      sitbench res run --model local/smollm2 --out runs/res1
      sitbench res run --model openai/gpt-4o-mini --cache --out runs/res2
    """
    from sitbench.candidates import CACHE_FILE, DecodingConfig, ResponseCache, default_cache_dir, get_candidate

    specs = list(models) or list(DEFAULT_MODELS)
    repeated = sorted({spec for spec in specs if specs.count(spec) > 1})
    if repeated:
        raise InputError(
            f"--model {repeated[0]!r} given twice; each model is observed once per cell, "
            "give it once"
        )
    results_path = out_dir / RESULTS_FILE
    if results_path.exists() and results_path.stat().st_size > 0 and not overwrite:
        raise InputError(
            f"{results_path}: already exists; choose a new --out or pass --overwrite"
        )
    scenarios = load_scenarios(scenarios_path)
    options = candidate_options(base_url, api_key_env, timeout_s, max_retries)
    candidates = {spec: get_candidate(spec, **options) for spec in specs}
    decoding = DecodingConfig(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed)
    response_cache = ResponseCache(cache_path or default_cache_dir() / CACHE_FILE) if cache else None
    try:
        score = asyncio.run(
            run_battery(
                specs,
                candidates,
                scenarios,
                out_dir,
                scenarios_source=str(scenarios_path) if scenarios_path else "sitbench.res/scenarios.jsonl",
                scenarios_sha256=scenarios_sha256(scenarios_path),
                decoding=decoding,
                concurrency=concurrency,
                response_cache=response_cache,
                epoch=epoch,
            )
        )
    finally:
        if response_cache is not None:
            response_cache.close()
    if as_json:
        click.echo(json.dumps(score.model_dump(mode="json"), indent=2))
    else:
        _print_score(score)
        click.echo(f"wrote {results_path}, {out_dir / 'summary.json'}, {out_dir / 'manifest.json'}")
    _report_errors(results_path, max_drop_rate)


#: Exit code when the share of error cells exceeds --max-drop-rate (as `sitbench run`'s dropped trials).
EXIT_TOO_MANY_ERRORS = 4


def _report_errors(results_path: Path, max_drop_rate: float | None) -> None:
    """Error cells by reason on stderr, as `sitbench run` lists dropped trials; exit 4 above the rate."""
    from collections import Counter

    from sitbench.res import read_results

    rows = [row for _, row in read_results(results_path)]
    errors = [row for row in rows if row.status == "error"]
    if not errors:
        return
    reasons = Counter((row.error or "unknown").split(":")[0] for row in errors)
    listed = ", ".join(f"{reason} ×{n}" for reason, n in reasons.most_common(5))
    click.echo(f"warning: {len(errors)} of {len(rows)} cells failed ({listed}); they stay in the results with "
               "status \"error\" and count as missing in the score.", err=True)
    if max_drop_rate is not None and len(errors) / len(rows) > max_drop_rate:
        click.echo(f"error: {len(errors) / len(rows):.1%} of cells failed, above --max-drop-rate "
                   f"{max_drop_rate:.1%} (exit code {EXIT_TOO_MANY_ERRORS})", err=True)
        raise click.exceptions.Exit(EXIT_TOO_MANY_ERRORS)


@res.command("score")
@click.argument("results", type=click.Path(path_type=Path))
@click.option(
    "--scenarios",
    "scenarios_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="JSONL with at least scenario_id, category, self_ideal, control_ideal per row "
    "(default: the packaged scenarios).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the score as JSON.")
def score(results: Path, scenarios_path: Path | None, as_json: bool) -> None:
    """Score RESULTS (a results.jsonl, or a run folder holding one) with the
    preregistered rules and classification.

    \b
    Examples:
      sitbench res score runs/res1/results.jsonl --json
    """
    if results.is_dir():
        results = results / RESULTS_FILE
    outcome = score_file(results, scenarios_path)
    if as_json:
        click.echo(json.dumps(outcome.model_dump(mode="json"), indent=2))
    else:
        _print_score(outcome)


@res.command("show")
@click.argument("scenario_id")
@click.option("--condition", type=click.Choice(CONDITIONS), default="self", show_default=True)
@click.option(
    "--scenarios",
    "scenarios_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Scenario JSONL (default: the packaged scenarios).",
)
def show(scenario_id: str, condition: str, scenarios_path: Path | None) -> None:
    """Print the exact messages sent for SCENARIO_ID under --condition.

    \b
    Examples:
      sitbench res show res-ls-01 --condition peer
    """
    scenarios = {s.scenario_id: s for s in load_scenarios(scenarios_path)}
    if scenario_id not in scenarios:
        known = ", ".join(sorted(scenarios))
        raise InputError(f"SCENARIO_ID {scenario_id!r}: not in the scenario set; use one of {known}")
    for message in build_messages(scenarios[scenario_id], condition):  # type: ignore[arg-type]
        click.echo(f"--- {message.role} ---")
        click.echo(message.content)
