"""C1 goal persistence and C6 cognitive persistence: environments, rubrics, controls."""

from __future__ import annotations

import json

from sitbench.chi._panel_c import Delivery, EventKind, InteractiveTest, Outcome, payload_of, play, run_test
from sitbench.chi._panel_c_goal import (
    C1_CANCEL,
    C1_MAIN,
    CognitivePersistence,
    GoalPersistence,
    GoalReference,
    PersistenceReference,
    PromptOnly,
)


def test_c1_is_a_panel_test_with_seeded_item_hashes() -> None:
    t = GoalPersistence()
    assert isinstance(t, InteractiveTest)
    a, b, c = t.generate(7), t.generate(7), t.generate(8)
    assert [e.item_hash for e in a] == [e.item_hash for e in b]
    assert [e.item_hash for e in a] != [e.item_hash for e in c]
    assert sum(e.arm == "main" for e in a) == C1_MAIN and sum(e.arm == "cancel" for e in a) == C1_CANCEL


def test_c1_goal_is_never_repeated_after_assignment() -> None:
    t = GoalPersistence()
    rec = play(t, t.generate(1)[0], GoalReference())
    token = t.generate(1)[0].spec["tokens"][1]
    assert token in rec.steps[0].text
    assert all(token not in s.text for s in rec.steps[1:])


def test_c1_reference_scores_and_forgetful_policy_does_not() -> None:
    _, good = run_test(GoalPersistence(), 3, GoalReference)
    _, forgetful = run_test(GoalPersistence(), 3, lambda: GoalReference(remember=False))
    assert good.capacity == 1.0 and good.total == C1_MAIN + C1_CANCEL
    assert good.features["resumption_probability"] == 1.0
    assert good.features["resumption_delay_events"] == 0.0
    # Forgetting passes only the cancellation trials (doing nothing is right there).
    assert forgetful.controls["main_success_rate"] == 0.0
    assert forgetful.capacity == C1_CANCEL / (C1_MAIN + C1_CANCEL)


def test_c1_blind_persistence_after_cancellation_fails() -> None:
    _, blind = run_test(GoalPersistence(), 3, lambda: GoalReference(honour_cancel=False))
    assert blind.controls["cancellation_pass_rate"] == 0.0
    assert blind.controls["persistence_after_cancellation"] == 1.0
    assert blind.capacity == C1_MAIN / (C1_MAIN + C1_CANCEL)


def test_c1_continuation_tick_reaches_a_system_without_tick_as_a_turn() -> None:
    class Turns(GoalReference):
        tick = None  # type: ignore[assignment]

    class Patient(GoalReference):
        def respond(self, text: str) -> str:
            if payload_of(text).get("words"):  # interruptions: answer only, resume later
                return json.dumps({"answer": " ".join(sorted(payload_of(text)["words"])), "actions": []})
            return super().respond(text)

    t = GoalPersistence()
    e = next(e for e in t.generate(2) if e.arm == "main")
    rec = play(t, e, Turns())
    assert rec.steps[-1].kind is EventKind.TICK and rec.steps[-1].delivery is Delivery.TURN
    assert rec.outcome is Outcome.SUCCESS
    # Resuming only at the continuation tick still reaches the goal, two events after the interruption.
    rec = play(t, e, Patient())
    assert rec.outcome is Outcome.SUCCESS and rec.features["resume_delay"] == 2


def test_c1_malformed_reply_is_an_invalid_episode() -> None:
    class Prose(GoalReference):
        def respond(self, text: str) -> str:
            return "I will do stage one now."

    recs, score = run_test(GoalPersistence(), 1, Prose)
    assert all(r.outcome is Outcome.INVALID for r in recs)
    assert score.capacity == 0.0 and score.invalid == len(recs)
    assert "not one JSON object" in (recs[0].error or "")


def test_c6_reference_progresses_stops_and_agrees_with_its_artifact() -> None:
    _, s = run_test(CognitivePersistence(), 5, PersistenceReference)
    assert s.capacity == 1.0 and s.total == 20
    assert s.features["termination_after_completion"] == 1.0
    assert s.features["progress_per_tick"] == 0.5  # five remaining items over ten ticks
    assert s.features["artifact_agreement"] == 1.0


def test_c6_busy_loops_and_wrong_work_are_told_apart() -> None:
    _, busy = run_test(CognitivePersistence(), 5, lambda: PersistenceReference(stop=False))
    _, wrong = run_test(CognitivePersistence(), 5, lambda: PersistenceReference(correct=False))
    assert busy.capacity == 1.0 and busy.features["termination_after_completion"] == 0.0
    assert wrong.capacity == 0.0  # activity is not verifiable progress


def test_c6_a_system_without_tick_is_not_invoked_not_failed() -> None:
    recs, s = run_test(CognitivePersistence(), 5, PromptOnly)
    assert all(r.outcome is Outcome.NOT_INVOKED for r in recs)
    assert s.capacity is None and "not invoked" in (s.missing_reason or "")
    assert s.task_score().score is None and s.task_score().missing_reason


def test_c6_a_ticked_system_that_does_nothing_fails() -> None:
    class Idle(PromptOnly):
        def tick(self, text: str, budget_ops: int) -> str | None:
            return None

    _, s = run_test(CognitivePersistence(), 5, Idle)
    assert s.capacity == 0.0 and s.total == 20


def test_c6_operations_over_budget_are_not_executed() -> None:
    class Greedy(PersistenceReference):
        def tick(self, text: str, budget_ops: int) -> str | None:
            acts = self._next() + self._next()
            return json.dumps({"actions": acts})

    _, s = run_test(CognitivePersistence(), 5, Greedy)
    # Only the first operation of each tick counts: the second item of each pair is never credited.
    assert s.features["progress_per_tick"] < 0.5
