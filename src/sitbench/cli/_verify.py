"""``sitbench extract`` and ``sitbench judge``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sitbench.errors import InputError
from sitbench.stores import read_text, reject_unpaired_surrogate

if TYPE_CHECKING:
    from sitbench.schema import Observation, Verdict
    from sitbench.verify import Judge, Judgement

_DATASET = click.argument("dataset", type=click.Path(path_type=Path))
_PROBE = click.option("--probe", "probe_id", default=None, help="Probe id, e.g. PR-01 (see hidden/probes.jsonl).")
_RESPONSE = click.option("--response", "response", default=None,
                         help="The response text, or '-' to read it from standard input.")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
_EXTRACTOR = click.option("--extractor", "extractor_spec", default="rules", show_default=True,
                          help="Stage-1 reader: rules (offline default), llm:MODEL (gold-blind LLM extractor, "
                               "e.g. llm:openai/gpt-4o-mini, llm:local/smollm2; SITBENCH_EXTRACTOR_BASE_URL and "
                               "SITBENCH_EXTRACTOR_API_KEY_ENV set its base_url and api_key_env) or a registered "
                               "extractor.")


def _read(response: str) -> str:
    return sys.stdin.read() if response == "-" else response


def _single(probe_id: str | None, response: str | None) -> tuple[str, str]:
    if probe_id is None or response is None:
        raise InputError("--probe and --response are required (or give --batch FILE for many responses)")
    return probe_id, _read(response)


def _load(dataset: Path, extractor_spec: str) -> Judge:
    from sitbench.verify import get_extractor, load_judge

    return load_judge(dataset, extractor=get_extractor(extractor_spec))


def verdict_payload(result: Judgement) -> dict[str, Any]:
    """Exactly what ``judge --json`` prints for one judgement (also one line of ``--batch`` output)."""

    def dump(v: Verdict) -> dict[str, Any]:
        return {"valid": v.valid, "checks": {k: c.model_dump() for k, c in v.checks.items()}}

    return dump(result.verdict) | {"partner": dump(result.partner) if result.partner else None,
                                   "observation": result.observation.model_dump(mode="json")}


def read_batch(path: str, known_probes: dict[str, Any]) -> list[tuple[str, str]]:
    """``(probe, response)`` pairs of a batch file (``-`` = stdin), every line checked before any is judged.

    Raises:
        InputError: naming the file, the line and the field that is wrong.
    """
    name = "<stdin>" if path == "-" else path
    if path == "-":
        text = sys.stdin.read()
    else:
        text = read_text(Path(path), hint="check the path given to --batch")
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{name}:{number}: not JSON ({exc.msg}); each line must be "
                             '{"probe": ID, "response": TEXT}') from None
        reject_unpaired_surrogate(line, name, number)
        if not isinstance(raw, dict):
            raise InputError(f"{name}:{number}: expected a JSON object with fields probe and response")
        probe, response = raw.get("probe"), raw.get("response")
        if not isinstance(probe, str):
            raise InputError(f"{name}:{number}: field 'probe' must be a probe id string")
        if not isinstance(response, str):
            raise InputError(f"{name}:{number}: field 'response' must be a string")
        if probe not in known_probes:
            raise InputError(f"{name}:{number}: probe {probe!r} is not in the dataset's hidden/probes.jsonl")
        items.append((probe, response))
    if not items:
        raise InputError(f"{name}: no responses to judge (the input is empty or blank); give one line per response, "
                         '{"probe": ID, "response": TEXT}')
    return items


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
    click.echo(f"confidence: {observation.confidence.level.value}"
               + (f" ({', '.join(observation.confidence.signals)})" if observation.confidence.signals else ""))


def _judge_batch(loaded: Judge, items: list[tuple[str, str]]) -> None:
    """One JSON line per item; an unread response gets an ``unscored`` line and the batch ends with exit 4."""
    from sitbench.errors import EXIT_INCOMPLETE, ReadingUnavailable

    unread = 0
    for pid, text in items:
        try:
            payload = verdict_payload(loaded.judge(pid, text))
        except ReadingUnavailable as exc:
            unread += 1
            payload = {"valid": None, "checks": {}, "partner": None, "observation": None, "unscored": str(exc)}
        click.echo(json.dumps(payload, ensure_ascii=False))
    if unread:
        click.echo(f"error: {unread} of {len(items)} responses unscored (the extractor could not read them; their "
                   "lines say why): no verdict, never a failure; run the same command again to finish "
                   f"(exit code {EXIT_INCOMPLETE})", err=True)
        raise click.exceptions.Exit(EXIT_INCOMPLETE)


@click.command()
@_DATASET
@_PROBE
@_RESPONSE
@_JSON
@_EXTRACTOR
@click.option("--batch", "batch", default=None,
              help='JSONL file (or - for stdin) of {"probe": ID, "response": TEXT} lines; writes one JSON '
                   "verdict per line, in order, with exactly the fields of judge --json (a response the "
                   'extractor could not read gets {"valid": null, "unscored": REASON, …} and exit code 4).')
def judge(dataset: Path, probe_id: str | None, response: str | None, as_json: bool, extractor_spec: str,
          batch: str | None) -> None:
    """Stage 1 + 2: extract once, score against the hidden contract (seven checks).

    For theorem-qualified probes the same extraction is also scored against the
    partner lineage's contract, giving (v_T, v_P). With --batch, every line is checked
    first (file:line errors, nothing judged), then judged in order; this is how
    answers produced by another harness are scored.

    Exit codes: 0 judged; 2 bad input; 4 the extractor could not read a response
    (an llm: extractor whose model did not answer): it has no verdict, which is
    never a failure; run the command again to finish (what was read is cached).

    \b
    Examples:
      sitbench judge data/pilot --probe PR-01 --response "I've never been to Kyoto." --json
      sitbench judge data/pilot --batch answers.jsonl
    """
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
        _judge_batch(loaded, read_batch(batch, loaded.hidden.probes))
        return
    probe_id, text = _single(probe_id, response)
    result = loaded.judge(probe_id, text)
    if as_json:
        click.echo(json.dumps(verdict_payload(result), indent=2, ensure_ascii=False))
        return
    click.echo(f"{probe_id}: {'VALID' if result.verdict.valid else 'INVALID'}")
    for name, check in result.verdict.checks.items():
        click.echo(f"  {name:<12} {'ok' if check.passed else 'FAIL ' + check.reason}")
    if result.partner is not None:
        click.echo(f"partner contract: {'VALID' if result.partner.valid else 'INVALID'}")
    if result.observation.confidence.level.value != "high":
        click.echo(f"confidence: {result.observation.confidence.level.value} "
                   f"({', '.join(result.observation.confidence.signals)})")
