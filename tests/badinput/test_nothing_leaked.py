"""Nothing written outside the folder the user named and the documented cache; read-only commands create nothing."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ._harness import Invocation, Templates, Workspace, execute
from .test_paths import listing


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(tmp_path_factory.mktemp("nothing-leaked-templates")).build()


def test_a_retrieval_run_writes_nothing_under_home(templates: Templates, tmp_path: Path) -> None:
    """Loading the embedder (configurations E and F) leaves $HOME as it was: onnxruntime's telemetry is off."""
    ws = Workspace(tmp_path / "ws", templates)
    home = tmp_path / "home"
    home.mkdir()
    data = ws.dataset()
    before = listing(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "ORT_DISABLE_TELEMETRY")}
    env.update(HOME=str(home), SITBENCH_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-m", "sitbench", "run", str(data), "--config", "E", "--model",
                             "mock/oracle", "--out", str(tmp_path / "out")], capture_output=True, text=True,
                            env=env, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    after = listing(tmp_path)
    new = sorted(p for p in set(after) - set(before) if not p.startswith(("out", "cache")))
    changed = sorted(p for p in before if before[p] != after.get(p))
    assert not new and not changed, f"created {new}, changed {changed}"


@pytest.mark.parametrize("argv", [["cache", "stats"], ["cache", "clear", "--model", "nobody/none"],
                                  ["cache", "clear"]])
def test_reading_a_missing_cache_creates_nothing(argv: list[str], tmp_path: Path) -> None:
    before = listing(tmp_path)
    outcome = execute(Invocation(argv, env={"SITBENCH_CACHE_DIR": str(tmp_path / "cache")}))
    assert outcome.code == 0, outcome.err
    assert "nothing" in outcome.out or "0 responses" in outcome.out
    assert listing(tmp_path) == before


@pytest.mark.parametrize("sub", [["stats"], ["clear"], ["clear", "--model", "m"]])
def test_a_foreign_sqlite_database_is_refused_and_left_as_it_was(sub: list[str], tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (id INTEGER, body TEXT)")
    db.execute("INSERT INTO notes VALUES (1, 'mine')")
    db.commit()
    db.close()
    before = listing(tmp_path)
    outcome = execute(Invocation(["cache", *sub, "--cache-path", str(path)]))
    assert outcome.code == 2 and outcome.err.startswith("error: ") and str(path) in outcome.err, outcome.err
    assert "not a sitbench response cache" in outcome.err
    assert listing(tmp_path) == before
