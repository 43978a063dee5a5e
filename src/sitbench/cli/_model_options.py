"""The options that reach a model, spelled once for every command that calls one (``run``, ``res run``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from sitbench._options import Bounded

F = TypeVar("F", bound=Callable[..., object])


def model_access_options(failure: str) -> Callable[[F], F]:
    """``--base-url``, ``--api-key-env``, ``--timeout``, ``--max-retries``, ``--cache/--no-cache``, ``--cache-path``
    and ``--epoch``, passed to the command as ``base_url``, ``api_key_env``, ``timeout_s``, ``max_retries``,
    ``cache``, ``cache_path`` and ``epoch``.

    Args:
        failure: what happens to the unit of work when its retries run out ("the trial is dropped").
    """
    options = [
        click.option("--base-url", default=None, help="Base URL of an OpenAI-compatible server (openai/ models)."),
        click.option("--api-key-env", default=None, help="Environment variable holding the API key."),
        click.option("--timeout", "timeout_s", default=None, type=Bounded(float, 0, 86_400, low_open=True),
                     help="Per-call timeout in seconds (remote models; > 0)."),
        click.option("--max-retries", default=None, type=Bounded(int, 0, 100),
                     help="Retries of a failed call (timeout, refused or reset connection, rate limit, 5xx) before "
                          f"{failure} (remote models) [default: 4, with exponential backoff]."),
        click.option("--cache/--no-cache", default=False, show_default=True,
                     help="Serve repeated requests from the SQLite response cache and store new answers there "
                          "(drops are never stored; mock candidates never use it)."),
        click.option("--cache-path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Response cache file (default: $SITBENCH_CACHE_DIR or ~/.cache/sitbench, "
                          "responses.sqlite)."),
        click.option("--epoch", default=0, show_default=True, type=Bounded(int, 0, 1_000_000),
                     help="Repetition index; part of the cache key, so a new epoch samples afresh."),
    ]

    def apply(command: F) -> F:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


def candidate_options(base_url: str | None, api_key_env: str | None, timeout_s: float | None,
                      max_retries: int | None) -> dict[str, object]:
    """The candidate factory's keyword arguments from :func:`model_access_options`, only those given."""
    given = {"base_url": base_url or None, "api_key_env": api_key_env or None, "timeout_s": timeout_s,
             "max_retries": max_retries}
    return {name: value for name, value in given.items() if value is not None}
