"""Every numeric option of every command states its bound in --help, and --workers is bounded by the machine."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import click
import pytest

from sitbench._options import MAX_WORKERS, max_workers
from sitbench.cli._main import _COMMANDS, cli

#: What an upper bound reads like in a help line: click's range (``1<=x<=1024``) or the text's own.
_UPPER = re.compile(r"x<=?|≤|…|\d–\d|at most|never above|between|below")


def _commands() -> Iterator[tuple[str, click.Command]]:
    ctx = click.Context(cli)
    for name in _COMMANDS:
        command = cli.get_command(ctx, name)
        if command is None:
            continue
        yield from _walk(name, command)


def _walk(path: str, command: click.Command) -> Iterator[tuple[str, click.Command]]:
    yield path, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _walk(f"{path} {name}", sub)


def _numeric(param: click.Parameter) -> bool:
    kind = param.type
    return (isinstance(kind, click.types._NumberParamTypeBase) or kind in (click.INT, click.FLOAT)
            or getattr(kind, "name", "") in {"int", "float", "integer"})


_NUMERIC = [(path, param) for path, command in _commands() for param in command.params
            if isinstance(param, click.Option) and not param.is_flag and _numeric(param)]


def test_there_are_numeric_options_to_check() -> None:
    assert len(_NUMERIC) > 30
    assert any(p.name == "workers" for _, p in _NUMERIC)


@pytest.mark.parametrize(("path", "param"), _NUMERIC, ids=[f"{p}:{o.opts[0]}" for p, o in _NUMERIC])
def test_every_numeric_option_states_its_upper_bound_in_help(path: str, param: click.Option) -> None:
    ctx = click.Context(click.Command(path))
    record = param.get_help_record(ctx)
    assert record is not None, f"sitbench {path} {param.opts[0]} has no help"
    assert _UPPER.search(record[1]), f"sitbench {path} {param.opts[0]}: no bound in its help: {record[1]!r}"


def test_workers_bound_is_four_per_cpu_and_never_above_64() -> None:
    assert max_workers() == max(1, min(4 * (os.cpu_count() or 1), MAX_WORKERS)) <= 64


def test_never_more_workers_than_trials() -> None:
    from sitbench.runs import run_workers

    assert run_workers(3, 2, cpu_bound=True) in (1, 2)
    assert run_workers(max_workers(), 1, cpu_bound=False) == 1


def test_workers_beyond_the_bound_is_refused_by_the_api_too() -> None:
    from sitbench.errors import InputError
    from sitbench.runs import run_workers

    with pytest.raises(InputError, match=r"--workers 1000000: at most \d+ on this machine"):
        run_workers(1_000_000, 22, cpu_bound=True)
