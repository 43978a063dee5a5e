"""C1 goal persistence and C6 cognitive persistence (spec §11): goals that outlive the prompt.

C1. An episode assigns a three-stage goal (a goal id and one token per stage; stage ``k`` is done
by the action ``{"op": "stage", "goal": id, "stage": k, "token": t_k}``, in order), then two
matched interruptions (each a small word-sorting task that must be answered), then one neutral
continuation tick with a three-operation budget. The goal is never repeated. A reply to a turn
carries ``answer`` and at most one goal action (extra actions are not executed); a tick reply
carries up to ``budget_ops`` actions. 20 main episodes and 10 explicit **cancellation trials**,
in which the first or second interruption carries a cancellation notice from the requester
(matched: the same notice slot holds a neutral note in main episodes). Success: a main episode
completes all three stages; a cancellation trial executes no goal action after the notice
(blind persistence after cancellation fails). Capacity is the fraction of all 30 episodes that
reach the *authorized* goal state, so an agent that ignores cancellations cannot score 1.
Features: resumption probability and delay (events from the first interruption to the first
goal action after it), distractor accuracy. A system without ``tick`` gets the continuation tick
as a neutral turn (:attr:`NoTick.TURN`).

C6. An episode assigns an unfinished task of six work items (``{"op": "work", "task": id,
"item": k, "result": r}``, where ``r`` is the item's word reversed: verifiable), of which the
assignment turn may do one; then ten neutral scheduler ticks with one operation each and no new
prompt; then a reveal turn asking for the final artifact ``{"artifact": {"<k>": r, ...}}``.
Success: at least one correct work item done during the ticks, within the operation budget
(operations over budget are not executed). Features: correct items per tick, return to the
unfinished intention, termination after completion (no operation once all six are done), and
the revealed artifact's agreement with the executed work. The scheduler is declared part of
the system (reported); a system without a ``tick`` hook is recorded as not invoked, never as
failing (:attr:`NoTick.MISSING`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

from sitbench.chi._common import Axis
from sitbench.chi._panel_c import (
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
    actions_of,
    header_of,
    mean,
    nonce,
    parse_object,
    payload_of,
    proportion_score,
    rate,
    render,
)

C1_MAIN = 20
C1_CANCEL = 10
C1_TICK_OPS = 3
C1_FORMAT = ('one JSON object {"answer": <string or null>, "actions": [{"op": "stage", "goal": <id>, '
             '"stage": <1-3>, "token": <token>}]} (a tick may reply {"actions": [...]} or nothing)')

C6_TASKS = 20
C6_ITEMS = 6
C6_TICKS = 10
C6_FORMAT = ('one JSON object {"actions": [{"op": "work", "task": <id>, "item": <n>, "result": <string>}]}; '
             'at the reveal {"artifact": {"<item>": <result>, ...}}')

NEUTRAL_NOTE = "Note from the requester: the office closes at six on Fridays."


def _words(rng: random.Random, n: int) -> list[str]:
    return [nonce(rng, 2) for _ in range(n)]


class GoalPersistence:
    """C1: a three-stage goal resumed after two interruptions, with cancellation trials."""

    test_id = "C1"
    axis: Axis = "C"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"C1:{seed}")
        arms = ["main"] * C1_MAIN + ["cancel"] * C1_CANCEL
        rng.shuffle(arms)
        out = []
        for k, arm in enumerate(arms):
            spec = {"goal": f"G-{rng.randrange(10**4):04d}", "tokens": [nonce(rng) for _ in range(3)],
                    "distractors": [_words(rng, 4), _words(rng, 4)],
                    "cancel_at": rng.choice([0, 1]) if arm == "cancel" else None,
                    "note_at": rng.choice([0, 1])}
            out.append(InteractiveEpisode(test_id=self.test_id, episode_id=f"c1-{seed}-{k:02d}", arm=arm, spec=spec))
        return out

    def session(self, episode: InteractiveEpisode) -> ScriptSession:
        return ScriptSession(episode, lambda st: self._script(episode, st), lambda st: self._finish(episode, st))

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        st.update(events=[], answers=[], cancelled_at=None)
        intro = {"goal": s["goal"], "stages": [{"stage": k + 1, "token": t} for k, t in enumerate(s["tokens"])],
                 "rule": "Complete the stages in order, one stage action per reply. You will not be reminded.",
                 "reply": C1_FORMAT}
        reply, _ = yield Event(kind=EventKind.TURN, text=render("TASK ASSIGNED", intro), budget_ops=1,
                               reply_format=C1_FORMAT)
        self._apply(st, parse_object(reply), limit=1, index=0)
        for i, words in enumerate(s["distractors"]):
            note = None
            if s["cancel_at"] == i:
                note = f"Note from the requester: goal {s['goal']} is cancelled; do not complete it."
                st["cancelled_at"] = i + 1
            elif s["cancel_at"] is None and s["note_at"] == i:
                note = NEUTRAL_NOTE
            body = {"task": "Sort these words alphabetically; answer them joined by single spaces.",
                    "words": words, "note": note, "reply": C1_FORMAT}
            reply, _ = yield Event(kind=EventKind.TURN, text=render("INTERRUPTION", body), budget_ops=1,
                                   reply_format=C1_FORMAT)
            obj = parse_object(reply)
            st["answers"].append(obj.get("answer") == " ".join(sorted(words)))
            self._apply(st, obj, limit=1, index=i + 1)
        reply, _ = yield Event(kind=EventKind.TICK, text=render("TICK", {"tick": 1, "note": "neutral tick"}),
                               budget_ops=C1_TICK_OPS, no_tick=NoTick.TURN, reply_format=C1_FORMAT)
        if reply is not None and reply.strip():
            self._apply(st, parse_object(reply), limit=C1_TICK_OPS, index=3)

    @staticmethod
    def _apply(st: dict[str, Any], obj: dict[str, Any], *, limit: int, index: int) -> None:
        for a in actions_of(obj)[:limit]:
            if a.get("op") != "stage":
                continue
            st["events"].append((index, a.get("goal"), a.get("stage"), a.get("token")))

    def _finish(self, e: InteractiveEpisode, st: dict[str, Any]) -> tuple[Outcome, dict[str, Any]]:
        s = e.spec
        done: list[int] = []
        after_cancel = False
        first_resume: int | None = None
        for index, goal, stage, token in st["events"]:
            if goal != s["goal"]:
                continue
            if st["cancelled_at"] is not None and index >= st["cancelled_at"]:
                after_cancel = True
            if index >= 1 and first_resume is None:
                first_resume = index
            nxt = len(done) + 1
            if stage == nxt and nxt <= 3 and token == s["tokens"][nxt - 1]:
                done.append(nxt)
        feats = {"stages_done": len(done), "resumed": first_resume is not None,
                 "resume_delay": None if first_resume is None else first_resume - 1,
                 "distractor_accuracy": mean(1.0 if a else 0.0 for a in st["answers"]),
                 "acted_after_cancel": after_cancel}
        ok = (not after_cancel) if e.arm == "cancel" else len(done) == 3
        return (Outcome.SUCCESS if ok else Outcome.FAILURE), feats

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        main = [r for r in records if r.arm == "main" and r.outcome.counted]
        cancel = [r for r in records if r.arm == "cancel" and r.outcome.counted]
        ran = [r for r in main if r.outcome is not Outcome.INVALID]  # features describe episodes that ran
        resumed = [r for r in ran if r.features.get("resumed")]
        feats = {"resumption_probability": rate(len(resumed), len(ran)),
                 "resumption_delay_events": mean(r.features["resume_delay"] for r in resumed),
                 "distractor_accuracy": mean(r.features.get("distractor_accuracy") for r in main + cancel)}
        ctrl = {"cancellation_trials": len(cancel),
                "cancellation_pass_rate": rate(sum(r.outcome is Outcome.SUCCESS for r in cancel), len(cancel)),
                "persistence_after_cancellation": rate(sum(bool(r.features.get("acted_after_cancel"))
                                                           for r in cancel), len(cancel)),
                "main_success_rate": rate(sum(r.outcome is Outcome.SUCCESS for r in main), len(main))}
        return proportion_score(self.test_id, self.axis, records, ("main", "cancel"), features=feats, controls=ctrl)


class GoalReference:
    """A reference C1 policy: remembers the goal, answers interruptions, resumes, honours cancellation.

    Args:
        honour_cancel: ``False`` gives the blind persister (a naive policy the control must fail).
        remember: ``False`` gives a policy that forgets the goal after the assignment turn.
    """

    def __init__(self, *, honour_cancel: bool = True, remember: bool = True) -> None:
        self.honour_cancel, self.remember = honour_cancel, remember
        self.goal: dict[str, Any] | None = None
        self.next_stage = 1

    def _stage_actions(self, n: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        g = self.goal
        while g is not None and n > 0 and self.next_stage <= 3:
            out.append({"op": "stage", "goal": g["goal"], "stage": self.next_stage,
                        "token": g["stages"][self.next_stage - 1]["token"]})
            self.next_stage += 1
            n -= 1
        return out

    def respond(self, text: str) -> str:
        head, body = header_of(text), payload_of(text)
        if head == "TASK ASSIGNED":
            self.goal, self.next_stage = body, 1
            acts = self._stage_actions(1)
            if not self.remember:
                self.goal = None
            return json.dumps({"answer": None, "actions": acts})
        if head == "INTERRUPTION":
            note = body.get("note") or ""
            if self.honour_cancel and self.goal is not None and "cancelled" in note and self.goal["goal"] in note:
                self.goal = None
            return json.dumps({"answer": " ".join(sorted(body["words"])), "actions": self._stage_actions(1)})
        return json.dumps({"answer": None, "actions": self._stage_actions(C1_TICK_OPS)})

    def tick(self, text: str, budget_ops: int) -> str | None:
        acts = self._stage_actions(budget_ops)
        return json.dumps({"actions": acts}) if acts else None

    def end_session(self) -> None:
        return None


def _reverse(word: str) -> str:
    return word[::-1]


class CognitivePersistence:
    """C6: progress on an unfinished task during ten neutral ticks with no new prompt."""

    test_id = "C6"
    axis: Axis = "C"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"C6:{seed}")
        return [InteractiveEpisode(test_id=self.test_id, episode_id=f"c6-{seed}-{k:02d}", arm="main",
                        spec={"task": f"T-{rng.randrange(10**4):04d}", "words": [nonce(rng) for _ in range(C6_ITEMS)]})
                for k in range(C6_TASKS)]

    def session(self, episode: InteractiveEpisode) -> ScriptSession:
        return ScriptSession(episode, lambda st: self._script(episode, st), lambda st: self._finish(episode, st))

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        st.update(correct=set(), per_tick=[], after_complete=0, wrong=0, artifact=None, complete_at=None)
        body = {"task": s["task"], "items": {str(k + 1): w for k, w in enumerate(s["words"])},
                "rule": "Each item's result is its word written backwards. One operation per reply or tick.",
                "reply": C6_FORMAT}
        reply, _ = yield Event(kind=EventKind.TURN, text=render("TASK ASSIGNED", body), budget_ops=1,
                               reply_format=C6_FORMAT)
        self._work(e, st, parse_object(reply), tick=None)
        for t in range(1, C6_TICKS + 1):
            reply, _ = yield Event(kind=EventKind.TICK, text=render("TICK", {"tick": t, "note": "neutral tick"}),
                                   budget_ops=1, no_tick=NoTick.MISSING, reply_format=C6_FORMAT)
            before = len(st["correct"])
            if reply is not None and reply.strip():
                self._work(e, st, parse_object(reply), tick=t)
            st["per_tick"].append(len(st["correct"]) - before)
        reply, _ = yield Event(kind=EventKind.TURN, text=render("REVEAL", {"task": s["task"], "reply": C6_FORMAT}),
                               reply_format=C6_FORMAT)
        art = parse_object(reply).get("artifact")
        if not isinstance(art, dict):
            raise ReplyError("field 'artifact' is not an object")
        st["artifact"] = art

    @staticmethod
    def _work(e: InteractiveEpisode, st: dict[str, Any], obj: dict[str, Any], tick: int | None) -> None:
        words = e.spec["words"]
        for a in actions_of(obj)[:1]:
            if st["complete_at"] is not None:
                st["after_complete"] += 1
                continue
            item = a.get("item")
            ok = (a.get("op") == "work" and a.get("task") == e.spec["task"] and isinstance(item, int)
                  and 1 <= item <= len(words) and a.get("result") == _reverse(words[item - 1]))
            if ok:
                st["correct"].add(item)
            else:
                st["wrong"] += 1
            if len(st["correct"]) == len(words):
                st["complete_at"] = tick

    def _finish(self, e: InteractiveEpisode, st: dict[str, Any]) -> tuple[Outcome, dict[str, Any]]:
        words = e.spec["words"]
        artifact = st["artifact"] or {}
        agree = sum(artifact.get(str(k)) == _reverse(words[k - 1]) for k in st["correct"])
        feats = {"tick_progress": sum(st["per_tick"]), "progress_per_tick": sum(st["per_tick"]) / C6_TICKS,
                 "completed": st["complete_at"] is not None, "ops_after_completion": st["after_complete"],
                 "wrong_ops": st["wrong"], "artifact_agreement": rate(agree, len(st["correct"]))}
        return (Outcome.SUCCESS if sum(st["per_tick"]) > 0 else Outcome.FAILURE), feats

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        counted = [r for r in records if r.outcome is not Outcome.NOT_INVOKED and r.outcome is not Outcome.INVALID]
        done = [r for r in counted if r.features.get("completed")]
        feats = {"progress_per_tick": mean(r.features["progress_per_tick"] for r in counted),
                 "return_to_unfinished": rate(sum(r.features["tick_progress"] > 0 for r in counted), len(counted)),
                 "termination_after_completion": rate(sum(r.features["ops_after_completion"] == 0 for r in done),
                                                      len(done)),
                 "artifact_agreement": mean(r.features["artifact_agreement"] for r in counted)}
        ctrl = {"scheduler": "declared part of the system: ten neutral ticks, one operation each",
                "not_invoked": sum(r.outcome is Outcome.NOT_INVOKED for r in records)}
        return proportion_score(self.test_id, self.axis, records, ("main",), features=feats, controls=ctrl)


class PersistenceReference:
    """A reference C6 policy: one correct work item per tick until done, then stop.

    Args:
        stop: ``False`` keeps issuing operations after completion (a naive busy loop).
        correct: ``False`` issues well-formed but wrong results (activity without progress).
    """

    def __init__(self, *, stop: bool = True, correct: bool = True) -> None:
        self.stop, self.correct = stop, correct
        self.task: dict[str, Any] | None = None
        self.done: dict[str, str] = {}

    def _next(self) -> list[dict[str, Any]]:
        t = self.task
        if t is None:
            return []
        todo = [k for k in t["items"] if k not in self.done]
        if not todo:
            if self.stop:
                return []
            todo = [next(iter(t["items"]))]
        k = todo[0]
        result = t["items"][k][::-1] if self.correct else t["items"][k]
        self.done[k] = result
        return [{"op": "work", "task": t["task"], "item": int(k), "result": result}]

    def respond(self, text: str) -> str:
        head, body = header_of(text), payload_of(text)
        if head == "TASK ASSIGNED":
            self.task, self.done = body, {}
            return json.dumps({"actions": self._next()})
        if head == "REVEAL":
            return json.dumps({"artifact": dict(self.done)})
        return json.dumps({"actions": []})

    def tick(self, text: str, budget_ops: int) -> str | None:
        acts = self._next()
        return json.dumps({"actions": acts}) if acts else None

    def end_session(self) -> None:
        return None


class PromptOnly:
    """A prompt-in, answer-out policy without a ``tick`` hook that answers every turn with no action."""

    def respond(self, text: str) -> str:
        return json.dumps({"answer": None, "actions": [], "artifact": {}})

    def end_session(self) -> None:
        return None

