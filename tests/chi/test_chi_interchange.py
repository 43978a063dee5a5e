"""JSON manifests and JSONL observation records (spec §9)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sitbench.chi import chi_score, demo_manifest, demo_observations, load_manifest, load_observations, validate_records
from sitbench.chi._interchange import dump_jsonl, parse_manifest, parse_observation
from sitbench.errors import InputError

REQUIRED = [
    "version", "config_hash", "run", "agent", "seed", "step", "wall_time", "history_hash",
    "state_hash", "capacities", "human_similarity", "chi", "reference_kind", "synthetic", "budgets",
]


def base_record() -> dict[str, Any]:
    h = {"R": 0.9, "M": 0.8, "C": 0.7, "A": 0.6, "I": 0.5}
    return {
        "version": "chi-chis-0.1", "config_hash": "c0", "run": "r1", "agent": "a", "seed": 1, "step": 0,
        "wall_time": 1.5, "history_hash": "h0", "state_hash": "s0",
        "capacities": {"R": 0.5, "M": 0.6, "C": None, "A": 0.4, "I": 0.3},
        "human_similarity": h, "chi": chi_score(h), "reference_kind": "human", "synthetic": False,
        "budgets": {"model_tokens": 1000},
    }


def base_manifest(**kw: Any) -> dict[str, Any]:
    m = {
        "protocol_id": "p", "calibration_id": "cal-1", "evidence_class": "human-referenced",
        "system": {"model": "m"}, "feature_schemas": {}, "dataset_hashes": {"items": "abc"},
    }
    m.update(kw)
    return m


def check(record: dict[str, Any], manifest: dict[str, Any] | None = None) -> None:
    m = parse_manifest(base_manifest() if manifest is None else manifest)
    validate_records(m, [parse_observation(record, "obs.jsonl line 1")], "obs.jsonl")


def test_valid_record_passes() -> None:
    check(base_record())


@pytest.mark.parametrize("field", REQUIRED)
def test_every_required_field_is_required(field: str) -> None:
    rec = base_record()
    del rec[field]
    with pytest.raises(InputError, match=f"field '{field}': required field is missing"):
        check(rec)


@pytest.mark.parametrize(
    "path, value, rule",
    [
        (("capacities", "R"), 1.2, "outside"),
        (("capacities", "M"), -0.1, "outside"),
        (("human_similarity", "R"), 1.01, "outside"),
        (("chi",), 101.0, "less than or equal to 100"),
        (("wall_time",), float("nan"), "nonfinite"),
        (("budgets", "model_tokens"), float("inf"), "nonfinite"),
    ],
)
def test_out_of_range_and_nonfinite_values_are_rejected(path: tuple[str, ...], value: float, rule: str) -> None:
    rec = base_record()
    target = rec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(InputError, match=rule):
        check(rec)


def test_nonfinite_json_constants_are_rejected_with_line_numbers(tmp_path: Path) -> None:
    good = json.dumps(base_record())
    bad = good.replace('"wall_time": 1.5', '"wall_time": NaN')
    f = tmp_path / "obs.jsonl"
    f.write_text(good + "\n\n" + bad + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"obs.jsonl line 3: field 'wall_time': nonfinite value NaN"):
        load_observations(f)


def test_all_five_axes_must_be_present() -> None:
    rec = base_record()
    del rec["capacities"]["I"]
    with pytest.raises(InputError, match=r"field 'capacities'.*absent"):
        check(rec)


def test_unknown_fields_are_rejected() -> None:
    rec = base_record() | {"chii": 3}
    with pytest.raises(InputError, match="field 'chii': unknown field"):
        check(rec)


def test_stored_chi_must_match_its_profile() -> None:
    rec = base_record() | {"chi": 50.0}
    with pytest.raises(InputError, match="differs from 100"):
        check(rec)


def test_chi_must_be_null_when_similarity_is_missing() -> None:
    rec = base_record()
    rec["human_similarity"]["A"] = None
    with pytest.raises(InputError, match="CHI must be null"):
        check(rec, base_manifest(evidence_class="capacity-only"))
    rec["chi"] = None
    check(rec, base_manifest(evidence_class="capacity-only"))
    # CHI may stay null while the rest of the record, with a full profile, is valid
    check(base_record() | {"chi": None})


@pytest.mark.parametrize("claimed", ["capacity-only", "human-referenced"])
def test_synthetic_data_cannot_claim_an_empirical_class(claimed: str) -> None:
    rec = base_record() | {"synthetic": True, "reference_kind": "synthetic"}
    with pytest.raises(InputError, match="synthetic data cannot be reported as"):
        check(rec, base_manifest(evidence_class=claimed))
    check(rec, base_manifest(evidence_class="synthetic-demonstration"))


def test_synthetic_record_cannot_have_a_human_reference() -> None:
    rec = base_record() | {"synthetic": True}
    with pytest.raises(InputError, match="cannot have a human reference"):
        check(rec, base_manifest(evidence_class="synthetic-demonstration"))


def test_human_referenced_needs_calibration_human_reference_and_five_axes() -> None:
    with pytest.raises(InputError, match="needs a frozen calibration"):
        parse_manifest(base_manifest(calibration_id=None))
    with pytest.raises(InputError, match="reference_kind 'human'"):
        check(base_record() | {"reference_kind": "synthetic"})
    rec = base_record() | {"chi": None}
    rec["human_similarity"]["C"] = None
    with pytest.raises(InputError, match="all five axes"):
        check(rec)


def test_similarity_needs_a_calibration_and_none_reference_carries_none() -> None:
    with pytest.raises(InputError, match="needs a calibration"):
        check(base_record(), base_manifest(evidence_class="capacity-only", calibration_id=None))
    with pytest.raises(InputError, match="'none' carries no similarity"):
        check(base_record() | {"reference_kind": "none"}, base_manifest(evidence_class="capacity-only"))
    check(base_record() | {"reference_kind": "none", "human_similarity": None, "chi": None}, base_manifest(evidence_class="capacity-only", calibration_id=None))


def test_records_must_match_manifest_and_each_other() -> None:
    m = parse_manifest(base_manifest())
    r = parse_observation(base_record(), "x")
    with pytest.raises(InputError, match="duplicate"):
        validate_records(m, [r, r])
    with pytest.raises(InputError, match="version"):
        validate_records(m, [parse_observation(base_record() | {"version": "0.0"}, "x")])
    with pytest.raises(InputError, match="config_hash"):
        validate_records(parse_manifest(base_manifest(config_hash="zz")), [r])
    with pytest.raises(InputError, match=r"feature_schemas\.probe"):
        validate_records(m, [parse_observation(base_record() | {"features": [0.1]}, "x")])
    m2 = parse_manifest(base_manifest(feature_schemas={"probe": ["a", "b"]}))
    with pytest.raises(InputError, match="new series"):
        validate_records(m2, [parse_observation(base_record() | {"features": [0.1]}, "x")])
    mem = {"grid": [1, 2], "points": {"1": {"r": 1, "t": 1, "s": 1, "u": 1, "i": 1, "f": 0}}}
    rec = parse_observation(base_record() | {"memory": mem}, "x")
    with pytest.raises(InputError, match="load_grid"):
        validate_records(parse_manifest(base_manifest(load_grid=[1, 2, 4], memory_mechanism="persistent")), [rec])


def test_memory_curves_need_a_declared_mechanism() -> None:
    mem = {"grid": [1, 2], "points": {"1": {"r": 1, "t": 1, "s": 1, "u": 1, "i": 1, "f": 0}}, "delay": 5, "costs": {"tokens": 10}}
    rec = parse_observation(base_record() | {"memory": mem}, "x")
    with pytest.raises(InputError, match="memory_mechanism"):
        validate_records(parse_manifest(base_manifest(load_grid=[1, 2])), [rec])
    validate_records(parse_manifest(base_manifest(load_grid=[1, 2], memory_mechanism="in-context")), [rec])
    with pytest.raises(InputError, match="memory_mechanism"):
        parse_manifest(base_manifest(memory_mechanism="context-window"))


def test_manifest_rules() -> None:
    with pytest.raises(InputError, match="field 'protocol_id': required"):
        parse_manifest({k: v for k, v in base_manifest().items() if k != "protocol_id"})
    with pytest.raises(InputError, match="sum"):
        parse_manifest(base_manifest(weights={"R": 0.5, "M": 0.5, "C": 0.5, "A": 0.5, "I": 0.5}))
    with pytest.raises(InputError, match="evidence_class"):
        parse_manifest(base_manifest(evidence_class="conscious"))
    with pytest.raises(InputError, match="n_resamples"):
        parse_manifest(base_manifest(analysis={"n_resamples": 500}))
    with pytest.raises(InputError, match="field 'dataset_hashes': required"):
        parse_manifest({k: v for k, v in base_manifest().items() if k != "dataset_hashes"})
    with pytest.raises(InputError, match="field 'calibration_id': required"):
        parse_manifest({k: v for k, v in base_manifest().items() if k != "calibration_id"})


def test_demo_round_trips_through_utf8_files(tmp_path: Path) -> None:
    m, obs = demo_manifest(3), demo_observations(3)
    (tmp_path / "m.json").write_text(json.dumps(m.model_dump(mode="json")), encoding="utf-8")
    (tmp_path / "o.jsonl").write_text(dump_jsonl(obs), encoding="utf-8")
    m2 = load_manifest(tmp_path / "m.json")
    obs2 = load_observations(tmp_path / "o.jsonl")
    validate_records(m2, obs2)
    assert m2 == m and obs2 == obs
    assert len(obs2) == 40 and all(o.synthetic and o.reference_kind == "synthetic" for o in obs2)
