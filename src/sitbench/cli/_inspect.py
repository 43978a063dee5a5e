"""``sitbench import-inspect``: an Inspect log of ``sitbench/sit`` as a sitbench run.

Kept outside :mod:`sitbench.integrations.inspect_ai` so that listing sitbench's commands never imports
Inspect: the command imports it when it runs, and says how to install it when it is missing.
"""

from __future__ import annotations

from pathlib import Path

import click

from sitbench._options import Bounded
from sitbench.errors import InputError


@click.command("import-inspect")
@click.argument("log", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dataset", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The dataset the eval ran on (the same bytes: its manifest hash is checked).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="New run directory to write (manifest.json, responses.jsonl).")
@click.option("--epoch", default=1, show_default=True, type=Bounded(int, 1, 1_000_000),
              help="Which epoch to import when the eval ran several (a run holds one).")
def import_inspect(log: Path, dataset: Path, out: Path, epoch: int) -> None:
    """Turn LOG, an Inspect log of the sitbench/sit task, into a sitbench run in OUT.

    Each sample's trial record (every call of its schedule: messages, response and request metadata,
    what crossed each reset) becomes a line of OUT/responses.jsonl; a sample Inspect could not finish
    is a dropped trial. OUT/manifest.json names the Inspect model, provider, decoding, dataset hash and
    the log. Score it with `sitbench score OUT`; rescore, analyze and report work as on any run.

    \b
    Examples:
      inspect eval sitbench/sit -T dataset=data/pilot -T config=D --model sitbench/mock/oracle
      sitbench import-inspect logs/2025-…_sit_….eval --dataset data/pilot --out runs/inspect-d
      sitbench score runs/inspect-d && sitbench metrics runs/inspect-d
    """
    try:
        from sitbench.integrations.inspect_ai import import_inspect_log
    except ImportError as exc:
        raise InputError(f'import-inspect needs Inspect ({exc}): pip install "sitbench[inspect]"') from None
    report = import_inspect_log(log, dataset, out, epoch)
    dropped = f", {report.dropped} dropped" if report.dropped else ""
    others = f"; {report.other_epochs} samples of other epochs left out" if report.other_epochs else ""
    click.echo(f"{out}: imported {report.trials} trials ({report.completed} completed{dropped}) from {log}{others}; "
               f"next: sitbench score {out}")
