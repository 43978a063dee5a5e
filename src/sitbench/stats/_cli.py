"""``sitbench stats``: the confirmatory statistics from the command line."""

from __future__ import annotations

import json
import math

import click
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from sitbench.errors import InputError
from sitbench.stats._bootstrap import bootstrap_mean
from sitbench.stats._experiments import EXPERIMENTS
from sitbench.stats._holm import holm
from sitbench.stats._signflip import sign_flip_test


def _parse_floats(option: str, text: str) -> list[float]:
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(item == "" for item in items):
        raise InputError(f"{option} {text!r}: empty value in the list; pass comma-separated numbers like 0.1,-0.2")
    values: list[float] = []
    for item in items:
        try:
            value = float(item)
        except ValueError:
            raise InputError(
                f"{option} {text!r}: {item!r} is not a number; pass comma-separated numbers like 0.1,-0.2"
            ) from None
        if not math.isfinite(value):
            raise InputError(f"{option} {text!r}: {item!r} is not finite; pass finite numbers")
        values.append(value)
    return values


def _emit(result: BaseModel, as_json: bool, table: Table) -> None:
    if as_json:
        click.echo(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        Console().print(table)


def _fields_table(title: str, rows: list[tuple[str, object]]) -> Table:
    table = Table(title=title, show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    for name, value in rows:
        table.add_row(name, f"{value:.6g}" if isinstance(value, float) else str(value))
    return table


@click.group()
def stats() -> None:
    """Confirmatory statistics: sign-flip permutation test, Holm–Bonferroni, cluster bootstrap.

    \b
    Examples:
      sitbench stats signflip --diffs 0.2,0.1,-0.05,0.3 --json
      sitbench stats holm --p 0.01,0.04,0.03,0.2 --alpha 0.05
      sitbench stats bootstrap --diffs 0.2,0.1,-0.05,0.3 --seed 7
      sitbench stats experiments
    """


@stats.command("signflip")
@click.option("--diffs", required=True, help="Comma-separated pair-level differences (second minus first).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the Monte-Carlo draws (n > --max-exact).")
@click.option("--draws", type=int, default=100_000, show_default=True, help="Monte-Carlo draws when n > --max-exact.")
@click.option("--max-exact", type=int, default=24, show_default=True, help="Largest n enumerated exactly (≤ 40).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def signflip(diffs: str, seed: int, draws: int, max_exact: int, as_json: bool) -> None:
    """Two-sided sign-flip permutation test of |mean d|; exact for n ≤ --max-exact."""
    values = _parse_floats("--diffs", diffs)
    if draws < 1:
        raise InputError(f"--draws {draws}: must be at least 1")
    if not 0 <= max_exact <= 40:
        raise InputError(f"--max-exact {max_exact}: must lie in 0..40")
    result = sign_flip_test(values, max_exact=max_exact, n_draws=draws, seed=seed)
    rows: list[tuple[str, object]] = [
        ("method", result.method),
        ("n", result.n),
        ("zero differences", result.n_zero),
        ("mean d", result.mean),
        ("|mean d|", result.statistic),
        ("assignments" if result.method == "exact" else "draws", result.n_assignments),
        ("at least as extreme", result.n_extreme),
        ("p", result.p),
    ]
    if result.seed is not None:
        rows.append(("seed", result.seed))
    _emit(result, as_json, _fields_table("sign-flip permutation test", rows))


@stats.command("holm")
@click.option("--p", "pvalues", required=True, help="Comma-separated raw p-values, each in [0, 1].")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Family-wise error rate.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def holm_command(pvalues: str, alpha: float, as_json: bool) -> None:
    """Holm–Bonferroni step-down adjustment (input order kept)."""
    values = _parse_floats("--p", pvalues)
    for value in values:
        if not 0.0 <= value <= 1.0:
            raise InputError(f"--p {pvalues!r}: {value!r} is outside [0, 1]; p-values must lie in [0, 1]")
    if not 0.0 < alpha < 1.0:
        raise InputError(f"--alpha {alpha!r}: must lie strictly between 0 and 1, e.g. 0.05")
    result = holm(values, alpha=alpha)
    table = Table(title=f"Holm–Bonferroni at alpha = {alpha:g}")
    for column in ("#", "p", "adjusted", "reject"):
        table.add_column(column, justify="right")
    for index, (raw, adjusted, reject) in enumerate(zip(values, result.adjusted, result.reject, strict=True)):
        table.add_row(str(index + 1), f"{raw:.6g}", f"{adjusted:.6g}", "yes" if reject else "no")
    _emit(result, as_json, table)


@stats.command("bootstrap")
@click.option("--diffs", required=True, help="Comma-separated per-pair values (e.g. paired differences).")
@click.option("--seed", type=int, required=True, help="Seed of the resampling (recorded in the output).")
@click.option("--resamples", type=int, default=1000, show_default=True, help="Number of bootstrap resamples.")
@click.option("--ci", type=float, default=0.95, show_default=True, help="Coverage of the percentile interval.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def bootstrap(diffs: str, seed: int, resamples: int, ci: float, as_json: bool) -> None:
    """Percentile cluster bootstrap of the mean over pairs (one value per pair)."""
    values = _parse_floats("--diffs", diffs)
    if resamples < 2:
        raise InputError(f"--resamples {resamples}: must be at least 2, e.g. 1000")
    if not 0.0 < ci < 1.0:
        raise InputError(f"--ci {ci!r}: must lie strictly between 0 and 1, e.g. 0.95")
    if seed < 0:
        raise InputError(f"--seed {seed}: must be a non-negative integer")
    result = bootstrap_mean(values, n_resamples=resamples, seed=seed, ci=ci)
    rows: list[tuple[str, object]] = [
        ("pairs", result.n_clusters),
        ("mean", result.estimate),
        (f"{result.ci:.0%} interval", f"[{result.lower:.6g}, {result.upper:.6g}]"),
        ("bootstrap se", result.se),
        ("resamples", result.n_resamples),
        ("seed", result.seed),
        ("degenerate", "YES: " + (result.note or "") if result.degenerate else "no"),
    ]
    _emit(result, as_json, _fields_table("cluster bootstrap (percentile)", rows))


@stats.command("experiments")
@click.option("--json", "as_json", is_flag=True, help="Print the registry as JSON.")
def experiments(as_json: bool) -> None:
    """List the eight prespecified confirmatory contrasts E1–E8."""
    if as_json:
        click.echo(json.dumps([e.model_dump(mode="json") for e in EXPERIMENTS], indent=2))
        return
    table = Table(title="confirmatory family (Holm–Bonferroni at 0.05 over these eight)")
    for column in ("id", "contrast", "endpoint", "probes", "strata", "favours hypothesis"):
        table.add_column(column)
    for e in EXPERIMENTS:
        table.add_row(
            e.id,
            f"{e.first_config} vs {e.second_config}",
            e.endpoint,
            e.probe_filter,
            ", ".join(e.strata) if e.strata else "-",
            "d < 0" if e.direction == "negative" else "d > 0",
        )
    Console().print(table)
