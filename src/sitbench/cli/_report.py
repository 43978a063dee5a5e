"""``sitbench report``: the self-contained HTML report of scored runs."""

from __future__ import annotations

from pathlib import Path

import click

from sitbench._options import Bounded
from sitbench.errors import InputError
from sitbench.report import DEFAULT_MAX_FAILED, METRICS_JSON, TRIALS_CSV, load_analysis, write_report
from sitbench.stats import AnalysisReport
from sitbench.stores import read_json


def _read_analysis(path: Path) -> AnalysisReport:
    data = read_json(path, hint="write it with `sitbench analyze RUN… --json > FILE`")
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object (the output of `sitbench analyze RUN… --json`)")
    return load_analysis(data, str(path))


def _warn_mixed_datasets(runs: tuple[Path, ...]) -> None:
    """One stderr warning when the runs were made on different datasets, naming each (the page is still written)."""
    from sitbench.runs import RunStore

    datasets: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for run in runs:
        manifest = RunStore(run).manifest_or_none() if Path(run).is_dir() else None
        if manifest is None:
            continue
        key = str(manifest.dataset.get("manifest_sha256") or manifest.dataset.get("path"))
        names[key] = f"{manifest.dataset.get('suite') or 'dataset'} at {manifest.dataset.get('path')}"
        datasets.setdefault(key, []).append(str(run))
    if len(datasets) > 1:
        listed = "; ".join(f"{names[k]} ({', '.join(v)})" for k, v in datasets.items())
        click.echo(f"warning: the runs were made on {len(datasets)} different datasets: {listed}; their figures are "
                   "not comparable across datasets (report each dataset's runs on a page of their own)", err=True)


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out_html",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="HTML file to write; metrics.json and trials.csv are written beside it (an existing one is "
         "replaced only when an earlier report wrote it).",
)
@click.option(
    "--analysis",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="JSON of `sitbench analyze RUN… --json` (E1–E8 contrasts, CIs, Holm decisions).",
)
@click.option(
    "--chi",
    "chi_report",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="CHI/CHIS report.json (e.g. from `sitbench chi demo --out DIR`).",
)
@click.option(
    "--res",
    "res_summary",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="RES summary.json, or a results.jsonl to score, from `sitbench res run`.",
)
@click.option(
    "--audit",
    "audit_result",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Audit result of `sitbench audit verifier REFERENCE --out FILE` (agreement table, IPW estimates).",
)
@click.option(
    "--max-failed",
    type=Bounded(int, 0, 1_000_000),
    default=DEFAULT_MAX_FAILED,
    show_default=True,
    help="Most failed trials listed in the drill-down (the page says how many were left out).",
)
def report(
    runs: tuple[Path, ...],
    out_html: Path,
    analysis: Path | None,
    chi_report: Path | None,
    res_summary: Path | None,
    audit_result: Path | None,
    max_failed: int,
) -> None:
    """Write one self-contained HTML report of scored RUNS (no network needed to view it).

    Runs of different datasets are reported on one page with a warning on stderr naming each
    dataset: their figures are not comparable, but a side-by-side page can still be wanted.

    \b
    The page holds a "what to do next" box (the commands for these runs), the
    summary table (configurations x validities, Macro SIT, LAA, diagnostics,
    completed/attempted), a configuration x category heatmap, LAA against the
    0.5 bound, FMR/TL/UEL bars, the validities corrected by the verifier card,
    a searchable drill-down of every failed trial and, with two readers, every
    contested one (envelope, response, observation, failing checks in words;
    each figure's band and the contested shares), a glossary (what each
    configuration shows, each category tests, each metric counts, with the
    seed paper's references; docs/concepts.md defines every symbol) and each
    run's manifest. Beside it: metrics.json
    and trials.csv (one row per trial).

    \b
    Examples:
      sitbench report runs/r1 --out out/report.html
      sitbench analyze runs/r1 --json > analysis.json && sitbench report runs/r1 --analysis analysis.json --out out/report.html
      sitbench report runs/r1 runs/r2 --out out/report.html --chi chi/report.json
      sitbench report runs/r1 --audit audit/verifier.json --out out/report.html
    """
    _warn_mixed_datasets(runs)
    path = write_report(
        list(runs),
        out_html,
        analysis=_read_analysis(analysis) if analysis is not None else None,
        chi_report=chi_report,
        res_summary=res_summary,
        max_failed=max_failed,
        audit=audit_result,
    )
    click.echo(str(path))
    click.echo(f"exports: {path.parent / METRICS_JSON}, {path.parent / TRIALS_CSV}", err=True)
