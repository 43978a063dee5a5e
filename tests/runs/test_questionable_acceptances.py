"""Decided acceptances: a report over two datasets warns, G_budget runs on the pilot (equal to G), and clearing
a model that was never cached says so (exit 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.cli import main


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITBENCH_CACHE_DIR", str(tmp_path / "cache"))


def _scored(dataset: Path, out: Path) -> Path:
    assert main(["run", str(dataset), "--config", "B", "--model", "mock/oracle", "--out", str(out)]) == 0
    assert main(["score", str(out)]) == 0
    return out


def test_a_report_over_two_datasets_warns_naming_both(pilot: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.data import generate_content, write_dataset

    other = tmp_path / "dev"
    write_dataset(generate_content("dev", 3), other)
    a, b = _scored(pilot, tmp_path / "a"), _scored(other, tmp_path / "b")
    capsys.readouterr()
    assert main(["report", str(a), str(b), "--out", str(tmp_path / "page.html")]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, warnings
    assert "2 different datasets" in warnings[0] and str(pilot) in warnings[0] and str(other) in warnings[0]
    assert (tmp_path / "page.html").stat().st_size > 0


def test_a_report_over_one_dataset_does_not_warn(pilot: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _scored(pilot, tmp_path / "a"), _scored(pilot, tmp_path / "b")
    capsys.readouterr()
    assert main(["report", str(a), str(b), "--out", str(tmp_path / "page.html")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_g_budget_runs_on_the_pilot_and_equals_g_there(pilot: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--help"]) == 0
    assert "on the pilot every prompt fits and G_budget equals G" in " ".join(capsys.readouterr().out.split())
    out = tmp_path / "gb"
    assert main(["run", str(pilot), "--config", "G_budget", "--model", "mock/oracle", "--out", str(out)]) == 0
    text = (out / "responses.jsonl").read_text(encoding="utf-8")
    assert len(text.splitlines()) == 22 and text.count('"fits":true') >= 22 and '"dropped":[]' in text
    assert '"dropped":[{' not in text


def test_clearing_a_model_never_cached_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.candidates import ResponseCache

    path = tmp_path / "responses.sqlite"
    ResponseCache(path).close()
    assert main(["cache", "clear", "--cache-path", str(path), "--model", "openai/never"]) == 0
    out = capsys.readouterr().out
    assert "nothing cached for 'openai/never'" in out and "sitbench cache stats" in out and "deleted 0" not in out
    assert main(["cache", "clear", "--help"]) == 0
    assert "is not an error (exit 0)" in " ".join(capsys.readouterr().out.split())
