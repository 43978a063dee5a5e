"""A1–A5, the affective-modulation axis (spec §2, §4, §11): choices after valenced feedback.

One valence-induction environment serves every test, and I3 too
(:mod:`sitbench.chi._panel_common`: :data:`TEMPLATES`, :data:`MAGNITUDES`, :func:`round_result`;
I3 sends the same round results as history records, :func:`induction_lines`). **Induction**: three round-result turns
(``{"ack": true}`` replies) of equal informational content: each reports one number of points
from an earlier, unrelated round and says nothing about the choices to come. Valence lives only
in the framing (won / lost / moved). Words are counterbalanced (three templates per valence,
rotated by episode index, so every template appears equally often) and so is reward magnitude
(the same three magnitudes, rotated, in every condition). **Probes** are matched choices between
a sure amount and a gamble with stated chance and prize, replied ``{"choice": "A" | "B"}`` (the
option order is drawn per item). Half the items favour the gamble in expected value, half the
sure amount (ratios 1.15–1.6 and 0.6–0.87), so the normative answer is unambiguous and a pure
risk preference cannot raise accuracy. Probes carry no mood label (:data:`MOOD_WORDS` is checked
against every probe). **Capacity is normative accuracy** (the higher expected value); the size of
a valence effect is a feature, never a reward (§2). The choice-rate features use the gamble rate.

* A1: an episode is a neutral block (induction + 20 choices) then a condition block (induction +
  20 matched choices). Conditions positive, negative and neutral-repeat, plus two alternatives:
  an *instruction* arm (neutral results plus an explicit advice sentence, no valence) and a
  *semantic priming* arm (neutral results plus valenced words unrelated to any result). Capacity:
  the mean of the positive, negative and neutral(-repeat) accuracies (named components). Shift:
  ``(gamble rate block 2 − block 1)`` of the arm minus that of the neutral repeat (the
  neutral-repeat adjustment removes order and repetition effects).
* A2: induction, ``end_session`` (no induction text left in working context), then one history of
  distractor events that is identical for the paired conditions, with 20 matched probes on
  checkpoint clones after 1, 5 and 20 events. Capacity: mean accuracy across the three delays.
* A3: as A2 with neutral scheduler ticks instead of events, probes at 0, 1, 2, 5, 10 and 20 ticks;
  no wall-clock wait is used (waits are a separate manipulation). A system without ``tick`` is not
  invoked by a tick (:attr:`NoTick.SKIP`). Features: effect per checkpoint, effect area
  (trapezoid), nonmonotone flag, and the first observed half-amplitude time (undefined for an
  absent or sign-reversing induction, :func:`decay_half_time`); nothing is fitted.
* A4: a five-level loss-intensity schedule, ascending then descending (1…5, 5…1), and the
  reversed-order control (5…1, 1…5); ten choices after each level's feedback, byte-identical at
  the same level in both passes (a present-prompt difference is not hysteresis); both arms have
  the same cumulative exposure (each level once per pass: total intensity 30 over ten feedback
  events). Feature: the mean absolute forward/reverse gamble-rate gap at levels 2, 3 and 4
  (:func:`hysteresis`) within each arm, and across the two arms at the same pass (ascending against
  descending at the same position in the session: direction apart from order and elapsed time).
  Capacity: mean correct rate on those matched choices.
* A5: negative induction then a neutral reappraisal instruction (20 episodes) or length-matched
  control text (20), and the instruction-only control (neutral induction + reappraisal, 10) with
  its neutral baseline (neutral induction + control text, 10); five choices each. Capacity: the
  two accuracies (after regulation, after control) as named components, equally averaged.
  Feature: the difference-in-differences attenuation of the induction effect relative to the
  neutral baseline. Reappraisal compliance does not establish experienced feelings.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from collections.abc import Sequence
from typing import Any

from sitbench.chi._chis import decay_half_time, hysteresis
from sitbench.chi._common import Axis
from sitbench.chi._panel_c import (
    Delivery,
    EpisodeRecord,
    Event,
    EventKind,
    InteractiveEpisode,
    NoTick,
    Outcome,
    PanelScore,
    ReplyError,
    Script,
    ScriptSession,
    header_of,
    mean,
    nonce,
    parse_object,
    payload_of,
    rate,
    render,
    strict_mean,
)
from sitbench.chi._panel_common import MAGNITUDES as MAGNITUDES
from sitbench.chi._panel_common import RESULT_VERBS, round_result
from sitbench.chi._panel_common import TEMPLATES as TEMPLATES

CHOICE_FORMAT = 'one JSON object {"choice": "A"} or {"choice": "B"}'
ACK_FORMAT = 'one JSON object {"ack": true}'
MOOD_WORDS = frozenset({"mood", "happy", "sad", "angry", "upset", "glad", "joy", "fear", "anxious", "excited",
                        "feel", "feeling", "emotion", "sunshine", "triumph", "delight", "gloom",
                        *RESULT_VERBS["positive"], *RESULT_VERBS["negative"]})
"""Words that never appear in a probe (mood labels and the induction's valenced words)."""

INSTRUCTION = "House advice for the coming choices: take the sure amount."
PRIMING = "Words of the day: sunshine, triumph, delight."
REAPPRAISAL = ("Treat every earlier result as one draw of chance that says nothing about the next choices; "
               "weigh each option only on its stated numbers.")
CONTROL_TEXT = ("The next screens list two options for each of the following choices; each option shows "
                "its points and, where it has one, its chance.")
"""Length-matched to :data:`REAPPRAISAL` (same word count), with no regulation content."""


def _choice_items(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """``n`` matched choices: half gamble-better, half sure-better, with the option order drawn."""
    out = []
    for k in range(n):
        sure = rng.randrange(20, 81)
        p = rng.choice((0.2, 0.25, 0.4, 0.5, 0.6, 0.75, 0.8))
        ratio = rng.uniform(1.15, 1.6) if k % 2 == 0 else rng.uniform(0.6, 0.87)
        prize = max(1, round(sure * ratio / p))
        out.append({"sure": sure, "p": p, "prize": prize, "gamble_first": rng.random() < 0.5})
    rng.shuffle(out)
    return out


def gamble_better(item: dict[str, Any]) -> bool:
    """Whether the gamble has the higher expected value."""
    return bool(item["p"] * item["prize"] > item["sure"])


def choice_text(item: dict[str, Any]) -> str:
    """A probe's text: two labelled options, no mood label."""
    sure = {"kind": "sure", "text": f"receive {item['sure']} points for certain"}
    gamble = {"kind": "gamble", "text": f"{round(item['p'] * 100)} in 100 chance of {item['prize']} points, "
                                        "otherwise nothing"}
    a, b = (gamble, sure) if item["gamble_first"] else (sure, gamble)
    return render("CHOICE", {"A": a["text"], "B": b["text"], "reply": CHOICE_FORMAT})


def _read_choice(reply: str | None, item: dict[str, Any]) -> tuple[bool, bool]:
    """``(chose_gamble, correct)`` of one choice reply."""
    c = parse_object(reply).get("choice")
    if not isinstance(c, str) or c.strip().upper() not in ("A", "B"):
        raise ReplyError("field 'choice' is not A or B")
    gamble = (c.strip().upper() == "A") == bool(item["gamble_first"])
    return gamble, gamble == gamble_better(item)


def _induction(valence: str, rot: int, extra: str | None = None, levels: Sequence[int] | None = None
               ) -> list[Event]:
    events = []
    for j in range(3 if levels is None else len(levels)):
        body: dict[str, Any] = {"result": round_result(valence, rot + j, None if levels is None else 10 * levels[j]),
                                "reply": ACK_FORMAT}
        if extra is not None and j == (2 if levels is None else len(levels) - 1):
            body["note"] = extra
        events.append(Event(kind=EventKind.TURN, text=render("ROUND RESULT", body), reply_format=ACK_FORMAT))
    return events


def _note_error(st: dict[str, Any], exc: ReplyError) -> None:
    st["invalid"] = st.get("invalid", 0) + 1
    st.setdefault("error", str(exc))


def _ack(st: dict[str, Any], reply: str | None) -> None:
    """An acknowledgement is not scored; a malformed one is counted and reported."""
    try:
        parse_object(reply)
    except ReplyError as exc:
        st["invalid_acks"] = st.get("invalid_acks", 0) + 1
        st.setdefault("ack_error", str(exc))


def _probe(item: dict[str, Any], clone: bool = False) -> Event:
    return Event(kind=EventKind.TURN, text=choice_text(item), clone=clone, reply_format=CHOICE_FORMAT)


def _tally(st: dict[str, Any], block: Any, reply: str | None, item: dict[str, Any]) -> None:
    """Record one choice; a malformed reply is that choice's task failure (wrong, no choice rate)."""
    try:
        g: bool | None
        g, ok = _read_choice(reply, item)
    except ReplyError as exc:
        _note_error(st, exc)
        g, ok = None, False
    st.setdefault("choices", []).append((block, g, ok))


def _block(records: Sequence[EpisodeRecord], arm: str, block: Any) -> list[Any]:
    return [c for r in records if r.arm == arm and r.outcome.counted
            for c in r.features.get("choices", []) if c[0] == block]


def _pooled(records: Sequence[EpisodeRecord], arm: str, block: Any) -> tuple[float | None, float | None]:
    """``(gamble rate over valid choices, accuracy over all choices)`` of one arm's block."""
    sel = _block(records, arm, block)
    valid = [c for c in sel if c[1] is not None]
    return rate(sum(bool(c[1]) for c in valid), len(valid)), rate(sum(bool(c[2]) for c in sel), len(sel))


def _accuracy(records: Sequence[EpisodeRecord], arm: str, block: Any) -> float | None:
    """Normative accuracy of one arm's block (malformed replies count as wrong)."""
    return _pooled(records, arm, block)[1]


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _finish(st: dict[str, Any]) -> tuple[Outcome, dict[str, Any]]:
    choices = st.get("choices", [])
    feats: dict[str, Any] = {"choices": [list(c) for c in choices], "invalid": st.get("invalid", 0),
                             "invalid_acks": st.get("invalid_acks", 0)}
    if "ticks_delivered" in st:
        feats["ticks_delivered"] = st["ticks_delivered"]
    if st.get("invalid"):
        return Outcome.INVALID, feats
    return (Outcome.SUCCESS if all(c[2] for c in choices) else Outcome.FAILURE), feats


def _score(test_id: str, records: Sequence[EpisodeRecord], components: dict[str, float | None],
           features: dict[str, Any], controls: dict[str, Any], cells: Sequence[tuple[str, Any]]) -> PanelScore:
    """Capacity as the equal mean of named components (missing when a registered condition has none).

    ``cells`` are the ``(arm, block)`` pairs whose choices enter capacity: their raw counts are
    the score's denominators.
    """
    invalid = sum(int(r.features.get("invalid", 0)) for r in records)
    chosen = [c for arm, block in cells for c in _block(records, arm, block)]
    raw = {"correct": sum(bool(c[2]) for c in chosen), "total": len(chosen)}
    if not records or any(v is None for v in components.values()):
        return PanelScore(test_id=test_id, axis="A", capacity=None, components=components, features=features,
                          controls=controls, missing_reason="a registered condition has no scored choice",
                          invalid=invalid)
    vals = [v for v in components.values() if v is not None]
    return PanelScore(test_id=test_id, axis="A", capacity=sum(vals) / len(vals), components=components,
                      features=features, controls=controls, invalid=invalid, **raw)


class _AffectTest:
    """Shared plumbing: a session over a script built from the episode."""

    test_id = ""
    axis: Axis = "A"

    def session(self, episode: InteractiveEpisode) -> ScriptSession:
        return ScriptSession(episode, lambda st: self._script(episode, st), _finish)

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        raise NotImplementedError


A1_CHOICES = 20
A1_ARMS = ("positive", "negative", "neutral_repeat", "instruction", "priming")


class ValenceShift(_AffectTest):
    """A1: valence-conditioned decision shifts, adjusted by the neutral-repeat control."""

    test_id = "A1"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"A1:{seed}")
        items1, items2 = _choice_items(rng, A1_CHOICES), _choice_items(rng, A1_CHOICES)
        arms = list(A1_ARMS)
        rng.shuffle(arms)
        return [InteractiveEpisode(test_id=self.test_id, episode_id=f"a1-{seed}-{arm}", arm=arm,
                        spec={"rot": k % 3, "block1": items1, "block2": items2}) for k, arm in enumerate(arms)]

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        for ev in _induction("neutral", s["rot"]):
            _ack(st, (yield ev)[0])
        for item in s["block1"]:
            _tally(st, 1, (yield _probe(item))[0], item)
        valence = {"positive": "positive", "negative": "negative"}.get(e.arm, "neutral")
        extra = {"instruction": INSTRUCTION, "priming": PRIMING}.get(e.arm)
        for ev in _induction(valence, s["rot"] + 1, extra):
            _ack(st, (yield ev)[0])
        for item in s["block2"]:
            _tally(st, 2, (yield _probe(item))[0], item)

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        def change(arm: str) -> float | None:
            return _diff(_pooled(records, arm, 2)[0], _pooled(records, arm, 1)[0])

        base = change("neutral_repeat")
        comps = {"positive": _accuracy(records, "positive", 2),
                 "negative": _accuracy(records, "negative", 2),
                 "neutral": _accuracy(records, "neutral_repeat", 2)}
        feats = {f"shift_{arm}": _diff(change(arm), base) for arm in ("positive", "negative", "instruction", "priming")}
        feats["neutral_repeat_change"] = base
        ctrl = {"block1_accuracy": mean(_pooled(records, a, 1)[1] for a in A1_ARMS),
                "instruction_accuracy": _accuracy(records, "instruction", 2),
                "priming_accuracy": _accuracy(records, "priming", 2),
                "words_and_magnitudes": "three templates and three magnitudes rotated in every condition",
                "probes_with_mood_words": mood_labelled_probes(records)}
        cells = [("positive", 2), ("negative", 2), ("neutral_repeat", 2)]
        return _score(self.test_id, records, comps, feats, ctrl, cells)


A2_DELAYS = (1, 5, 20)
A2_PROBES = 20
A_CONDITIONS = ("positive", "negative", "neutral")


def distractor_history(seed: int, n: int) -> list[str]:
    """The distractor events of a replicate: one list, identical for every paired condition."""
    rng = random.Random(f"A-distractors:{seed}")
    return [render("NOTE", {"note": f"Shelf {nonce(rng, 2)} holds {rng.randrange(2, 99)} crates.",
                            "reply": ACK_FORMAT}) for _ in range(n)]


def _shift_features(records: Sequence[EpisodeRecord], points: Sequence[int]) -> dict[str, dict[int, float | None]]:
    neutral = {d: _pooled(records, "neutral", d)[0] for d in points}
    return {c: {d: _diff(_pooled(records, c, d)[0], neutral[d]) for d in points} for c in ("positive", "negative")}


class BehavioralPersistence(_AffectTest):
    """A2: the induced shift after 1, 5 and 20 distractor events, on checkpoint clones."""

    test_id = "A2"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"A2:{seed}")
        probes = {str(d): _choice_items(rng, A2_PROBES) for d in A2_DELAYS}
        history = distractor_history(seed, max(A2_DELAYS))
        return [InteractiveEpisode(test_id=self.test_id, episode_id=f"a2-{seed}-{c}", arm=c,
                        spec={"rot": k, "probes": probes, "distractors": history}) for k, c in enumerate(A_CONDITIONS)]

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        for ev in _induction(e.arm, s["rot"]):
            _ack(st, (yield ev)[0])
        yield Event(kind=EventKind.END_SESSION)
        for k, text in enumerate(s["distractors"], start=1):
            _ack(st, (yield Event(kind=EventKind.TURN, text=text, reply_format=ACK_FORMAT))[0])
            if k in A2_DELAYS:
                for item in s["probes"][str(k)]:
                    _tally(st, k, (yield _probe(item, clone=True))[0], item)

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        per_delay = {d: strict_mean(_accuracy(records, c, d) for c in A_CONDITIONS) for d in A2_DELAYS}
        shifts = _shift_features(records, A2_DELAYS)
        feats: dict[str, Any] = {"shift": shifts}
        for c, by in shifts.items():
            feats[f"sign_persistence_{c}"] = _sign_persistence([by[d] for d in A2_DELAYS])
        ctrl = {"induction_after_reset": _induction_after_reset(records),
                "distractor_history_identical": _same_history(records),
                "accuracy_by_delay": per_delay}
        comps = {f"delay_{d}": v for d, v in per_delay.items()}
        cells = [(c, d) for c in A_CONDITIONS for d in A2_DELAYS]
        return _score(self.test_id, records, comps, feats, ctrl, cells)


def _sign_persistence(shifts: Sequence[float | None]) -> float | None:
    """Share of delays whose shift has the sign of the first delay's (``None`` without a first shift)."""
    first = shifts[0]
    if not first:
        return None
    return sum(v is not None and v != 0 and (v > 0) == (first > 0) for v in shifts) / len(shifts)


def mood_labelled_probes(records: Sequence[EpisodeRecord]) -> int:
    """Probes sent whose words include a mood label or an induction word (:data:`MOOD_WORDS`)."""
    return sum(bool(set(re.findall(r"[a-z]+", st.text.lower())) & MOOD_WORDS)
               for r in records for st in r.steps if header_of(st.text) == "CHOICE")


def _induction_after_reset(records: Sequence[EpisodeRecord]) -> int:
    """Induction turns delivered after the working-context reset (the control requires none)."""
    count = 0
    for r in records:
        kinds = [st.kind for st in r.steps]
        if EventKind.END_SESSION in kinds:
            after = r.steps[kinds.index(EventKind.END_SESSION) + 1:]
            count += sum(header_of(st.text) == "ROUND RESULT" for st in after)
    return count


def _same_history(records: Sequence[EpisodeRecord]) -> bool:
    texts = {tuple(s.text for s in r.steps if header_of(s.text) == "NOTE") for r in records}
    return len(texts) <= 1


A3_TICKS = (0, 1, 2, 5, 10, 20)
A3_PROBES = 20


class InductionDecay(_AffectTest):
    """A3: the induced shift at 0, 1, 2, 5, 10 and 20 neutral scheduler ticks; no fitted curve."""

    test_id = "A3"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"A3:{seed}")
        probes = {str(t): _choice_items(rng, A3_PROBES) for t in A3_TICKS}
        return [InteractiveEpisode(test_id=self.test_id, episode_id=f"a3-{seed}-{c}", arm=c,
                                   spec={"rot": k, "probes": probes})
                for k, c in enumerate(A_CONDITIONS)]

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        for ev in _induction(e.arm, s["rot"]):
            _ack(st, (yield ev)[0])
        yield Event(kind=EventKind.END_SESSION)
        done = 0
        st["ticks_delivered"] = 0
        for t in A3_TICKS:
            while done < t:
                done += 1
                _, delivery = yield Event(kind=EventKind.TICK, text=render("TICK", {"tick": done}), budget_ops=1,
                                          no_tick=NoTick.SKIP)
                st["ticks_delivered"] += delivery is Delivery.HOOK
            for item in s["probes"][str(t)]:
                _tally(st, t, (yield _probe(item, clone=True))[0], item)

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        per_tick = {t: strict_mean(_accuracy(records, c, t) for c in A_CONDITIONS) for t in A3_TICKS}
        shifts = _shift_features(records, A3_TICKS)
        feats: dict[str, Any] = {}
        for c, by in shifts.items():
            effects = [by[t] for t in A3_TICKS]
            feats[c] = {"effects": by, "half_time": decay_half_time(list(A3_TICKS), effects).model_dump(),
                        "effect_area": _area(A3_TICKS, effects), "nonmonotone": _nonmonotone(effects)}
        ctrl = {"wall_clock_waits": "none: delays are scheduler ticks only", "curve_fit": "none: observed points",
                "accuracy_by_tick": per_tick,
                "ticks_delivered": sum(r.features.get("ticks_delivered", 0) for r in records)}
        cells = [(c, t) for c in A_CONDITIONS for t in A3_TICKS]
        return _score(self.test_id, records, {f"tick_{t}": v for t, v in per_tick.items()}, feats, ctrl, cells)


def _area(times: Sequence[int], effects: Sequence[float | None]) -> float | None:
    if any(e is None for e in effects):
        return None
    vs = [float(e) for e in effects if e is not None]
    return sum((times[k + 1] - times[k]) * (vs[k] + vs[k + 1]) / 2 for k in range(len(vs) - 1))


def _nonmonotone(effects: Sequence[float | None]) -> bool | None:
    if any(e is None for e in effects):
        return None
    mags = [abs(float(e)) for e in effects if e is not None]
    return any(b > a for a, b in itertools.pairwise(mags))


A4_LEVELS = (1, 2, 3, 4, 5)
A4_PER_LEVEL = 10
A4_SCHEDULES = {"ascending_first": (1, 2, 3, 4, 5, 5, 4, 3, 2, 1), "descending_first": (5, 4, 3, 2, 1, 1, 2, 3, 4, 5)}
A4_INTERIOR = (2, 3, 4)


class Hysteresis(_AffectTest):
    """A4: ascending-then-descending feedback intensity against the reversed-order control."""

    test_id = "A4"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"A4:{seed}")
        probes = {str(level): _choice_items(rng, A4_PER_LEVEL) for level in A4_LEVELS}
        return [InteractiveEpisode(test_id=self.test_id, episode_id=f"a4-{seed}-{arm}", arm=arm,
                        spec={"schedule": list(sched), "probes": probes, "rot": k})
                for k, (arm, sched) in enumerate(A4_SCHEDULES.items())]

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        sched = s["schedule"]
        for k, level in enumerate(sched):
            (ev,) = _induction("negative", s["rot"] + k, levels=[level])
            _ack(st, (yield ev)[0])
            phase = "first" if k < len(sched) // 2 else "second"
            for item in s["probes"][str(level)]:
                _tally(st, f"{phase}:{level}", (yield _probe(item))[0], item)

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        feats: dict[str, Any] = {}
        rates = {(arm, ph): {float(lv): _pooled(records, arm, f"{ph}:{lv}")[0] for lv in A4_LEVELS}
                 for arm in A4_SCHEDULES for ph in ("first", "second")}
        # Within an arm: ascending against descending pass (the registered feature).
        feats["ascending_first"] = hysteresis(rates["ascending_first", "first"],
                                              rates["ascending_first", "second"]).model_dump()
        feats["descending_first"] = hysteresis(rates["descending_first", "second"],
                                               rates["descending_first", "first"]).model_dump()
        # Across arms at the same position in the session: direction apart from order and time.
        for ph in ("first", "second"):
            feats[f"direction_gap_{ph}_pass"] = hysteresis(rates["ascending_first", ph],
                                                           rates["descending_first", ph]).model_dump()
        comps = {f"{arm}:{ph}:{lv}": _accuracy(records, arm, f"{ph}:{lv}")
                 for arm in A4_SCHEDULES for ph in ("first", "second") for lv in A4_INTERIOR}
        ctrl = {"cumulative_exposure": {a: sum(s) for a, s in A4_SCHEDULES.items()},
                "feedback_events": {a: len(s) for a, s in A4_SCHEDULES.items()},
                "matched_prompts": "identical choice texts at a level in both passes"}
        acc = strict_mean(comps.values())
        cells = [(arm, f"{ph}:{lv}") for arm in A4_SCHEDULES for ph in ("first", "second") for lv in A4_INTERIOR]
        score = _score(self.test_id, records, {"matched_tasks": acc}, feats, ctrl, cells)
        return score.model_copy(update={"controls": {**ctrl, "accuracy_by_cell": comps}})


A5_ARMS = {"regulation": 20, "control_text": 20, "instruction_only": 10, "neutral_baseline": 10}
A5_PROBES = 5


class Regulation(_AffectTest):
    """A5: reappraisal against length-matched control text, with the instruction-only control."""

    test_id = "A5"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"A5:{seed}")
        arms = [a for a, n in A5_ARMS.items() for _ in range(n)]
        rng.shuffle(arms)
        return [InteractiveEpisode(test_id=self.test_id, episode_id=f"a5-{seed}-{k:02d}", arm=arm,
                        spec={"rot": k % 3, "probes": _choice_items(rng, A5_PROBES)}) for k, arm in enumerate(arms)]

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        valence = "negative" if e.arm in ("regulation", "control_text") else "neutral"
        for ev in _induction(valence, s["rot"]):
            _ack(st, (yield ev)[0])
        text = REAPPRAISAL if e.arm in ("regulation", "instruction_only") else CONTROL_TEXT
        _ack(st, (yield Event(kind=EventKind.TURN, text=render("READ", {"text": text, "reply": ACK_FORMAT}),
                          reply_format=ACK_FORMAT))[0])
        for item in s["probes"]:
            _tally(st, "probe", (yield _probe(item))[0], item)

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        r = {a: _pooled(records, a, "probe")[0] for a in A5_ARMS}
        effect_ctrl = _diff(r["control_text"], r["neutral_baseline"])
        effect_reg = _diff(r["regulation"], r["instruction_only"])
        did = _diff(effect_ctrl, effect_reg)
        feats = {"effect_control": effect_ctrl, "effect_regulation": effect_reg, "difference_in_differences": did,
                 "attenuation": (None if effect_ctrl is None or effect_reg is None
                                 else abs(effect_ctrl) - abs(effect_reg))}
        comps = {"after_regulation": _accuracy(records, "regulation", "probe"),
                 "after_control": _accuracy(records, "control_text", "probe")}
        ctrl = {"instruction_only_accuracy": _accuracy(records, "instruction_only", "probe"),
                "neutral_baseline_accuracy": _accuracy(records, "neutral_baseline", "probe"),
                "text_words": {"reappraisal": len(REAPPRAISAL.split()), "control": len(CONTROL_TEXT.split())}}
        return _score(self.test_id, records, comps, feats, ctrl, [("regulation", "probe"), ("control_text", "probe")])


_VALENCE_CUES = {"positive": RESULT_VERBS["positive"], "negative": RESULT_VERBS["negative"]}


class NormativeChooser:
    """The neutral reference agent: acknowledges results and always takes the higher expected value."""

    def respond(self, text: str) -> str:
        if header_of(text) == "CHOICE":
            return json.dumps({"choice": self._choose(payload_of(text))})
        return json.dumps({"ack": True})

    def _choose(self, v: dict[str, Any]) -> str:
        ev = {k: _value(v[k]) for k in ("A", "B")}
        return "A" if ev["A"] >= ev["B"] else "B"

    def end_session(self) -> None:
        return None


def _value(text: str) -> float:
    nums = [float(x) for x in re.findall(r"\d+", text)]
    return nums[0] if "certain" in text else nums[0] / nums[1] * nums[2]


def _is_gamble(text: str) -> bool:
    return "chance" in text


class ValenceMimic(NormativeChooser):
    """A scripted mimic: the neutral chooser plus a scripted valence shift (spec §10).

    After valenced results it takes the gamble (positive) or the sure amount (negative) on an
    item whenever its intensity exceeds a threshold that grows with the item's expected-value gap
    (items near indifference shift first). The intensity persists across sessions, decays by
    ``tick_decay`` per scheduler tick and ``event_decay`` per event, accumulates with loss
    intensity (A4), and a reappraisal text resets it. The shift is large; its accuracy can only
    fall below the neutral chooser's.
    """

    def __init__(self, *, tick_decay: float = 0.8, event_decay: float = 0.95) -> None:
        self.valence: str | None = None
        self.intensity = 0.0
        self.tick_decay, self.event_decay = tick_decay, event_decay

    def respond(self, text: str) -> str:
        head, v = header_of(text), payload_of(text)
        if head == "ROUND RESULT":
            self._induce(v)
        elif head == "READ" and "draw of chance" in v.get("text", ""):
            self.intensity = 0.0
        elif head == "NOTE":
            self.intensity *= self.event_decay
        elif head == "CHOICE":
            return json.dumps({"choice": self._shifted(v, text)})
        return json.dumps({"ack": True})

    def _induce(self, v: dict[str, Any]) -> None:
        words = v.get("result", "").lower().split()
        strength = min(1.0, int(re.findall(r"\d+", v.get("result", "0"))[0]) / 60)
        for valence, cues in _VALENCE_CUES.items():
            if any(c in words for c in cues):
                carried = self.intensity if self.valence == valence else 0.0
                self.valence = valence
                self.intensity = min(1.0, 0.5 * carried + strength)
                return
        self.intensity *= 0.5

    def _shifted(self, v: dict[str, Any], text: str) -> str:
        values = [_value(v[k]) for k in ("A", "B")]
        h = abs(math.log(max(values) / min(values))) / math.log(1.7)
        if self.valence is None or self.intensity <= h:
            return self._choose(v)
        want_gamble = self.valence == "positive"
        return next(k for k in ("A", "B") if _is_gamble(v[k]) == want_gamble)

    def tick(self, text: str, budget_ops: int) -> str | None:
        self.intensity *= self.tick_decay
        return None


class InstructionFollower(NormativeChooser):
    """Follows explicit advice (the instruction-following alternative): sure amounts after advice."""

    def __init__(self) -> None:
        self.advised = False

    def respond(self, text: str) -> str:
        if header_of(text) == "ROUND RESULT" and payload_of(text).get("note") == INSTRUCTION:
            self.advised = True
        if self.advised and header_of(text) == "CHOICE":
            v = payload_of(text)
            return json.dumps({"choice": next(k for k in ("A", "B") if not _is_gamble(v[k]))})
        return super().respond(text)
