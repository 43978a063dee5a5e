"""``sitbench stats``: the confirmatory statistics from the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import click
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from sitbench._options import (
    MAX_DRAWS,
    MAX_HISTORY,
    MAX_RESAMPLES,
    MAX_TOKENS,
    SEED,
    Bounded,
)
from sitbench.errors import InputError
from sitbench.render import output_console, print_table, say
from sitbench.stats import (
    DEFAULT_SEED,
    EXPERIMENTS,
    AnalysisReport,
    ContrastResult,
    analyze_runs,
    bootstrap_mean,
    holm,
    sign_flip_test,
)


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
      sitbench stats tokens data/e6 --lengths 50,100,250,500
    """


@stats.command("signflip")
@click.option("--diffs", required=True, help="Comma-separated pair-level differences (second minus first).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the Monte-Carlo draws (n > --max-exact).")
@click.option("--draws", type=Bounded(int, 1, MAX_DRAWS), default=100_000, show_default=True,
              help=f"Monte-Carlo draws when n > --max-exact (1 … {MAX_DRAWS:,}).")
@click.option("--max-exact", type=int, default=24, show_default=True, help="Largest n enumerated exactly (≤ 40).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def signflip(diffs: str, seed: int, draws: int, max_exact: int, as_json: bool) -> None:
    """Two-sided sign-flip permutation test of |mean d|; exact for n ≤ --max-exact.

    \b
    Examples:
      sitbench stats signflip --diffs 0.2,0.1,-0.05,0.3 --json
    """
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
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Family-wise error rate, strictly between 0 and 1.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def holm_command(pvalues: str, alpha: float, as_json: bool) -> None:
    """Holm–Bonferroni step-down adjustment (input order kept).

    \b
    Examples:
      sitbench stats holm --p 0.01,0.04,0.03,0.2 --alpha 0.05
    """
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
@click.option("--seed", type=SEED, required=True, help="Seed of the resampling (recorded in the output).")
@click.option("--resamples", type=Bounded(int, 2, MAX_RESAMPLES), default=1000, show_default=True,
              help=f"Number of bootstrap resamples (2 … {MAX_RESAMPLES:,}).")
@click.option("--ci", type=float, default=0.95, show_default=True, help="Coverage of the percentile interval, strictly between 0 and 1.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def bootstrap(diffs: str, seed: int, resamples: int, ci: float, as_json: bool) -> None:
    """Percentile cluster bootstrap of the mean over pairs (one value per pair).

    \b
    Examples:
      sitbench stats bootstrap --diffs 0.2,0.1,-0.05,0.3 --seed 7
    """
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
    """List the eight prespecified confirmatory contrasts E1–E8.

    \b
    Examples:
      sitbench stats experiments
      sitbench stats experiments --json
    """
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


def _number(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}g}"


def _contrast_table(title: str, rows: list[ContrastResult], *, primary: bool) -> Table:
    table = Table(title=title)
    banded = any(c.band is not None for c in rows)
    columns = ["id", "contrast", "endpoint", "pairs", "mean d", "interval", *(["band of mean d"] if banded else [])]
    columns += ["p", "Holm p", "decision"] if primary else ["status"]
    for column in columns:
        table.add_column(column, justify="right" if column in ("pairs", "mean d", "p", "Holm p") else "left")
    for c in rows:
        interval = "-" if c.ci_lower is None else f"[{_number(c.ci_lower)}, {_number(c.ci_upper)}]"
        if c.bootstrap is not None and c.bootstrap.degenerate:
            interval += " (degenerate)"
        cells = [c.id, f"{c.first_config} vs {c.second_config}", c.endpoint, str(c.n_pairs), _number(c.mean), interval]
        if banded:
            cells.append("-" if c.band is None else f"[{_number(c.band.mean[0])}, {_number(c.band.mean[1])}]")
        if primary:
            cells += [_number(c.p), _number(c.p_holm), c.decision.replace("_", " ") if c.status == "computed"
                      else "incomplete"]
        else:
            cells.append(c.status)
        table.add_row(*cells)
    return table


def _print_report(report: AnalysisReport) -> None:
    console = output_console()
    print_table(console, _contrast_table(
        f"confirmatory family E1-E8 (two-sided sign-flip; {report.ci:.0%} cluster bootstrap, "
        f"{report.n_resamples} resamples, seed {report.seed})", report.experiments, primary=True))
    console.print(report.family.note)
    if any(c.band is not None for c in report.experiments):
        console.print("band of mean d: two readers scored these runs; the mean difference with every contested "
                      "verdict counted as a failure and as a pass, on each side (its inputs' bands are in --json)")
    for c in report.experiments:
        if c.reason:
            console.print(f"{c.id} incomplete: {c.reason}")
        if c.incomplete_pairs:
            console.print(f"{c.id} pairs left out: " + "; ".join(f"{k} ({v})" for k, v in c.incomplete_pairs.items()))
    if report.secondary:
        print_table(console, _contrast_table("secondary comparisons (descriptive, not in the family)",
                                             report.secondary, primary=False))
        for c in report.secondary:
            if c.reason:
                console.print(f"{c.id} incomplete: {c.reason}")
    console.print(f"E6 tokens counted with: {report.e6_tokenizer}")
    for line in _incomplete_summary(report):
        console.print(line)


def _hint(contrast: ContrastResult) -> str:
    """What would make an incomplete contrast computable, in words."""
    reason = contrast.reason or ""
    if "G_budget" in reason:
        return ("E6 needs a token-scaling run: `sitbench generate --suite e6 ...`, run it with "
                "`--config D,G_budget`, score it, and pass it with --e6-run")
    if reason.startswith("no records of configuration"):
        return (f"run configurations {contrast.first_config} and {contrast.second_config} of the same model "
                "and pass those runs too")
    if contrast.incomplete_pairs:
        return "the dataset does not hold every required stratum for any pair (a larger suite does)"
    return "see the reason"


def _incomplete_summary(report: AnalysisReport) -> list[str]:
    """One line on what was computed, then one per incomplete primary contrast: why, and what would help."""
    done = [c.id for c in report.experiments if c.status == "computed"]
    lines = [(f"computed {len(done)} of {len(report.experiments)} contrasts ({', '.join(done) or 'none'}); "
              f"lineage rule {report.lineage_rule}")]
    single = {c.id: c.single_lineage_pairs for c in report.experiments if c.single_lineage_pairs}
    if single:
        lines.append("counted with one lineage (the runs hold only one member's probes of the subset): "
                     + "; ".join(f"{cid} {', '.join(pairs)}" for cid, pairs in single.items())
                     + " — pass --lineages both for the plan's rule")
    for c in report.experiments:
        if c.status != "computed":
            lines.append(f"{c.id} incomplete: {c.reason}; {_hint(c)}")
    return lines


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--e6-run", type=click.Path(path_type=Path), default=None,
              help="Scored token-scaling run (D and G_budget at T = 500) that feeds E6 only.")
@click.option("--seed", type=SEED, default=DEFAULT_SEED, show_default=True,
              help="Bootstrap seed (and Monte-Carlo seed above --max-exact pairs); recorded in the output.")
@click.option("--resamples", type=Bounded(int, 2, MAX_RESAMPLES), default=1000, show_default=True,
              help=f"Bootstrap resamples per contrast (2 … {MAX_RESAMPLES:,}).")
@click.option("--ci", type=float, default=0.95, show_default=True, help="Coverage of the percentile intervals, strictly between 0 and 1.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Family-wise error rate (Holm), strictly between 0 and 1.")
@click.option("--lineages", "lineage_rule", type=click.Choice(["auto", "both", "present"]), default="auto",
              show_default=True,
              help="auto: a pair counts with the lineages the runs hold probes of each subset for (the pilot gives "
              "some categories to one member only), and those pairs are listed; on a suite that gives every "
              "category to both members this is the plan's rule. both: the plan, a pair needs both lineages in "
              "a subset or is incomplete. present: the same as auto.")
@click.option("--max-exact", type=int, default=24, show_default=True, help="Largest number of pairs tested exactly (0 … 40).")
@click.option("--full-records", is_flag=True,
              help="Validate every field of every score record (slower); by default only the fields the "
              "analysis reads are parsed, with the same record checks.")
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
def analyze(runs: tuple[Path, ...], e6_run: Path | None, seed: int, resamples: int, ci: float, alpha: float,
            lineage_rule: str, max_exact: int, full_records: bool, as_json: bool) -> None:
    """Confirmatory analysis E1-E8 of scored RUNS (one model; each configuration from one run).

    Per experiment: per-pair differences (second minus first configuration), their
    mean, a percentile cluster-bootstrap interval, the exact sign-flip p, the
    Holm-adjusted p over exactly E1-E8 (only when all eight can be computed) and
    the decision, with attempted/completed counts. Secondary comparisons are
    reported descriptively under their own key.

    \b
    Examples:
      sitbench analyze runs/r1 --json
      sitbench analyze runs/r1 --e6-run runs/e6 --seed 7
    """
    if resamples < 2:
        raise InputError(f"--resamples {resamples}: must be at least 2, e.g. 1000")
    if not 0.0 < ci < 1.0:
        raise InputError(f"--ci {ci!r}: must lie strictly between 0 and 1, e.g. 0.95")
    if not 0.0 < alpha < 1.0:
        raise InputError(f"--alpha {alpha!r}: must lie strictly between 0 and 1, e.g. 0.05")
    if seed < 0:
        raise InputError(f"--seed {seed}: must be a non-negative integer")
    if not 0 <= max_exact <= 40:
        raise InputError(f"--max-exact {max_exact}: must lie in 0..40")
    if not as_json and _agent_runs_only(runs):
        return
    report = analyze_runs(list(runs), e6_run=e6_run, full_records=full_records, seed=seed, n_resamples=resamples,
                          ci=ci, alpha=alpha, lineage_rule=lineage_rule, max_exact=max_exact)
    if as_json:
        click.echo(json.dumps(report.model_dump(mode="json"), indent=2))
    else:
        _print_report(report)
        named = " ".join(str(run) for run in runs)
        say(f"next: sitbench report {named} --out report.html (the E1–E8 section, with what the design can "
                   "decide)")


def _agent_runs_only(runs: tuple[Path, ...]) -> bool:
    """Say so, and return True, when every run is an agent run: E1–E8 contrast configurations of one model."""
    from sitbench.runs import RunStore

    agents = [run for run in runs if (run / "manifest.json").is_file() and RunStore(run).manifest().agent is not None]
    if len(agents) != len(runs):
        return False
    named = " ".join(str(run) for run in runs)
    say(f"{named}: an agent run is one arm (trials agent:PROBE), and E1–E8 contrast configurations A–I of one "
               "model (C vs D, G vs H, …), so none of them applies to it. To see where an agent stands, compare it "
               "probe by probe with configurations of a model or with another agent: sitbench compare RUN_OF_G_H "
               f"{named} (sitbench compare --help); `--json` prints the analysis with every contrast incomplete.")
    return True


@stats.command("tokens")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--lengths", default="50,100,250,500", show_default=True,
              help="History lengths T (events), comma-separated; each at most the shortest history.")
@click.option("--budget", type=Bounded(int, 1, MAX_TOKENS), default=4096, show_default=True,
              help=f"Token budget B of configuration G_budget (1 … {MAX_TOKENS:,}).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def tokens(dataset: Path, lengths: str, budget: int, as_json: bool) -> None:
    """E6 token scaling: prompt tokens of D vs budgeted G on DATASET's histories cut to T events.

    Reads only the candidate-visible store. Every query's scored turn is built under D and
    G_budget on the first T records of its subject's chronicle and counted with the offline
    WordPiece tokenizer (named in the output). Timings are reported apart from the counts.

    \b
    Examples:
      sitbench stats tokens data/e6 --lengths 50,100,250,500
    """
    from sitbench.stats import e6_token_scaling
    from sitbench.stores import load_visible

    values = _parse_floats("--lengths", lengths)
    if any(v < 1 or v != int(v) or v > MAX_HISTORY for v in values):
        raise InputError(f"--lengths {lengths!r}: history lengths must be whole numbers of events in 1 … "
                         f"{MAX_HISTORY:,}, e.g. 50,100")
    if budget < 1:
        raise InputError(f"--budget {budget}: must be a positive number of tokens, e.g. 4096")
    if not dataset.is_dir():
        raise InputError(f"{dataset}: no such dataset directory; build one with `sitbench generate`")
    store = load_visible(dataset)
    result = e6_token_scaling(store.subjects, list(store.queries.values()), [int(v) for v in values], budget=budget)
    if as_json:
        click.echo(json.dumps(result.model_dump(mode="json"), indent=2))
        return
    table = Table(title=f"E6 prompt tokens, D vs G_budget (B = {result.budget}); {result.tokenizer}")
    for column in ("T", "queries", "mean D", "mean G_budget", "mean G (no budget)", "max G_budget",
                   "items dropped", "projection ms", "truncation ms"):
        table.add_column(column, justify="right")
    for row in result.lengths:
        table.add_row(str(row.history_length), str(row.n_queries), f"{row.mean_d:.1f}", f"{row.mean_g_budget:.1f}",
                      f"{row.mean_g:.1f}", str(row.max_g_budget), f"{row.mean_dropped:.1f}",
                      f"{row.timing.g_projection_ms:.2f}", f"{row.timing.g_truncation_ms:.2f}")
    Console().print(table)
