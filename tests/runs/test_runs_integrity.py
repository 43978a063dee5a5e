"""Scoring never loses or misreads a trial silently: torn lines leave the run unfinished (exit 4), damaged files
and edited datasets stop it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sitbench.cli import main


@pytest.fixture
def run(pilot: Path, tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "data"
    shutil.copytree(pilot, data)
    out = tmp_path / "run"
    assert main(["run", str(data), "--config", "B,I", "--model", "mock/oracle", "--out", str(out)]) == 0
    return data, out


def test_a_torn_last_line_is_reported_and_left_in_place(run: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, out = run
    responses = out / "responses.jsonl"
    whole = responses.read_bytes()
    torn = whole + b'{"trial_id": "I:PR-0'
    responses.write_bytes(torn)
    capsys.readouterr()
    # Every trial has a whole record (the torn line is a re-attempt cut off): scored, and the run is unfinished.
    assert main(["score", str(out)]) == 4
    captured = capsys.readouterr()
    assert "scored 44 trials" in captured.out
    assert "torn line" in captured.err and "--resume" in captured.err and len(captured.err.splitlines()) == 1
    assert responses.read_bytes() == torn, "reading a run never changes it"
    assert main(["rescore", str(out), "--out", str(out.parent / "again")]) == 4
    assert "torn line" in capsys.readouterr().err


def test_invalid_utf8_in_responses_names_the_line(run: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, out = run
    responses = out / "responses.jsonl"
    lines = responses.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"PR-", b"PR\xff-", 1)
    responses.write_bytes(b"\n".join(lines))
    capsys.readouterr()
    assert main(["score", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "line 3" in err and "UTF-8" in err


def test_a_dataset_edited_after_the_run_stops_scoring(run: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    data, out = run
    probes = data / "hidden" / "probes.jsonl"
    probes.write_text(probes.read_text(encoding="utf-8").replace("PR-01", "PR-01", 1) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["score", str(out)]) == 2
    err = capsys.readouterr().err
    assert "probes.jsonl" in err and "changed since the dataset was written" in err


@pytest.mark.parametrize(("extra", "names"), [
    (["--config", "B"], "--config B,I (now B)"),
    (["--config", "B,I", "--temperature", "0.5"], "decoding"),
    (["--config", "B,I", "--handler", "perfect"], "--handler native (now perfect)"),
    (["--config", "B,I", "--max-tokens", "64"], "decoding"),
])
def test_resume_refuses_other_settings(run: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
                                       extra: list[str], names: str) -> None:
    data, out = run
    before = (out / "manifest.json").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["run", str(data), "--model", "mock/oracle", "--out", str(out), "--resume", *extra]) == 2
    err = capsys.readouterr().err
    assert names in err and "--resume continues the same run" in err
    assert (out / "manifest.json").read_text(encoding="utf-8") == before, "the manifest is not rewritten"


def test_resume_refuses_another_dataset(run: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.data import generate_content, write_dataset

    _, out = run
    other = tmp_path / "other"
    write_dataset(generate_content("dev", 3), other)
    capsys.readouterr()
    assert main(["run", str(other), "--config", "B,I", "--model", "mock/oracle", "--out", str(out), "--resume"]) == 2
    assert "the dataset" in capsys.readouterr().err
    lines = (out / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 44, "nothing of the other suite was appended"


def test_resume_with_the_same_settings_still_finishes(run: tuple[Path, Path]) -> None:
    data, out = run
    responses = out / "responses.jsonl"
    lines = responses.read_text(encoding="utf-8").splitlines()
    responses.write_text("\n".join(lines[:30]) + "\n", encoding="utf-8")
    assert main(["run", str(data), "--config", "B,I", "--model", "mock/oracle", "--out", str(out), "--resume"]) == 0
    assert len(responses.read_text(encoding="utf-8").splitlines()) == 44


def _drop(out: Path, n: int) -> list[str]:
    """Turn the first n trials of a finished run into drops, as a dead server would have left them."""
    import json

    responses = out / "responses.jsonl"
    records = [json.loads(line) for line in responses.read_text(encoding="utf-8").splitlines()]
    for record in records[:n]:
        record["status"], record["drop_reason"] = "dropped", "connection_refused: server down"
    responses.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return [r["trial_id"] for r in records[:n]]


def test_resume_re_attempts_dropped_trials(run: tuple[Path, Path]) -> None:
    import json

    data, out = run
    dropped = _drop(out, 5)
    assert main(["run", str(data), "--config", "B,I", "--model", "mock/oracle", "--out", str(out), "--resume"]) == 0
    records = [json.loads(line) for line in (out / "responses.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 44 and len({r["trial_id"] for r in records}) == 44
    assert all(r["status"] == "completed" for r in records if r["trial_id"] in dropped)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["completed"] == 44 and manifest["counts"]["dropped"] == 0


def test_a_run_with_drops_says_so_and_fails_above_the_threshold(run: tuple[Path, Path], tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = run
    # A server that is not there: every trial is dropped.
    out = tmp_path / "dead"
    code = main(["run", str(data), "--config", "B", "--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1",
                 "--api-key-env", "SITBENCH_NO_SUCH_KEY_ENV", "--timeout", "2", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 4, err
    assert "22 of 22 trials dropped" in err and "--resume" in err and "--max-drop-rate" in err


def test_the_manifest_records_an_absolute_dataset_path_and_score_takes_a_moved_one(
        pilot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    shutil.copytree(pilot, tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "data", "--config", "I", "--model", "mock/oracle", "--out", "run"]) == 0
    recorded = json.loads((tmp_path / "run" / "manifest.json").read_text(encoding="utf-8"))["dataset"]["path"]
    assert Path(recorded).is_absolute() and Path(recorded) == (tmp_path / "data").resolve()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["score", str(tmp_path / "run")]) == 0
    (tmp_path / "data").rename(tmp_path / "moved")
    capsys.readouterr()
    assert main(["score", str(tmp_path / "run")]) == 2
    assert "--dataset" in capsys.readouterr().err
    assert main(["score", str(tmp_path / "run"), "--dataset", str(tmp_path / "moved")]) == 0
