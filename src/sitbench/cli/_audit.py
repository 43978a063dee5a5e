"""``sitbench audit``: sample, sheet, import, agree, verifier."""

from __future__ import annotations

import json
from pathlib import Path

import click

from sitbench._options import MAX_RESAMPLES, SEED, Bounded
from sitbench.errors import InputError


def _synthetic(flag: bool) -> str:
    return "SYNTHETIC " if flag else ""


@click.group()
def audit() -> None:
    """Human audit of the verifier (seed §8.3): sample scored responses, annotate them in a
    browser, measure agreement, adjudicate, and measure an extractor against the reference.

    \b
    Examples (the whole flow):
      sitbench audit sample runs/a runs/b --n 500 --seed 7 --phase dev --out audit/sample.json
      sitbench audit sheet audit/sample.json --out audit/sheets      # open audit/sheets/annotator-1.html
      sitbench audit import ann1.jsonl ann2.jsonl ann3.jsonl --sample audit/sample.json --out audit/annotations
      sitbench audit agree audit/annotations/*.jsonl --sample audit/sample.json --adjudicator annotator-1 --out audit/reference.json
      sitbench audit verifier audit/reference.json --extractor rules --out audit/verifier.json
      sitbench report runs/a --audit audit/verifier.json --out report.html
    """


@audit.command("sample")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--n", "n", default=500, show_default=True, type=Bounded(int, 1, 1_000_000),
              help="Responses to draw (seed §8.3 plans 500 per phase).")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Seed of every random choice (recorded).")
@click.option("--phase", type=click.Choice(["dev", "heldout"]), required=True,
              help="dev: development calibration (pilot and development pairs only); heldout: post-freeze "
                   "reliability (held-out pairs only; its findings never modify the extractor).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Sample file (JSON).")
@click.option("--floor", default=1, show_default=True, type=Bounded(int, 0, 1000),
              help="Responses every stratum gets first, when every stratum can have them.")
@click.option("--weight", "weights", multiple=True, metavar="FACTOR=W",
              help="Oversampling weight of a factor (repeatable): compound (≥ 2 predicted acts, default 2), rare "
                   "(an act set below --rare-share, 2), unmapped (3), low (confidence, 3), medium (1.5), contested "
                   "(the stratum of responses two readers' verdicts differ on, 4).")
@click.option("--rare-share", default=0.05, show_default=True, type=Bounded(float, 0, 1),
              help="An act set whose share of the population is below this is rare.")
@click.option("--dataset", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Dataset directory, when it moved since the runs.")
def sample_command(runs: tuple[Path, ...], n: int, seed: int, phase: str, out: Path, floor: int,
                   weights: tuple[str, ...], rare_share: float, dataset: Path | None) -> None:
    """Draw a stratified audit sample of the scored responses of RUNS.

    Strata: probe category × configuration × predicted act set × the
    extractor's confidence level × predicted unmapped assertion, all from the
    reading in scores.jsonl (true acts are unknown before annotation; the
    rule extractor's reading when a two-reader run has one). In a run scored
    by two readers (--extractor FIRST+SECOND), every contested response (the
    readers' verdicts differ) goes to one stratum of its own, `contested`.
    Contested responses, rare compound acts, unmapped assertions and
    low-confidence readings are oversampled by the weights; inclusion
    probabilities stay exact. The allocation rule, the weights and the seed
    are recorded in the sample, with each stratum's population count, sampled
    count and inclusion probability, and every source run's manifest.

    \b
    Examples:
      sitbench audit sample runs/gpt runs/claude --n 500 --seed 7 --phase dev --out audit/sample.json
      sitbench audit sample runs/heldout-gpt --n 500 --seed 8 --phase heldout --weight low=4 --out audit/heldout.json
    """
    from sitbench.audit import parse_weights, sample_runs
    from sitbench.stores import write_json

    drawn = sample_runs(list(runs), n=n, seed=seed, phase=phase, floor=floor,  # type: ignore[arg-type]
                        weights=parse_weights(weights), rare_share=rare_share, dataset=dataset)
    write_json(out, drawn)
    pis = [s.inclusion_probability for s in drawn.strata]
    click.echo(f"{out}: sample {drawn.sample_id} ({drawn.phase}): {len(drawn.items)} of {drawn.population} responses "
               f"from {len(drawn.runs)} runs, {len(drawn.strata)} strata, inclusion probabilities "
               f"{min(pis):.4f}–{max(pis):.4f}; next: sitbench audit sheet {out} --out DIR")


@audit.command("sheet")
@click.argument("sample_path", metavar="SAMPLE", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory for the pages (one <annotator>.html each).")
@click.option("--annotator", "annotators", multiple=True,
              help="Annotator name (repeatable); default: annotator-1, annotator-2, annotator-3.")
def sheet_command(sample_path: Path, out: Path, annotators: tuple[str, ...]) -> None:
    """Write one offline HTML annotation page per annotator.

    Each page shows the responses with their envelope, X_q and the
    closed-world vocabulary — never a contract, id, supported value or
    verdict — and saves every mark in the browser as it goes (reopen the
    file to resume). Its Download JSONL button saves the annotations for
    `sitbench audit import`. The page loads nothing from the network.

    \b
    Examples:
      sitbench audit sheet audit/sample.json --out audit/sheets
      sitbench audit sheet audit/sample.json --out audit/sheets --annotator ana --annotator ben --annotator chi
    """
    from sitbench.audit import load_sample, write_sheets

    sample = load_sample(sample_path)
    names = list(annotators) or ["annotator-1", "annotator-2", "annotator-3"]
    for path in write_sheets(sample, out, names):
        click.echo(str(path))
    click.echo(f"{len(names)} pages of {len(sample.items)} items ({sample.phase}); next: annotate, Download JSONL, "
               f"then sitbench audit import FILE... --sample {sample_path} --out DIR", err=True)


@audit.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--sample", "sample_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The sample the pages were made from.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory for the validated files (<annotator>.jsonl); without it, only validate.")
def import_command(files: tuple[Path, ...], sample_path: Path, out: Path | None) -> None:
    """Validate downloaded annotation files against their sample (and store them).

    Every line must be an annotation of this sample and phase, of one of its
    items (once per file), naming propositions of that item's X_q, spans
    inside its response, and closed-world slots; one annotator per file.

    \b
    Examples:
      sitbench audit import ann1.jsonl ann2.jsonl --sample audit/sample.json --out audit/annotations
      sitbench audit import ann1.jsonl --sample audit/sample.json
    """
    from sitbench.audit import load_annotation_files, load_sample, write_annotations
    from sitbench.stores import child_path

    sample = load_sample(sample_path)
    loaded = load_annotation_files(list(files), sample)
    # Every annotator's name was checked when its file was read; every target is checked before any is written.
    targets = {name: child_path(out, name, f"--out {out}: annotator {name!r}", ".jsonl")
               for name in loaded} if out is not None else {}
    for name, items in loaded.items():
        done = sum(a.status == "done" for a in items.values())
        skipped = len(items) - done
        where = ""
        if name in targets:
            write_annotations(targets[name], items.values())
            where = f" -> {targets[name]}"
        synthetic = _synthetic(any(a.synthetic for a in items.values()))
        click.echo(f"{synthetic}{name}: {done} done, {skipped} skipped, {len(sample.items) - len(items)} not yet "
                   f"annotated (of {len(sample.items)} items){where}")


@audit.command("agree")
@click.argument("files", metavar="ANNOTATIONS...", nargs=-1, required=True,
                type=click.Path(dir_okay=False, path_type=Path))
@click.option("--sample", "sample_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The sample the annotations are of.")
@click.option("--adjudicator", default=None,
              help="Who breaks ties: an annotator's name, or the adjudicator's own annotation file (JSONL).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the adjudicated reference annotation (JSON) here.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Seed of the bootstrap.")
@click.option("--resamples", default=1000, show_default=True, type=Bounded(int, 2, MAX_RESAMPLES),
              help="Bootstrap resamples (of responses).")
@click.option("--json", "as_json", is_flag=True, help="Print the agreement result as JSON.")
def agree_command(files: tuple[Path, ...], sample_path: Path, adjudicator: str | None, out: Path | None, seed: int,
                  resamples: int, as_json: bool) -> None:
    """Agreement of the annotators, and the majority-adjudicated reference.

    Categorical checks (presence of each act, uncertainty, withheld, and
    the polarity and provenance of claims aligned by proposition id): pairwise
    Cohen's κ and Krippendorff's α with 95 % bootstrap intervals (responses
    resampled, --seed recorded); "degenerate" or "undefined" when a
    coefficient does not exist. Claim sets, mentions, unmapped assertions and
    spans: precision, recall, F1 and exact-set agreement. With --out, every
    unit is decided by majority and ties (three different labels, or one
    against one) by --adjudicator.

    \b
    Examples:
      sitbench audit agree audit/annotations/*.jsonl --sample audit/sample.json
      sitbench audit agree a.jsonl b.jsonl c.jsonl --sample audit/sample.json --adjudicator adj.jsonl --out audit/reference.json
    """
    from sitbench.audit import (
        agreement,
        agreement_lines,
        build_reference,
        load_annotation_files,
        load_sample,
        read_annotations,
    )
    from sitbench.stores import write_json

    sample = load_sample(sample_path)
    annotations = load_annotation_files(list(files), sample)
    adjudicator_name, adjudicator_readings = adjudicator, None
    if adjudicator is not None and adjudicator not in annotations:
        path = Path(adjudicator)
        if not path.is_file():
            raise InputError(f"--adjudicator {adjudicator!r}: neither an annotator ({', '.join(annotations)}) nor a file")
        own = read_annotations(path, sample)
        adjudicator_name = own[0].annotator
        if adjudicator_name in annotations:
            raise InputError(f"--adjudicator {adjudicator}: annotator {adjudicator_name!r} is also one of the "
                             "annotation files; name them with --adjudicator NAME instead")
        adjudicator_readings = {a.item_id: a for a in own}
    if out is not None:
        reference = build_reference(sample, sample_path, annotations, adjudicator=adjudicator_name,
                                    adjudicator_readings=adjudicator_readings, seed=seed, resamples=resamples)
        write_json(out, reference)
        result = reference.agreement
    else:
        result = agreement(sample, annotations, seed=seed, resamples=resamples)
    if as_json:
        click.echo(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        for line in agreement_lines(result):
            click.echo(line)
    if out is not None:
        summary = result.adjudication
        assert summary is not None
        click.echo(f"{out}: {_synthetic(result.synthetic)}reference of {summary.items} items ({summary.unanimous_items} "
                   f"unanimous, {summary.majority_units} units by majority, {summary.adjudicated_units} by the "
                   f"adjudicator); next: sitbench audit verifier {out} --extractor rules", err=True)


@audit.command("verifier")
@click.argument("reference_path", metavar="REFERENCE", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--extractor", "extractor_spec", default="rules", show_default=True,
              help="Extractor to measure: rules, llm:MODEL or a registered extractor (see sitbench judge --help).")
@click.option("--sample", "sample_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The sample file, when it moved since `audit agree` (it must be the same file).")
@click.option("--dataset", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Dataset directory, when it moved since the runs (for the contract decisions).")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Seed of the stratified bootstrap.")
@click.option("--resamples", default=1000, show_default=True, type=Bounded(int, 2, MAX_RESAMPLES),
              help="Bootstrap resamples.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the result (JSON) here: `sitbench report RUN --audit FILE` shows it.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--show", default=0, show_default=True, type=Bounded(int, 0, 10_000),
              help="Print up to N responses on which the extractor and the reference disagree (development "
                   "audits only: held-out findings never tune the extractor).")
def verifier_command(reference_path: Path, extractor_spec: str, sample_path: Path | None, dataset: Path | None,
                     seed: int, resamples: int, out: Path | None, as_json: bool, show: int) -> None:
    """Measure an extractor against the adjudicated REFERENCE.

    The extractor reads each sampled response (response, envelope, X_q,
    closed-world vocabulary only); its reading is compared with the
    reference's: act accuracy, claim precision/recall/F1, polarity and
    provenance accuracy, unmapped assertions, uncertainty, and end-to-end
    contract-decision agreement (both readings scored by the same contract
    scorer). Figures per stratum, and as inverse-probability-weighted
    population estimates with stratified bootstrap intervals; the unweighted
    figure of the oversampled sample is labelled an audit-sample aggregate.

    \b
    Examples:
      sitbench audit verifier audit/reference.json --extractor rules --out audit/verifier.json
      sitbench audit verifier audit/reference.json --extractor llm:openai/gpt-4o-mini --json
    """
    from sitbench.audit import disagreement_lines, measure_file, require_development, verifier_lines
    from sitbench.stores import write_json

    result, rows = measure_file(reference_path, extractor_spec, sample_path=sample_path, dataset=dataset, seed=seed,
                                resamples=resamples, keep_rows=bool(show))
    if show:
        require_development(result, "--show (printing disagreements to diagnose the extractor)")
    if out is not None:
        write_json(out, result)
    if as_json:
        click.echo(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        for line in verifier_lines(result):
            click.echo(line)
    if show:
        for line in disagreement_lines(rows, show):
            click.echo(line)
    if out is not None:
        click.echo(f"{out}: written; next: sitbench report RUN... --audit {out} --out report.html", err=True)
