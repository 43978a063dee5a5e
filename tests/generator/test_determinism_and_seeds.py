"""Same seed → same bytes and SHA-256s; another seed → different content; seed commitments."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.data import generate_content, seed_commitment, write_dataset


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes(dev_suite: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    write_dataset(generate_content("dev", 1), again)
    assert _tree(again) == _tree(dev_suite)
    manifest = json.loads((again / "manifest.json").read_text())
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((again / rel).read_bytes()).hexdigest() == digest


def test_another_seed_different_content(dev_suite: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    write_dataset(generate_content("dev", 2), other)
    a = json.loads((dev_suite / "manifest.json").read_text())["files"]
    b = json.loads((other / "manifest.json").read_text())["files"]
    assert a["hidden/probes.jsonl"] != b["hidden/probes.jsonl"]
    assert a["hidden/registry.json"] != b["hidden/registry.json"]
    aliases = lambda root: {json.loads(p.read_text())["invariants"]["alias"]  # noqa: E731
                            for p in (root / "hidden/lineages").glob("*.json")}
    assert aliases(dev_suite) != aliases(other)


def test_commitment_is_sha256_of_the_tagged_seed() -> None:
    expected = hashlib.sha256(b"sitbench-generator/3:commitment:1").hexdigest()
    assert seed_commitment(1) == expected
    assert seed_commitment(2) != expected


def test_cli_seeds_commit_and_generate_refuses_a_wrong_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["seeds", "commit", "7"]) == 0
    assert capsys.readouterr().out.strip() == seed_commitment(7)
    assert main(["generate", "--suite", "dev", "--seed", "8", "--commitment", seed_commitment(7),
                 "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "--commitment" in err and "does not match" in err
    assert not (tmp_path / "x").exists()
    assert main(["generate", "--suite", "pilot", "--seed", "3", "--out", str(tmp_path / "p")]) == 2


def test_cli_seeds_new_prints_a_matching_pair(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["seeds", "new"]) == 0
    seed_line, commitment_line = capsys.readouterr().out.strip().splitlines()
    seed = int(seed_line.split()[1])
    assert seed.bit_length() > 64
    assert commitment_line.split()[1] == seed_commitment(seed)
