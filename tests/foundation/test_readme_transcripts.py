"""The README's printed transcripts of `extract` and `judge` on the pilot are what those commands print today.

A transcript is a fenced block of ``$ sitbench …`` lines, each followed by its output. ``--response "…"``
stands for the response of the command before it. Run offline on the reference pilot; a change of output
fails here until the README is regenerated (`python tests/foundation/test_readme_transcripts.py` rewrites
the blocks).
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitbench.cli._main import cli

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
_BLOCK = re.compile(r"```\n(\$ sitbench (?:extract|judge) data/pilot --probe .*?)```", re.S)


def _commands(block: str) -> list[tuple[str, list[str]]]:
    """Each ``$`` line of a block with the output lines printed under it."""
    found: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            found.append((line, []))
        elif found:
            found[-1][1].append(line)
    return found


def _argv(command: str, pilot: Path, last_response: str | None) -> tuple[list[str], str | None]:
    words = shlex.split(command[2:].split("   #")[0])[1:]
    words = [str(pilot) if w == "data/pilot" else w for w in words]
    at = words.index("--response") + 1
    if words[at] == "…":
        assert last_response is not None
        words[at] = last_response
    return words, words[at]


def _transcript(block: str, pilot: Path) -> list[tuple[str, list[str]]]:
    last: str | None = None
    result = []
    for command, _ in _commands(block):
        argv, last = _argv(command, pilot, last)
        out = CliRunner().invoke(cli, argv)
        result.append((command, out.output.rstrip("\n").splitlines()))
    return result


def _blocks() -> list[str]:
    return _BLOCK.findall(README.read_text(encoding="utf-8"))


def test_the_readme_has_the_trace_transcripts() -> None:
    assert len(_blocks()) >= 3


@pytest.mark.parametrize("index", range(3))
def test_a_readme_transcript_is_what_the_commands_print(index: int, pilot: Path) -> None:
    block = _blocks()[index]
    assert _transcript(block, pilot) == _commands(block)


def _regenerate() -> None:  # pragma: no cover - run by hand after a change of output
    import tempfile

    from sitbench.data import pilot_content, write_dataset

    pilot = Path(tempfile.mkdtemp()) / "pilot"
    write_dataset(pilot_content(), pilot)
    text = README.read_text(encoding="utf-8")
    for block in _blocks():
        fresh = "".join(f"{command}\n" + "".join(f"{line}\n" for line in lines)
                        for command, lines in _transcript(block, pilot))
        text = text.replace(block, fresh, 1)
    README.write_text(text, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    _regenerate()
    sys.exit(0)
