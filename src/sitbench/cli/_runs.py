"""``sitbench run``, ``score``, ``rescore``, ``merge``, ``cache`` and ``demo``."""

from __future__ import annotations

import asyncio
import gc
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sitbench._limits import DEFAULT_MAX_RESPONSE_CHARS
from sitbench._options import SEED, WORKERS, WORKERS_HELP, Bounded
from sitbench.cli._model_options import candidate_options, model_access_options
from sitbench.errors import InputError, SitbenchError
from sitbench.glossary import category_label, configurations_help

if TYPE_CHECKING:
    from sitbench.candidates import ResponseCache
    from sitbench.runs import ScoreTally

#: Exit code of a run whose share of dropped trials exceeds --max-drop-rate (2: bad input, 3: a prompt
#: failed the payload-isolation audit).
EXIT_TOO_MANY_DROPS = 4


_Bounded = Bounded


def _progress(total: int, label: str) -> Any:
    from sitbench.runs import progress_display

    return progress_display(label)


def execute_run(dataset: Path, model: str, out: Path, configs: str = "all", handler: str = "native",
                max_connections: int = 8, shard: str | None = None, resume: bool = False,
                temperature: float = 0.0, top_p: float = 1.0, max_tokens: int = 512, seed: int | None = 0,
                model_options: dict[str, object] | None = None, label: str | None = None, cache: bool = False,
                cache_path: Path | None = None, epoch: int = 0, workers: int | None = None,
                max_response_chars: int | None = None, probes: str | None = None, limit: int | None = None,
                limit_seed: int = 0) -> tuple[int, int]:
    """Run one candidate over a dataset; returns (attempted, completed).

    With ``cache``, responses come from (and go to) the SQLite response cache at
    ``cache_path`` (default ``default_cache_dir()/responses.sqlite``); mocks bypass it.
    """
    from sitbench.candidates import CACHE_FILE, DecodingConfig, ResponseCache, default_cache_dir, get_candidate
    from sitbench.runs import Runner, RunOptions, RunStore, parse_configs, parse_shard, select_probes, trial_ids

    response_cache = ResponseCache(cache_path or default_cache_dir() / CACHE_FILE) if cache else None
    options = RunOptions(configs=parse_configs(configs), handler=handler,  # type: ignore[arg-type]
                         decoding=DecodingConfig(temperature=temperature, top_p=top_p, max_tokens=max_tokens,
                                                 seed=seed),
                         max_connections=max_connections, shard=parse_shard(shard),
                         cache_dir=default_cache_dir() / "embeddings", response_cache=response_cache, epoch=epoch,
                         workers=workers, max_response_chars=DEFAULT_MAX_RESPONSE_CHARS if max_response_chars is None
                         else max_response_chars)
    candidate = get_candidate(model, **(model_options or {}))
    progress = _progress(0, label or f"{model}")
    try:
        with progress:
            task = progress.add_task("", total=None)
            progress.update(task, description=_PREPARING)
            # Loading makes hundreds of thousands of objects that live as long as the run: collecting while
            # they are made, and walking them on every full collection after, finds nothing to free.
            gc.disable()
            try:
                runner = Runner(dataset, candidate, model, out, options,
                                on_trial=lambda _record: progress.advance(task),
                                on_stage=lambda stage: progress.update(task, description=stage))
            finally:
                gc.enable()
            gc.freeze()
            options.probes = select_probes(runner.ds, probes=probes, limit=limit, seed=limit_seed)
            done = sum(t.status != "dropped" for t in RunStore(out).iter_trials()) if resume else 0
            progress.update(task, total=len(trial_ids(runner.ds, options.configs, options.shard, options.probes)),
                            completed=done, description="")
            manifest = asyncio.run(runner.run(resume=resume))
    finally:
        if response_cache is not None:
            response_cache.close()
    return manifest.counts.get("attempted", 0), manifest.counts.get("completed", 0)


_PREPARING = "loading the dataset; configurations E and F embed its records on the first run over it"
"""What a run does before its first trial, as its progress line says."""


def _cap(max_response_chars: int | None) -> dict[str, int]:
    return {} if max_response_chars is None else {"max_response_chars": max_response_chars}


def score_run(run: Path, extractor_spec: str | None = None, dataset: Path | None = None,
              workers: int | None = None) -> ScoreTally:
    """Score a run's stored responses; returns the tally of completed, dropped and unscored trials.

    ``dataset`` is the dataset directory when it moved since the run (the manifest's path by default);
    it must be the same dataset, byte for byte. ``workers`` is the number of scoring processes (None
    chooses, see :func:`sitbench.runs.score_workers`); the scores do not depend on it. A trial the
    verifier could not read, or that the run holds only a torn record of, is written ``unscored``."""
    from sitbench.runs import RunStore, ScoreTally, iter_score_lines, run_dataset_dir, verify_run_dataset
    from sitbench.stores import load_dataset
    from sitbench.verify import close_extractor, get_extractor, verifier_label

    extractor = get_extractor(extractor_spec)

    store = RunStore(run).require()
    manifest = store.manifest()
    # As in execute_run: the dataset lives as long as the scoring, so it is loaded without collections
    # and frozen out of later ones.
    gc.disable()
    try:
        ds = load_dataset(run_dataset_dir(run, manifest, dataset))
    finally:
        gc.enable()
    gc.freeze()
    verify_run_dataset(ds, manifest.dataset, run)
    tally = ScoreTally()
    progress = _progress(0, f"score {run.name or run}")
    try:
        with progress:
            task = progress.add_task("", total=manifest.counts.get("attempted") or None)

            def counted(lines: Iterator[str]) -> Iterator[str]:
                for line in lines:
                    progress.advance(task)
                    yield line

            # Each trial is scored as it is read and written as it is scored (scores.jsonl replaced at the end).
            store.write_score_lines(tally.watch(counted(iter_score_lines(ds, store, extractor, workers))))
    finally:
        close_extractor(extractor)
    tally.torn_bytes = store.torn_bytes
    store.write_manifest(manifest.model_copy(update={"verifier_version": verifier_label(extractor)}))
    return tally


def finish_scoring(run: Path, unscored: Mapping[str, int], again: str, torn_bytes: int = 0) -> None:
    """The end of a scoring command: exit :data:`~sitbench.errors.EXIT_INCOMPLETE` with one line when any
    trial is unscored or responses.jsonl ends in a torn line, naming how many, why, and the command that
    finishes the job (``again``)."""
    from sitbench.errors import EXIT_INCOMPLETE
    from sitbench.runs import describe_unscored

    summary = describe_unscored(unscored)
    if not summary and not torn_bytes:
        return
    runs_first = torn_bytes or any(reason in unscored for reason in ("torn", "not run"))
    fix = (f"finish the run with `sitbench run ... --resume`, then run `{again}`" if runs_first
           else f"run `{again}` again when the extractor answers (what was read is cached)")
    what = (f"unscored: {summary}: these trials have no verdict; they are left out of every figure and never "
            "counted as failures" if summary else
            f"responses.jsonl ends with a torn line ({torn_bytes} bytes: a trial's record was cut off mid-write); "
            "the run is not finished")
    click.echo(f"error: {run}: {what}; {fix} (exit code {EXIT_INCOMPLETE})", err=True)
    raise click.exceptions.Exit(EXIT_INCOMPLETE)


@click.command(epilog=configurations_help())
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--config", "configs", default="all", show_default=True,
              help="Configurations to run: 'all' or a comma list such as B,C,I (listed below). G_budget is accepted "
                   "on any dataset, but it only differs from G where a history exceeds its 4,096-token budget (a "
                   "long generated suite, experiment E6): on the pilot every prompt fits and G_budget equals G.")
@click.option("--model", default=None, help="Candidate: mock/collapse, mock/oracle, openai/MODEL, "
              "anthropic/MODEL, llamacpp/PATH.gguf or local/smollm2 (or give --agent).")
@click.option("--agent", default=None, help="Run your own agent instead of a candidate: package.module:factory, "
              "path/to/file.py:factory, http://HOST:PORT (the HTTP agent protocol) or an installed agent's name. "
              "Each probe's schedule goes through ingest/respond/end_session; --timeout limits each agent call "
              "(default 120 s); --cache serves whole trials of the same agent, options, evidence and schedule; --config, "
              "--handler and decoding options do not apply. Credentials belong in the environment "
              "(--agent \"$AGENT_URL\"): a URL's user:password@ and ?token= values are used to connect but never "
              "written or printed (manifest, responses and messages hold the URL without them).")
@click.option("--agent-state", type=click.Choice(["auto", "fork", "reingest"]), default="auto", show_default=True,
              help="How each agent trial starts clean: fork() an ingested state, or a fresh agent that ingests "
                   "again; auto forks when the agent supports it.")
@click.option("--agent-option", "agent_options", multiple=True, metavar="KEY=VALUE",
              help="A keyword argument for the agent's factory (repeatable), e.g. model=mock/oracle for the "
                   "reference agents sitbench.agents:structured_state, :full_context, :rag, :filtered_rag.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Run directory.")
@click.option("--handler", type=click.Choice(["native", "perfect"]), default="native", show_default=True,
              help="Evidence handler for D–H: the configuration's own, or a perfect (oracle-selected) one.")
@click.option("--max-connections", default=8, show_default=True, type=_Bounded(int, 1, 1024),
              help="Concurrent candidate calls (1–1024).")
@click.option("--shard", default=None, help="Run only shard i/n of the trials (merge shards with `sitbench merge`).")
@click.option("--probes", "probe_ids", default=None, metavar="ID,…",
              help="Run only these probes (and the collision partners of theorem-qualified ones), under every "
                   "configuration: a partial run, marked so in the manifest; `merge` refuses it beside a full run.")
@click.option("--limit", "probe_limit", type=_Bounded(int, 1, 10_000_000), default=None, metavar="N",
              help="Run about N probes (at most N), the same for every configuration: a seeded draw stratified by "
                   "probe category that keeps theorem-qualified probes with their partners (--limit-seed); a "
                   "partial run, as with --probes. To try a model on a handful first.")
@click.option("--limit-seed", type=SEED, default=0, show_default=True, help="Seed of the --limit draw (recorded).")
@click.option("--workers", type=WORKERS, default=None,
              help="Processes that run the trials, each with --max-connections calls in flight: " + WORKERS_HELP
                   + ". Default: one per CPU (at most 8) for a mock candidate's run of 2,000 trials or more, else 1 "
                   "(a model behind an API waits rather than computes; a local model already uses every core). The "
                   "stored responses are the same for any number.")
@click.option("--resume", is_flag=True, help="Continue a run in --out, skipping finished trials.")
@click.option("--temperature", default=0.0, show_default=True, type=_Bounded(float, 0, 2),
              help="Sampling temperature, 0–2 (0 asks for greedy decoding).")
@click.option("--top-p", default=1.0, show_default=True, type=_Bounded(float, 0, 1, low_open=True),
              help="Nucleus sampling mass, in (0, 1].")
@click.option("--max-tokens", default=512, show_default=True, type=_Bounded(int, 1, 1_000_000),
              help="Output budget of one answer, in tokens (≥ 1).")
@click.option("--seed", default=0, show_default=True, type=SEED,
              help="Decoding seed for providers that take one (0 … 2**63 − 1).")
@model_access_options("the trial is dropped")
@click.option("--max-drop-rate", default=0.02, show_default=True, type=_Bounded(float, 0, 1),
              help="Share of dropped trials (infrastructure failures) above which the run exits with code 4; "
                   "`--resume` re-attempts dropped trials.")
@click.option("--max-response-chars", default=DEFAULT_MAX_RESPONSE_CHARS, show_default=True,
              type=_Bounded(int, 100, 10_000_000),
              help="The cap on one answer, in characters (100–10,000,000; recorded in the manifest). A longer "
                   "answer ends its trial: it is stored cut at the cap, flagged over_length and scored invalid, "
                   "never read on a prefix.")
def run(dataset: Path, configs: str, model: str | None, out: Path, handler: str, max_connections: int,
        shard: str | None, agent: str | None, agent_state: str, agent_options: tuple[str, ...], resume: bool,
        temperature: float, top_p: float, max_tokens: int, seed: int, base_url: str | None,
        api_key_env: str | None, timeout_s: float | None, cache: bool, cache_path: Path | None, epoch: int,
        max_retries: int | None, max_drop_rate: float, workers: int | None, max_response_chars: int,
        probe_ids: str | None, probe_limit: int | None, limit_seed: int) -> None:
    """Run a candidate over DATASET under configurations A–I and store every response.

    Writes OUT/manifest.json and OUT/responses.jsonl (exact inputs and outputs of
    every trial, multi-turn schedules and what persisted across each reset). Every
    serialized prompt passes the payload-isolation audit or the run stops.
    Score it afterwards with `sitbench score OUT`.

    With --agent instead of --model, your own agent is the architecture: each
    probe's schedule goes through its ingest / respond / end_session hooks
    (trials agent:PROBE_ID; every payload passes the same audit).

    Exit codes: 0 done; 2 bad input; 3 a prompt failed the payload-isolation
    audit; 4 more trials dropped than --max-drop-rate allows, or none completed.
    The last lines name the first distinct drop reasons, counted: a timeout, a
    refused connection or a server error passes on a re-attempt (the same
    command with --resume); an agent that raised or replied in no accepted form
    fails again until it is fixed.

    \b
    Example:
      sitbench run data/pilot --config all --model mock/oracle --out runs/oracle
      sitbench run data/pilot --agent examples/keyword_agent.py:make --out runs/kw
    """
    if agent is not None or model is None:
        _agent_run_command(click.get_current_context(), dataset, agent, model, out, agent_state, shard, resume,
                          max_connections, timeout_s, max_drop_rate, agent_options, cache, cache_path, epoch,
                          max_response_chars, probe_ids, probe_limit, limit_seed)
        return
    options = candidate_options(base_url, api_key_env, timeout_s, max_retries)
    started = time.perf_counter()
    before = _already_done(out, resume)
    attempted, completed = execute_run(dataset, model, out, configs, handler, max_connections, shard, resume,
                                       temperature, top_p, max_tokens, seed, options, cache=cache,
                                       cache_path=cache_path, epoch=epoch, workers=workers,
                                       max_response_chars=max_response_chars, probes=probe_ids, limit=probe_limit,
                                       limit_seed=limit_seed)
    _finish_run(out, attempted, completed, time.perf_counter() - started, max_drop_rate,
                same="same `sitbench run` command (same dataset, --model, --config and decoding options)",
                detail=_resumed(before, attempted))


def _already_done(out: Path, resume: bool) -> int | None:
    """With --resume, the trials the run already holds a finished record of (None without --resume)."""
    if not resume or not (out / "responses.jsonl").is_file():
        return None if not resume else 0
    from sitbench.runs import RunStore

    return sum(t.status != "dropped" for t in RunStore(out).iter_trials())


def _resumed(before: int | None, attempted: int) -> str:
    return "" if before is None else f" (resumed: {before} were done before, {attempted - before} attempted now)"


def _finish_run(out: Path, attempted: int, completed: int, seconds: float, max_drop_rate: float, *,
                same: str, detail: str = "") -> None:
    """The end of `sitbench run`: counts and the next command; the first distinct drop reasons, counted, with
    advice that fits them; exit 4 above the rate."""
    dropped = attempted - completed
    nothing = attempted > 0 and completed == 0
    following = "" if nothing else f"; next: sitbench score {out}"
    detail += _partial(out)
    click.echo(f"{out}: {completed}/{attempted} trials completed in {seconds:.1f}s{detail}{following}")
    if not dropped:
        return
    from sitbench.runs import DropKind

    click.echo(f"warning: {dropped} of {attempted} trials dropped; dropped trials are attempted, never scored as "
               "failures. Why:", err=True)
    reasons = _echo_drop_reasons(out)
    transient = sum(r.count for r in reasons if r.kind is DropKind.TRANSIENT)
    if transient:
        click.echo(f"{transient} of them failed on the network, the server or the clock: re-attempt them by running "
                   f"the {same} with --resume added.", err=True)
    if transient < dropped:
        click.echo(f"{dropped - transient} of them failed in a way a re-attempt repeats (the agent's code or reply, or "
                   "the request itself): fix that first; --resume re-attempts them after the fix.", err=True)
    if nothing:
        click.echo(f"no trial of {out} completed: there is nothing to score until the cause above is fixed", err=True)
    if attempted and dropped / attempted > max_drop_rate:
        click.echo(f"error: {dropped / attempted:.1%} of trials dropped, above --max-drop-rate "
                   f"{max_drop_rate:.1%} (exit code {EXIT_TOO_MANY_DROPS})", err=True)
        raise click.exceptions.Exit(EXIT_TOO_MANY_DROPS)


def _partial(out: Path) -> str:
    """`` (partial: N probes, RULE)`` for a run of --probes or --limit; empty for a full run."""
    from sitbench.runs import RunStore

    store = RunStore(out)
    selection = store.manifest().probes if store.has_manifest() else None
    return "" if selection is None else f" (partial: {len(selection.probe_ids)} probes, {selection.rule})"


_SHOWN_REASONS = 3
"""How many distinct drop reasons a run's last lines show."""


def _echo_drop_reasons(run: Path) -> list[Any]:
    """The first distinct drop reasons of ``run``, counted, on stderr (and the accepted reply forms once, when an
    agent replied in none); returns every distinct reason."""
    from sitbench.agents import ACCEPTED_REPLY_FORMS, AgentFailure
    from sitbench.runs import RunStore, summarize_drops

    reasons = summarize_drops(RunStore(run).iter_trials())
    for reason in reasons[:_SHOWN_REASONS]:
        click.echo(f"  {reason.count} × {reason.reason} (first: {reason.first_trial})", err=True)
    if len(reasons) > _SHOWN_REASONS:
        rest = sum(r.count for r in reasons[_SHOWN_REASONS:])
        click.echo(f"  {rest} more, with {len(reasons) - _SHOWN_REASONS} other reasons (each trial's is its "
                   "drop_reason in responses.jsonl)", err=True)
    if any(r.reason.startswith(AgentFailure.MALFORMED.value) for r in reasons):
        click.echo(f"  accepted replies: {ACCEPTED_REPLY_FORMS}", err=True)
    return reasons


def _agent_run_command(ctx: click.Context, dataset: Path, agent: str | None, model: str | None, out: Path, state: str,
                      shard: str | None, resume: bool, max_connections: int, timeout_s: float | None,
                      max_drop_rate: float, agent_options: tuple[str, ...] = (), cache: bool = False,
                      cache_path: Path | None = None, epoch: int = 0,
                      max_response_chars: int | None = None, probe_ids: str | None = None,
                      probe_limit: int | None = None, limit_seed: int = 0) -> None:
    """``sitbench run --agent``: options checked, the run made, drops listed; exit 4 above the drop rate."""
    from click.core import ParameterSource

    from sitbench.runs import AgentRunner, RunStore, parse_agent_options, run_agent

    if agent is None:
        raise InputError("sitbench run: give --model (a candidate, e.g. --model mock/oracle) or --agent (your own "
                         "agent, e.g. --agent examples/keyword_agent.py:make)")
    if agent_options and agent.startswith(("http://", "https://")):
        raise InputError(f"--agent-option: the HTTP agent {agent} takes no options; configure the server instead")
    if model is not None:
        raise InputError(f"--model {model!r} and --agent {agent!r}: give one; an agent run has no candidate")
    not_for_agents = ["configs", "handler", "temperature", "top_p", "max_tokens", "seed", "base_url", "api_key_env",
                      "workers"]
    given = [name for name in not_for_agents if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE]
    if given:
        flags = ", ".join("--" + ("config" if n == "configs" else n.replace("_", "-")) for n in given)
        raise InputError(f"--agent {agent!r}: {flags} do not apply to an agent run (the agent is the architecture "
                         "and decodes itself); leave them out")
    from sitbench.candidates import CACHE_FILE, ResponseCache, default_cache_dir

    response_cache = ResponseCache(cache_path or default_cache_dir() / CACHE_FILE) if cache else None
    started = time.perf_counter()
    before = _already_done(out, resume)
    from sitbench._urls import redact_url

    progress = _progress(0, redact_url(agent))  # an agent URL's credentials are never printed
    with progress:
        task = progress.add_task("run", total=None)

        def begin(runner: AgentRunner) -> None:
            from sitbench.runs import trial_ids

            total = len(trial_ids(runner.ds, runner.options.configs, runner.options.shard, runner.options.probes))
            done = sum(t.status != "dropped" for t in RunStore(out).iter_trials()) if resume else 0
            progress.update(task, total=total, completed=done)

        try:
            manifest = run_agent(dataset, agent, out, state=state, shard=shard, resume=resume,
                                 max_connections=max_connections, timeout_s=timeout_s,
                                 on_trial=lambda _record: progress.advance(task), on_start=begin,
                                 options=parse_agent_options(agent_options), response_cache=response_cache,
                                 epoch=epoch, probes=probe_ids, probe_limit=probe_limit, limit_seed=limit_seed,
                                 **_cap(max_response_chars))
        finally:
            if response_cache is not None:
                response_cache.close()
    attempted, completed = manifest.counts.get("attempted", 0), manifest.counts.get("completed", 0)
    state_used = manifest.agent.state_policy.value if manifest.agent else "?"
    _finish_run(out, attempted, completed, time.perf_counter() - started, max_drop_rate,
                detail=f" (agent state: {state_used}){_resumed(before, attempted)}", same="same `sitbench run` command")


_EXTRACTOR = click.option("--extractor", "extractor_spec", default="rules", show_default=True,
                          help="Stage-1 reader: rules (offline default), llm:MODEL (a gold-blind LLM extractor "
                               "over any candidate, e.g. llm:openai/gpt-4o-mini; SITBENCH_EXTRACTOR_BASE_URL and "
                               "SITBENCH_EXTRACTOR_API_KEY_ENV set its base_url and api_key_env) or a registered "
                               "extractor.")


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@_EXTRACTOR
@click.option("--dataset", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Dataset directory, when it moved since the run (it must be the same dataset).")
@click.option("--workers", type=WORKERS, default=None,
              help="Scoring processes: " + WORKERS_HELP + ". Default: one per CPU (at most 8) for a run of 2,000 "
                   "trials or more read by the rule extractor, else 1. The scores are the same for any number.")
def score(run_dir: Path, extractor_spec: str, dataset: Path | None, workers: int | None) -> None:
    """Extract and score the stored responses of RUN_DIR (no candidate is called).

    Writes RUN_DIR/scores.jsonl: the observation, the seven-check verdict, the
    partner verdict for theorem-qualified probes, and the FMR/TL/UEL flags. An
    answer longer than the run's cap is invalid (over_length) without being read.

    Exit codes: 0 done; 2 bad input; 4 some trials are unscored: the extractor
    could not read them (run the same command again to finish: what was read is
    cached), or the run holds only a torn record of them or none (finish the run
    with `sitbench run ... --resume`, then score again); 4 also when no trial
    completed (every one dropped: nothing to score). Unscored trials are left
    out of every figure and never counted as failures.

    \b
    Example:
      sitbench score runs/oracle && sitbench metrics runs/oracle
    """
    tally = score_run(run_dir, extractor_spec, dataset, workers)
    counts = tally.counts
    dropped = f" ({counts['dropped']} dropped: attempted, not scored)" if counts["dropped"] else ""
    scored = f"scored {counts['completed']} trials{dropped}{tally.agreement_summary()}"
    if not counts["completed"] and not counts["unscored"]:
        from sitbench.errors import EXIT_INCOMPLETE

        click.echo(f"error: {run_dir}: no trial completed{dropped}: there is nothing to score and no figure to show; "
                   f"fix the cause, run again, then score (exit code {EXIT_INCOMPLETE}). Why they dropped:", err=True)
        _echo_drop_reasons(run_dir)
        raise click.exceptions.Exit(EXIT_INCOMPLETE)
    if counts["unscored"] or tally.torn_bytes:
        click.echo(f"{run_dir}: {scored}" + (f", unscored: {tally.unscored_summary()}" if counts["unscored"] else ""))
        finish_scoring(run_dir, tally.unscored, f"sitbench score {run_dir}", tally.torn_bytes)
    click.echo(f"{run_dir}: {scored}; next: sitbench metrics {run_dir} (the table), then "
               f"sitbench report {run_dir} --out {run_dir / 'report.html'} (glossary, charts, failed trials)")


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="New run directory for the rescored copy (RUN_DIR stays as it was).")
@click.option("--dataset", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Dataset directory, when it moved since the run.")
@_EXTRACTOR
@click.option("--resume", is_flag=True,
              help="OUT is an earlier rescore of RUN_DIR that left trials unscored: rescore it again and replace it "
                   "(an LLM extractor's cached readings are not asked for again).")
def rescore(run_dir: Path, out: Path, dataset: Path | None, extractor_spec: str, resume: bool) -> None:
    """Re-extract and re-score RUN_DIR's stored responses with the installed verifier.

    No candidate is called. OUT gets a copy of the responses, fresh scores.jsonl, and a
    manifest whose extra.rescore names both verifier versions and counts, per probe
    category, the trials whose SValid changed, and per check, how many of those
    changed that check's result. OUT appears whole or not at all: a killed rescore
    leaves it as it was, and the same command can be run again.

    Exit codes: 0 done; 2 bad input; 4 some trials are unscored (the extractor could
    not read them, or the run holds only a torn record of them): they are left out of
    every figure, never counted as failures; finish with --resume.

    \b
    Examples:
      sitbench rescore runs/gpt --out runs/gpt-v2
      sitbench rescore runs/gpt --out runs/gpt-llm --extractor llm:openai/gpt-4o-mini
      sitbench rescore runs/gpt --out runs/gpt-llm --extractor llm:openai/gpt-4o-mini --resume
    """
    from sitbench.runs import describe_unscored, rescore_run

    report = rescore_run(run_dir, out, dataset, extractor_spec, resume=resume)
    changed = sum(report.changed_verdicts.values())
    per = ", ".join(f"{category_label(k)}: {v}" for k, v in report.changed_verdicts.items()) or "none"
    checks = ", ".join(f"{k} {v}" for k, v in report.changed_checks.items())
    click.echo(f"{out}: rescored {report.scored} trials with {report.verifier_version} "
               f"(was {report.previous_verifier_version or 'unscored'}); {changed} of {report.compared} "
               f"verdicts changed ({per}){'; checks that changed in them: ' + checks if checks else ''}"
               + (f"; unscored: {describe_unscored(report.unscored)}" if report.unscored
                  else "" if report.torn_bytes else f"; next: sitbench metrics {out}"))
    again = " ".join(["sitbench rescore", str(run_dir), "--out", str(out)]
                     + (["--dataset", str(dataset)] if dataset else [])
                     + (["--extractor", extractor_spec] if extractor_spec != "rules" else []) + ["--resume"])
    finish_scoring(out, report.unscored, again, report.torn_bytes)


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Merged run directory.")
def merge(runs: tuple[Path, ...], out: Path) -> None:
    """Merge shard runs (`sitbench run --shard i/n`) of one run into OUT.

    The shards must share the dataset hash, configurations, handler, candidate,
    decoding and templates hash. A trial found in two shards must be identical.
    Missing trials are listed; fill them with `sitbench run ... --out OUT --resume`.

    \b
    Examples:
      sitbench merge runs/s1 runs/s2 runs/s3 --out runs/all
    """
    from sitbench.runs import merge_runs

    report = merge_runs(list(runs), out)
    click.echo(f"{out}: merged {len(runs)} runs, {report.trials} trials ({report.duplicates} duplicates dropped)"
               + ("; scores merged" if report.scores_merged else f"; next: sitbench score {out}"))
    if report.missing:
        shown = ", ".join(report.missing[:10]) + (" …" if len(report.missing) > 10 else "")
        click.echo(f"{out}: {len(report.missing)} trials missing ({shown}); fill them with "
                   f"sitbench run DATASET --out {out} --resume (same --model and --config)", err=True)


def _open_cache(cache_path: Path | None, *, read_only: bool = False) -> ResponseCache:
    from sitbench.candidates import CACHE_FILE, ResponseCache, default_cache_dir

    return ResponseCache(cache_path or default_cache_dir() / CACHE_FILE, read_only=read_only)


_CACHE_PATH = click.option("--cache-path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                           help="Response cache file (default: $SITBENCH_CACHE_DIR or ~/.cache/sitbench, "
                                "responses.sqlite).")


@click.group()
def cache() -> None:
    """Inspect or empty the SQLite response cache.

    \b
    Examples:
      sitbench cache stats
      sitbench cache clear --model openai/gpt-4o-mini
    """


@cache.command("stats")
@_CACHE_PATH
def cache_stats(cache_path: Path | None) -> None:
    """Entries per model, age range and size of the response cache.

    \b
    Examples:
      sitbench cache stats
      sitbench cache stats --cache-path runs/cache.sqlite
    """
    with _open_cache(cache_path, read_only=True) as store:  # reading never creates a cache
        stats = store.stats()
        click.echo(f"{store.path}: {stats.entries} responses, {stats.size_bytes / 1024:.1f} KiB"
                   + (f", {stats.oldest} … {stats.newest}" if stats.entries else ""))
        for model, n in stats.by_model.items():
            click.echo(f"  {model or '(unnamed)'}: {n}")


@cache.command("clear")
@_CACHE_PATH
@click.option("--model", default=None, help="Delete only this model id's responses. A model with nothing cached "
              "is not an error (exit 0): the line says so and lists the models that are cached.")
def cache_clear(cache_path: Path | None, model: str | None) -> None:
    """Delete cached responses (all, or one model's).

    Clearing is idempotent: when nothing is cached for --model, it says so,
    names the cached models (see `sitbench cache stats`) and exits 0.

    \b
    Examples:
      sitbench cache clear --model openai/gpt-4o-mini
      sitbench cache clear
    """
    with _open_cache(cache_path, read_only=True) as store:
        cached = store.stats().by_model
        if model is None and not cached:
            click.echo(f"{store.path}: nothing cached, so nothing deleted")
            return
        if model is not None and not cached.get(model):
            listed = ", ".join(m or "(unnamed)" for m in cached) or "none"
            click.echo(f"{store.path}: nothing cached for {model!r}, so nothing deleted (cached models: {listed}; "
                       "`sitbench cache stats` shows them with their counts)")
            return
    with _open_cache(cache_path) as store:
        deleted = store.clear(model)
        click.echo(f"{store.path}: deleted {deleted} responses")


@click.command()
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory for the dataset and runs (default: a new temporary directory).")
@click.option("--two-readers", is_flag=True,
              help="Score every answer twice: the rules, and the shipped blind readings of the demo's answers "
                   "(a careful reader who saw only the LLM extractor's prompt); the tables then show each "
                   "figure's band and the report the contested trials.")
def demo(out_dir: Path | None, two_readers: bool) -> None:
    """The main job, offline: build the reference pilot, run every configuration A–I with the
    deterministic mock candidates, score, and print a table shaped like the seed paper's Table 6
    (The Situated Identity Test: Distinguishing Persistent Cognitive Identity from
    Persona Imitation; the symbols are defined in docs/concepts.md).

    Three runs: mock/collapse (profile-only improviser), mock/oracle (rule-based situated
    agent), and mock/oracle with perfect evidence handlers for D–H.

    \b
    Examples:
      sitbench demo
      sitbench demo --out demo/
      sitbench demo --two-readers     # every figure with the band two readers span
    """
    from sitbench.data import demo_readings, pilot_content, write_dataset
    from sitbench.metrics import compute_metrics, load_scores, render_table
    from sitbench.render import output_console, print_table
    from sitbench.runs import RunStore
    from sitbench.stores import make_dirs

    started = time.perf_counter()
    root = out_dir or Path(tempfile.mkdtemp(prefix="sitbench-demo-"))
    make_dirs(root)
    dataset = root / "pilot"
    runs = [("collapse", "mock/collapse", "native"), ("oracle", "mock/oracle", "native"),
            ("oracle-perfect", "mock/oracle", "perfect")]
    for name, _, _ in runs:  # an earlier demo's runs are replaced: refused before anything is written
        if (root / f"run-{name}").exists() or (root / f"run-{name}").is_symlink():
            RunStore(root / f"run-{name}").refuse_foreign_files()
    write_dataset(pilot_content(), dataset)
    console = output_console()
    for name, model, handler in runs:
        run_dir = root / f"run-{name}"
        if run_dir.exists():
            import shutil

            shutil.rmtree(run_dir)  # an earlier demo's run (checked before anything was written)
        execute_run(dataset, model, run_dir, "all", handler, label=f"{name}")
        tally = score_run(run_dir, f"rules+llm:replay/{demo_readings()}" if two_readers else None)
        if tally.counts["unscored"]:
            raise SitbenchError(f"{run_dir}: {tally.unscored_summary()}: the shipped demo readings do not cover "
                                "these answers (the demo's candidates changed since they were read); run "
                                "`sitbench demo` without --two-readers")
        title = f"{model}" + (" with perfect evidence handlers (D–H)" if handler == "perfect" else "")
        print_table(console, render_table(compute_metrics(load_scores(run_dir)), title=title))
    from sitbench.report import write_report
    from sitbench.stats import analyze_runs

    analysis = analyze_runs([root / "run-oracle"]).model_dump(mode="json")
    report = write_report([root / f"run-{name}" for name, _, _ in runs], root / "report.html", analysis=analysis)
    console.print(f"dataset and runs in {root} ({time.perf_counter() - started:.1f}s)")
    console.print(f"report: {report}")
    console.print(f"next: open the report; then run a real model on the same dataset, e.g. sitbench run {dataset} "
                  "--config all --model openai/MODEL --out runs/MODEL (its 'What to do next' box lists more)",
                  soft_wrap=True)


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--extractor", "extractor_spec", required=True,
              help="Extractor to read the run with, e.g. llm:openai/gpt-4o-mini (see sitbench judge --help).")
@click.option("--dataset", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Dataset directory, when it moved since the run.")
def observe(run_dir: Path, extractor_spec: str, dataset: Path | None) -> None:
    """Read RUN_DIR's stored responses with another extractor, beside its scores.

    Writes RUN_DIR/observations/<extractor>@<version>.jsonl (observation and verdicts per
    trial); scores.jsonl is left as it was. Compare the readings with `sitbench agreement`.

    \b
    Examples:
      sitbench observe runs/gpt --extractor llm:openai/gpt-4o-mini
    """
    from sitbench.runs import observe_run

    out = observe_run(run_dir, extractor_spec, dataset)
    click.echo(f"{out}: written; next: sitbench agreement {run_dir}")


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--reference", default="scores", show_default=True,
              help="Reading the others are compared with: 'scores' or an observations/ file name.")
@click.option("--json", "as_json", is_flag=True, help="Print the agreement reports as JSON.")
def agreement(run_dir: Path, reference: str, as_json: bool) -> None:
    """Agreement between the extractors that read RUN_DIR (acts, claims, verdicts, κ), per category.

    \b
    Examples:
      sitbench agreement runs/gpt
      sitbench agreement runs/gpt --reference scores --json
    """
    import json

    from sitbench.runs import run_agreement
    from sitbench.verify import format_figures

    reports = run_agreement(run_dir, reference)
    if as_json:
        click.echo(json.dumps({k: v.model_dump(mode="json") for k, v in reports.items()}, indent=2))
        return
    for name, report in reports.items():
        click.echo(format_figures(f"{name} vs {reference}", report.overall))
        for value, figures in report.groups.get("category", {}).items():
            click.echo(format_figures(f"  {category_label(value)}", figures))
