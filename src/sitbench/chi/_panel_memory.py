"""The memory axis's M1–M8 as panel tests: the memory generators, rubric and scoring behind the panel
interface, so ``sitbench chi run --panel m1,r2,…`` runs them beside the other axes.

The episode is the memory environment's own arm (its ``Ingest``/``Ticks``/``Checkpoint`` steps run
unchanged through the panel harness, the one harness ``sitbench chi memory`` uses too), the rubric is
:func:`sitbench.chi._memory_rubric.score`, and the trajectory score is
:func:`sitbench.chi._memory_run.score_panel`'s. ``sitbench chi memory`` stays the memory axis's own
view (the pre-exposure sample, the M8 curve on the registered grid, EIMC, the sweep).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sitbench.chi._common import Axis
from sitbench.chi._memory_env import PANELS, answer_key_hash, environment_report, generate, items_hash
from sitbench.chi._memory_rubric import invalid, parse_reply, score
from sitbench.chi._memory_run import arm_result, score_panel
from sitbench.chi._panel import EpisodeRun, Grade, Hook, TestInstance, TestResult

M8_PANEL_GRID = (100, 300)
"""The load grid M8 runs on inside the whole panel (the registered grid is ``sitbench chi memory``'s;
a different grid is a different panel ID, recorded in the generator report)."""


class _Instance(TestInstance):
    def items_hash(self) -> str:
        return items_hash(self.native)

    def answer_key_hash(self) -> str:
        return answer_key_hash(self.native)


@dataclass(frozen=True)
class MemoryPanelTest:
    """One of M1–M8 behind the panel interface."""

    test_id: str
    axis: Axis = "M"
    version: str = "chi-memory-items-0.1"
    hooks: frozenset[Hook] = frozenset()
    vector_schema: tuple[str, ...] = ("accuracy",)
    controls: tuple[str, ...] = ()

    def generate(self, seed: int) -> TestInstance:
        panel = self.test_id.lower()
        options: dict[str, Any] = {"grid": list(M8_PANEL_GRID)} if panel == "m8" else {}
        env = generate(panel, seed, **options)
        report = environment_report(env)
        if panel == "m8":
            report["panel_grid_note"] = (f"M8 on the grid {list(M8_PANEL_GRID)} inside the whole panel; the "
                                         "registered grid runs under sitbench chi memory")
        return _Instance(self.test_id, seed, list(env.arms), params=dict(env.params), report=report, native=env)  # type: ignore[arg-type]

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        parsed = parse_reply(reply) if reply is not None else invalid(error or "no reply")
        outcome = score(probe.key, parsed)
        return Grade(outcome, dataclasses.asdict(parsed), 1.0 if outcome.success else 0.0, parsed.error)

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        arms = [arm_result(run) for run in runs]
        out = score_panel(instance.native, arms)
        correct, total = out.get("correct"), out.get("total")
        acc = None if not total else correct / total
        return TestResult(self.test_id, out["score"], correct, total, components=dict(out["components"]),
                          features=dict(out["features"]), vector=[out["score"] if acc is None else acc],
                          outcomes={arm: {f"{s}:{k}": v for s, c in oc.items() for k, v in c.items()}
                                    for arm, oc in out["outcomes"].items()})


TESTS = tuple(MemoryPanelTest(p.upper()) for p in PANELS)
