"""``sitbench res``: run and score the RES actor-indexed battery."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sitbench._options import MAX_CONNECTIONS, MAX_TOKENS, SEED, Bounded
from sitbench.cli._model_options import candidate_options, model_access_options
from sitbench.errors import InputError

if TYPE_CHECKING:
    from sitbench.candidates import Candidate
from sitbench.agents import ACCEPTED_REPLY_FORMS, AgentFailure
from sitbench.res import (
    AGENT_PREFIX,
    CLAIM_CEILING,
    CONDITIONS,
    DEFAULT_MODELS,
    RESULTS_FILE,
    ResScore,
    ResultRow,
    build_messages,
    load_scenarios,
    run_battery,
    scenarios_sha256,
    score_file,
)


@click.group()
def res() -> None:
    """RES: does an identical episode change a model's choice only when the
    record belongs to the assistant deciding?

    18 scenarios x 4 conditions (self, peer, fiction, role), preregistered scoring
    (source: RES actor-indexed episodic-continuity specificity battery,
    preregistered 2026-09-10; every count is defined in docs/concepts.md).

    \b
    Examples:
      sitbench res run --model local/smollm2 --out runs/res1
      sitbench res score runs/res1/results.jsonl --json
      sitbench res show res-ls-01 --condition peer
      sitbench res demo                      # offline, two reference agents
    """


def _print_score(score: ResScore, titles: dict[str, str] | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    from sitbench.res import score_notes, score_rows

    console = Console(width=max(120, Console().width))
    for model, s in score.models.items():
        table = Table(title=f"RES - {model}" + (f" ({titles[model]})" if titles and model in titles else ""),
                      show_header=True)
        table.add_column("measure (what it counts)")
        table.add_column("value", overflow="fold")
        for label, value in score_rows(s, score.n_scenarios):
            table.add_row(label, value)
        console.print(table)
        for note in score_notes(s, score.n_scenarios):
            console.print(f"note: {note}")
    if not score.models:
        console.print("no result rows")
    for warning in score.warnings:
        console.print(f"warning: {warning}")
    console.print(f"Claim ceiling: {CLAIM_CEILING}")


@res.command("run")
@click.option(
    "--model",
    "models",
    multiple=True,
    metavar="SPEC",
    help="Candidate spec (repeatable). Default: the preregistered "
    + " and ".join(DEFAULT_MODELS)
    + ".",
)
@click.option("--agent", "agents", multiple=True, metavar="SPEC",
              help="An agent of `sitbench run --agent` (package.module:factory, path/to/file.py:factory, "
                   "http://HOST:PORT or an installed name), repeatable; its rows are labelled agent:SPEC. "
                   "With --agent and no --model, no model is run. A URL's credentials belong in the environment "
                   "(--agent \"$AGENT_URL\"): they are used to connect, never written or printed.")
@click.option("--agent-option", "agent_options", multiple=True, metavar="KEY=VALUE",
              help="Keyword argument for every --agent factory (repeatable).")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder for results.jsonl, summary.json and manifest.json.",
)
@click.option(
    "--scenarios",
    "scenarios_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Scenario JSONL (default: the 18 packaged scenarios).",
)
@click.option("--concurrency", default=4, show_default=True, type=Bounded(int, 1, MAX_CONNECTIONS),
              help="Maximum calls in flight; cells start in the seeded order.")
@click.option("--max-tokens", default=512, show_default=True, type=Bounded(int, 1, MAX_TOKENS),
              help="Maximum output tokens per call.")
@click.option("--temperature", default=0.0, show_default=True, type=Bounded(float, 0, 2),
              help="Sampling temperature, 0–2 (0 requests greedy decoding).")
@click.option("--top-p", default=1.0, show_default=True, type=Bounded(float, 0, 1, low_open=True),
              help="Nucleus sampling mass, in (0, 1].")
@click.option("--seed", default=0, show_default=True, type=SEED,
              help="Decoding seed for providers that take one (0 … 2**63 − 1); the execution order's seed is "
                   "fixed by the preregistration.")
@model_access_options("the cell is recorded as an error")
@click.option("--max-drop-rate", default=None, type=Bounded(float, 0, 1),
              help="Share of error cells (failed calls) above which the command exits with code 4 after "
                   "writing everything [default: no limit; the preregistration keeps errors as data].")
@click.option("--overwrite", is_flag=True, help="Replace an existing results.jsonl in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def run(
    models: tuple[str, ...],
    agents: tuple[str, ...],
    agent_options: tuple[str, ...],
    out_dir: Path,
    scenarios_path: Path | None,
    concurrency: int,
    max_tokens: int,
    temperature: float,
    top_p: float,
    seed: int,
    base_url: str | None,
    api_key_env: str | None,
    timeout_s: float | None,
    max_retries: int | None,
    cache: bool,
    cache_path: Path | None,
    epoch: int,
    max_drop_rate: float | None,
    overwrite: bool,
    as_json: bool,
) -> None:
    """Run every model x scenario x condition cell once (order shuffled with seed
    20260910), write DIR/results.jsonl as cells finish, then DIR/summary.json and
    DIR/manifest.json. Failed calls stay in the results with status "error".
    Candidates, the response cache (--cache) and the progress display are those
    of `sitbench run`; an agent (--agent) gets, per cell, a fresh agent that
    ingests the system message and answers the user message (its reply in any
    form `sitbench run --agent` accepts). The mock/ candidates are SIT's and
    name no RES action token; `sitbench res demo` is the offline run.

    Exit codes: 0 done; 2 bad input; 4 more error cells than --max-drop-rate
    allows (when given), or an agent returned a reply in no accepted form.

    \b
    Examples:
      sitbench res run --model local/smollm2 --out runs/res1
      sitbench res run --model openai/gpt-4o-mini --cache --out runs/res2
      sitbench res run --agent my_agent.py:make --out runs/res3
      sitbench res demo                      # offline: two reference agents
    """
    from sitbench._urls import redact_url
    from sitbench.candidates import CACHE_FILE, DecodingConfig, ResponseCache, default_cache_dir

    specs = list(models) or ([] if agents else list(DEFAULT_MODELS))
    # An agent's rows are labelled with its URL as recorded: without credentials (as AgentCandidate names it).
    specs += [AGENT_PREFIX + redact_url(spec) for spec in agents]
    repeated = sorted({spec for spec in specs if specs.count(spec) > 1})
    if repeated:
        option, name = (("--agent", repeated[0][len(AGENT_PREFIX):]) if repeated[0].startswith(AGENT_PREFIX)
                        else ("--model", repeated[0]))
        raise InputError(f"{option} {name!r} given twice; each model is observed once per cell, give it once")
    results_path = out_dir / RESULTS_FILE
    if results_path.exists() and results_path.stat().st_size > 0 and not overwrite:
        raise InputError(
            f"{results_path}: already exists; choose a new --out or pass --overwrite"
        )
    scenarios = load_scenarios(scenarios_path)
    candidates = _model_candidates(specs, candidate_options(base_url, api_key_env, timeout_s, max_retries),
                                   defaults=not (models or agents))
    candidates.update(_agent_candidates(agents, agent_options, timeout_s))
    decoding = DecodingConfig(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed)
    response_cache = ResponseCache(cache_path or default_cache_dir() / CACHE_FILE) if cache else None
    try:
        score = asyncio.run(
            run_battery(
                specs,
                candidates,
                scenarios,
                out_dir,
                scenarios_source=str(scenarios_path) if scenarios_path else "sitbench.res/scenarios.jsonl",
                scenarios_sha256=scenarios_sha256(scenarios_path),
                decoding=decoding,
                concurrency=concurrency,
                response_cache=response_cache,
                epoch=epoch,
            )
        )
    finally:
        if response_cache is not None:
            response_cache.close()
    if as_json:
        click.echo(json.dumps(score.model_dump(mode="json"), indent=2))
    else:
        _print_score(score)
        click.echo(f"wrote {results_path}, {out_dir / 'summary.json'}, {out_dir / 'manifest.json'}")
    _report_errors(results_path, max_drop_rate)


def _model_candidates(specs: list[str], options: dict[str, object], *, defaults: bool) -> dict[str, Candidate]:
    """Each ``--model`` built (bad input exits 2 here); with the preregistered defaults, the error names the demo."""
    from sitbench.candidates import get_candidate

    try:
        return {spec: get_candidate(spec, **options) for spec in specs if not spec.startswith(AGENT_PREFIX)}
    except InputError as exc:
        if not defaults:
            raise
        raise InputError(f"{exc}; with no --model the preregistered models are run: `sitbench res demo` runs the "
                         "battery offline with two reference agents") from None


def _agent_candidates(agents: tuple[str, ...], agent_options: tuple[str, ...],
                      timeout_s: float | None) -> dict[str, Candidate]:
    """Each ``--agent`` loaded (bad input exits 2 here, before any cell runs) as a RES answerer."""
    if not agents:
        if agent_options:
            raise InputError("--agent-option: give it with --agent (it is passed to the agent's factory)")
        return {}
    from sitbench.agents import load_agent
    from sitbench.res import AgentCandidate
    from sitbench.runs import parse_agent_options

    options = parse_agent_options(agent_options) or None
    built = [AgentCandidate(load_agent(spec, timeout_s=timeout_s or 120.0, options=options), timeout_s or 120.0)
             for spec in agents]
    return {c.name: c for c in built}


#: Exit code when the share of error cells exceeds --max-drop-rate (as `sitbench run`'s dropped trials).
EXIT_TOO_MANY_ERRORS = 4


def _report_errors(results_path: Path, max_drop_rate: float | None) -> None:
    """Error cells by reason on stderr, as `sitbench run` lists dropped trials; exit 4 above the rate."""
    from collections import Counter

    from sitbench.res import read_results

    rows = [row for _, row in read_results(results_path)]
    _report_invalid(rows)
    errors = [row for row in rows if row.status == "error"]
    if not errors:
        return
    reasons = Counter((row.error or "unknown").split(":")[0] for row in errors)
    listed = ", ".join(f"{reason} ×{n}" for reason, n in reasons.most_common(5))
    click.echo(f"warning: {len(errors)} of {len(rows)} cells failed ({listed}); they stay in the results with "
               "status \"error\" and count as missing in the score.", err=True)
    _report_malformed([row for row in errors if (row.error or "").startswith(AgentFailure.MALFORMED.value)])
    if max_drop_rate is not None and len(errors) / len(rows) > max_drop_rate:
        click.echo(f"error: {len(errors) / len(rows):.1%} of cells failed, above --max-drop-rate "
                   f"{max_drop_rate:.1%} (exit code {EXIT_TOO_MANY_ERRORS})", err=True)
        raise click.exceptions.Exit(EXIT_TOO_MANY_ERRORS)


REPLY_RULE = ("a reply names exactly one of the two action tokens the prompt lists under \"Actions:\" (upper case, as "
              "written, e.g. WRITE_SCRATCH_V2); naming neither or both is invalid (the preregistered token rule)")
"""What a RES reply must look like."""


def _report_invalid(rows: list[ResultRow]) -> None:
    """Invalid replies (the token rule read no single action) counted by reason, with the first one and the rule."""
    from collections import Counter

    invalid = [row for row in rows if row.status == "invalid"]
    if not invalid:
        return
    reasons = Counter(row.invalid_reason or "unknown" for row in invalid)
    listed = ", ".join(f"{reason} ×{n}" for reason, n in reasons.most_common(5))
    first = invalid[0]
    reply = (first.response or "")[:80]
    click.echo(f"warning: {len(invalid)} of {len(rows)} replies are invalid ({listed}; the first, "
               f"{first.scenario_id}/{first.condition} from {first.model}: {reply!r}): {REPLY_RULE}; "
               f"`sitbench res show {first.scenario_id} --condition {first.condition}` prints that prompt",
               err=True)


def _report_malformed(rows: list[ResultRow]) -> None:
    """One line per agent and kind of malformed reply, naming the cells and the accepted forms; exit 4."""
    if not rows:
        return
    from collections import defaultdict

    groups: dict[tuple[str, str], list[ResultRow]] = defaultdict(list)
    for row in rows:
        groups[(row.model, (row.error or "").split("; accepted replies:")[0])].append(row)
    for (model, reason), cells in groups.items():
        named = ", ".join(f"{r.scenario_id}/{r.condition}" for r in cells[:3]) + (", …" if len(cells) > 3 else "")
        click.echo(f"error: {model}: {reason} in {len(cells)} cell(s) ({named}); accepted replies: "
                   f"{ACCEPTED_REPLY_FORMS}", err=True)
    click.echo(f"error: {len(rows)} cells got a reply in no accepted form (status \"error\" in the results, missing "
               f"in the score); fix the agent's respond() and run again (exit code {EXIT_TOO_MANY_ERRORS})", err=True)
    raise click.exceptions.Exit(EXIT_TOO_MANY_ERRORS)


@res.command("demo")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for results.jsonl, summary.json and manifest.json [default: a new temporary folder].")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def demo(out_dir: Path | None, as_json: bool) -> None:
    """Offline: the 18 x 4 battery with two reference agents, no key, no server.

    owner-aware acts on a record only when it is its own (or it portrays the
    owner); owner-blind acts on every record as its own. Both read only the
    prompt and answer through the agent protocol (`res run --agent`).

    \b
    Examples:
      sitbench res demo
      sitbench res demo --out res-demo/ --json
    """
    import tempfile
    import time

    from sitbench.res import DEMO_AGENTS, run_demo

    started = time.perf_counter()
    root = out_dir or Path(tempfile.mkdtemp(prefix="sitbench-res-demo-"))
    outcome = asyncio.run(run_demo(root))
    if as_json:
        click.echo(json.dumps(outcome.model_dump(mode="json"), indent=2))
        return
    _print_score(outcome, {AGENT_PREFIX + spec: what for spec, what in DEMO_AGENTS.items()})
    click.echo(f"wrote {root / RESULTS_FILE}, {root / 'summary.json'}, {root / 'manifest.json'} "
               f"in {time.perf_counter() - started:.1f} s; next: sitbench res run --agent YOUR_AGENT --out DIR")


@res.command("score")
@click.argument("results", type=click.Path(path_type=Path))
@click.option(
    "--scenarios",
    "scenarios_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="JSONL with at least scenario_id, category, self_ideal, control_ideal per row "
    "(default: the packaged scenarios).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the score as JSON.")
def score(results: Path, scenarios_path: Path | None, as_json: bool) -> None:
    """Score RESULTS (a results.jsonl, or a run folder holding one) with the
    preregistered rules and classification.

    \b
    Examples:
      sitbench res score runs/res1/results.jsonl --json
    """
    if results.is_dir():
        results = results / RESULTS_FILE
    outcome = score_file(results, scenarios_path)
    if as_json:
        click.echo(json.dumps(outcome.model_dump(mode="json"), indent=2))
    else:
        _print_score(outcome)


@res.command("show")
@click.argument("scenario_id")
@click.option("--condition", type=click.Choice(CONDITIONS), default="self", show_default=True)
@click.option(
    "--scenarios",
    "scenarios_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Scenario JSONL (default: the packaged scenarios).",
)
def show(scenario_id: str, condition: str, scenarios_path: Path | None) -> None:
    """Print the exact messages sent for SCENARIO_ID under --condition.

    \b
    Examples:
      sitbench res show res-ls-01 --condition peer
    """
    scenarios = {s.scenario_id: s for s in load_scenarios(scenarios_path)}
    if scenario_id not in scenarios:
        known = ", ".join(sorted(scenarios))
        raise InputError(f"SCENARIO_ID {scenario_id!r}: not in the scenario set; use one of {known}")
    for message in build_messages(scenarios[scenario_id], condition):  # type: ignore[arg-type]
        click.echo(f"--- {message.role} ---")
        click.echo(message.content)
