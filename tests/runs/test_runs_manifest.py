"""Run manifests carry every seed §8.2 reporting field, and an API key reaches no file or log."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from sitbench.candidates._stub_server import STUB_FINGERPRINT
from sitbench.cli import main
from sitbench.runs import RunManifest, reporting_gaps
from sitbench.verify import VERIFIER_VERSION

SENTINEL = "sk-sentinel-0123456789abcdefghijkl"


def _manifest(run: Path) -> RunManifest:
    return RunManifest.model_validate_json((run / "manifest.json").read_text())


def test_sentinel_key_appears_in_no_file_or_log(stub: Any, pilot: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    cache = tmp_path / "cache"
    run = tmp_path / "run"
    caplog.set_level(logging.DEBUG)
    args = ["run", str(pilot), "--config", "all", "--model", "openai/stub", "--base-url", stub.base_url,
            "--out", str(run), "--cache", "--cache-path", str(cache / "responses.sqlite")]
    assert main(args) == 0
    assert main(["score", str(run)]) == 0
    assert main(["rescore", str(run), "--out", str(tmp_path / "rescored")]) == 0
    assert main(["cache", "stats", "--cache-path", str(cache / "responses.sqlite")]) == 0
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 7  # 2 × (manifest, responses, scores) and the cache database
    for path in files:
        assert SENTINEL.encode() not in path.read_bytes(), path
        assert b"sk-sentinel" not in path.read_bytes(), path
    captured = capsys.readouterr()
    assert SENTINEL not in captured.out + captured.err + caplog.text
    manifest = _manifest(run)
    assert manifest.candidate["api_key_env"] == "OPENAI_API_KEY"  # the variable's name, never its value


def test_remote_run_manifest_is_complete(stub: Any, pilot: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert main(["run", str(pilot), "--config", "B,E", "--model", "openai/stub", "--base-url", stub.base_url,
                 "--out", str(run), "--max-tokens", "48", "--temperature", "0", "--seed", "3"]) == 0
    before = _manifest(run)
    assert reporting_gaps(before) == ["verifier_version"]  # not scored yet
    assert main(["score", str(run)]) == 0
    manifest = _manifest(run)
    assert reporting_gaps(manifest) == []
    assert manifest.provider == "openai-compatible"
    assert manifest.models_sent == ["stub"] and manifest.returned_models == ["stub"]
    assert manifest.system_fingerprints == [STUB_FINGERPRINT]
    assert manifest.decoding.model_dump() == {"temperature": 0.0, "top_p": 1.0, "max_tokens": 48, "seed": 3}
    assert manifest.seeds == {"decoding": 3}
    assert manifest.candidate["base_url"] == stub.base_url
    assert manifest.retriever is not None and manifest.retriever["similarity"] == "cosine"
    assert manifest.verifier_version == VERIFIER_VERSION
    assert len(manifest.templates_sha256) == 64 and len(manifest.dataset["manifest_sha256"]) == 64
    assert manifest.counts == {"attempted": 44, "completed": 44, "dropped": 0, "retries": 0, "calls": 56,
                               "cache_hits": 0}
    assert manifest.cache == {"enabled": False}
    assert manifest.created_at <= (manifest.finished_at or "")
    # The manifest is plain JSON with no field outside the schema.
    assert set(json.loads((run / "manifest.json").read_text())) <= set(RunManifest.model_fields)


def test_gaps_name_each_missing_field(pilot: Path, tmp_path: Path) -> None:
    run = tmp_path / "mock"
    assert main(["run", str(pilot), "--config", "E", "--model", "mock/oracle", "--out", str(run)]) == 0
    assert main(["score", str(run)]) == 0
    complete = _manifest(run)
    # Mocks report no revision; that is not a gap for them.
    assert complete.returned_models == [] and reporting_gaps(complete) == []
    broken = complete.model_copy(update={
        "models_sent": [], "provider": None, "finished_at": None, "retriever": None, "verifier_version": None,
        "dataset": {}, "counts": {}})
    assert reporting_gaps(broken) == [
        "models_sent", "provider", "finished_at", "retriever.model_id", "retriever.similarity", "retriever.k",
        "dataset.manifest_sha256", "verifier_version", "counts.attempted", "counts.completed"]
    remote = complete.model_copy(update={"provider": "openai-compatible"})
    assert reporting_gaps(remote) == ["returned_models"]
