"""Phase discipline (seed §8.3): held-out audits are recorded as such and never feed development material."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from _audit_support import DEMO_RUNS, write

from sitbench.audit import (
    PhaseError,
    build_reference,
    draw_sample,
    load_annotation_files,
    load_sample,
)
from sitbench.audit._sample import check_phase, load_population
from sitbench.cli import main
from sitbench.errors import InputError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify" / "corpus"))
import corpus_tool


@pytest.fixture(autouse=True)
def corpus_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SITBENCH_CORPUS_CACHE", str(tmp_path_factory.getbasetemp() / "corpus-datasets"))
    corpus_tool.judge_for.cache_clear()
    yield
    corpus_tool.judge_for.cache_clear()


def _lines(sample, name: str, n: int | None = None) -> list[dict]:
    out = []
    for item in sample.by_position()[:n]:
        out.append({"format": "sitbench-audit-annotation/1", "sample_id": sample.sample_id, "phase": sample.phase,
                    "annotator": name, "item_id": item.item_id, "acts": ["ABSTAIN"], "uncertainty": "not_knowing"})
    return out


def _reference_file(sample_path: Path, tmp: Path, n: int = 3) -> Path:
    sample = load_sample(sample_path)
    paths = [write(tmp / f"{a}.jsonl", _lines(sample, a, n)) for a in ("a", "b", "c")]
    reference = build_reference(sample, sample_path, load_annotation_files(paths, sample), resamples=20)
    path = tmp / "reference.json"
    path.write_text(reference.model_dump_json(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def heldout_sample(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A held-out-phase sample (the demo's responses standing in for held-out pairs' answers)."""
    units, sources, props, scopes, signal = load_population([demo_dir / r for r in DEMO_RUNS])
    held = [replace(u, split="heldout") for u in units]
    sample = draw_sample(held, sources, props, scopes, signal, n=20, seed=4, phase="heldout")
    path = tmp_path_factory.mktemp("heldout") / "sample.json"
    path.write_text(sample.model_dump_json(), encoding="utf-8")
    return path


def test_sampling_keeps_the_phases_apart(demo_dir: Path) -> None:
    units, *_ = load_population([demo_dir / "run-oracle"])
    with pytest.raises(InputError, match=r"--phase heldout.*not a held-out one"):
        check_phase(units, "heldout")
    with pytest.raises(InputError, match=r"--phase dev.*held-out pair"):
        check_phase([replace(units[0], split="heldout"), *units[1:]], "dev")
    check_phase(units, "dev")


def test_the_heldout_phase_is_recorded_everywhere(heldout_sample: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    sample = load_sample(heldout_sample)
    assert sample.phase == "heldout"
    assert main(["audit", "sheet", str(heldout_sample), "--out", str(tmp_path / "sheets"), "--annotator", "x"]) == 0
    page = (tmp_path / "sheets" / "x.html").read_text(encoding="utf-8")
    assert "held-out reliability audit (post-freeze" in page
    reference = _reference_file(heldout_sample, tmp_path)
    assert json.loads(reference.read_text())["phase"] == "heldout"
    out = tmp_path / "verifier.json"
    assert main(["audit", "verifier", str(reference), "--resamples", "20", "--out", str(out)]) == 0
    assert "held-out reliability audit" in capsys.readouterr().out
    assert json.loads(out.read_text())["phase"] == "heldout"
    # A held-out audit never lists disagreements to diagnose the extractor with.
    assert main(["audit", "verifier", str(reference), "--resamples", "20", "--show", "5"]) == 2
    assert "held-out audit findings never modify extractor rules" in capsys.readouterr().err
    # An annotation claiming another phase than its sample's is refused.
    bad = [dict(x, phase="dev") for x in _lines(sample, "y", 2)]
    assert main(["audit", "import", str(write(tmp_path / "y.jsonl", bad)), "--sample", str(heldout_sample)]) == 2
    assert "phase 'dev' differs" in capsys.readouterr().err


def test_heldout_items_never_enter_the_corpus_or_the_regression_tests(heldout_sample: Path, tmp_path: Path) -> None:
    reference = _reference_file(heldout_sample, tmp_path)
    for fmt, out in (("corpus", tmp_path / "AU.jsonl"), ("regression", tmp_path / "regression.jsonl")):
        with pytest.raises(PhaseError, match="held-out audit findings never modify"):
            corpus_tool.import_audit(reference, out, fmt)
        with pytest.raises(SystemExit, match="refused"):
            corpus_tool.main(["import-audit", str(reference), "--out", str(out), "--format", fmt])
        assert not out.exists()


def test_development_items_enter_the_corpus_checked(sample_path: Path, tmp_path: Path) -> None:
    reference = _reference_file(sample_path, tmp_path, n=4)
    out = tmp_path / "raw" / "AU.jsonl"
    assert corpus_tool.main(["import-audit", str(reference), "--out", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert 1 <= len(lines) <= 4 and lines[0]["id"] == "AU-001" and lines[0]["dataset"] == "pilot"
    for line in lines:
        assert corpus_tool.check_line(line) == []  # the verdicts are the scorer's on the reference reading
        assert line["acts"] == ["ABSTAIN"] and line["uncertainty"] == "not_knowing"
    # Importing again adds nothing (the same responses are there).
    assert corpus_tool.import_audit(reference, out) == 0
    regression = tmp_path / "regression.jsonl"
    assert corpus_tool.import_audit(reference, regression, "regression") == len(lines)
    first = json.loads(regression.read_text(encoding="utf-8").splitlines()[0])
    assert first["id"] == "R-001" and set(first) == {"id", "probe_id", "response", "acts", "claims", "valid",
                                                     "partner_valid", "note"}


def test_synthetic_annotations_never_enter_the_corpus(sample_path: Path, tmp_path: Path) -> None:
    sample = load_sample(sample_path)
    paths = [write(tmp_path / f"{a}.jsonl", [dict(x, synthetic=True) for x in _lines(sample, a, 2)])
             for a in ("a", "b")]
    reference = build_reference(sample, sample_path, load_annotation_files(paths, sample), resamples=20)
    path = tmp_path / "reference.json"
    path.write_text(reference.model_dump_json(), encoding="utf-8")
    with pytest.raises(SystemExit, match="synthetic"):
        corpus_tool.import_audit(path, tmp_path / "AU.jsonl")
