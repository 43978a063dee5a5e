"""``sitbench validate``: the integrity checks inv1–inv19."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command()
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print {checks: [...], counts: {...}} as JSON.")
@click.pass_context
def validate(ctx: click.Context, dataset: Path, as_json: bool) -> None:
    """Run the integrity checks on DATASET: inv1–inv14 (seed Appendix B.4) and the
    realism checks inv15–inv19.

    \b
    inv1  schema validity and cross-store integrity (links, manifest hashes)
    inv2  chronological order            inv8  private-history divergence
    inv3  acquisition-source consistency inv9  contract satisfiability
    inv4  valid proposition references   inv10 theorem-qualified disjointness
    inv5  explicit belief transitions    inv11 lineage payload isolation
    inv6  reconstructible checkpoints    inv12 contract field isolation
    inv7  exact profile collision        inv13 taxonomy coverage
                                         inv14 persistence provenance
    inv15 distinct event texts (≥ 95 % in every lineage of ≥ 50 events)
    inv16 sessions in date order (session events and multi-turn schedules)
    inv17 the question's tense agrees with the residence record at its date
    inv18 a required disclosure is asked by someone the record says was told
    inv19 a/an agree with the sound of the next word (events, utterances)

    Exit codes: 0 all checks passed, 1 a check failed, 2 the dataset could not be
    read (the error names the file, line and field).

    \b
    Examples:
      sitbench validate data/pilot
      sitbench validate data/pilot --json
    """
    from rich.console import Console
    from rich.table import Table

    from sitbench.lineage import dataset_counts, run_checks
    from sitbench.stores import load_dataset

    ds = load_dataset(dataset)
    rows = run_checks(ds)
    counts = dataset_counts(ds)
    if as_json:
        payload = {"checks": [r.model_dump(exclude={"problems"}) | {"problems": r.problems} for r in rows],
                   "counts": counts}
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        table = Table(title=f"sitbench validate {dataset}")
        table.add_column("check")
        table.add_column("name")
        table.add_column("result")
        table.add_column("details", overflow="fold")
        for r in rows:
            table.add_row(r.id, r.name, "[green]pass[/]" if r.passed else "[red]FAIL[/]", r.details)
        console = Console(width=max(120, Console().width))
        console.print(table)
        console.print(", ".join(f"{k}: {v}" for k, v in counts.items()))
    if not all(r.passed for r in rows):
        ctx.exit(1)
