"""A refused name never leaves a file behind: after each refused import, the folders around it are as before."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from ._harness import BadInput, Invocation, Templates, Workspace, execute
from .cases import CASES
from .cases_paths import ANNOTATIONS_OUT, PATHS_KIND, annotation_file, import_argv

IMPORTS = [c for c in CASES if c.kind == PATHS_KIND and c.id.startswith("audit/import-")]


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(tmp_path_factory.mktemp("paths-templates")).build()


def listing(root: Path) -> dict[str, str]:
    """Every entry under ``root`` (links not followed): relative path → kind and content digest."""
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = f"link {os.readlink(path)}"
            elif path.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_the_import_cases_are_there() -> None:
    assert len(IMPORTS) >= 8


@pytest.mark.parametrize("case", IMPORTS, ids=[c.id for c in IMPORTS])
def test_a_refused_import_creates_and_changes_nothing(case: BadInput, templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    invocation = case.build(ws)
    before = listing(tmp_path)
    outcome = execute(invocation)
    after = listing(tmp_path)
    assert outcome.code == 2, outcome.err
    created = sorted(set(after) - set(before))
    changed = sorted(p for p in before if p in after and before[p] != after[p])
    assert not created and not changed, f"created {created}, changed {changed}"


@pytest.mark.parametrize("annotator", ["../../../x", "../x", "a/../../x"])
def test_an_escape_above_the_workspace_writes_nothing_there(annotator: str, templates: Templates,
                                                            tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    argv = import_argv(ws, annotation_file(ws, annotator))
    before = listing(tmp_path)
    outcome = execute(Invocation(argv))
    assert outcome.code == 2 and outcome.err.startswith("error: "), outcome.err
    assert listing(tmp_path) == before


def test_a_good_name_is_written_inside_out(templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    argv = import_argv(ws, annotation_file(ws, "ana-1.b_2"))
    outcome = execute(Invocation(argv))
    assert outcome.code == 0, outcome.err
    assert sorted(p.name for p in (ws.root / ANNOTATIONS_OUT).iterdir()) == ["ana-1.b_2.jsonl"]
