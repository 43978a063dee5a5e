"""``sitbench generate`` (write a dataset) and ``sitbench seeds`` (seed commitments)."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import click

from sitbench._options import SEED
from sitbench.errors import InputError

SUITES = ("pilot", "dev", "heldout", "full", "e6")


@click.command()
@click.option("--suite", type=click.Choice(SUITES), default="pilot", show_default=True,
              help="Which dataset to build. 'pilot' is the hand-authored reference pilot (2 collision pairs, "
                   "22 probes); 'dev' 5 generated pairs (2,000 probes); 'heldout' 20 pairs (8,000 probes); "
                   "'full' both (25 pairs, 10,000 probes); 'e6' 5 pairs at T = 50/100/250/500 events with one "
                   "fixed query set.")
@click.option("--seed", type=SEED, default=None,
              help="Generator seed for generated suites (default 0). The pilot takes no seed.")
@click.option("--commitment", default=None,
              help="SHA-256 commitment published for the seed (`sitbench seeds commit SEED`); a seed that "
                   "does not match it is refused.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Dataset directory to write (created; the store files of an earlier dataset there are replaced, "
                   "and a file sitbench did not write makes it refuse).")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
def generate(suite: str, seed: int | None, commitment: str | None, out_dir: Path, as_json: bool) -> None:
    """Build a dataset and write its three stores plus manifest.json.

    \b
    Layout:
      visible/   candidate-visible evidence (subjects/*.json, queries.jsonl)
      hidden/    lineages, the proposition registry and probe contracts
      pairs/     pair-construction metadata (profile-collision certificates)
      manifest.json  suite, seed, generator version, counts, SHA-256 of every file
      DATASHEET.md   generated suites: counts per category and checkpoint, vocabulary,
                     seeds, rejections, substrate-calibration facts, hashes

    The same suite and seed always give byte-identical files.

    \b
    Examples:
      sitbench generate --suite pilot --out data/pilot
      sitbench generate --suite dev --seed 1 --out data/dev
    """
    from sitbench.data import pilot_content, seed_commitment, write_dataset
    from sitbench.stores import dumps

    if suite == "pilot":
        if seed is not None or commitment is not None:
            raise InputError("--seed/--commitment: the pilot is hand-authored and takes no seed; "
                             "use --suite dev, heldout, full or e6")
        content = pilot_content()
    else:
        seed = 0 if seed is None else seed
        if commitment is not None and seed_commitment(seed) != commitment.strip().lower():
            raise InputError(f"--commitment {commitment!r}: does not match --seed (its commitment is "
                             f"{seed_commitment(seed)}); check that you were given the committed seed")
        content = _generate_with_progress(suite, seed)
        click.echo(f"generate {suite}: writing {out_dir} (stores, manifest and datasheet)", err=True)
    manifest = write_dataset(content, out_dir)
    if as_json:
        click.echo(dumps(manifest, indent=2))
    else:
        c = manifest.counts
        click.echo(f"wrote {suite} to {out_dir}: {c['pairs']} pairs, {c['lineages']} lineages, "
                   f"{c['probes']} probes ({c['theorem_qualified']} theorem-qualified), "
                   f"{c['propositions']} propositions" + (f", seed {seed}" if suite != "pilot" else ""))


def _generate_with_progress(suite: str, seed: int) -> Any:
    """:func:`sitbench.data.generate_content` with a progress bar (or a line each interval) over the pairs."""
    from sitbench.data import generate_content
    from sitbench.runs import progress_display

    progress = progress_display(f"generate {suite} (seed {seed})", unit="pairs")
    with progress:
        task = progress.add_task("", total=None)

        def pair_done(done: int, total: int) -> None:
            if done == 0:
                progress.update(task, total=total)
            else:
                progress.advance(task)

        return generate_content(suite, seed, on_pair=pair_done)


@click.group()
def seeds() -> None:
    """Seed commitments: publish a hash of a held-out seed before revealing the seed.

    \b
    Examples:
      sitbench seeds new
      sitbench seeds commit 123456789
    """


@seeds.command("commit")
@click.argument("seed", type=click.IntRange(min=0))
def commit(seed: int) -> None:
    """Print the SHA-256 commitment of SEED (pass it to `sitbench generate --commitment`).

    \b
    Examples:
      sitbench seeds commit 123456789
    """
    from sitbench.data import seed_commitment

    click.echo(seed_commitment(seed))


@seeds.command("new")
def new() -> None:
    """Draw a fresh 128-bit seed from the operating system and print it with its commitment.

    Keep the seed private until release; publish the commitment now.

    \b
    Examples:
      sitbench seeds new
    """
    from sitbench.data import seed_commitment

    seed = secrets.randbits(128)
    click.echo(f"seed {seed}")
    click.echo(f"commitment {seed_commitment(seed)}")
