"""C3 hypothesis revision without reminder and C4 information seeking: environments, rubrics, controls."""

from __future__ import annotations

import json

from sitbench.chi._panel_c import Delivery, EventKind, InteractiveTest, payload_of, play, run_test
from sitbench.chi._panel_c_evidence import (
    C3_FALSIFYING,
    C3_TICKS,
    C4_BUDGET,
    C4_TASKS,
    HypothesisRevision,
    InformationSeeking,
    RevisionReference,
    SeekerReference,
)


def test_c3_is_seeded_and_never_asks_for_a_revision() -> None:
    t = HypothesisRevision()
    assert isinstance(t, InteractiveTest)
    a = t.generate(3)
    assert [e.item_hash for e in a] == [e.item_hash for e in t.generate(3)]
    rec = play(t, a[0], RevisionReference())
    ticks = [s for s in rec.steps if s.kind is EventKind.TICK]
    assert len(ticks) == C3_TICKS
    assert sum(payload_of(s.text)["channel"] is not None for s in ticks) == 1
    assert not any("revis" in s.text.lower() for s in rec.steps)


def test_c3_reference_revises_and_makes_no_false_revision() -> None:
    _, s = run_test(HypothesisRevision(), 3, RevisionReference)
    assert s.capacity == 1.0 and s.total == C3_FALSIFYING
    assert s.features["revision_latency_ticks"] == 0.0
    assert s.controls["false_revision_rate"] == 0.0


def test_c3_reflex_switching_is_caught_by_the_neutral_evidence_control() -> None:
    _, s = run_test(HypothesisRevision(), 3, lambda: RevisionReference(reason=False))
    assert s.controls["false_revision_rate"] == 1.0
    assert s.capacity is not None and 0.2 < s.capacity < 0.8  # "next-ranked" is wrong when two units clear


def test_c3_a_system_that_never_revises_fails_and_late_revision_is_outside_the_window() -> None:
    class Stubborn(RevisionReference):
        def tick(self, text: str, budget_ops: int) -> str | None:
            return None

    class Late(RevisionReference):
        def __init__(self) -> None:
            super().__init__()
            self.wait: int | None = None

        def tick(self, text: str, budget_ops: int) -> str | None:
            out = super().tick(text, budget_ops)
            if out is not None:
                self.wait, self.pending = 5, out
            if self.wait is not None:
                self.wait -= 1
                if self.wait < 0:
                    self.wait = None
                    return self.pending
            return None

    _, stubborn = run_test(HypothesisRevision(), 3, Stubborn)
    assert stubborn.capacity == 0.0 and stubborn.controls["false_revision_rate"] == 0.0
    _, late = run_test(HypothesisRevision(), 3, Late)
    assert late.capacity == 0.0


def test_c3_ticks_reach_a_system_without_tick_as_turns() -> None:
    class Turns(RevisionReference):
        tick_impl = RevisionReference.tick

        def respond(self, text: str) -> str:
            if payload_of(text).get("tick"):
                return self.tick_impl(text, 1) or "{}"
            return super().respond(text)

    Turns.tick = None  # type: ignore[assignment,method-assign]
    t = HypothesisRevision()
    rec = play(t, t.generate(3)[0], Turns())
    assert all(s.delivery is Delivery.TURN for s in rec.steps if s.kind is EventKind.TICK)
    _, s = run_test(t, 3, Turns)
    assert s.capacity == 1.0


def test_c4_tools_have_equal_costs_and_one_informative_tool() -> None:
    t = InformationSeeking()
    assert isinstance(t, InteractiveTest)
    eps = t.generate(6)
    assert [e.item_hash for e in eps] == [e.item_hash for e in t.generate(6)]
    assert len({e.spec["tools"][0]["name"] == e.spec["informative"] for e in eps}) == 2  # position varies
    for e in eps:
        assert {tool["cost"] for tool in e.spec["tools"]} == {1} and len(e.spec["tools"]) == 4


def test_c4_calling_every_tool_does_not_outscore_one_diagnostic_call() -> None:
    _, diag = run_test(InformationSeeking(), 6, SeekerReference)
    _, maxi = run_test(InformationSeeking(), 6, lambda: SeekerReference("maximize"))
    assert diag.capacity == 1.0 and diag.total == C4_TASKS
    assert maxi.capacity is not None and maxi.capacity <= diag.capacity
    assert diag.features["calls_per_episode"] == 1.0 and maxi.features["calls_per_episode"] == C4_BUDGET
    assert diag.features["stopping_rate"] == 1.0 and maxi.features["stopping_rate"] < 0.5
    assert diag.features["eig_per_call_bits"] == 2.0 and maxi.features["eig_per_call_bits"] == 0.5


def test_c4_guessing_fails_and_the_tool_ablation_control_shows_what_guessing_earns() -> None:
    _, guess = run_test(InformationSeeking(), 6, lambda: SeekerReference("guess"))
    assert guess.capacity == 0.0  # a right guess without the diagnostic observation is not information seeking
    _, diag = run_test(InformationSeeking(), 6, SeekerReference)
    assert diag.controls["tool_ablation_accuracy"] is not None and diag.controls["tool_ablation_accuracy"] < 0.6


def test_c4_a_call_over_budget_ends_the_episode() -> None:
    class Spender(SeekerReference):
        def respond(self, text: str) -> str:
            v = payload_of(text)
            names = [t["name"] for t in v["tools"]]
            return json.dumps({"call": names[v["spent_units"] % len(names)]}) if names else json.dumps({"open": "A"})

    _, s = run_test(InformationSeeking(), 6, Spender)
    assert s.capacity == 0.0
