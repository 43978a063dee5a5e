"""``sitbench serve``: the shipped local model behind a supervised OpenAI-compatible server."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from types import FrameType

import click

from sitbench.candidates import LocalServer, ServerEvent
from sitbench.errors import InputError

_MiB = 2**20


def _resolve_model(model: str) -> tuple[Path, str]:
    """A shipped local model name (``smollm2``, ``local/smollm2``) or a .gguf path -> (file, alias)."""
    from sitbench.candidates.llamacpp import LOCAL_MODELS, find_shipped_gguf

    name = model.removeprefix("local/")
    if name in LOCAL_MODELS:
        return find_shipped_gguf(name)[0], name
    path = Path(model)
    if path.suffix.lower() == ".gguf":
        if not path.is_file():
            raise InputError(f"serve MODEL: {path} is not a file; give an existing .gguf file")
        return path, path.stem
    known = ", ".join(sorted(LOCAL_MODELS))
    raise InputError(f"serve MODEL: {model!r} is neither a shipped local model ({known}) nor a .gguf file")


def _say(event: ServerEvent) -> None:
    click.echo(f"serve: {event.kind.value} (pid {event.pid}) {event.detail}".rstrip(), err=True)


def _stop_on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@click.command()
@click.argument("model", default="smollm2")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535), help="TCP port.")
@click.option("--n-ctx", default=4096, show_default=True, type=click.IntRange(256, 131_072),
              help="Context window in tokens (the longest pilot prompt needs about 3,000).")
@click.option("--threads", type=click.IntRange(1, 1024), default=None,
              help="llama.cpp threads [default: half the cores].")
@click.option("--alias", default=None, help="Model id the server reports [default: the model name].")
@click.option("--prompt-cache", is_flag=True,
              help="Keep llama.cpp's RAM cache of prompt states. Off by default: it grew past 20 GB "
                   "over one pilot run; without it the server stays under 1 GB.")
@click.option("--max-rss-mb", default=4096, show_default=True, type=click.IntRange(0, 1_048_576),
              help="Restart the server when its resident memory passes this (0: never).")
@click.option("--max-restarts", default=5, show_default=True, type=click.IntRange(0, 1000),
              help="Give up (exit 1) after this many restarts of a dead, hung or oversized server.")
@click.option("--check-every", default=2, show_default=True, type=click.IntRange(1, 3600),
              help="Seconds between health checks (alive, its HTTP loop answers, memory).")
@click.option("--unhealthy-after", default=60, show_default=True, type=click.IntRange(1, 86_400),
              help="Restart a live server whose HTTP loop has not answered for this many seconds "
                   "(a busy model is not a hang: the check does not wait for it).")
@click.option("--status-every", default=300, show_default=True, type=click.IntRange(0, 86_400),
              help="Seconds between status lines on stderr (RSS, restarts); 0: none.")
@click.option("--startup-timeout", default=120, show_default=True, type=click.IntRange(1, 3600),
              help="Seconds to wait for the server to answer after each start.")
def serve(model: str, host: str, port: int, n_ctx: int, threads: int | None, alias: str | None,
          prompt_cache: bool, max_rss_mb: int, max_restarts: int, check_every: int, unhealthy_after: int,
          status_every: int, startup_timeout: int) -> int:
    """Serve MODEL (default: the shipped SmolLM2) as an OpenAI-compatible API until Ctrl-C.

    MODEL is a shipped local model (smollm2) or a .gguf file. The server is
    llama.cpp's (llama-cpp-python[server], installed by pip install -e ".[local]").
    It is supervised: checked every --check-every seconds, and restarted when it
    exits, stops answering, or passes --max-rss-mb. While it restarts, clients see
    refused connections, which `sitbench run` retries with backoff. The first stdout
    line says where it listens and how to point `sitbench run` at it; events go to
    stderr.

    The server answers one request at a time, so run against it with
    --max-connections 1: more connections only queue (a queued call can outlast
    --timeout and be sent again), and trials that come in order share the start of
    their prompts, which the server does not evaluate twice.

    \b
    Examples:
      sitbench serve smollm2 --port 8080
      sitbench run data/pilot --config all --model openai/smollm2 \\
          --base-url http://127.0.0.1:8080/v1 --max-connections 1 --out runs/smollm2
      sitbench serve path/to/model.gguf --n-ctx 8192 --threads 8
    """
    path, default_alias = _resolve_model(model)
    server = LocalServer(
        path, host=host, port=port, n_ctx=n_ctx, n_threads=threads, alias=alias or default_alias,
        prompt_cache=prompt_cache, max_rss_bytes=max_rss_mb * _MiB if max_rss_mb else None,
        unhealthy_after_s=unhealthy_after, startup_timeout_s=startup_timeout,
    )
    previous = signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        started = server.start()
        click.echo(f"serving {server.alias} at {server.base_url} (pid {started.pid}); "
                   f"use --model openai/{server.alias} --base-url {server.base_url} --max-connections 1")
        sys.stdout.flush()
        last_status = time.monotonic()
        while True:
            time.sleep(check_every)
            for event in server.check():
                _say(event)
            if server.restarts > max_restarts:
                click.echo(f"serve: {server.restarts} restarts > --max-restarts {max_restarts}; giving up. "
                           f"Look at the events above, or raise --max-rss-mb / --n-ctx.", err=True)
                return 1
            if status_every and time.monotonic() - last_status >= status_every:
                rss = server.rss_bytes()
                memory = "RSS unknown" if rss is None else f"RSS {rss / _MiB:,.0f} MiB"
                click.echo(f"serve: up (pid {server.pid}) {memory}, {server.restarts} restarts", err=True)
                last_status = time.monotonic()
    except KeyboardInterrupt:
        return 0
    finally:
        stopped = server.stop()
        if stopped is not None:
            _say(stopped)
        signal.signal(signal.SIGTERM, previous)
