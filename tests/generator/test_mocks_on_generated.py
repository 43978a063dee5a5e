"""Table 5 at scale: mock/collapse under B stays within the profile-collision bound in every pair, and
mock/oracle under I satisfies every contract (Macro SIT = 1.0). Dev suite here; the full suite in the
benchmark (``benchmarks/generate.py --mocks``) and in the slow test below."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from sitbench.cli._runs import execute_run, score_run
from sitbench.data import generate_content, write_dataset
from sitbench.lineage import run_checks
from sitbench.metrics import compute_metrics, load_scores
from sitbench.stores import load_dataset


def per_pair_laa(run: Path) -> dict[str, float]:
    """LAA of each pair: mean over its two lineages of the share of theorem-qualified probes scored (1, 0)."""
    hits: dict[tuple[str, str], list[int]] = defaultdict(list)
    for line in (run / "scores.jsonl").read_text().splitlines():
        s = json.loads(line)
        if s["theorem_qualified"] and s["status"] == "completed":
            correct = s["verdict"]["valid"] and not s["partner"]["valid"]
            hits[(s["pair_id"], s["lineage_id"])].append(int(correct))
    pairs: dict[str, list[float]] = defaultdict(list)
    for (pair, _), values in hits.items():
        pairs[pair].append(sum(values) / len(values))
    return {pair: sum(v) / len(v) for pair, v in pairs.items()}


def _run(dataset: Path, model: str, config: str, out: Path) -> Path:
    attempted, completed = execute_run(dataset, model, out, config)
    assert attempted == completed
    score_run(out)
    return out


@pytest.mark.slow
def test_dev_suite_collapse_and_oracle(dev_suite: Path, tmp_path: Path) -> None:
    collapse = _run(dev_suite, "mock/collapse", "B", tmp_path / "collapse")
    laa = per_pair_laa(collapse)
    assert len(laa) == 5 and max(laa.values()) <= 0.5
    oracle = _run(dev_suite, "mock/oracle", "I", tmp_path / "oracle")
    m = compute_metrics(load_scores(oracle))["I"]
    assert m.macro_sit == pytest.approx(1.0)
    assert pytest.approx(1.0) == m.LAA
    assert (m.FMR, m.TL, m.UEL) == (0.0, 0.0, 0.0)


@pytest.mark.slow
def test_full_suite_end_to_end(tmp_path: Path) -> None:
    root = tmp_path / "full"
    write_dataset(generate_content("full", 1), root)
    ds = load_dataset(root)
    assert [r.id for r in run_checks(ds) if not r.passed] == []
    assert (len(ds.pairs), len(ds.hidden.lineages), len(ds.hidden.probes)) == (25, 50, 10_000)
    assert sorted(p.split for p in ds.pairs.values()).count("dev") == 5
    assert all(250 <= len(lin.events) <= 500 for lin in ds.hidden.lineages.values())
    laa = per_pair_laa(_run(root, "mock/collapse", "B", tmp_path / "collapse"))
    assert len(laa) == 25 and max(laa.values()) <= 0.5
    m = compute_metrics(load_scores(_run(root, "mock/oracle", "I", tmp_path / "oracle")))["I"]
    assert m.macro_sit == pytest.approx(1.0)
