"""How much work a memory sweep plans, and how long it should take, said before it starts.

The work of one run is its agent calls: every history record is one ``respond`` turn and every
probe (pre-exposure samples included) one more, per trajectory. The first estimate uses a reference
rate measured on the mock reader (:data:`REFERENCE_SECONDS_PER_MILLION_CALLS`); once runs have
finished, :func:`remaining_estimate` extrapolates the measured time per run instead, which holds on
any machine and any model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from sitbench.chi._memory_run import RunSpec, environment, trajectory_seed

REFERENCE_SECONDS_PER_MILLION_CALLS = 75.0
"""Wall seconds per million agent calls of a baseline over ``mock/memory-reader``, generation, scoring and
report included: measured by ``python benchmarks/chi_memory.py`` (one trajectory of the full grid per
baseline and condition, 2 cores; docs/chi-memory.md). A language model adds its own time per probe."""


@dataclasses.dataclass(frozen=True)
class SweepPlan:
    """The planned work of a sweep."""

    runs: int
    """Runs: baselines × conditions."""
    trajectories: int
    """Trajectories per run."""
    history_turns: int
    """History turns per trajectory of one run (every panel and arm)."""
    probes: int
    """Probes per trajectory of one run, pre-exposure samples included."""

    @property
    def calls(self) -> int:
        """Agent calls of the whole sweep."""
        return self.runs * self.trajectories * (self.history_turns + self.probes)

    @property
    def reference_seconds(self) -> float:
        """The sweep's time at the reference rate (the mock reader on the reference machine)."""
        return self.calls / 1e6 * REFERENCE_SECONDS_PER_MILLION_CALLS


def plan_sweep(spec: RunSpec, runs: int) -> SweepPlan:
    """Count the work of ``runs`` runs like ``spec`` (the first trajectory's corpora, which the sweep reuses)."""
    seed = trajectory_seed(spec.seed, 0)
    turns = probes = 0
    for panel in spec.panels:
        for arm in environment(panel, seed, spec.grid, spec.clean_pair).arms:
            turns += len(arm.records)
            probes += len(arm.probes) + min(spec.pre_exposure, len(arm.probes))
    return SweepPlan(runs=runs, trajectories=spec.trajectories, history_turns=turns, probes=probes)


def duration(seconds: float) -> str:
    """``42 s``, ``3.5 min`` or ``1.2 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def plan_text(plan: SweepPlan, model: str) -> str:
    """The line printed before a sweep starts: its work and the reference estimate, labelled as such."""
    runs = f"{plan.runs} run{'s' if plan.runs != 1 else ''}"
    trajectories = f"{plan.trajectories} trajector{'ies' if plan.trajectories != 1 else 'y'}"
    text = (f"plan: {runs} x {trajectories}, {plan.history_turns:,} history turns and "
            f"{plan.probes:,} probes per trajectory: {plan.calls:,} agent calls; at the reference rate "
            f"({REFERENCE_SECONDS_PER_MILLION_CALLS:g} s per million calls, mock reader, 2 cores) about "
            f"{duration(plan.reference_seconds)}")
    if not model.startswith("mock/"):
        text += f", plus {model}'s own time for {plan.runs * plan.trajectories * plan.probes:,} probe calls"
    return text + "; measured estimates follow each run"


def remaining_estimate(done_seconds: Sequence[float], runs: int) -> str:
    """After ``len(done_seconds)`` finished runs: the time left at their measured mean."""
    done = len(done_seconds)
    mean = sum(done_seconds) / done
    left = (runs - done) * mean
    return (f"{done}/{runs} runs done in {duration(sum(done_seconds))}; about {duration(left)} left "
            f"(measured: {mean:.1f} s per run so far)")
