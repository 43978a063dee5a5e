"""Restructuring the code changes no verdict: the demo and generated-suite mock runs, built and scored now,
judge every trial as the golden recorded (``tests/fixtures/verdicts_golden.json.gz``), field by field.

The versioning contract: a verdict may change only together with the verifier version. When the version
differs from the golden's, the golden is regenerated with ``tests/fixtures/make_verdicts_golden.py``.
Only the command line and the public ``sitbench.runs`` / ``sitbench.verify`` API are used, so the test
survives modules moving between packages.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # ~20-40 s: six runs, 1,766 trials, in child processes

SCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "make_verdicts_golden.py"
REGENERATE = "python tests/fixtures/make_verdicts_golden.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_verdicts_golden", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


golden_script = _script()


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    document = golden_script.load_golden()
    assert document["format"] == golden_script.GOLDEN_FORMAT, f"golden layout changed: run {REGENERATE}"
    return document


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return golden_script.build_runs(tmp_path_factory.mktemp("verdicts"))


def _fail_on_differences(lines: list[str]) -> None:
    if lines:
        pytest.fail("verdicts changed although the verifier version did not:\n  " + "\n  ".join(lines)
                    + "\nIf the change is intended, bump sitbench.verify's RULES_VERSION / SCORER_VERSION and run "
                    + f"{REGENERATE}; otherwise the change broke a verdict.", pytrace=False)


def test_golden_covers_every_configuration_and_both_outcomes(golden: dict[str, Any]) -> None:
    # A golden with only passes (or only fails) would not notice a scorer that returns a constant.
    for name, run in golden["runs"].items():
        scores = [t["score"] for t in run["trials"].values()]
        assert {s["config"] for s in scores} == set("ABCDEFGHI"), name
        outcomes = {s["verdict"]["valid"] for s in scores if s["verdict"] is not None}
        assert outcomes == {True, False}, name
        assert any(s["observation"]["claims"] for s in scores if s["observation"]), name


def test_verifier_version_is_the_goldens(golden: dict[str, Any]) -> None:
    now = golden_script.verifier_versions()
    if now != golden["versions"]:
        pytest.fail(f"the verifier version changed ({golden['versions']} in the golden, {now} now): a verdict "
                    f"change is intended, so regenerate the golden with {REGENERATE} and review its diff",
                    pytrace=False)


def test_rebuilt_runs_judge_every_trial_as_the_golden(golden: dict[str, Any], built: dict[str, Path]) -> None:
    if golden_script.verifier_versions() != golden["versions"]:
        pytest.skip("verifier version differs from the golden's (see test_verifier_version_is_the_goldens)")
    current = golden_script.collect(built)
    assert set(current["runs"]) == set(golden["runs"])
    _fail_on_differences(golden_script.compare_runs(golden["runs"], current["runs"]))


def test_rescored_runs_judge_every_trial_as_the_golden(golden: dict[str, Any], built: dict[str, Path],
                                                       tmp_path: Path) -> None:
    """``sitbench rescore`` (a second path through the run store) reaches the same verdicts."""
    if golden_script.verifier_versions() != golden["versions"]:
        pytest.skip("verifier version differs from the golden's (see test_verifier_version_is_the_goldens)")
    names = ("demo/oracle", "dev-s1/oracle")
    rescored = {name: golden_script.rescore(built[name], tmp_path / name.replace("/", "-")) for name in names}
    current = golden_script.collect(rescored)
    wanted = {name: golden["runs"][name] for name in names}
    lines = golden_script.compare_runs(wanted, current["runs"])
    if lines:
        pytest.fail("rescoring changed verdicts:\n  " + "\n  ".join(lines), pytrace=False)


def test_comparison_reports_a_changed_verdict(golden: dict[str, Any]) -> None:
    # The comparison itself can fail: one flipped check and one lost claim are both named.
    import copy

    runs = copy.deepcopy(golden["runs"])
    run = runs["dev-s1/oracle"]
    with_claims = next(t for t, r in run["trials"].items() if r["score"]["observation"]["claims"])
    run["trials"][with_claims]["score"]["observation"]["claims"].pop()
    first = next(t for t in run["trials"] if t != with_claims)
    checks = run["trials"][first]["score"]["verdict"]["checks"]
    checks["act"]["passed"] = not checks["act"]["passed"]
    lines = golden_script.compare_runs(golden["runs"], runs)
    assert any(with_claims in line and "observation.claims" in line for line in lines), lines
    assert any(first in line and "verdict.checks.act.passed" in line for line in lines), lines
    assert lines[-1] == "dev-s1/oracle: 2 of 487 trials differ"
