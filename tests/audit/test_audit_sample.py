"""Allocation, rounding and inclusion probabilities against values computed by hand."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from _audit_support import DEMO_RUNS

from sitbench.audit import allocate, load_sample, sample_runs, systematic_round
from sitbench.audit._sample import DEFAULT_WEIGHTS, load_population, parse_weights
from sitbench.cli import main
from sitbench.errors import InputError


def test_allocation_by_hand() -> None:
    # N = (10, 30, 60), weights (3, 1, 1), n = 10, no floor: a ∝ N·w = (30, 30, 60) → (2.5, 2.5, 5)
    a, floored = allocate([10, 30, 60], [3, 1, 1], 10, floor=0)
    assert a == pytest.approx([2.5, 2.5, 5.0]) and floored
    # π = a / N = (0.25, 1/12, 1/12)
    assert [x / n for x, n in zip(a, [10, 30, 60], strict=True)] == pytest.approx([0.25, 1 / 12, 1 / 12])
    # Floor 3: (3, 3, 3) first; the remaining 1 shared ∝ (30, 30, 60): (3.25, 3.25, 3.5)
    a, floored = allocate([10, 30, 60], [3, 1, 1], 10, floor=3)
    assert a == pytest.approx([3.25, 3.25, 3.5]) and floored
    # A stratum whose share exceeds its size is capped at N_h (π = 1) and the rest goes elsewhere:
    # N = (2, 100), w = (10, 1), n = 20: 20·20/120 = 3.33 > 2 → (2, 18), π = (1, 0.18)
    a, _ = allocate([2, 100], [10, 1], 20, floor=0)
    assert a == pytest.approx([2.0, 18.0])
    # More strata than the floor allows: no floor at all (and it says so).
    a, floored = allocate([1] * 5, [1] * 5, 3, floor=1)
    assert not floored and a == pytest.approx([0.6] * 5)
    with pytest.raises(InputError, match="census"):
        allocate([3, 4], [1, 1], 8, floor=0)


def test_systematic_rounding_keeps_the_total_and_the_expectation() -> None:
    expected = [2.5, 2.5, 5.0, 0.3, 0.7, 1.0]
    totals: Counter[int] = Counter()
    sums = np.zeros(len(expected))
    draws = 4000
    for seed in range(draws):
        sizes = systematic_round(expected, np.random.default_rng(seed))
        assert sum(sizes) == 12
        assert all(int(np.floor(a)) <= s <= int(np.ceil(a)) for a, s in zip(expected, sizes, strict=True))
        sums += sizes
        totals[sum(sizes)] += 1
    # E[n_h] = a_h: that is what makes π_h = a_h / N_h exact.
    assert sums / draws == pytest.approx(expected, abs=0.03)


def test_weights_option() -> None:
    assert parse_weights(["low=4"]) == {**DEFAULT_WEIGHTS, "low": 4.0}
    for bad in ("lowish=2", "low", "low=0", "low=nan", "low=x"):
        with pytest.raises(InputError, match="--weight"):
            parse_weights([bad])


def test_demo_sample_records_strata_and_inclusion_probabilities(sample_path: Path, demo_dir: Path) -> None:
    sample = load_sample(sample_path)
    assert sample.phase == "dev" and len(sample.items) == 60 and sample.population == 594
    assert sample.signal == "rules@sitbench-rules/3.1" and sample.allocation.seed == 1
    assert sum(s.expected for s in sample.strata) == pytest.approx(60)
    assert sum(s.sampled for s in sample.strata) == 60
    assert sum(s.population for s in sample.strata) == 594
    # Recompute every stratum's weight, allocation and π by hand from the recorded counts and rule.
    units, *_ = load_population([demo_dir / r for r in DEMO_RUNS])
    acts = Counter(u.acts for u in units)
    weights = sample.allocation.weights
    for s in sample.strata:
        factors = (["compound"] if len(s.acts) >= 2 else []) + \
                  (["rare"] if acts[tuple(s.acts)] / 594 < sample.allocation.rare_share else []) + \
                  (["unmapped"] if s.unmapped else []) + \
                  {"low": ["low"], "medium": ["medium"], "high": []}[s.confidence.value]
        assert s.factors == factors
        assert s.weight == pytest.approx(np.prod([weights[f] for f in factors]))
    total = sum(s.population * s.weight for s in sample.strata)
    # 231 strata > 60: no floor; a_h = 60 · N_h·w_h / Σ N·w (no stratum reaches its cap here)
    assert not sample.allocation.floor_applied
    for s in sample.strata:
        assert s.expected == pytest.approx(60 * s.population * s.weight / total)
        assert s.inclusion_probability == pytest.approx(s.expected / s.population)
    # Each item carries its stratum's π; stratum counts match the items.
    by_key = {s.key: s for s in sample.strata}
    for item in sample.items:
        assert item.inclusion_probability == by_key[item.stratum].inclusion_probability
    assert Counter(i.stratum for i in sample.items) == {k: s.sampled for k, s in by_key.items() if s.sampled}
    # Oversampling: the oversampled strata have the larger inclusion probabilities.
    plain = max(s.inclusion_probability for s in sample.strata if not s.factors)
    assert all(s.inclusion_probability > plain for s in sample.strata if s.weight > 1)
    # The manifest of every source run travels with the sample.
    assert [r.name for r in sample.runs] == list(DEMO_RUNS)
    assert all(r.manifest["run_id"] == r.run_id and len(r.scores_sha256) == 64 for r in sample.runs)
    # Page order is shuffled, not in strata blocks.
    assert [i.position for i in sample.items] == list(range(60))


def test_the_same_seed_draws_the_same_sample(demo_dir: Path, sample_path: Path) -> None:
    runs = [demo_dir / r for r in DEMO_RUNS]
    again = sample_runs(runs, n=60, seed=1, phase="dev")
    first = load_sample(sample_path)
    assert again.sample_id == first.sample_id
    assert [i.item_id for i in again.items] == [i.item_id for i in first.items]
    other = sample_runs(runs, n=60, seed=2, phase="dev")
    assert other.sample_id != first.sample_id


def test_floor_and_oversampling_options_are_recorded(demo_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    assert main(["audit", "sample", str(demo_dir / "run-oracle"), "--n", "150", "--seed", "3", "--phase", "dev",
                 "--floor", "1", "--weight", "low=5", "--weight", "compound=4", "--rare-share", "0.1",
                 "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    allocation = data["allocation"]
    assert allocation["floor_applied"] and allocation["weights"]["low"] == 5 and allocation["weights"]["compound"] == 4
    assert allocation["rare_share"] == 0.1 and "systematic rounding" in allocation["rule"]
    assert all(s["sampled"] >= 1 for s in data["strata"])  # the floor: every stratum drawn at least once


def test_bad_inputs_are_one_line_errors(demo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "sample", str(demo_dir / "run-oracle"), "--n", "999", "--phase", "dev",
                 "--out", str(tmp_path / "x.json")]) == 2
    assert "census" in capsys.readouterr().err
    assert main(["audit", "sample", str(tmp_path), "--phase", "dev", "--out", str(tmp_path / "x.json")]) == 2
    assert "not a run directory" in capsys.readouterr().err
    assert main(["audit", "sample", str(demo_dir / "run-oracle"), "--out", str(tmp_path / "x.json")]) == 2
    assert "--phase" in capsys.readouterr().err
