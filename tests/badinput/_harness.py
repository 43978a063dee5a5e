"""The machinery of the bad-input table: workspaces with real inputs to damage, one CLI call, the contract.

A bad-input class is a builder that damages a copy of a real input (a pilot dataset, a scored run,
RES results, a CHI log) inside a fresh workspace and returns the command line that reads it. The
contract every class must meet: exit code 2, nothing on stdout, exactly one stderr line that starts
with ``error: `` and names what is wrong (the file, and the line and field where there is one), and
no traceback.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Invocation:
    """One command line to run against a damaged workspace, and what its error line must name."""

    argv: list[str]
    """Arguments after ``sitbench``."""
    names: tuple[str, ...] = ()
    """Substrings the one error line must contain (a file path, ``line 3``, a field or option name)."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment variables set for the call (``""`` unsets one)."""
    stdin: str = ""
    """Text on standard input."""
    any_of: tuple[str, ...] = ()
    """When given, the line must also contain one of these at least: e.g. each field a validator may name first,
    where several are wrong and which one comes first is the validator's choice, not sitbench's."""


@dataclass(frozen=True)
class BadInput:
    """One class of bad input: its kind, a short id, and the builder of its invocation."""

    kind: str
    """The group it belongs to, e.g. ``invalid UTF-8`` or ``unbounded resource``."""
    id: str
    """Unique id, ``command/what``."""
    build: Callable[[Workspace], Invocation]
    """Makes the bad file or argument in the workspace and returns the command line."""


@dataclass(frozen=True)
class Outcome:
    """What one call did."""

    code: int
    out: str
    err: str


class Templates:
    """Real inputs built once per process and copied into each workspace: a pilot dataset, another
    (generated) dataset, a scored run of the pilot, RES results and a CHI manifest with its log."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._built = False

    def build(self) -> Templates:
        """Write every template (once)."""
        if self._built:
            return self
        from sitbench.data import generate_content, pilot_content, write_dataset

        write_dataset(pilot_content(), self.root / "data")
        write_dataset(generate_content("dev", 3), self.root / "other")
        with _environment({"SITBENCH_CACHE_DIR": str(self.root / "cache")}):
            for argv in (["run", str(self.root / "data"), "--config", "B,I", "--model", "mock/oracle",
                          "--out", str(self.root / "run")],
                         ["score", str(self.root / "run")],
                         ["res", "run", "--model", "mock/oracle", "--out", str(self.root / "res")],
                         ["chi", "demo", "--out", str(self.root / "chi")]):
                outcome = execute(Invocation(argv))
                if outcome.code != 0:
                    raise RuntimeError(f"template `sitbench {' '.join(argv)}` failed: {outcome.err}")
        self._built = True
        return self


class Workspace:
    """A fresh directory for one class, with copies of the templates made on demand."""

    def __init__(self, root: Path, templates: Templates) -> None:
        self.root = root
        self.templates = templates.build()
        root.mkdir(parents=True, exist_ok=True)

    def _copy(self, name: str) -> Path:
        target = self.root / name
        if not target.exists():
            shutil.copytree(self.templates.root / name, target)
        return target

    def dataset(self) -> Path:
        """A copy of the pilot dataset."""
        return self._copy("data")

    def other_dataset(self) -> Path:
        """A copy of a generated dev dataset (a different dataset from the pilot)."""
        return self._copy("other")

    def run(self) -> Path:
        """A copy of a scored B,I run of the pilot whose manifest points at this workspace's dataset."""
        data = self.dataset()
        target = self.root / "run"
        if not target.exists():
            shutil.copytree(self.templates.root / "run", target)
            manifest = target / "manifest.json"
            record = json.loads(manifest.read_text(encoding="utf-8"))
            record["dataset"]["path"] = str(data.resolve())
            manifest.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        return target

    def res(self) -> Path:
        """A copy of a finished RES run folder (results.jsonl, summary.json, manifest.json)."""
        return self._copy("res")

    def chi(self) -> Path:
        """A copy of the CHI demo folder (manifest.json, observations.jsonl, report.json)."""
        return self._copy("chi")

    def file(self, name: str, content: str | bytes) -> Path:
        """Write ``content`` to a new file of the workspace."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    def json(self, name: str, data: Any) -> Path:
        """Write ``data`` as a JSON file of the workspace."""
        return self.file(name, json.dumps(data, indent=1) + "\n")

    def directory(self, name: str) -> Path:
        """A new empty directory of the workspace."""
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        return path


# ---------------------------------------------------------------- damaging files in place


def replace_with_directory(path: Path) -> Path:
    """Replace the file at ``path`` with an empty directory of the same name."""
    path.unlink()
    path.mkdir()
    return path


def damage_line(path: Path, number: int, damage: Callable[[bytes], bytes]) -> Path:
    """Apply ``damage`` to the bytes of 1-based line ``number`` of a text file."""
    lines = path.read_bytes().split(b"\n")
    lines[number - 1] = damage(lines[number - 1])
    path.write_bytes(b"\n".join(lines))
    return path


def edit_json_line(path: Path, number: int, edit: Callable[[dict[str, Any]], Any]) -> Path:
    """Parse 1-based line ``number`` of a JSONL file, let ``edit`` change it, write it back compactly."""
    def damage(raw: bytes) -> bytes:
        record = json.loads(raw)
        edit(record)
        return json.dumps(record, separators=(",", ":")).encode("utf-8")

    return damage_line(path, number, damage)


def edit_json(path: Path, edit: Callable[[Any], Any]) -> Path:
    """Parse a JSON file, let ``edit`` change it in place (or return new data), write it back."""
    data = json.loads(path.read_text(encoding="utf-8"))
    result = edit(data)
    path.write_text(json.dumps(data if result is None else result, indent=1) + "\n", encoding="utf-8")
    return path


def refresh_dataset(root: Path) -> Path:
    """Recompute a dataset manifest's file hashes after a deliberate edit."""
    from sitbench.data import refresh_manifest

    refresh_manifest(root)
    return root


INVALID_UTF8 = b"\xff\xfe"
BINARY = bytes(range(256)) * 4
LONE_SURROGATE = b'"\\ud800"'


# ---------------------------------------------------------------- one call and its contract


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in env}
    try:
        for name, value in env.items():
            if value:
                os.environ[name] = value
            else:
                os.environ.pop(name, None)
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def execute(invocation: Invocation) -> Outcome:
    """Run ``sitbench.cli.main`` in this process with captured stdout and stderr."""
    from sitbench.cli import main

    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO(invocation.stdin)
    try:
        with _environment(invocation.env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(invocation.argv))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except Exception:  # noqa: BLE001 - an escaped exception is what the table looks for
                import traceback

                traceback.print_exc(file=err)
                code = 1
    finally:
        sys.stdin = stdin
    return Outcome(code, out.getvalue(), err.getvalue())


def problems(outcome: Outcome, invocation: Invocation) -> list[str]:
    """Every way ``outcome`` breaks the one-clean-line contract (empty when it meets it)."""
    found: list[str] = []
    if outcome.code != 2:
        found.append(f"exit code {outcome.code}, not 2")
    if outcome.out:
        found.append(f"stdout not empty: {outcome.out[:200]!r}")
    if "Traceback" in outcome.err:
        found.append("traceback: " + outcome.err.strip().splitlines()[-1][:300])
    lines = outcome.err.splitlines()
    if len(lines) != 1:
        found.append(f"{len(lines)} stderr lines, not 1: {outcome.err[:400]!r}")
    elif not lines[0].startswith("error: "):
        found.append(f"the line does not start with 'error: ': {lines[0][:300]!r}")
    else:
        missing = [name for name in invocation.names if name not in lines[0]]
        if missing:
            found.append(f"the line does not name {missing}: {lines[0][:400]!r}")
        if invocation.any_of and not any(name in lines[0] for name in invocation.any_of):
            found.append(f"the line names none of {list(invocation.any_of)}: {lines[0][:400]!r}")
    return found


def check(case: BadInput, root: Path, templates: Templates) -> tuple[Invocation, Outcome, list[str]]:
    """Build ``case`` in a fresh workspace at ``root``, run it, and list its contract problems."""
    workspace = Workspace(root, templates)
    invocation = case.build(workspace)
    env = {"SITBENCH_CACHE_DIR": str(root / "cache"), **invocation.env}
    invocation = dataclasses.replace(invocation, env=env)
    outcome = execute(invocation)
    return invocation, outcome, problems(outcome, invocation)
