"""Generating the pilot is deterministic: same bytes, same SHA-256s, and the manifest certifies them."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.data import pilot_content, write_dataset

STORE_FILES = [
    "hidden/lineages/L-1A.json", "hidden/lineages/L-1B.json", "hidden/lineages/L-2A.json",
    "hidden/lineages/L-2B.json", "hidden/probes.jsonl", "hidden/registry.json", "pairs/pairs.json",
    "visible/queries.jsonl", "visible/subjects/subj-41d9.json", "visible/subjects/subj-7c2e.json",
    "visible/subjects/subj-b803.json", "visible/subjects/subj-e5a4.json",
]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _generate(out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    assert main(["generate", "--suite", "pilot", "--out", str(out)]) == 0
    capsys.readouterr()
    return _tree(out)


def test_two_generations_are_byte_identical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = _generate(tmp_path / "one", capsys)
    second = _generate(tmp_path / "two", capsys)
    assert sorted(first) == sorted(STORE_FILES + ["manifest.json"])
    assert first == second
    assert json.loads(first["manifest.json"]) == json.loads(second["manifest.json"])


def test_manifest_hashes_are_the_sha256_of_every_store_file(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    tree = _generate(tmp_path / "pilot", capsys)
    manifest = json.loads(tree["manifest.json"])
    assert sorted(manifest["files"]) == STORE_FILES
    for rel, digest in manifest["files"].items():
        assert digest == hashlib.sha256(tree[rel]).hexdigest(), rel
    # No wall-clock or machine-specific content in the manifest.
    assert set(manifest) == {"suite", "seed", "generator_version", "schema_version", "counts", "files"}


def test_regenerating_in_place_is_idempotent_and_keeps_files_it_did_not_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pilot"
    first = _generate(out, capsys)
    (out / "hidden/probes.jsonl").write_text("garbage\n", encoding="utf-8")
    assert _generate(out, capsys) == first
    # A store file the manifest does not list is not sitbench's: it is neither deleted nor overwritten.
    stray = out / "hidden/lineages/L-9Z.json"
    stray.write_text("{}", encoding="utf-8")
    assert main(["generate", "--suite", "pilot", "--out", str(out)]) == 2
    assert str(stray) in capsys.readouterr().err
    assert _tree(out) == {**first, "hidden/lineages/L-9Z.json": b"{}"}


def test_cli_and_library_writers_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    via_cli = _generate(tmp_path / "cli", capsys)
    manifest = write_dataset(pilot_content(), tmp_path / "lib")
    assert _tree(tmp_path / "lib") == via_cli
    assert manifest.model_dump(mode="json") == json.loads(via_cli["manifest.json"])


def test_every_file_is_utf8_with_lf_newlines_and_a_final_newline(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    for rel, data in _generate(tmp_path / "pilot", capsys).items():
        text = data.decode("utf-8")
        assert "\r" not in text, rel
        assert text.endswith("\n"), rel
        if rel.endswith(".jsonl"):
            assert all(json.loads(line) for line in text.splitlines()), rel
        else:
            json.loads(text)


def test_generation_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """Two processes with different string-hash seeds (set and dict orders) write the same bytes."""
    trees = []
    for seed in ("1", "2"):
        out = tmp_path / f"seed{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run([sys.executable, "-m", "sitbench", "generate", "--suite", "pilot", "--out", str(out)],
                                capture_output=True, text=True, timeout=60, env=env, check=False)
        assert result.returncode == 0, result.stderr
        trees.append(_tree(out))
    assert trees[0] == trees[1]
