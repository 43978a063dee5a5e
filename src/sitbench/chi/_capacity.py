"""Axis capacities: equal-weight means of registered task scores (spec §2).

Decisions where the specification leaves room:

* A registered task whose score is missing (unimplemented, out of scope,
  invalidated block) makes the axis capacity ``None``. The spec says changing
  the task set changes the score's meaning, so a mean over the tasks that
  happen to be present would be a different, unregistered estimand. The mean
  over available tasks is still reported, under the separate name
  ``available_task_mean``, and the missing task ids are listed.
* A compound task given as named components scores the equal mean of its
  components; a missing component makes the task missing.
* A task that is not registered for its axis is rejected, so that silently
  adding a test cannot shift a capacity.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sitbench.chi._common import AXES, Axis, check_optional_unit
from sitbench.errors import InputError


class TaskScore(BaseModel):
    """One registered test's score on one axis, with its raw outcomes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    test_id: str
    """Test identifier from the panel, e.g. ``"M3"``."""
    axis: Axis
    """The axis the test is registered on."""
    score: float | None = None
    """Task score in [0, 1] as the test definition scores it; ``None`` when missing."""
    components: dict[str, float | None] | None = None
    """Named compound components in [0, 1], equally averaged when ``score`` is not given."""
    correct: int | None = Field(default=None, ge=0)
    """Raw numerator (items passed), when the test is a proportion."""
    total: int | None = Field(default=None, ge=0)
    """Raw denominator (items administered), when the test is a proportion."""
    missing_reason: str | None = None
    """Why the score is missing (unimplemented, out of scope, evaluator outage...)."""

    @model_validator(mode="after")
    def _check(self) -> TaskScore:
        check_optional_unit(self.score, f"{self.test_id}.score")
        for name, value in (self.components or {}).items():
            check_optional_unit(value, f"{self.test_id}.components.{name}")
        if self.score is not None and self.components is not None:
            raise InputError(f"field '{self.test_id}': give either 'score' or 'components', not both")
        if (self.correct is None) != (self.total is None):
            raise InputError(f"field '{self.test_id}': give both 'correct' and 'total' or neither")
        if self.correct is not None and self.total is not None and self.correct > self.total:
            raise InputError(f"field '{self.test_id}.correct': {self.correct} exceeds total {self.total}")
        return self

    @property
    def value(self) -> float | None:
        """The task score, from ``score`` or the equal mean of ``components``; ``None`` if missing."""
        if self.score is not None:
            return self.score
        if self.components:
            parts = list(self.components.values())
            if any(p is None for p in parts):
                return None
            return math.fsum(p for p in parts if p is not None) / len(parts)
        return None


class AxisCapacity(BaseModel):
    """Capacity profile of one axis. Human similarity is deliberately not a field here."""

    model_config = ConfigDict(extra="forbid")

    axis: Axis
    """The axis."""
    capacity: float | None
    """Equal-weight mean of every registered task score; ``None`` if any registered task is missing."""
    available_task_mean: float | None
    """Mean over the tasks that have a score; a partial figure, never the capacity."""
    registered: list[str]
    """Registered test ids on this axis, in registration order."""
    missing: list[str]
    """Registered test ids without a score."""
    task_scores: dict[str, float | None]
    """Per-test score (``None`` when missing)."""
    raw: dict[str, tuple[int, int]]
    """Per-test raw ``(correct, total)`` where given."""
    n_items: int
    """Sum of raw denominators over the tests that report them."""


def axis_capacities(
    scores: Iterable[TaskScore],
    registered: Mapping[str, Sequence[str]] | None = None,
) -> dict[Axis, AxisCapacity]:
    """Compute the capacity profile ``p`` for all five axes.

    Args:
        scores: Task scores; at most one per test id.
        registered: Registered test ids per axis. When omitted, the tests present
            in ``scores`` are taken as the registration.

    Returns:
        One :class:`AxisCapacity` per axis in ``R, M, C, A, I`` order. An axis with
        no registered test has capacity ``None``.

    Raises:
        InputError: On a duplicate test id or a test not registered for its axis.
    """
    by_id: dict[str, TaskScore] = {}
    for task in scores:
        if task.test_id in by_id:
            raise InputError(f"field '{task.test_id}': duplicate task score; give each test once")
        by_id[task.test_id] = task
    if registered is None:
        reg: dict[str, list[str]] = {axis: [] for axis in AXES}
        for task in by_id.values():
            reg[task.axis].append(task.test_id)
    else:
        unknown = sorted(set(registered) - set(AXES))
        if unknown:
            raise InputError(f"field 'registered': unknown axis {unknown}; axes are {list(AXES)}")
        reg = {axis: list(registered.get(axis, [])) for axis in AXES}
        for task in by_id.values():
            if task.test_id not in reg[task.axis]:
                raise InputError(
                    f"field '{task.test_id}': test is not registered on axis {task.axis}; "
                    "register it first (changing the task set changes the capacity's meaning)"
                )
    out: dict[Axis, AxisCapacity] = {}
    for axis in AXES:
        values = {tid: (by_id[tid].value if tid in by_id else None) for tid in reg[axis]}
        present = [v for v in values.values() if v is not None]
        missing = [tid for tid, v in values.items() if v is None]
        raw = {
            tid: (by_id[tid].correct, by_id[tid].total)
            for tid in reg[axis]
            if tid in by_id and by_id[tid].correct is not None and by_id[tid].total is not None
        }
        out[axis] = AxisCapacity(
            axis=axis,
            capacity=(math.fsum(present) / len(present)) if present and not missing else None,
            available_task_mean=(math.fsum(present) / len(present)) if present else None,
            registered=reg[axis],
            missing=missing,
            task_scores=values,
            raw={k: (int(c), int(t)) for k, (c, t) in raw.items()},  # type: ignore[arg-type]
            n_items=sum(t for _, t in raw.values()),
        )
    return out
