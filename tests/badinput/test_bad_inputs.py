"""Every bad-input class of the table gives one clean line naming the file, line and field, and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._harness import (
    BadInput,
    Invocation,
    Outcome,
    Templates,
    Workspace,
    check,
    execute,
    problems,
)
from .cases import CASES


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(tmp_path_factory.mktemp("bad-input-templates")).build()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_gives_one_clean_line_and_exit_2(case: BadInput, templates: Templates, tmp_path: Path) -> None:
    invocation, _, found = check(case, tmp_path / "ws", templates)
    assert not found, f"{case.kind}: sitbench {' '.join(invocation.argv)}\n" + "\n".join(found)


def test_the_table_covers_every_kind_and_command() -> None:
    kinds = {c.kind for c in CASES}
    assert {"missing file", "directory instead of file", "invalid UTF-8", "binary file", "malformed JSON",
            "lone surrogate", "wrong type/field", "bad enum", "out-of-range numeric", "non-finite numeric",
            "unbounded resource", "wrong SQLite file", "mismatched dataset", "missing API key"} <= kinds
    commands = {c.id.split("/")[0] for c in CASES}
    assert {"validate", "show", "run", "score", "rescore", "observe", "metrics", "analyze", "report", "stats",
            "res", "chi", "cache", "merge", "seeds", "agreement", "extract", "judge", "schema", "generate",
            "tokens"} <= commands
    assert len(CASES) >= 100


@pytest.mark.parametrize("case_id", ["res/score-results-binary", "cache/stats-not-sqlite",
                                     "score/responses-lone-surrogate", "stats/bootstrap-resamples-10-billion"])
def test_in_a_real_process(case_id: str, templates: Templates, tmp_path: Path) -> None:
    """The same contract from ``python -m sitbench``: nothing else (a warning, a log line) reaches stderr."""
    import os
    import subprocess
    import sys

    case = next(c for c in CASES if c.id == case_id)
    invocation = case.build(Workspace(tmp_path / "ws", templates))
    env = {**os.environ, "SITBENCH_CACHE_DIR": str(tmp_path / "cache"), **invocation.env}
    result = subprocess.run([sys.executable, "-m", "sitbench", *invocation.argv], capture_output=True, text=True,
                            env=env, timeout=120, check=False)
    found = problems(Outcome(result.returncode, result.stdout, result.stderr), invocation)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("argv", [[], ["stats"], ["chi"]])
def test_a_group_without_a_sub_command_still_shows_its_help(argv: list[str]) -> None:
    """Usage errors become one line; the help page a bare group answers with is not squeezed into one."""
    outcome = execute(Invocation(argv))
    assert "Usage: sitbench" in outcome.err and "Commands:" in outcome.err
    assert not outcome.err.startswith("error: ")
