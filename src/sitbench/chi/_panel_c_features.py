"""The declared feature vectors of the C and A axes, with versioned schemas (spec §2, §4).

Two vectors per replicate. **z** (§2, :func:`feature_vector`): the behavioral features of an axis,
raw. **v** (§4, :func:`probe_vector`): per test, a fixed vector of proportions in [0, 1] (task
accuracies by condition, control rates) that continuity, drift, stability and divergence compare
across checkpoints; its coordinates are :data:`CA_VECTOR_SCHEMA`.

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

from sitbench.chi._common import Axis, check_optional_unit
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


CA_VECTOR_SCHEMA: dict[str, tuple[str, ...]] = {
    "C1": ("capacity", "controls.main_success_rate", "controls.cancellation_pass_rate",
           "features.resumption_probability"),
    "C2": ("capacity", "controls.oracle_list_success_rate", "features.plan_dependency_order"),
    "C3": ("capacity", "controls.false_revision_rate"),
    "C4": ("capacity", "features.stopping_rate", "controls.tool_ablation_accuracy"),
    "C5": ("capacity", "features.tempting_rate", "controls.supplied_tree_success_rate"),
    "C6": ("capacity", "features.return_to_unfinished", "features.termination_after_completion"),
    "A1": ("components.positive", "components.negative", "components.neutral", "controls.block1_accuracy"),
    "A2": ("components.delay_1", "components.delay_5", "components.delay_20"),
    "A3": tuple(f"components.tick_{t}" for t in (0, 1, 2, 5, 10, 20)),
    "A4": ("components.matched_tasks", "features.ascending_first.value", "features.descending_first.value"),
    "A5": ("components.after_regulation", "components.after_control", "controls.instruction_only_accuracy"),
    "A6": ("components.positive", "components.negative", "components.neutral"),
}
"""Per test, the coordinates of v (paths into the score; every one a proportion in [0, 1])."""


def probe_vector(score: PanelScore) -> list[float | None]:
    """The test's v under :data:`CA_VECTOR_SCHEMA` (``None`` for a missing coordinate).

    Raises:
        InputError: When a coordinate is outside [0, 1] (the schema names a proportion).
    """
    tree = {"capacity": score.capacity, "components": score.components or {}, "features": score.features,
            "controls": score.controls}
    out: list[float | None] = []
    for path in CA_VECTOR_SCHEMA[score.test_id]:
        value = _lookup(tree, path)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        out.append(check_optional_unit(float(value) if ok else None, f"{score.test_id}.{path}"))
    return out
