"""The good and the poor reference system of the whole 30-test panel (``--agent reference-good|reference-poor``).

A reference system is one agent with every hook the panel uses (``fork``, ``tick``, ``erase``,
``inject_fault``/``repair_fault``), built from two declared parts:

* R, M and I turns (record lines and questions) go to a §6 baseline over a reference reader:
  good is the full-history replay baseline, best-effort budget, over ``mock/panel-solver``; poor
  is the sliding-transcript baseline, equal budget, over ``mock/panel-naive``
  (:data:`REFERENCE_SYSTEMS`).
* C and A events (a turn whose header is one of
  :data:`~sitbench.chi._panel_solver.CA_HEADERS`) go to
  :class:`~sitbench.chi._panel_c_registry.PanelReference` of the same quality, which keeps its
  state across the episode's turns and answers scheduler ticks: the good policy each C/A test
  credits, or the naive policy its control stops.

They are deterministic test instruments, not language models: their profiles differ in the
direction each test is built to detect, so an end-to-end run shows every test can tell them apart.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Literal

from sitbench.agents import AgentInfo, AgentReply, AgentSubject, AgentTurn
from sitbench.chi._panel_c import header_of
from sitbench.chi._panel_c_registry import PanelReference

Quality = Literal["good", "poor"]

REFERENCE_SYSTEMS: dict[str, tuple[Quality, str, str, str]] = {
    "reference-good": ("good", "replay", "mock/panel-solver", "best-effort"),
    "reference-poor": ("poor", "sliding", "mock/panel-naive", "equal-budget"),
}
"""``--agent`` name → (quality, baseline for R/M/I, its reader, its budget condition)."""


class ReferenceSystem:
    """One reference agent: a baseline for R/M/I turns, a C/A reference policy for C and A events."""

    def __init__(self, quality: Quality, baseline: Any, reference: PanelReference | None = None) -> None:
        self.quality = quality
        self.baseline = baseline
        self.reference = reference or PanelReference(quality)

    def describe(self) -> AgentInfo:
        return AgentInfo(name=f"reference-{self.quality}", version="panel-reference-1", supports_fork=True)

    async def ingest(self, subject: AgentSubject) -> None:
        await self.baseline.ingest(subject)

    async def respond(self, turn: AgentTurn) -> AgentReply:
        from sitbench.chi._panel_solver import CA_HEADERS

        if header_of(turn.utterance) in CA_HEADERS:
            return AgentReply(text=self.reference.respond(turn.utterance))
        reply: AgentReply = await self.baseline.respond(turn)
        return reply

    async def tick(self, budget_ops: int | None = None, observation: str | None = None) -> str | None:
        """A C/A tick goes to the reference policy (with the tick's text); any other to the baseline's scheduler."""
        if self.reference.inner is not None:
            return self.reference.tick(observation or "", budget_ops or 0)
        hook = getattr(self.baseline, "tick", None)
        if callable(hook):
            await hook(budget_ops)
        return None

    async def end_session(self) -> None:
        self.reference.end_session()
        await self.baseline.end_session()

    async def fork(self) -> ReferenceSystem:
        return ReferenceSystem(self.quality, await self.baseline.fork(), copy.deepcopy(self.reference))

    async def close(self) -> None:
        await self.baseline.close()

    async def erase(self) -> None:
        self.reference = PanelReference(self.quality)
        await self.baseline.erase()

    async def inject_fault(self, fault: dict[str, Any]) -> None:
        await self.baseline.inject_fault(fault)

    async def repair_fault(self, fault: dict[str, Any]) -> None:
        await self.baseline.repair_fault(fault)

    def costs(self) -> dict[str, float]:
        return dict(self.baseline.costs())


def reference_factory(name: str, *, retriever: str = "bm25", deadline_s: float = 60.0
                      ) -> tuple[Callable[[], ReferenceSystem], dict[str, Any]]:
    """A factory of fresh reference systems and their manifest entry.

    Raises:
        InputError: ``name`` is not one of :data:`REFERENCE_SYSTEMS`.
    """
    from sitbench.chi._memory_baselines import make_baseline_factory
    from sitbench.errors import InputError

    if name not in REFERENCE_SYSTEMS:
        raise InputError(f"--agent {name!r}: the reference systems are {', '.join(REFERENCE_SYSTEMS)}")
    quality, baseline, model, condition = REFERENCE_SYSTEMS[name]
    make, _budget, base_entry = make_baseline_factory(baseline, model, condition, retriever=retriever,
                                                      deadline_s=deadline_s)

    def factory() -> ReferenceSystem:
        return ReferenceSystem(quality, make())

    entry = {"baseline": None, "reference_system": name, "label": f"{name} (reference system)", "quality": quality,
             "r_m_i": base_entry, "c_a": f"PanelReference({quality!r}): the {quality} C/A reference policies",
             "hooks": ["fork", "tick", "erase", "inject_fault", "repair_fault"]}
    return factory, entry
