"""Proof of offline: the pilot tests under Inspect (Inspect's own mockllm included) and the README's
Inspect example, as commands, pass inside a network namespace that has only loopback (``unshare -rn``,
``lo`` up), where no outside host can be resolved or reached by any process. (Every other test of this
folder runs under the in-process guard of conftest.py, which fails a test on any outside lookup or
connection.)

Skips, with the reason, only where this machine cannot make such a namespace (no ``unshare``, or the
kernel refuses new user and network namespaces); everywhere else a failure inside is a failure here.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason='needs Inspect: pip install -e ".[inspect]" (or ".[dev]")')

HERE = Path(__file__).resolve().parent
INSIDE = "SITBENCH_INSIDE_NETNS"


@functools.cache
def _unshare() -> tuple[list[str] | None, str]:
    """The unshare prefix that works here, or None and why none does."""
    if shutil.which("unshare") is None:
        return None, "unshare (util-linux) is not installed, so no network namespace can be made here"
    errors = []
    for prefix in (["unshare", "-rn"], ["unshare", "-n"]):
        probe = subprocess.run([*prefix, sys.executable, str(HERE / "netns_run.py"), sys.executable, "-c", "0"],
                               capture_output=True, text=True, timeout=60, check=False)
        if probe.returncode == 0:
            return prefix, ""
        errors.append(f"{' '.join(prefix)}: {probe.stderr.strip()[-300:]}")
    return None, "this machine refuses to make a network namespace (" + "; ".join(errors) + ")"


def _in_netns(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    prefix, reason = _unshare()
    if prefix is None:
        pytest.skip(reason)
    return subprocess.run([*prefix, sys.executable, str(HERE / "netns_run.py"), *command], cwd=cwd,
                          env=os.environ | env | {INSIDE: "1"}, capture_output=True, text=True, timeout=timeout,
                          check=False)


pytestmark = pytest.mark.skipif(os.environ.get(INSIDE) == "1", reason="already inside the network namespace")


def test_the_pilot_tests_pass_with_only_loopback(tmp_path: Path) -> None:
    result = _in_netns([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
                        "--basetemp", str(tmp_path / "inner"), str(HERE / "test_inspect_pilot.py")],
                       cwd=HERE.parents[1], env={"SITBENCH_CACHE_DIR": str(tmp_path / "cache")}, timeout=900)
    tail = (result.stdout + result.stderr)[-3000:]
    assert "netns_run: only lo, up" in result.stderr, tail
    assert result.returncode == 0, tail
    summary = result.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, tail


def test_the_readme_example_runs_with_only_loopback(tmp_path: Path) -> None:
    env = {"SITBENCH_CACHE_DIR": str(tmp_path / "cache"), "INSPECT_LOG_DIR": str(tmp_path / "logs-default")}
    result = _in_netns(["bash", str(HERE / "readme_example.sh")], cwd=tmp_path, env=env, timeout=600)
    tail = (result.stdout + result.stderr)[-3000:]
    assert result.returncode == 0, tail
    metrics = json.loads((tmp_path / "metrics.json").read_text())["configs"]
    assert sorted(metrics) == ["D"] and metrics["D"]["macro_sit"] > 0.5
    assert (tmp_path / "runs" / "inspect-oracle" / "scores.jsonl").is_file()
