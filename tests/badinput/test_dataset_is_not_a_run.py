"""A dataset directory given where a run is expected is named as such, not reported as a broken run."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.cli import main


@pytest.mark.parametrize("command", [["score"], ["metrics"], ["analyze"], ["report", "--out", "REPORT"],
                                     ["compare"]])
def test_each_run_command_says_the_directory_is_a_dataset(pilot: Path, tmp_path: Path, command: list[str],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    args = [a if a != "REPORT" else str(tmp_path / "r.html") for a in command]
    assert main([args[0], str(pilot), *args[1:]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{pilot}: is a dataset directory, not a run directory" in err and "sitbench run" in err
