"""``sitbench generate``: write a dataset."""

from __future__ import annotations

from pathlib import Path

import click

SUITES = ("pilot",)


@click.command()
@click.option("--suite", type=click.Choice(SUITES), default="pilot", show_default=True,
              help="Which dataset to build. 'pilot' is the hand-authored reference pilot "
                   "(2 collision pairs, 4 lineages, 22 probes).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Dataset directory to write (created; its store files are replaced).")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
def generate(suite: str, out_dir: Path, as_json: bool) -> None:
    """Build a dataset and write its three stores plus manifest.json.

    \b
    Layout:
      visible/   candidate-visible evidence (subjects/*.json, queries.jsonl)
      hidden/    lineages, the proposition registry and probe contracts
      pairs/     pair-construction metadata (profile-collision certificates)
      manifest.json  suite, seed, generator version, counts, SHA-256 of every file

    The same suite and seed always give byte-identical files.
    """
    from sitbench.data import pilot_content, write_dataset
    from sitbench.stores._io import dumps

    content = pilot_content()
    manifest = write_dataset(content, out_dir)
    if as_json:
        click.echo(dumps(manifest, indent=2))
    else:
        c = manifest.counts
        click.echo(f"wrote {suite} to {out_dir}: {c['pairs']} pairs, {c['lineages']} lineages, "
                   f"{c['probes']} probes ({c['theorem_qualified']} theorem-qualified), "
                   f"{c['propositions']} propositions")
