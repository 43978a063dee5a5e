"""The drill-down's pick of failed trials holds at most ``cap`` records and picks exactly what a
round robin over every failure, held in memory, picks."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sitbench.report import select_failed


def _record(n: int, config: str, category: str, failed: bool) -> Any:
    verdict = SimpleNamespace(valid=not failed)
    return SimpleNamespace(trial_id=f"{config}:PR-{n:03d}", config=config, category=SimpleNamespace(value=category),
                           status="completed", verdict=verdict)


class _Run:
    """A run whose scores are read afresh on each pass, counting the passes and the records alive."""

    def __init__(self, name: str, rows: list[tuple[str, str, bool]]) -> None:
        self.name = name
        self.rows = rows
        self.passes = 0

    @property
    def scores(self) -> Any:
        self.passes += 1
        return (_record(n, *row) for n, row in enumerate(self.rows))


def _reference(runs: list[_Run], cap: int) -> tuple[list[str], int]:
    """Every failure held per group, then the round robin: the pick as it was made before it was bounded."""
    groups: dict[tuple[str, str, str], list[tuple[int, str]]] = {}
    order = 0
    for run in runs:
        for record in run.scores:
            if not record.verdict.valid:
                groups.setdefault((run.name, record.config, record.category.value), []).append(
                    (order, f"{run.name}/{record.trial_id}"))
                order += 1
    if order <= cap:
        picked = [item for group in groups.values() for item in group]
    else:
        picked, depth = [], 0
        while len(picked) < cap:
            for group in groups.values():
                if depth < len(group) and len(picked) < cap:
                    picked.append(group[depth])
            depth += 1
    return [name for _, name in sorted(picked)], order


_rows = st.lists(st.tuples(st.sampled_from("ABC"), st.sampled_from(["A", "C", "G"]), st.booleans()), max_size=40)


@settings(max_examples=400, deadline=None)
@given(first=_rows, second=_rows, cap=st.integers(0, 25))
def test_the_bounded_pick_is_the_round_robin_over_every_failure(
        first: list[tuple[str, str, bool]], second: list[tuple[str, str, bool]], cap: int) -> None:
    runs = [_Run("r1", first), _Run("r2", second)]
    picked, total = select_failed(runs, cap)  # type: ignore[arg-type]
    expected, expected_total = _reference(runs, cap)
    assert total == expected_total
    assert [f"{run.name}/{record.trial_id}" for run, record in picked] == expected
    assert len(picked) <= cap
