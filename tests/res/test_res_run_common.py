"""`sitbench res run` on the common run pieces: response cache, progress display, manifest fields, drops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sitbench.candidates import CandidateRequest, CandidateResponse, candidate
from sitbench.cli import main
from sitbench.runs import RunManifest


class _Counting:
    """A non-mock candidate that counts its calls; one scenario's fiction cell always times out."""

    calls = 0

    def __init__(self, name: str) -> None:
        self.name = f"rescommon/{name}"

    def describe(self) -> dict[str, Any]:
        return {"provider": "test", "model": self.name}

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        type(self).calls += 1
        _, _, scenario_id, condition = request.trial_id.rsplit(":", 3)
        base = {"model_sent": "counting-1", "provider": "test", "returned_model": "counting-1@r2", "retries": 1}
        if scenario_id == "res-cm-02" and condition == "fiction":
            return CandidateResponse(text=None, status="drop", drop_reason="timeout after 5s", **base)
        tokens = request.view["action_tokens"] if request.view else []
        return CandidateResponse(text=tokens[0], **base)


@candidate("rescommon")
def _factory(name: str, **_: Any) -> _Counting:
    return _Counting(name)


def _rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def _stable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in ("finished_at", "latency_s", "retries", "cached")}


def test_cache_serves_a_second_run_and_the_manifest_says_so(tmp_path: Path) -> None:
    cache = tmp_path / "responses.sqlite"
    argv = ["res", "run", "--model", "rescommon/a", "--cache", "--cache-path", str(cache)]
    _Counting.calls = 0
    assert main([*argv, "--out", str(tmp_path / "one")]) == 0
    assert _Counting.calls == 72
    assert main([*argv, "--out", str(tmp_path / "two")]) == 0
    # Drops are never stored, so only the timed-out cell is called again.
    assert _Counting.calls == 73
    one, two = _rows(tmp_path / "one"), _rows(tmp_path / "two")
    assert sorted(map(json.dumps, map(_stable, one))) == sorted(map(json.dumps, map(_stable, two)))
    assert not any(r["cached"] for r in one)
    assert sum(r["cached"] for r in two) == 71
    assert (tmp_path / "one" / "summary.json").read_text() == (tmp_path / "two" / "summary.json").read_text()
    first = json.loads((tmp_path / "one" / "manifest.json").read_text())
    second = json.loads((tmp_path / "two" / "manifest.json").read_text())
    assert first["cache"] == {"enabled": True, "epoch": 0}
    assert first["counts"] == {"attempted": 72, "completed": 71, "dropped": 1, "retries": 72, "calls": 72,
                               "cache_hits": 0}
    assert second["counts"]["cache_hits"] == 71 and second["counts"]["retries"] == 1
    # A new epoch samples afresh.
    assert main([*argv, "--epoch", "1", "--out", str(tmp_path / "three")]) == 0
    assert _Counting.calls == 145


def test_mocks_bypass_the_cache_and_no_cache_is_recorded(tmp_path: Path) -> None:
    assert main(["res", "run", "--model", "mock/collapse", "--cache", "--cache-path", str(tmp_path / "c.sqlite"),
                 "--out", str(tmp_path / "m")]) == 0
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert manifest["cache"] == {"enabled": False, "epoch": 0,
                                 "bypassed": {"mock/collapse": "deterministic mock candidates are never cached"}}
    assert main(["res", "run", "--model", "rescommon/b", "--out", str(tmp_path / "n")]) == 0
    assert json.loads((tmp_path / "n" / "manifest.json").read_text())["cache"] == {"enabled": False}


def test_manifest_carries_the_run_manifest_names(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["res", "run", "--model", "rescommon/c", "--seed", "7", "--top-p", "0.5", "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    common = set(RunManifest.model_fields)
    shared = {"package_version", "git_commit", "created_at", "finished_at", "decoding", "seeds", "counts",
              "provider", "models_sent", "returned_models", "system_fingerprints", "cache"}
    assert shared <= common and shared <= set(manifest)
    assert manifest["package_version"] == manifest["sitbench_version"]
    assert manifest["created_at"] == manifest["started_at"]
    assert manifest["seeds"] == {"execution": 20260910, "decoding": 7}
    assert manifest["seed"] == 20260910
    assert manifest["decoding"] == {"temperature": 0.0, "top_p": 0.5, "max_tokens": 512, "seed": 7}
    assert manifest["provider"] == "test"
    assert manifest["models_sent"] == ["counting-1"] and manifest["returned_models"] == ["counting-1@r2"]
    assert manifest["status_counts"] == {"ok": 71, "invalid": 0, "error": 1}


def test_errors_are_listed_and_max_drop_rate_exits_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["res", "run", "--model", "rescommon/d", "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "1 of 72 cells failed (timeout after 5s ×1)" in err
    assert main(["res", "run", "--model", "rescommon/d", "--max-drop-rate", "0.01",
                 "--out", str(tmp_path / "b")]) == 4
    err = capsys.readouterr().err
    assert "above --max-drop-rate 1.0%" in err
    assert len(_rows(tmp_path / "b")) == 72 and (tmp_path / "b" / "summary.json").exists()
    assert main(["res", "run", "--model", "rescommon/d", "--max-drop-rate", "0.02",
                 "--out", str(tmp_path / "c")]) == 0


def test_progress_goes_through_the_common_display(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not a terminal: plain lines; an interval shorter than any run gives the final line.
    monkeypatch.setenv("SITBENCH_PROGRESS_SECONDS", "0.000001")
    assert main(["res", "run", "--model", "rescommon/e", "--out", str(tmp_path / "p")]) == 0
    assert "RES: 72/72 trials (100.0 %)" in capsys.readouterr().err
