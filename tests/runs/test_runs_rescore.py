"""`sitbench rescore`: stored responses re-scored with the current verifier, no model call,
both verifier versions and changed verdicts per category in the manifest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sitbench.candidates import mock
from sitbench.cli import main
from sitbench.errors import InputError
from sitbench.runs import RunManifest, rescore_run
from sitbench.verify import VERIFIER_VERSION


@pytest.fixture
def scored_run(pilot: Path, tmp_path: Path) -> Path:
    run = tmp_path / "run"
    assert main(["run", str(pilot), "--config", "B,I", "--model", "mock/collapse", "--out", str(run)]) == 0
    assert main(["score", str(run)]) == 0
    return run


@pytest.fixture
def no_model_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("rescoring called a model")

    from sitbench import candidates

    monkeypatch.setattr(candidates, "get_candidate", refuse)
    for cls in (mock.CollapseCandidate, mock.OracleCandidate):
        monkeypatch.setattr(cls, "complete", refuse)


def _pretend_old_verifier(run: Path, flips: list[str]) -> None:
    """Rewrite scores.jsonl as an older verifier would have left it: the listed trials' SValid flipped."""
    lines = []
    for line in (run / "scores.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["trial_id"] in flips:
            grounding = record["verdict"]["checks"]["grounding"]
            grounding["passed"] = not grounding["passed"]
            # A verdict is the conjunction of its checks (scores.jsonl is held to it when read).
            valid = all(check["passed"] for check in record["verdict"]["checks"].values())
            assert valid != record["verdict"]["valid"], f"{record['trial_id']}: grounding alone must decide it"
            record["verdict"]["valid"] = valid
        lines.append(json.dumps(record))
    (run / "scores.jsonl").write_text("\n".join(lines) + "\n")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["verifier_version"] = "sitbench-verifier/0.9"
    (run / "manifest.json").write_text(json.dumps(manifest))


def _decided_by_grounding(run: Path) -> list[str]:
    """Trials whose verdict the grounding check alone decides (every other check passes): an older
    verifier that read grounding the other way would have given them the other verdict."""
    found = []
    for line in (run / "scores.jsonl").read_text().splitlines():
        record = json.loads(line)
        checks = (record.get("verdict") or {}).get("checks", {})
        if "grounding" in checks and all(c["passed"] for name, c in checks.items() if name != "grounding"):
            found.append(str(record["trial_id"]))
    return found


def _category(run: Path, trial_id: str) -> str:
    for line in (run / "scores.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["trial_id"] == trial_id:
            return str(record["category"])
    raise KeyError(trial_id)


def test_rescore_counts_changed_verdicts_per_category(scored_run: Path, tmp_path: Path,
                                                      no_model_calls: None) -> None:
    original_scores = (scored_run / "scores.jsonl").read_bytes()
    flips = _decided_by_grounding(scored_run)[:4]
    assert len(flips) == 4
    categories = {t: _category(scored_run, t) for t in flips}
    _pretend_old_verifier(scored_run, flips)
    expected: dict[str, int] = {}
    for t in flips:
        expected[categories[t]] = expected.get(categories[t], 0) + 1
    source_before = {p.name: p.read_bytes() for p in scored_run.iterdir()}

    out = tmp_path / "rescored"
    report = rescore_run(scored_run, out)
    assert report.previous_verifier_version == "sitbench-verifier/0.9"
    assert report.verifier_version == VERIFIER_VERSION
    assert (report.scored, report.compared) == (44, 44)
    assert report.changed_verdicts == dict(sorted(expected.items()))
    assert sorted(report.changed_trials) == sorted(flips)
    assert report.changed_checks == {"grounding": len(flips)}, "the check whose result changed in them"
    # The current verifier gives back exactly the original scores; responses are copied byte for byte.
    assert (out / "scores.jsonl").read_bytes() == original_scores
    assert (out / "responses.jsonl").read_bytes() == source_before["responses.jsonl"]
    assert {p.name: p.read_bytes() for p in scored_run.iterdir()} == source_before
    manifest = RunManifest.model_validate_json((out / "manifest.json").read_text())
    assert manifest.verifier_version == VERIFIER_VERSION
    assert manifest.extra["rescore"]["changed_verdicts"] == report.changed_verdicts
    assert manifest.extra["rescore"]["from_run"] == json.loads(source_before["manifest.json"])["run_id"]

    # Rescoring the rescored run changes nothing and keeps the first rescore in the history.
    again = rescore_run(out, tmp_path / "again")
    assert again.changed_verdicts == {} and again.compared == 44
    history = json.loads((tmp_path / "again" / "manifest.json").read_text())["extra"]["rescore_history"]
    assert history[0]["previous_verifier_version"] == "sitbench-verifier/0.9"


def test_cli_rescore_and_its_errors(scored_run: Path, pilot: Path, tmp_path: Path, no_model_calls: None,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    unscored = tmp_path / "unscored"
    shutil.copytree(scored_run, unscored)
    (unscored / "scores.jsonl").unlink()
    report = rescore_run(unscored, tmp_path / "u2")
    assert report.previous_verifier_version is None and report.compared == 0 and report.scored == 44

    _pretend_old_verifier(scored_run, ["I:PR-02"])
    capsys.readouterr()
    assert main(["rescore", str(scored_run), "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert f"with {VERIFIER_VERSION} (was sitbench-verifier/0.9); 1 of 44 verdicts changed" in out
    assert main(["rescore", str(scored_run), "--out", str(tmp_path / "r")]) == 2  # OUT not empty
    assert main(["rescore", str(scored_run), "--out", str(scored_run)]) == 2
    manifest = json.loads((scored_run / "manifest.json").read_text())
    manifest["dataset"]["path"] = str(tmp_path / "moved")
    (scored_run / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="pass the dataset with --dataset"):
        rescore_run(scored_run, tmp_path / "r3")
    assert main(["rescore", str(scored_run), "--out", str(tmp_path / "r4"), "--dataset", str(pilot)]) == 0
    other = tmp_path / "other-dataset"
    shutil.copytree(pilot, other)
    with (other / "manifest.json").open("a") as handle:
        handle.write(" ")
    with pytest.raises(InputError, match="pass the dataset the run was made with"):
        rescore_run(scored_run, tmp_path / "r5", other)
