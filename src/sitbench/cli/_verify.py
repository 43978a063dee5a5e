"""``sitbench extract`` and ``sitbench judge``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from sitbench.cli._judge import (
    BATCH_FORMAT_HELP,
    BatchItem,
    JudgedOut,
    Tally,
    format_line,
    judged_out,
    read_batch,
    readers_text,
    unscored_out,
)
from sitbench.errors import InputError
from sitbench.stores import MAX_LINE_BYTES, read_stdin

if TYPE_CHECKING:
    from sitbench.schema import Observation
    from sitbench.verify import Judge

_DATASET = click.argument("dataset", type=click.Path(path_type=Path))
_PROBE = click.option("--probe", "probe_id", default=None, help="Probe id, e.g. PR-01 (see hidden/probes.jsonl).")
_RESPONSE = click.option("--response", "response", default=None,
                         help="The response text, or '-' to read it from standard input.")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
_EXTRACTOR = click.option("--extractor", "extractor_spec", default="rules", show_default=True,
                          help="Stage-1 reader: rules (offline default), llm:MODEL (gold-blind LLM extractor, "
                               "e.g. llm:openai/gpt-4o-mini, llm:local/smollm2; SITBENCH_EXTRACTOR_BASE_URL and "
                               "SITBENCH_EXTRACTOR_API_KEY_ENV set its base_url and api_key_env), a registered "
                               "extractor, or two of them joined by + (FIRST+SECOND, e.g. rules+llm:MODEL: "
                               "two readers, the first's verdict the primary one).")


def _read(response: str) -> str:
    # Standard input is read by the rule of a file: bounded, and UTF-8 or refused (random bytes are no answer).
    return read_stdin(MAX_LINE_BYTES, "--response -") if response == "-" else response


def _single(probe_id: str | None, response: str | None) -> tuple[str, str]:
    if probe_id is None or response is None:
        raise InputError("--probe and --response are required (or give --batch FILE for many responses)")
    return probe_id, _read(response)


def _load(dataset: Path, extractor_spec: str) -> Judge:
    from sitbench.verify import get_extractor, load_judge

    return load_judge(dataset, extractor=get_extractor(extractor_spec))


@click.command()
@_DATASET
@_PROBE
@_RESPONSE
@_JSON
@_EXTRACTOR
@click.option("--trace", is_flag=True,
              help="After the output, print what each stage of the rule extractor read (masked text, clauses with "
                   "their frame, mentions and claims, engagement, premise, self-correction, provenance, acts, "
                   "uncertainty, disclosure). Rule extractor only.")
def extract(dataset: Path, probe_id: str | None, response: str | None, as_json: bool, extractor_spec: str,
            trace: bool) -> None:
    """Stage 1: the gold-blind observation Γ̂ = ⟨acts, claims, unmapped, uncertainty, disclosure⟩.

    The extractor sees only the response, the query envelope, the extraction universe
    and the closed-world vocabulary, never the contract.

    \b
    Examples:
      sitbench extract data/pilot --probe PR-22 --response "You keep saying I grew up in Paris, but I didn't." --json
      sitbench extract data/pilot --probe PR-22 --response "I grew up in Lyon, not Paris." --trace
    """
    from sitbench.verify import close_extractor

    if trace and extractor_spec != "rules":
        raise click.UsageError("--trace shows the stages of the rule extractor; use it with --extractor rules")
    probe_id, text = _single(probe_id, response)
    loaded = _load(dataset, extractor_spec)
    try:
        observation = loaded.extract(probe_id, text)
    finally:
        close_extractor(loaded.extractor)
    if as_json:
        click.echo(observation.model_dump_json(indent=2))
    else:
        _print_observation(observation)
    if trace:
        _print_trace(loaded, probe_id, text)


def _print_trace(loaded: Judge, probe_id: str, text: str) -> None:
    """Each stage of the rule extractor's reading of ``text``, one line a stage (a line a clause)."""
    from sitbench.verify import trace_extract

    envelope = loaded.envelope(loaded.probe(probe_id))
    _, stages = trace_extract(text, envelope, loaded.vocabulary(envelope))
    click.echo("trace:")
    for name, summary in stages:
        click.echo(f"  {name}: {summary}")


def _print_observation(observation: Observation) -> None:
    click.echo(f"acts: {', '.join(a.value for a in observation.acts) or '-'}")
    for c in observation.claims:
        click.echo(f"claim: {c.prop_id} {'+' if c.polarity else '-'} ({c.provenance.value})")
    for u in observation.unmapped:
        click.echo(f"unmapped: {u.slot or 'unresolved'}={u.value or '-'} {'+' if u.polarity else '-'}: {u.text[:80]}")
    click.echo(f"uncertainty: {observation.uncertainty.value}")
    score = observation.confidence.score
    click.echo(f"confidence: {observation.confidence.level.value}"
               + (f" {score:.2f}" if score is not None else "")
               + (f" ({', '.join(observation.confidence.signals)})" if observation.confidence.signals else ""))


def _judge_batch(loaded: Judge, items: list[BatchItem], as_json: bool) -> None:
    """One line per item (:func:`format_line`, or JSON), then the summary on stderr; exit 4 when some response
    could not be read."""
    from sitbench.errors import EXIT_INCOMPLETE, ReadingUnavailable
    from sitbench.verify import ReaderPair

    tally = Tally(two_readers=isinstance(loaded.extractor, ReaderPair))
    for item in items:
        try:
            out = judged_out(loaded.judge(item.probe, item.response), item.line)
        except ReadingUnavailable as exc:
            out = unscored_out(item.probe, item.line, str(exc))
        tally.add(out)
        click.echo(out.model_dump_json() if as_json else format_line(out))
    click.echo(tally.summary(), err=True)
    if tally.unscored:
        raise click.exceptions.Exit(EXIT_INCOMPLETE)


_JUDGE_HELP = f"""Stage 1 + 2: extract once, score against the hidden contract (seven checks).

For theorem-qualified probes the same extraction is also scored against the
partner lineage's contract, giving (v_T, v_P). With two readers
(--extractor FIRST+SECOND, e.g. rules+llm:MODEL) every response is read by
both: the verdict is the first's, marked agreed or contested (the checks the
readers differ on and the second reader's verdict); --json carries both.

With --batch, every line is checked first: each bad line is named (file:line
and the field), then the command exits 2 and judges nothing. Then every
response is judged in order; this is how answers produced by another harness
are scored.

{BATCH_FORMAT_HELP}

Exit codes: 0 judged; 2 bad input; 4 the extractor could not read a response
(an llm: extractor whose model did not answer): it has no verdict, which is
never a failure; run the command again to finish (what was read is cached).

\b
Examples:
  sitbench judge data/pilot --probe PR-01 --response "I've never been to Kyoto." --json
  sitbench judge data/pilot --batch answers.jsonl
  sitbench judge data/pilot --batch answers.jsonl --extractor rules+llm:openai/gpt-4o-mini
"""


@click.command(help=_JUDGE_HELP)
@_DATASET
@_PROBE
@_RESPONSE
@_JSON
@_EXTRACTOR
@click.option("--batch", "batch", default=None,
              help='JSONL file (or - for stdin) of {"probe": ID, "response": TEXT} lines; one verdict line per '
                   "line (format above; with --json, one JSON object per line).")
def judge(dataset: Path, probe_id: str | None, response: str | None, as_json: bool, extractor_spec: str,
          batch: str | None) -> None:
    """``sitbench judge`` (its help is :data:`_JUDGE_HELP`)."""
    from sitbench.verify import close_extractor

    loaded = _load(dataset, extractor_spec)
    try:
        _judge_command(loaded, probe_id, response, as_json, batch)
    finally:
        close_extractor(loaded.extractor)


def _judge_command(loaded: Judge, probe_id: str | None, response: str | None, as_json: bool,
                   batch: str | None) -> None:
    if batch is not None:
        if probe_id is not None or response is not None:
            raise InputError("--batch: give either --batch or --probe/--response, not both")
        _judge_batch(loaded, read_batch(batch, loaded.hidden.probes), as_json)
        return
    probe_id, text = _single(probe_id, response)
    out = judged_out(loaded.judge(probe_id, text))
    if as_json:
        click.echo(out.model_dump_json(indent=2, exclude={"line"}))
        return
    _print_judged(out)


def _print_judged(out: JudgedOut) -> None:
    """``judge``'s text output: the verdict, each check, the partner verdict, the readers, the confidence."""
    click.echo(f"{out.probe}: {'VALID' if out.valid else 'INVALID'}")
    for name, check in out.checks.items():
        click.echo(f"  {name:<12} {'ok' if check.passed else 'FAIL ' + check.reason}")
    if out.partner is not None:
        click.echo(f"partner contract: {'VALID' if out.partner.valid else 'INVALID'}")
    readers = readers_text(out)
    if readers is not None and out.second is not None:
        click.echo(f"readers: {readers}")
        click.echo(f"second reader: {out.second.extractor}")
    confidence = out.observation.confidence if out.observation is not None else None
    if confidence is not None and confidence.level.value != "high":
        click.echo(f"confidence: {confidence.level.value} ({', '.join(confidence.signals)})")
