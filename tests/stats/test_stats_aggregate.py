"""Pair-balanced aggregation (Eq. 40) on hand-computed examples."""

from __future__ import annotations

import pytest

from sitbench.errors import InputError
from sitbench.stats import PairRecord, pair_balanced, pair_differences

STRATA = ["pre_acquisition", "post_acquisition"]
PRE, POST = STRATA

# P1: lineage a: pre (1, 0) → 0.5, post (1) → 1   → 0.75
#     lineage b: pre (0) → 0,      post (1,1,0,1) → 0.75 → 0.375      pair 0.5625
# P2: lineage c: pre (1), post (1) → 1
#     lineage d: pre (1,0,0) → 1/3, post (0) → 0 → 1/6               pair 7/12
# P3: lineage f has no completed post trial (one attempted, failed) → incomplete.
RECORDS = [
    ("P1", "a", PRE, 1.0),
    ("P1", "a", PRE, 0.0),
    ("P1", "a", POST, 1.0),
    ("P1", "b", PRE, 0.0),
    ("P1", "b", POST, 1.0),
    ("P1", "b", POST, 1.0),
    ("P1", "b", POST, 0.0),
    ("P1", "b", POST, 1.0),
    ("P2", "c", PRE, 1.0),
    ("P2", "c", POST, 1.0),
    ("P2", "d", PRE, 1.0),
    ("P2", "d", PRE, 0.0),
    ("P2", "d", PRE, 0.0),
    ("P2", "d", POST, 0.0),
    ("P3", "e", PRE, 1.0),
    ("P3", "e", POST, 1.0),
    ("P3", "f", PRE, 1.0),
    ("P3", "f", POST, None),
]


def test_hand_computed_stratified() -> None:
    result = pair_balanced(RECORDS, strata=STRATA)
    assert result.per_lineage["P1"] == pytest.approx({"a": 0.75, "b": 0.375})
    assert result.per_lineage["P2"] == pytest.approx({"c": 1.0, "d": 1 / 6})
    assert result.per_pair == pytest.approx({"P1": 0.5625, "P2": 7 / 12})
    assert result.mean == pytest.approx((0.5625 + 7 / 12) / 2)
    assert result.incomplete == ["P3"]
    assert "f" in result.incomplete_reasons["P3"] and POST in result.incomplete_reasons["P3"]
    assert (result.attempted, result.completed) == (18, 17)
    assert (result.pairs_attempted, result.pairs_completed) == (3, 2)
    assert result.strata == STRATA
    # The flat mean of the completed P1/P2 trials differs: weights are not silently per-trial.
    flat = [r[3] for r in RECORDS[:14]]
    assert result.mean != pytest.approx(sum(flat) / len(flat))


def test_strata_inferred_from_records_when_not_declared() -> None:
    assert pair_balanced(RECORDS) == pair_balanced(RECORDS, strata=sorted(STRATA))


def test_unstratified_and_missing_lineage() -> None:
    records = [
        PairRecord(pair_id="k1", lineage_id="x", value=1.0),
        PairRecord(pair_id="k1", lineage_id="x", value=0.0),
        PairRecord(pair_id="k1", lineage_id="y", value=1.0),
        PairRecord(pair_id="k2", lineage_id="z", value=1.0),  # partner has no records
        PairRecord(pair_id="k3", lineage_id="u", value=0.0),
        PairRecord(pair_id="k3", lineage_id="v", value=None),  # partner never completed
    ]
    result = pair_balanced(records)
    assert result.strata is None
    assert result.per_pair == pytest.approx({"k1": 0.75})
    assert result.mean == pytest.approx(0.75)
    assert result.incomplete == ["k2", "k3"]
    assert "1 of 2 lineages" in result.incomplete_reasons["k2"]
    assert "'v'" in result.incomplete_reasons["k3"]
    assert (result.attempted, result.completed) == (6, 5)


def test_token_counts_aggregate_the_same_way() -> None:
    records = [
        ("p", "A", None, 4000.0),
        ("p", "A", None, 4100.0),
        ("p", "B", None, 3900.0),
        ("q", "C", None, 5000.0),
        ("q", "D", None, 6000.0),
    ]
    result = pair_balanced(records)
    assert result.per_pair == pytest.approx({"p": (4050 + 3900) / 2, "q": 5500.0})
    assert result.mean == pytest.approx((3975 + 5500) / 2)


def test_no_complete_pair_gives_none() -> None:
    result = pair_balanced([("p", "A", None, 1.0)])
    assert result.mean is None
    assert result.per_pair == {}
    assert result.incomplete == ["p"]


def test_pair_differences() -> None:
    first = pair_balanced(RECORDS, strata=STRATA)
    second_records = [
        ("P1", "a", PRE, 1.0),
        ("P1", "a", POST, 1.0),
        ("P1", "b", PRE, 1.0),
        ("P1", "b", POST, 0.0),  # P1: (1 + 0.5) / 2 = 0.75
        ("P2", "c", PRE, 1.0),
        ("P2", "c", POST, 1.0),
        ("P2", "d", PRE, 1.0),
        ("P2", "d", POST, 1.0),  # P2: 1
        ("P3", "e", PRE, 1.0),
        ("P3", "e", POST, 1.0),
        ("P3", "f", PRE, 1.0),
        ("P3", "f", POST, 1.0),  # complete here, incomplete in first
    ]
    second = pair_balanced(second_records, strata=STRATA)
    result = pair_differences(first, second)
    assert result.diffs == pytest.approx({"P1": 0.75 - 0.5625, "P2": 1 - 7 / 12})
    assert result.mean == pytest.approx((0.1875 + 5 / 12) / 2)
    assert result.incomplete == ["P3"]


def test_errors() -> None:
    with pytest.raises(InputError, match="stratum 'L9'"):
        pair_balanced([("p", "A", "L9", 1.0)], strata=["L1"])
    with pytest.raises(InputError, match="exactly one pair"):
        pair_balanced([("p", "A", None, 1.0), ("q", "A", None, 1.0)])
    with pytest.raises(InputError, match="3 lineages"):
        pair_balanced([("p", "A", None, 1.0), ("p", "B", None, 1.0), ("p", "C", None, 1.0)])
    with pytest.raises(InputError, match="some records have a stratum"):
        pair_balanced([("p", "A", "L1", 1.0), ("p", "B", None, 1.0)])
    with pytest.raises(InputError, match="finite"):
        pair_balanced([("p", "A", None, float("nan"))])
    with pytest.raises(InputError, match="record #2"):
        pair_balanced([("p", "A", None, 1.0), ("p", "B")])  # type: ignore[list-item]
    with pytest.raises(InputError, match="strata"):
        pair_balanced([("p", "A", None, 1.0)], strata=["L1", "L1"])
