"""Axis capacities (spec §2)."""

from __future__ import annotations

import pytest

from sitbench.chi import AxisCapacity, TaskScore, axis_capacities
from sitbench.errors import InputError

REG = {"R": ["R1", "R2", "R3"], "M": ["M1", "M8"], "C": [], "A": ["A1"], "I": ["I1"]}


def _scores() -> list[TaskScore]:
    return [
        TaskScore(test_id="R1", axis="R", score=0.5, correct=12, total=24),
        TaskScore(test_id="R2", axis="R", score=1.0),
        TaskScore(test_id="R3", axis="R", components={"a": 0.2, "b": 0.4}),
        TaskScore(test_id="M1", axis="M", score=0.75, correct=30, total=40),
        TaskScore(test_id="M8", axis="M", score=None, missing_reason="not implemented"),
        TaskScore(test_id="A1", axis="A", components={"positive": 0.9, "negative": 0.7, "neutral": 0.8}),
    ]


def test_capacity_is_equal_weight_mean_of_registered_task_scores() -> None:
    caps = axis_capacities(_scores(), REG)
    # R: (0.5 + 1.0 + mean(0.2, 0.4)) / 3 = 1.8 / 3
    assert caps["R"].capacity == pytest.approx(0.6)
    assert caps["R"].task_scores["R3"] == pytest.approx(0.3)
    # A: conditions averaged, never a bias size
    assert caps["A"].capacity == pytest.approx(0.8)


def test_missing_registered_task_makes_capacity_null_and_is_reported() -> None:
    caps = axis_capacities(_scores(), REG)
    assert caps["M"].capacity is None
    assert caps["M"].missing == ["M8"]
    assert caps["M"].available_task_mean == pytest.approx(0.75)
    assert caps["I"].capacity is None and caps["I"].missing == ["I1"]
    assert caps["C"].capacity is None and caps["C"].registered == []


def test_raw_outcomes_and_sample_sizes_are_retained() -> None:
    caps = axis_capacities(_scores(), REG)
    assert caps["R"].raw == {"R1": (12, 24)}
    assert caps["R"].n_items == 24
    assert caps["M"].raw == {"M1": (30, 40)}


def test_capacity_and_similarity_are_separate_fields() -> None:
    assert not any("similar" in name or name == "h" for name in AxisCapacity.model_fields)


def test_unregistered_or_duplicate_tasks_are_rejected() -> None:
    with pytest.raises(InputError, match="not registered"):
        axis_capacities([TaskScore(test_id="R9", axis="R", score=1.0)], REG)
    with pytest.raises(InputError, match="duplicate"):
        axis_capacities([TaskScore(test_id="R1", axis="R", score=1.0)] * 2, REG)


def test_task_score_validation() -> None:
    with pytest.raises(InputError, match="outside"):
        TaskScore(test_id="R1", axis="R", score=1.5)
    with pytest.raises(InputError, match="exceeds"):
        TaskScore(test_id="R1", axis="R", score=1.0, correct=5, total=4)
    with pytest.raises(InputError, match="either"):
        TaskScore(test_id="R1", axis="R", score=1.0, components={"a": 1.0})
    assert TaskScore(test_id="R1", axis="R", components={"a": 1.0, "b": None}).value is None


def test_unregistered_default_uses_present_tasks() -> None:
    caps = axis_capacities([TaskScore(test_id="I1", axis="I", score=0.4), TaskScore(test_id="I2", axis="I", score=0.6)])
    assert caps["I"].capacity == pytest.approx(0.5)
    assert caps["R"].capacity is None
