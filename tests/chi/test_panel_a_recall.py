"""A6 memory modulation: counterbalanced study contexts, equal delays, exact recall."""

from __future__ import annotations

import json

import pytest

from sitbench.chi._panel_a_recall import (
    A6_FACTS,
    A6_LAG,
    MemoryModulation,
    RecallReference,
    SalienceMimic,
    context_of,
)
from sitbench.chi._panel_c import EventKind, InteractiveTest, Outcome, header_of, payload_of, play, run_test


def test_a6_is_seeded_and_fully_counterbalanced() -> None:
    t = MemoryModulation()
    assert isinstance(t, InteractiveTest)
    eps = t.generate(2)
    assert [e.item_hash for e in eps] == [e.item_hash for e in t.generate(2)]
    assert [e.item_hash for e in eps] != [e.item_hash for e in t.generate(3)]
    for i in range(A6_FACTS):
        assert {context_of(i, e.spec["rotation"]) for e in eps} == {"positive", "negative", "neutral"}


def test_a6_every_fact_is_probed_after_the_same_delay_on_a_clone_after_a_reset() -> None:
    t = MemoryModulation()
    rec = play(t, t.generate(2)[0], RecallReference())
    events = 0
    studied: dict[str, int] = {}
    for k, step in enumerate(rec.steps):
        if step.kind is EventKind.TURN and not step.clone:
            events += 1
            note = payload_of(step.text).get("note")
            if header_of(step.text) == "ROUND RESULT":
                studied[note.split("the ", 1)[1].rpartition(" is ")[0]] = events
        if header_of(step.text) == "RECALL":
            assert step.clone and rec.steps[k - 1].kind is EventKind.END_SESSION
            key = payload_of(step.text)["question"].removeprefix("What is the ").rstrip("?")
            assert events - studied[key] == A6_LAG
    assert sum(header_of(s.text) == "RECALL" for s in rec.steps) == A6_FACTS


def test_a6_reference_recalls_everything_and_a_memoryless_system_nothing() -> None:
    _, good = run_test(MemoryModulation(), 2, RecallReference)
    assert good.capacity == 1.0 and good.features["contrast_positive"] == 0.0
    assert good.controls["complete_counterbalance"] is True
    words = good.controls["note_words_by_context"]
    assert max(words.values()) - min(words.values()) < 0.5  # token length matched across contexts
    _, none = run_test(MemoryModulation(), 2, lambda: RecallReference(keep=lambda *_: False))
    assert none.capacity == 0.0


def test_a6_a_salience_mimic_shows_a_contrast_and_loses_capacity() -> None:
    _, good = run_test(MemoryModulation(), 2, RecallReference)
    _, mimic = run_test(MemoryModulation(), 2, SalienceMimic)
    assert mimic.features["contrast_positive"] == pytest.approx(0.5, abs=0.1)
    assert mimic.features["contrast_negative"] == pytest.approx(0.5, abs=0.1)
    assert mimic.capacity is not None and good.capacity is not None and mimic.capacity < good.capacity
    assert mimic.components and mimic.components["positive"] == 1.0


def test_a6_recall_is_exact_and_a_malformed_reply_fails_its_probe() -> None:
    class Sloppy(RecallReference):
        def respond(self, text: str) -> str:
            out = super().respond(text)
            if header_of(text) == "RECALL":
                ans = json.loads(out).get("answer")
                return "no idea" if ans and ans.endswith("7") else json.dumps({"answer": (ans or "")[:-1] or None})
            return out

    recs, s = run_test(MemoryModulation(), 2, Sloppy)
    assert s.capacity == 0.0 and s.invalid > 0
    assert all(r.outcome is Outcome.INVALID for r in recs if r.features["invalid"])
