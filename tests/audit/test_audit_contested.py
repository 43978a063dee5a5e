"""Contested responses (two readers whose verdicts differ) form one oversampled stratum; π stays exact."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from sitbench.audit import draw_sample, sample_runs
from sitbench.audit._sample import CONTESTED_STRATUM, DEFAULT_WEIGHTS, confidence_band, load_population
from sitbench.schema import Confidence, ConfidenceLevel


def _contested_trials(run: Path) -> set[str]:
    with (run / "scores.jsonl").open(encoding="utf-8") as handle:
        return {r["trial_id"] for r in map(json.loads, handle) if r.get("agreement") == "contested"}


def test_contested_responses_form_one_oversampled_stratum(two_reader_run: Path) -> None:
    contested = _contested_trials(two_reader_run)
    assert 0 < len(contested) < 198  # the fixture has both kinds
    sample = sample_runs([two_reader_run], n=60, seed=1, phase="dev")
    strata = {s.key: s for s in sample.strata}
    pooled = strata[CONTESTED_STRATUM]
    assert pooled.population == len(contested) and pooled.contested and pooled.category is None
    assert pooled.factors == ["contested"] and pooled.weight == DEFAULT_WEIGHTS["contested"]
    assert all(not s.contested and s.category is not None for k, s in strata.items() if k != CONTESTED_STRATUM)
    # Every drawn contested response is in that stratum, and only those.
    for item in sample.items:
        assert (item.stratum == CONTESTED_STRATUM) == item.contested == (item.trial_id in contested)
    assert pooled.sampled == sum(item.contested for item in sample.items) > 0
    # No floor (more strata than 60 can floor) and no cap: a_h ∝ N_h·w_h, so π_h ∝ w_h; the contested
    # stratum is drawn at 4 times the rate of a stratum with no factor.
    assert not sample.allocation.floor_applied
    mass = sum(s.population * s.weight for s in sample.strata)
    assert pooled.inclusion_probability == pytest.approx(60 * 4.0 / mass)
    plain = [s for s in sample.strata if not s.factors]
    assert plain and all(s.inclusion_probability == pytest.approx(60 / mass) for s in plain)
    assert pooled.inclusion_probability == pytest.approx(4 * plain[0].inclusion_probability)
    share = pooled.sampled / len(sample.items)
    assert share > len(contested) / 198  # oversampled: more of the sample than of the population


def test_inclusion_probabilities_stay_exact(two_reader_run: Path) -> None:
    """Σ N_h = population and Σ π_h·N_h = n exactly; over draws, E[Σ 1/π_i] = N and E[n_h] = π_h·N_h."""
    units, sources, props, scopes, signal = load_population([two_reader_run])
    first = draw_sample(units, sources, props, scopes, signal, n=40, seed=0, phase="dev")
    assert sum(s.population for s in first.strata) == first.population == 198
    assert sum(s.inclusion_probability * s.population for s in first.strata) == pytest.approx(40)
    totals, drawn = [], Counter[str]()
    seeds = 300
    for seed in range(seeds):
        sample = draw_sample(units, sources, props, scopes, signal, n=40, seed=seed, phase="dev")
        assert len(sample.items) == 40
        totals.append(sum(1 / item.inclusion_probability for item in sample.items))
        drawn.update(item.stratum for item in sample.items)
    # Horvitz–Thompson: the weights of a sample sum to the population in expectation.
    assert np.mean(totals) == pytest.approx(198, rel=0.02)
    pooled = next(s for s in first.strata if s.key == CONTESTED_STRATUM)
    assert drawn[CONTESTED_STRATUM] / seeds == pytest.approx(pooled.expected, abs=0.05)


def test_a_census_weighs_every_response_once(two_reader_run: Path) -> None:
    sample = sample_runs([two_reader_run], n=198, seed=3, phase="dev")
    assert sum(1 / item.inclusion_probability for item in sample.items) == pytest.approx(198)
    assert Counter(item.stratum for item in sample.items)[CONTESTED_STRATUM] == len(_contested_trials(two_reader_run))


def test_one_reader_runs_have_no_contested_stratum(sample_path: Path) -> None:
    from sitbench.audit import load_sample

    sample = load_sample(sample_path)
    assert all(s.key != CONTESTED_STRATUM and not s.contested for s in sample.strata)
    assert not any(item.contested for item in sample.items)


def test_the_confidence_band_is_the_level_today() -> None:
    for level in ConfidenceLevel:
        assert confidence_band(Confidence(level=level, signals=["premise_adopted"])) is level


def test_the_verifier_weights_contested_responses_by_their_stratum(two_reader_run: Path, tmp_path: Path) -> None:
    from _audit_support import rule_lines, write

    from sitbench.audit import build_reference, load_annotation_files, measure
    from sitbench.stores import write_json

    sample = sample_runs([two_reader_run], n=60, seed=1, phase="dev")
    sample_path = tmp_path / "sample.json"
    write_json(sample_path, sample)
    files = [write(tmp_path / f"{n}.jsonl", rule_lines(sample, n)) for n in ("a", "b")]
    reference = build_reference(sample, sample_path, load_annotation_files(files, sample), resamples=20)
    result, rows = measure(reference, sample, "rules", resamples=50)
    pooled = next(s for s in sample.strata if s.key == CONTESTED_STRATUM)
    contested_rows = [r for r in rows if r.stratum == CONTESTED_STRATUM]
    assert len(contested_rows) == pooled.sampled
    assert all(r.weight == pytest.approx(1 / pooled.inclusion_probability) for r in contested_rows)
    by = {e.metric: e for e in result.estimates}
    # The rule reading is the reference: the extractor agrees with it everywhere, contested or not.
    assert by["decision_agreement"].population == pytest.approx(1.0)
    assert next(s for s in result.strata if s.key == CONTESTED_STRATUM).annotated == pooled.sampled


def test_the_rule_reading_stratifies_whichever_reader_it_is(two_reader_run: Path) -> None:
    from sitbench.audit._sample import stratifying_observation
    from sitbench.runs import RunStore

    record = next(r for r in RunStore(two_reader_run).scores() if r.agreement == "contested")
    assert record.observation is not None and record.second is not None and record.second.observation is not None
    rules, llm = record.observation, record.second.observation
    assert (rules.extractor, llm.extractor) == ("rules", "llm")
    assert stratifying_observation(record) is rules
    # Scored as llm+rules: the rule extractor is the second reader, and its reading still stratifies.
    swapped = record.model_copy(update={"observation": llm,
                                        "second": record.second.model_copy(update={"observation": rules})})
    assert stratifying_observation(swapped) is rules
    # One reader: its reading, whatever it is.
    assert stratifying_observation(record.model_copy(update={"observation": llm, "second": None})) is llm
