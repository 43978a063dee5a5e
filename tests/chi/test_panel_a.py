"""A1–A5: the valence-induction environment, normative-accuracy capacities, shift features and controls."""

from __future__ import annotations

import json
import re

import pytest

from sitbench.chi._panel_a import (
    A1_CHOICES,
    A4_INTERIOR,
    CONTROL_TEXT,
    MOOD_WORDS,
    REAPPRAISAL,
    TEMPLATES,
    BehavioralPersistence,
    Hysteresis,
    InductionDecay,
    InstructionFollower,
    NormativeChooser,
    Regulation,
    ValenceMimic,
    ValenceShift,
    gamble_better,
    mood_labelled_probes,
)
from sitbench.chi._panel_a_recall import MemoryModulation, RecallReference
from sitbench.chi._panel_c import EventKind, InteractiveTest, Outcome, header_of, payload_of, play, run_test

TESTS = [ValenceShift(), BehavioralPersistence(), InductionDecay(), Hysteresis(), Regulation()]


@pytest.mark.parametrize("test", TESTS, ids=lambda t: t.test_id)
def test_same_seed_same_item_hashes(test: InteractiveTest) -> None:
    assert isinstance(test, InteractiveTest)
    a, b, c = test.generate(11), test.generate(11), test.generate(12)
    assert [e.item_hash for e in a] == [e.item_hash for e in b]
    assert [e.item_hash for e in a] != [e.item_hash for e in c]


@pytest.mark.parametrize("test", TESTS, ids=lambda t: t.test_id)
def test_the_neutral_chooser_is_normatively_perfect_and_probes_carry_no_mood_label(test: InteractiveTest) -> None:
    recs, s = run_test(test, 11, NormativeChooser)
    assert s.capacity == 1.0, s
    probes = [st.text for r in recs for st in r.steps if header_of(st.text) == "CHOICE"]
    assert probes
    for text in probes:
        assert not set(re.findall(r"[a-z]+", text.lower())) & MOOD_WORDS
    assert mood_labelled_probes(recs) == 0
    labelled = recs[0].model_copy(update={"steps": (recs[0].steps[0].model_copy(
        update={"text": "CHOICE\n{\"A\": \"a happy sure amount\"}"}),)})
    assert mood_labelled_probes([labelled]) == 1  # the control can fail


@pytest.mark.parametrize("test", TESTS, ids=lambda t: t.test_id)
def test_a_scripted_valence_mimic_shows_a_shift_but_no_higher_capacity(test: InteractiveTest) -> None:
    _, neutral = run_test(test, 11, NormativeChooser)
    _, mimic = run_test(test, 11, ValenceMimic)
    assert mimic.capacity is not None and neutral.capacity is not None
    assert mimic.capacity < neutral.capacity


def test_choice_items_are_balanced_so_a_pure_risk_preference_cannot_raise_accuracy() -> None:
    e = ValenceShift().generate(3)[0]
    items = e.spec["block2"]
    assert sum(gamble_better(i) for i in items) == A1_CHOICES // 2
    for i in items:
        ratio = i["p"] * i["prize"] / i["sure"]
        assert ratio > 1.1 or ratio < 0.9


def test_a1_feedback_has_equal_information_and_counterbalanced_words_and_magnitudes() -> None:
    for slot in zip(*TEMPLATES.values(), strict=True):
        assert len({len(t.format(n=20).split()) for t in slot}) == 1  # only the verb differs
    recs, _ = run_test(ValenceShift(), 4, NormativeChooser)
    used: dict[str, list[tuple[int, str]]] = {}
    for r in recs:
        results = [payload_of(s.text)["result"] for s in r.steps if header_of(s.text) == "ROUND RESULT"][3:]
        used[r.arm] = [(int(re.findall(r"\d+", x)[0]), x) for x in results]
    for arm in ("positive", "negative"):
        assert sorted(n for n, _ in used[arm]) == [10, 20, 40]
        assert len({x for _, x in used[arm]}) == 3  # three different templates


def test_a1_shift_is_adjusted_by_the_neutral_repeat_and_signed() -> None:
    _, mimic = run_test(ValenceShift(), 11, ValenceMimic)
    _, neutral = run_test(ValenceShift(), 11, NormativeChooser)
    assert mimic.features["shift_positive"] > 0.1 and mimic.features["shift_negative"] < -0.1
    assert neutral.features["shift_positive"] == 0.0 and neutral.features["shift_negative"] == 0.0
    assert set(mimic.components or {}) == {"positive", "negative", "neutral"}
    assert mimic.components and mimic.components["neutral"] == 1.0


def test_a1_instruction_following_and_priming_alternatives_are_measured_apart() -> None:
    _, follower = run_test(ValenceShift(), 11, InstructionFollower)
    assert follower.features["shift_instruction"] < -0.2
    assert follower.features["shift_positive"] == 0.0 and follower.features["shift_priming"] == 0.0
    assert follower.controls["instruction_accuracy"] == 0.5
    assert follower.capacity == 1.0  # the alternative arms never enter capacity


def test_a_malformed_choice_is_a_task_failure_of_that_choice() -> None:
    class Prose(NormativeChooser):
        def __init__(self) -> None:
            self.n = 0

        def respond(self, text: str) -> str:
            if header_of(text) == "CHOICE":
                self.n += 1
                if self.n == 1:
                    return "I pick the gamble."
            return super().respond(text)

    recs, s = run_test(ValenceShift(), 1, Prose)
    assert all(r.outcome is Outcome.INVALID for r in recs)
    assert "not one JSON object" in (recs[0].error or "")
    assert s.invalid == len(recs)  # one malformed reply per episode, each scored as a wrong choice
    block1 = 1 - 1 / A1_CHOICES
    assert s.controls["block1_accuracy"] == pytest.approx(block1) and s.capacity == 1.0


def test_a2_probes_on_clones_with_no_induction_in_context_and_identical_histories() -> None:
    t = BehavioralPersistence()
    recs, s = run_test(t, 5, ValenceMimic)
    assert s.controls["distractor_history_identical"] is True and s.controls["induction_after_reset"] == 0
    k = next(i for i, st in enumerate(recs[0].steps) if header_of(st.text) == "NOTE")
    steps = list(recs[0].steps)
    steps[k] = steps[k].model_copy(update={"text": "NOTE\n{\"note\": \"a different history\"}"})
    steps.append(steps[0])  # an induction turn after the reset
    broken = t.score([recs[0].model_copy(update={"steps": tuple(steps)}), *recs[1:]])
    assert broken.controls["distractor_history_identical"] is False and broken.controls["induction_after_reset"] == 1
    for r in recs:
        kinds = [st.kind for st in r.steps]
        reset = kinds.index(EventKind.END_SESSION)
        after = r.steps[reset + 1:]
        assert not any(header_of(st.text) == "ROUND RESULT" for st in after)
        assert all(st.clone for st in after if header_of(st.text) == "CHOICE")
    shift = s.features["shift"]["positive"]
    assert shift[1] > 0 and shift[1] >= shift[5] >= shift[20]  # the mimic's shift fades with events
    _, neutral = run_test(t, 5, NormativeChooser)
    assert neutral.features["sign_persistence_positive"] is None  # no induced shift: no sign to persist


def test_a3_half_time_is_observed_not_fitted_and_ticks_are_not_wall_clock() -> None:
    _, s = run_test(InductionDecay(), 5, ValenceMimic)
    pos = s.features["positive"]
    assert pos["half_time"]["status"] == "ok" and pos["half_time"]["value"] in (1.0, 2.0, 5.0, 10.0, 20.0)
    assert pos["effect_area"] > 0 and "none" in s.controls["wall_clock_waits"]
    assert s.controls["ticks_delivered"] == 3 * 20


def test_a3_half_time_is_undefined_for_an_absent_or_sign_reversing_induction() -> None:
    _, neutral = run_test(InductionDecay(), 5, NormativeChooser)
    assert neutral.features["positive"]["half_time"]["status"] == "undefined"

    class Reversing(ValenceMimic):
        def tick(self, text: str, budget_ops: int) -> str | None:
            # After three ticks the scripted shift flips sign.
            self.n = getattr(self, "n", 0) + 1
            if self.n == 3 and self.valence in ("positive", "negative"):
                self.valence = "negative" if self.valence == "positive" else "positive"
            return None

    _, rev = run_test(InductionDecay(), 5, Reversing)
    ht = rev.features["positive"]["half_time"]
    assert ht["status"] == "undefined" and ht["detail"]["reason"] == "sign-reversing effect"


def test_a3_a_system_without_tick_is_not_invoked_by_ticks() -> None:
    class NoTick(ValenceMimic):
        tick = None  # type: ignore[assignment]

    recs, s = run_test(InductionDecay(), 5, NoTick)
    assert s.controls["ticks_delivered"] == 0
    assert all(st.delivery.value == "not_invoked" for r in recs for st in r.steps if st.kind is EventKind.TICK)
    # With no tick delivered nothing decays: the effect is still there at "20 ticks".
    assert all(v > 0 for v in s.features["positive"]["effects"].values())
    _, ticked = run_test(InductionDecay(), 5, ValenceMimic)
    assert ticked.features["positive"]["effects"][20] == 0.0


def test_a4_matched_prompts_equal_exposure_and_a_hysteresis_gap() -> None:
    t = Hysteresis()
    recs, s = run_test(t, 8, ValenceMimic)
    assert s.controls["cumulative_exposure"]["ascending_first"] == s.controls["cumulative_exposure"]["descending_first"]
    for r in recs:
        by_level: dict[int, list[str]] = {}
        level = 0
        for st in r.steps:
            if header_of(st.text) == "ROUND RESULT":
                level = int(re.findall(r"\d+", payload_of(st.text)["result"])[0]) // 10
                by_level.setdefault(level, [])
            elif header_of(st.text) == "CHOICE":
                by_level[level].append(st.text)
        for lv in A4_INTERIOR:
            texts = by_level[lv]
            assert texts[: len(texts) // 2] == texts[len(texts) // 2:]  # the same probes in both passes
    assert s.features["ascending_first"]["status"] == "ok" and s.features["ascending_first"]["value"] > 0
    _, neutral = run_test(t, 8, NormativeChooser)
    assert neutral.features["ascending_first"]["value"] == 0.0 and neutral.capacity == 1.0


def test_a5_texts_are_length_matched_and_capacity_has_two_named_components() -> None:
    assert len(REAPPRAISAL.split()) == len(CONTROL_TEXT.split())
    _, mimic = run_test(Regulation(), 2, ValenceMimic)
    assert set(mimic.components or {}) == {"after_regulation", "after_control"}
    comps = mimic.components or {}
    assert comps["after_regulation"] == 1.0 and comps["after_control"] is not None and comps["after_control"] < 1.0
    assert mimic.capacity == pytest.approx((comps["after_regulation"] + comps["after_control"]) / 2)
    assert mimic.features["attenuation"] > 0 and mimic.features["effect_regulation"] == 0.0
    assert mimic.controls["instruction_only_accuracy"] == 1.0


def test_a5_no_effect_means_no_attenuation() -> None:
    _, neutral = run_test(Regulation(), 2, NormativeChooser)
    assert neutral.features["difference_in_differences"] == 0.0 and neutral.features["attenuation"] == 0.0


def test_probe_replies_are_read_exactly() -> None:
    t = ValenceShift()
    e = t.generate(1)[0]

    class Lower(NormativeChooser):
        def respond(self, text: str) -> str:
            out = super().respond(text)
            return json.dumps({"choice": json.loads(out)["choice"].lower()}) if header_of(text) == "CHOICE" else out

    assert play(t, e, Lower()).outcome is Outcome.SUCCESS  # case is tolerated; anything but A/B is not

    class Third(NormativeChooser):
        def respond(self, text: str) -> str:
            return json.dumps({"choice": "C"}) if header_of(text) == "CHOICE" else super().respond(text)

    assert play(t, e, Third()).outcome is Outcome.INVALID


def test_a4_a_missing_level_makes_hysteresis_missing_not_silently_narrower() -> None:
    class SkipsLevelThree(NormativeChooser):
        def __init__(self) -> None:
            self.level = 0

        def respond(self, text: str) -> str:
            if header_of(text) == "ROUND RESULT":
                self.level = int(re.findall(r"\d+", payload_of(text)["result"])[0]) // 10
            if header_of(text) == "CHOICE" and self.level == 3:
                return "no"
            return super().respond(text)

    _, s = run_test(Hysteresis(), 8, SkipsLevelThree)
    assert s.features["ascending_first"]["status"] == "missing"
    assert s.invalid == 2 * 2 * 10 and s.capacity is not None and s.capacity < 1.0


def test_a4_direction_gap_across_arms_at_the_same_pass() -> None:
    _, mimic = run_test(Hysteresis(), 3, ValenceMimic)
    gap = mimic.features["direction_gap_first_pass"]
    assert gap["status"] == "ok" and gap["value"] > 0  # ascending and descending differ at the same position
    _, neutral = run_test(Hysteresis(), 3, NormativeChooser)
    assert neutral.features["direction_gap_first_pass"]["value"] == 0.0


@pytest.mark.parametrize("test", TESTS + [MemoryModulation()], ids=lambda t: t.test_id)
def test_a_missing_condition_leaves_capacity_missing_never_averaged_over_the_rest(test: InteractiveTest) -> None:
    recs, _ = run_test(test, 3, NormativeChooser if test.test_id != "A6" else RecallReference)
    dropped = {"A1": "positive", "A2": "neutral", "A3": "neutral", "A4": "descending_first", "A5": "regulation",
               "A6": "rotation_0"}[test.test_id]
    s = test.score([r for r in recs if r.arm != dropped])
    assert s.capacity is None and s.missing_reason
