"""The declared behavioral feature vectors z of the C and A axes (spec §2), with a versioned schema.

Each coordinate names one feature of one test's :class:`~sitbench.chi._panel_c.PanelScore` by a
dotted path into ``features`` (or ``controls``, prefixed ``controls.``). The order is fixed by
:data:`CA_FEATURE_SCHEMA`; changing a coordinate changes the schema id. Coordinates are raw
(counts, ticks, rates, signed shifts), not normalised: a calibration fits a mean and a scale per
coordinate (§2). A coordinate whose test is missing, or whose feature is undefined (a half-time
that is never reached, a latency without a revision), is ``None``: a missing feature, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sitbench.chi._common import Axis
from sitbench.chi._panel_c import PanelScore

CA_FEATURE_SCHEMA_ID = "chi-ca-features-0.1"
"""Id of the schema below; part of a manifest's ``feature_schemas``."""

CA_FEATURE_SCHEMA: dict[Axis, tuple[tuple[str, str], ...]] = {
    "C": (
        ("C1", "resumption_probability"), ("C1", "resumption_delay_events"),
        ("C1", "controls.persistence_after_cancellation"),
        ("C2", "useful_subgoals"), ("C2", "first_plan_turn"), ("C2", "plan_dependency_order"),
        ("C3", "revision_latency_ticks"), ("C3", "unnecessary_revision_rate"),
        ("C4", "calls_per_episode"), ("C4", "stopping_rate"), ("C4", "diagnostic_call_index"),
        ("C4", "eig_per_call_bits"),
        ("C5", "exploration_breadth"), ("C5", "first_simulation_turn"), ("C5", "controls.simulations_used"),
        ("C6", "progress_per_tick"), ("C6", "return_to_unfinished"), ("C6", "termination_after_completion"),
    ),
    "A": (
        ("A1", "shift_positive"), ("A1", "shift_negative"), ("A1", "shift_instruction"), ("A1", "shift_priming"),
        ("A2", "shift.positive.1"), ("A2", "shift.positive.5"), ("A2", "shift.positive.20"),
        ("A2", "shift.negative.1"), ("A2", "shift.negative.5"), ("A2", "shift.negative.20"),
        ("A3", "positive.effect_area"), ("A3", "positive.half_time.value"),
        ("A3", "negative.effect_area"), ("A3", "negative.half_time.value"),
        ("A4", "ascending_first.value"), ("A4", "descending_first.value"),
        ("A4", "direction_gap_first_pass.value"), ("A4", "direction_gap_second_pass.value"),
        ("A5", "difference_in_differences"), ("A5", "attenuation"),
        ("A6", "contrast_positive"), ("A6", "contrast_negative"),
    ),
}
"""Per axis, the ordered coordinates ``(test id, feature path)``."""


def _lookup(tree: Any, path: str) -> Any:
    node = tree
    for part in path.split("."):
        if not isinstance(node, Mapping):
            return None
        if part in node:
            node = node[part]
        elif part.lstrip("-").isdigit() and int(part) in node:
            node = node[int(part)]
        else:
            return None
    return node


def feature_names(axis: Axis) -> list[str]:
    """The coordinate names of an axis's vector, ``"C4.stopping_rate"`` style."""
    return [f"{t}.{p}" for t, p in CA_FEATURE_SCHEMA[axis]]


def feature_vector(axis: Axis, scores: Mapping[str, PanelScore]) -> list[float | None]:
    """The axis's feature vector z from one replicate's scores (keyed by test id).

    Raises:
        KeyError: For an axis that is not C or A.
    """
    out: list[float | None] = []
    for test_id, path in CA_FEATURE_SCHEMA[axis]:
        score = scores.get(test_id)
        if score is None or score.capacity is None:
            out.append(None)
            continue
        if path.startswith("controls."):
            value = _lookup(score.controls, path.removeprefix("controls."))
        else:
            value = _lookup(score.features, path)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        out.append(float(value) if ok else None)
    return out
