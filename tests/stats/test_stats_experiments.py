"""The E1–E8 registry matches the evaluation plan; Holm runs over exactly that family."""

from __future__ import annotations

import pydantic
import pytest

from sitbench.errors import InputError
from sitbench.stats import CONFIRMATORY_FAMILY, EXPERIMENTS, get_experiment, holm, holm_family

PLAN = {
    # id: (first, second, endpoint, strata)
    "E1": ("C", "D", "LAA", None),
    "E2": ("G", "H", "A_epi", None),
    "E3": ("D", "F", "A_temp", ("pre_acquisition", "post_acquisition")),
    "E4": ("E", "G", "A_belief", None),
    "E5": ("C", "H", "A_cf", ("L1", "L2", "L3", "L4", "L5")),
    "E6": ("D", "G_budget", "prompt_tokens", None),
    "E7": ("C", "G", "A_session", None),
    "E8": ("G", "H", "A_rel", ("authorized_disclosure", "withholding")),
}


def test_registry_matches_plan() -> None:
    assert tuple(PLAN) == CONFIRMATORY_FAMILY
    for experiment in EXPERIMENTS:
        assert (
            experiment.first_config,
            experiment.second_config,
            experiment.endpoint,
            experiment.strata,
        ) == PLAN[experiment.id]


def test_special_cases() -> None:
    assert get_experiment("E1").probe_filter == "theorem_qualified"
    assert get_experiment("E2").capability == "IDENTITY_ONLY"
    e6 = get_experiment("e6")
    assert (e6.history_length, e6.token_budget, e6.direction) == (500, 4096, "negative")
    assert get_experiment("E8").probe_filter == "gate_sensitive"
    assert all(e.direction == "positive" for e in EXPERIMENTS if e.id != "E6")
    assert {e.probe_category for e in EXPERIMENTS} == {None, "C", "D", "F", "G", "H", "E"}


def test_direction() -> None:
    assert get_experiment("E3").favours_hypothesis(0.1)
    assert not get_experiment("E3").favours_hypothesis(-0.1)
    assert get_experiment("E6").favours_hypothesis(-1500.0)
    assert not get_experiment("E6").favours_hypothesis(0.0)


def test_frozen_and_unknown() -> None:
    with pytest.raises(pydantic.ValidationError):
        EXPERIMENTS[0].endpoint = "A_pos"  # type: ignore[misc]
    with pytest.raises(InputError, match="E9"):
        get_experiment("E9")


def test_holm_family() -> None:
    p = {"E1": 0.001, "E2": 0.2, "E3": 0.004, "E4": 0.03, "E5": 0.5, "E6": 0.0001, "E7": 0.01, "E8": 0.04}
    result = holm_family(p)
    assert result.experiments == list(PLAN)
    expected = holm(list(p.values()))
    assert result.adjusted == expected.adjusted
    # Sorted: E6 1e-4×8, E1 1e-3×7, E3 4e-3×6, E7 0.01×5 = 0.05 ≤ 0.05 → rejected,
    # E4 0.03 > 0.05/4 stops.
    assert result.reject == [True, False, True, False, False, True, True, False]
    with pytest.raises(InputError, match="missing"):
        holm_family({k: v for k, v in p.items() if k != "E8"})
    with pytest.raises(InputError, match="extra"):
        holm_family({**p, "E9": 0.01})
