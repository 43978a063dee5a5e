"""The CHI memory run's manifest names its provenance as the run manifest does."""

from __future__ import annotations

import json
from pathlib import Path

from sitbench import __version__
from sitbench.chi import load_manifest
from sitbench.cli import main
from sitbench.runs import RunManifest


def test_memory_run_system_carries_run_manifest_names(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["chi", "memory", "run", "--panel", "m8", "--agent", "versioned", "--model", "mock/memory-reader",
                 "--seed", "4", "--trajectories", "2", "--grid", "100", "--out", str(out)]) == 0
    system = json.loads((out / "manifest.json").read_text())["system"]
    names = ("package_version", "git_commit", "created_at", "finished_at")
    assert set(names) <= set(RunManifest.model_fields)
    assert set(names) <= set(system)
    assert system["package_version"] == __version__
    assert system["created_at"] <= system["finished_at"]
    assert system["model"] == "mock/memory-reader"
    # The interchange format itself is unchanged: the kit's reader takes the file as it is.
    assert load_manifest(out / "manifest.json").system["created_at"] == system["created_at"]
