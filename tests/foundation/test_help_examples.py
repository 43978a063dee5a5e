"""Every ``--help`` page shows an example, and every example names a real command and real options.

Also: no numbered table, equation or theorem in any help page stands without its source.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from sitbench.cli import cli, main
from sitbench.glossary import uncited

HEADING = re.compile(r"^\s*Examples?\b[^:]*:\s*$")


def _walk(command: click.Command, path: tuple[str, ...], parent: click.Context | None
          ) -> Iterator[tuple[tuple[str, ...], click.Command, click.Context]]:
    ctx = click.Context(command, info_name=path[-1], parent=parent)
    yield path, command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, (path, name)
            yield from _walk(sub, (*path, name), ctx)


PAGES = list(_walk(cli, ("sitbench",), None))


def _examples(help_text: str) -> list[str]:
    """Lines starting with ``sitbench `` in the paragraphs under an ``Example(s)`` heading.

    A line ending in a backslash continues on the next one, as in a shell.
    """
    found: list[str] = []
    inside = continued = False
    for line in help_text.splitlines():
        if HEADING.match(line):
            inside = True
            continue
        if inside and not line.strip():
            inside = continued = False
        elif inside and continued:
            found[-1] = found[-1][:-1] + " " + line.strip()
        elif inside and line.strip().startswith("sitbench "):
            found.append(line.strip())
        else:
            continue
        continued = inside and found[-1].endswith("\\")
    return found


def _resolve(argv: list[str]) -> tuple[tuple[str, ...], click.Command, list[str]]:
    """Follow sub-command names from the root; returns the path, the command and the remaining words."""
    command: click.Command = cli
    path: tuple[str, ...] = ("sitbench",)
    ctx = click.Context(cli, info_name="sitbench")
    rest = list(argv)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.get_command(ctx, rest[0])
        if sub is None:
            break
        path, command, rest = (*path, rest[0]), sub, rest[1:]
        ctx = click.Context(command, info_name=path[-1], parent=ctx)
    return path, command, rest


def _segments(example: str) -> list[list[str]]:
    """The ``sitbench …`` commands of one example line (split at ``&&``, ``|``, ``;`` and redirections)."""
    words = shlex.split(example, comments=True)
    segments: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", "||", "|", ";"):
            segments.append([])
        elif word in (">", ">>", "<"):
            segments.append(["(redirect)"])
        else:
            segments[-1].append(word)
    return [s[1:] for s in segments if s and s[0] == "sitbench"]


def test_the_tree_is_walked() -> None:
    names = {" ".join(path) for path, _, _ in PAGES}
    assert {"sitbench", "sitbench run", "sitbench score", "sitbench chi demo", "sitbench res score",
            "sitbench stats holm", "sitbench cache stats", "sitbench seeds commit", "sitbench schema"} <= names
    assert len(PAGES) >= 38


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=[" ".join(p) for p, _, _ in PAGES])
def test_every_help_page_has_an_example_of_itself(path: tuple[str, ...]) -> None:
    command, ctx = next((c, x) for p, c, x in PAGES if p == path)
    text = command.get_help(ctx)
    examples = _examples(text)
    assert examples, f"`{' '.join(path)} --help` has no 'Examples:' paragraph with a `sitbench …` line"
    own = [e for e in examples for seg in _segments(e) if ("sitbench", *seg)[: len(path)] == path]
    assert own, f"no example of `{' '.join(path)}` in its own help: {examples}"
    assert uncited(text) == [], f"`{' '.join(path)} --help` cites without a source"


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=[" ".join(p) for p, _, _ in PAGES])
def test_every_example_names_a_real_command_and_real_options(path: tuple[str, ...]) -> None:
    command, ctx = next((c, x) for p, c, x in PAGES if p == path)
    for example in _examples(command.get_help(ctx)):
        for argv in _segments(example):
            found, target, rest = _resolve(argv)
            if isinstance(target, click.Group):
                assert not rest or rest[0].startswith("-"), f"{example!r}: no command {rest[0]!r} under {found}"
            options = {opt for param in target.params for opt in (*param.opts, *param.secondary_opts)}
            options |= {"--help", "-h"}
            for word in rest:
                if word.startswith("-") and not re.fullmatch(r"-\d[\d.,-]*", word):
                    name = word.split("=", 1)[0]
                    assert name in options, f"{example!r}: `{' '.join(found)}` has no option {name}"


def test_help_pages_print(capsys: pytest.CaptureFixture[str]) -> None:
    for path, _, _ in PAGES:
        assert main([*path[1:], "--help"]) == 0, path
    assert "Examples" in capsys.readouterr().out


def test_schema_descriptions_name_the_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    files = sorted(tmp_path.glob("*.json"))
    assert files
    assert {f.name: uncited(f.read_text(encoding="utf-8")) for f in files if uncited(f.read_text(encoding="utf-8"))} \
        == {}
