"""``sitbench run``, ``score`` and ``demo``."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import click

from sitbench.errors import InputError


def _quiet() -> bool:
    return os.environ.get("CI") == "true" or not sys.stderr.isatty()


def _progress(total: int, label: str):  # noqa: ANN202
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    disable=_quiet(), transient=True)


def execute_run(dataset: Path, model: str, out: Path, configs: str = "all", handler: str = "native",
                max_connections: int = 8, shard: str | None = None, resume: bool = False,
                temperature: float = 0.0, top_p: float = 1.0, max_tokens: int = 512, seed: int | None = 0,
                model_options: dict[str, object] | None = None, label: str | None = None) -> tuple[int, int]:
    """Run one candidate over a dataset; returns (attempted, completed)."""
    from sitbench.candidates import DecodingConfig, get_candidate
    from sitbench.runs._runner import RunOptions, Runner, default_cache_dir, parse_configs, parse_shard, trial_ids

    options = RunOptions(configs=parse_configs(configs), handler=handler,  # type: ignore[arg-type]
                         decoding=DecodingConfig(temperature=temperature, top_p=top_p, max_tokens=max_tokens,
                                                 seed=seed),
                         max_connections=max_connections, shard=parse_shard(shard),
                         cache_dir=default_cache_dir() / "embeddings")
    candidate = get_candidate(model, **(model_options or {}))
    progress = _progress(0, label or f"{model}")
    with progress:
        task = progress.add_task("run", total=None)
        runner = Runner(dataset, candidate, model, out, options,
                        on_trial=lambda _record: progress.advance(task))
        progress.update(task, total=len(trial_ids(runner.ds, options.configs, options.shard)))
        manifest = asyncio.run(runner.run(resume=resume))
    return manifest.counts.get("attempted", 0), manifest.counts.get("completed", 0)


def score_run(run: Path) -> int:
    """Score a run's stored responses; returns the number of scored trials."""
    from sitbench.lineage._checks import load_dataset
    from sitbench.runs._scoring import score_trials
    from sitbench.runs._store import RunStore
    from sitbench.verify import VERIFIER_VERSION

    store = RunStore(run).require()
    manifest = store.manifest()
    dataset = Path(str(manifest.dataset.get("path", "")))
    if not dataset.is_dir():
        raise InputError(f"{run}/manifest.json: dataset.path {str(dataset)!r} is not a directory; "
                         "move the dataset back or pass it with --dataset")
    records = score_trials(load_dataset(dataset), store.trials())
    store.write_scores(records)
    store.write_manifest(manifest.model_copy(update={"verifier_version": VERIFIER_VERSION}))
    return len(records)


@click.command()
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--config", "configs", default="all", show_default=True,
              help="Configurations to run: 'all' or a comma list such as B,C,I.")
@click.option("--model", required=True, help="Candidate: mock/collapse, mock/oracle, openai/MODEL, "
              "anthropic/MODEL, llamacpp/PATH.gguf or local/smollm2.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Run directory.")
@click.option("--handler", type=click.Choice(["native", "perfect"]), default="native", show_default=True,
              help="Evidence handler for D–H: the configuration's own, or a perfect (oracle-selected) one.")
@click.option("--max-connections", default=8, show_default=True, help="Concurrent candidate calls.")
@click.option("--shard", default=None, help="Run only shard i/n of the trials (merge shards with `sitbench merge`).")
@click.option("--resume", is_flag=True, help="Continue a run in --out, skipping finished trials.")
@click.option("--temperature", default=0.0, show_default=True, type=float)
@click.option("--top-p", default=1.0, show_default=True, type=float)
@click.option("--max-tokens", default=512, show_default=True, type=int)
@click.option("--seed", default=0, show_default=True, type=int, help="Decoding seed for providers that take one.")
@click.option("--base-url", default=None, help="Base URL of an OpenAI-compatible server (openai/ models).")
@click.option("--api-key-env", default=None, help="Environment variable holding the API key.")
def run(dataset: Path, configs: str, model: str, out: Path, handler: str, max_connections: int, shard: str | None,
        resume: bool, temperature: float, top_p: float, max_tokens: int, seed: int, base_url: str | None,
        api_key_env: str | None) -> None:
    """Run a candidate over DATASET under configurations A–I and store every response.

    Writes OUT/manifest.json and OUT/responses.jsonl (exact inputs and outputs of
    every trial, multi-turn schedules and what persisted across each reset). Every
    serialized prompt passes the payload-isolation audit or the run stops.
    Score it afterwards with `sitbench score OUT`.
    """
    options: dict[str, object] = {}
    if base_url:
        options["base_url"] = base_url
    if api_key_env:
        options["api_key_env"] = api_key_env
    started = time.perf_counter()
    attempted, completed = execute_run(dataset, model, out, configs, handler, max_connections, shard, resume,
                                       temperature, top_p, max_tokens, seed, options)
    click.echo(f"{out}: {completed}/{attempted} trials completed in {time.perf_counter() - started:.1f}s; "
               f"next: sitbench score {out}")


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
def score(run_dir: Path) -> None:
    """Extract and score the stored responses of RUN_DIR (no model is called).

    Writes RUN_DIR/scores.jsonl: the observation, the seven-check verdict, the
    partner verdict for theorem-qualified probes, and the FMR/TL/UEL flags.
    """
    n = score_run(run_dir)
    click.echo(f"{run_dir}: scored {n} trials; next: sitbench metrics {run_dir}")


@click.command()
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory for the dataset and runs (default: a new temporary directory).")
def demo(out_dir: Path | None) -> None:
    """The main job, offline: build the reference pilot, run every configuration A–I with the
    deterministic mock candidates, score, and print a table shaped like the paper's Table 6.

    Three runs: mock/collapse (profile-only improviser), mock/oracle (rule-based situated
    agent), and mock/oracle with perfect evidence handlers for D–H.
    """
    from rich.console import Console

    from sitbench.data import pilot_content, write_dataset
    from sitbench.metrics import compute_metrics, load_scores, render_table

    started = time.perf_counter()
    root = out_dir or Path(tempfile.mkdtemp(prefix="sitbench-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    dataset = root / "pilot"
    write_dataset(pilot_content(), dataset)
    console = Console(width=max(160, Console().width))
    runs = [("collapse", "mock/collapse", "native"), ("oracle", "mock/oracle", "native"),
            ("oracle-perfect", "mock/oracle", "perfect")]
    for name, model, handler in runs:
        run_dir = root / f"run-{name}"
        if run_dir.exists():
            import shutil

            shutil.rmtree(run_dir)
        execute_run(dataset, model, run_dir, "all", handler, label=f"{name}")
        score_run(run_dir)
        title = f"{model}" + (" with perfect evidence handlers (D–H)" if handler == "perfect" else "")
        console.print(render_table(compute_metrics(load_scores(run_dir)), title=title))
    console.print(f"dataset and runs in {root} ({time.perf_counter() - started:.1f}s)")
