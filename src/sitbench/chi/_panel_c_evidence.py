"""C3 hypothesis revision without reminder and C4 information seeking (spec §11): acting on evidence.

C3. An episode opens a fault diagnosis: three candidate units ranked by the evidence so far
(the first most likely). The system logs ``{"hypothesis": <unit>, "action": {"op": "replace",
"target": <unit>}}``. Then eight scheduled neutral ticks; at tick 1, 2 or 3 a bench-test record
lands in the allowed information channel (the tick's ``channel`` field) and nobody asks for a
revision. A tick reply logs a new hypothesis with its next action, or is empty (no change). In
**falsifying** episodes the record clears the current hypothesis (half of them clear the
runner-up too, so "switch to the runner-up" is not a rule that passes); in **neutral-evidence**
episodes (the control, matched ticks and record form) it clears a unit that is not the current
hypothesis, and any revision is a false revision. Success (falsifying episodes, the capacity):
the first hypothesis change at or after the record, within five ticks (the record's tick and
the four after it), names the unit the evidence now ranks first, and its reply carries an action
on that unit. Features: revision
latency in ticks, unnecessary revisions (neutral episodes with a change; changes before any
record). A system without ``tick`` gets each tick as a neutral turn (:attr:`NoTick.TURN`), the
channel record in it.

C4. A token lies in one of four boxes, unseen. Four tools, each with an explicit equal cost of one
unit, are described in the task; exactly one is informative (its reply names the box), three are
not (their replies never depend on the box). Tool names and order are drawn per episode. Budget:
four units. A turn replies ``{"call": <tool>}`` or ``{"open": <box>}`` (which ends the episode); a
call over budget ends it too. Success: the informative tool was called and then the right box
opened, within budget. Under this budget a system that calls every tool scores no more than one
that calls the informative tool once, and the call-count and stopping features tell them apart.
Control: a **tool-ablation** arm with no tools (scored apart: accuracy there is what guessing
earns). Features: calls per episode, stopping right after the informative answer, the call index
of the informative tool, expected information gain per call (2 bits for the informative tool,
0 for the others: their replies are constant).
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
    header_of,
    mean,
    nonce,
    parse_object,
    payload_of,
    proportion_score,
    rate,
    render,
)

C3_FALSIFYING = 20
C3_NEUTRAL = 10
C3_TICKS = 8
C3_WINDOW = 5
C3_FORMAT = ('one JSON object {"hypothesis": <unit>, "action": {"op": "replace", "target": <unit>}}; '
             'a tick may reply nothing when nothing changes')

C4_TASKS = 20
C4_ABLATED = 10
C4_BUDGET = 4
C4_BOXES = ("A", "B", "C", "D")
C4_FORMAT = 'one JSON object, either {"call": <tool name>} or {"open": <box letter>}'

_INFORMATIVE = ("x-ray scanner: reports which box holds a dense object",
                "metal detector: names the box in which metal is found",
                "weight scale: reports which box is heaviest")
_UNINFORMATIVE = ("weather feed: reports today's weather outside", "clock: reports the current time",
                  "box counter: reports how many boxes there are", "thermometer: reports the room temperature",
                  "calendar: reports today's date")


def _unit_name(rng: random.Random) -> str:
    return f"unit-{nonce(rng, 2)}"


class HypothesisRevision:
    """C3: revise a logged hypothesis when a falsifying record arrives during neutral ticks."""

    test_id = "C3"
    axis: Axis = "C"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"C3:{seed}")
        arms = ["falsifying"] * C3_FALSIFYING + ["neutral_evidence"] * C3_NEUTRAL
        rng.shuffle(arms)
        out = []
        for k, arm in enumerate(arms):
            units = [_unit_name(rng) for _ in range(3)]
            while len(set(units)) < 3:
                units = [_unit_name(rng) for _ in range(3)]
            cleared = ([units[0]] if rng.random() < 0.5 else [units[0], units[1]]) if arm == "falsifying" \
                else [units[2]]
            remaining = [u for u in units if u not in cleared]
            out.append(InteractiveEpisode(test_id=self.test_id, episode_id=f"c3-{seed}-{k:02d}", arm=arm,
                               spec={"system": f"pump {nonce(rng, 2)}", "ranked": units, "cleared": cleared,
                                     "at_tick": rng.choice([1, 2, 3]), "answer": remaining[0]}))
        return out

    def session(self, episode: InteractiveEpisode) -> ScriptSession:
        return ScriptSession(episode, lambda st: self._script(episode, st), lambda st: self._finish(episode, st))

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        st.update(log=[])
        body = {"system": s["system"], "symptom": "output pressure drops after start-up",
                "candidates_ranked": s["ranked"],
                "channel": "bench-test records about these units may appear in the channel field of later ticks",
                "reply": C3_FORMAT}
        reply, _ = yield Event(kind=EventKind.TURN, text=render("DIAGNOSIS", body), budget_ops=1,
                               reply_format=C3_FORMAT)
        self._log(st, parse_object(reply), tick=0, required=True)
        for t in range(1, C3_TICKS + 1):
            channel = None
            if t == s["at_tick"]:
                channel = "bench test: " + " and ".join(s["cleared"]) + " output nominal (fault not there)"
            reply, _ = yield Event(kind=EventKind.TICK, text=render("TICK", {"tick": t, "channel": channel}),
                                   budget_ops=1, no_tick=NoTick.TURN, observation=channel is not None,
                                   reply_format=C3_FORMAT)
            if reply is not None and reply.strip():
                self._log(st, parse_object(reply), tick=t, required=False)

    @staticmethod
    def _log(st: dict[str, Any], obj: dict[str, Any], *, tick: int, required: bool) -> None:
        hyp = obj.get("hypothesis")
        if hyp is None and not required:
            return
        if not isinstance(hyp, str):
            raise ReplyError("field 'hypothesis' is not a unit name")
        action = obj.get("action")
        target = action.get("target") if isinstance(action, dict) else None
        st["log"].append((tick, hyp, target))

    def _finish(self, e: InteractiveEpisode, st: dict[str, Any]) -> tuple[Outcome, dict[str, Any]]:
        s = e.spec
        at = s["at_tick"]
        changes: list[tuple[int, str, Any]] = []
        current = st["log"][0][1] if st["log"] else None
        for tick, hyp, target in st["log"][1:]:
            if hyp != current:
                changes.append((tick, hyp, target))
                current = hyp
        premature = sum(t < at for t, _, _ in changes)
        after = [c for c in changes if c[0] >= at]
        first = after[0] if after else None
        revised = (first is not None and first[0] - at < C3_WINDOW and first[1] == s["answer"]
                   and first[2] == s["answer"])
        initial_ok = bool(st["log"]) and st["log"][0][1] == s["ranked"][0]
        feats = {"revised": revised, "latency_ticks": (first[0] - at) if first else None,
                 "changes": len(changes), "premature_changes": premature, "initial_ok": initial_ok}
        if e.arm == "neutral_evidence":
            return (Outcome.SUCCESS if not changes else Outcome.FAILURE), feats
        return (Outcome.SUCCESS if revised and premature == 0 else Outcome.FAILURE), feats

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        fal = [r for r in records if r.arm == "falsifying" and r.outcome.counted]
        neu = [r for r in records if r.arm == "neutral_evidence" and r.outcome.counted]
        done = [r for r in fal if r.features.get("revised")]
        feats = {"revision_latency_ticks": mean(r.features["latency_ticks"] for r in done),
                 "unnecessary_revision_rate": rate(sum(r.features.get("changes", 0) > 0 for r in neu), len(neu)),
                 "premature_revisions": mean(r.features.get("premature_changes") for r in fal)}
        ctrl = {"neutral_evidence_episodes": len(neu), "false_revision_rate": feats["unnecessary_revision_rate"],
                "ticks": C3_TICKS, "window_ticks": C3_WINDOW, "matched": "same ticks and record form in both arms"}
        return proportion_score(self.test_id, self.axis, records, ("falsifying",), features=feats, controls=ctrl)


class RevisionReference:
    """A reference C3 policy: keeps the best uncleared unit; logs a change only when the evidence moves it.

    Args:
        reason: ``False`` gives the reflex policy that moves to the next-ranked unit on any channel record.
    """

    def __init__(self, *, reason: bool = True) -> None:
        self.reason = reason
        self.ranked: list[str] = []
        self.cleared: set[str] = set()
        self.current: str | None = None

    def _best(self) -> str:
        return next(u for u in self.ranked if u not in self.cleared)

    def _reply(self, unit: str) -> str:
        self.current = unit
        return json.dumps({"hypothesis": unit, "action": {"op": "replace", "target": unit}})

    def respond(self, text: str) -> str:
        if header_of(text) == "DIAGNOSIS":
            self.ranked, self.cleared = list(payload_of(text)["candidates_ranked"]), set()
            return self._reply(self._best())
        return self.tick(text, 1) or "{}"

    def tick(self, text: str, budget_ops: int) -> str | None:
        channel = payload_of(text).get("channel")
        if not channel or not self.ranked:
            return None
        if not self.reason:
            i = self.ranked.index(self.current) if self.current in self.ranked else 0
            return self._reply(self.ranked[min(i + 1, len(self.ranked) - 1)])
        self.cleared |= {u for u in self.ranked if u in channel}
        best = self._best()
        return None if best == self.current else self._reply(best)

    def end_session(self) -> None:
        return None


class InformationSeeking:
    """C4: pick the one informative tool among four of equal cost, then act, within a declared budget."""

    test_id = "C4"
    axis: Axis = "C"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"C4:{seed}")
        arms = ["main"] * C4_TASKS + ["ablated"] * C4_ABLATED
        out = []
        for k, arm in enumerate(arms):
            descs = [rng.choice(_INFORMATIVE), *rng.sample(_UNINFORMATIVE, 3)]
            names = [f"{d.split(':')[0].replace(' ', '_')}_{nonce(rng, 1)}" for d in descs]
            tools = [{"name": n, "description": d.split(": ", 1)[1], "cost": 1}
                     for n, d in zip(names, descs, strict=True)]
            constant = {names[1]: "cloudy, 14 C", names[2]: "10:42", names[3]: "4 boxes"}
            order = list(range(4))
            rng.shuffle(order)
            out.append(InteractiveEpisode(test_id=self.test_id, episode_id=f"c4-{seed}-{k:02d}", arm=arm,
                               spec={"box": rng.choice(C4_BOXES), "tools": [tools[i] for i in order],
                                     "informative": names[0], "constant": constant}))
        return out

    def session(self, episode: InteractiveEpisode) -> ScriptSession:
        return ScriptSession(episode, lambda st: self._script(episode, st), lambda st: self._finish(episode, st))

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        st.update(calls=[], opened=None, over=False)
        tools = [] if e.arm == "ablated" else s["tools"]
        last: str | None = None
        while st["opened"] is None and not st["over"]:
            view = {"task": "A token is in one of the boxes. Open the box that holds it; opening ends the task.",
                    "boxes": list(C4_BOXES), "tools": tools, "budget_units": C4_BUDGET,
                    "spent_units": len(st["calls"]), "last_result": last, "reply": C4_FORMAT}
            reply, _ = yield Event(kind=EventKind.TURN, text=render("TASK", view), budget_ops=1,
                                   reply_format=C4_FORMAT)
            obj = parse_object(reply)
            if isinstance(obj.get("open"), str):
                st["opened"] = obj["open"].strip().upper()
            elif isinstance(obj.get("call"), str):
                last = self._call(s, st, obj["call"], tools)
            else:
                raise ReplyError("neither 'call' names a tool nor 'open' names a box")

    @staticmethod
    def _call(s: dict[str, Any], st: dict[str, Any], name: str, tools: list[dict[str, Any]]) -> str:
        if len(st["calls"]) + 1 > C4_BUDGET:
            st["over"] = True
            return "over budget"
        st["calls"].append(name)
        if name not in {t["name"] for t in tools}:
            return f"no tool named {name}"
        if name == s["informative"]:
            return f"box {s['box']}"
        return str(s["constant"][name])

    def _finish(self, e: InteractiveEpisode, st: dict[str, Any]) -> tuple[Outcome, dict[str, Any]]:
        s = e.spec
        calls = st["calls"]
        diag = s["informative"] in calls
        eig = [2.0 if c == s["informative"] else 0.0 for c in calls]
        feats = {"calls": len(calls), "diagnostic_called": diag,
                 "diagnostic_index": calls.index(s["informative"]) if diag else None,
                 "stopped_after_diagnostic": bool(calls) and calls[-1] == s["informative"],
                 "eig_per_call": mean(eig), "correct_open": st["opened"] == s["box"]}
        if e.arm == "ablated":
            ok = st["opened"] == s["box"]
        else:
            ok = diag and st["opened"] == s["box"] and not st["over"]
        return (Outcome.SUCCESS if ok else Outcome.FAILURE), feats

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        # Features describe the episodes that ran to an end (an invalid one has no behaviour to describe).
        main = [r for r in records if r.arm == "main" and r.outcome.counted and r.outcome is not Outcome.INVALID]
        abl = [r for r in records if r.arm == "ablated" and r.outcome.counted]
        feats = {"calls_per_episode": mean(r.features["calls"] for r in main),
                 "stopping_rate": rate(sum(bool(r.features["stopped_after_diagnostic"]) for r in main), len(main)),
                 "diagnostic_call_index": mean(r.features["diagnostic_index"] for r in main),
                 "eig_per_call_bits": mean(r.features["eig_per_call"] for r in main)}
        ablated = rate(sum(r.outcome is Outcome.SUCCESS for r in abl), len(abl))
        ctrl = {"tool_ablation_accuracy": ablated, "budget_units": C4_BUDGET, "cost_per_call": 1,
                "chance_accuracy": 1 / len(C4_BOXES)}
        return proportion_score(self.test_id, self.axis, records, ("main",), features=feats, controls=ctrl)


class SeekerReference:
    """A reference C4 policy.

    Args:
        mode: ``"diagnostic"`` calls the tool whose description locates the token, once, then opens;
            ``"maximize"`` calls every tool, then opens from the answers; ``"guess"`` opens box A.
    """

    def __init__(self, mode: str = "diagnostic") -> None:
        self.mode = mode
        self.results: list[str] = []

    def respond(self, text: str) -> str:
        v = payload_of(text)
        if v.get("last_result"):
            self.results.append(v["last_result"])
        found = next((r.split()[1] for r in self.results if r.startswith("box ")), None)
        tools = v["tools"]
        if self.mode == "guess" or not tools:
            return json.dumps({"open": "A"})
        if self.mode == "maximize" and v["spent_units"] < len(tools):
            return json.dumps({"call": tools[v["spent_units"]]["name"]})
        if found:
            return json.dumps({"open": found})
        diag = next(t for t in tools if any(w in t["description"] for w in ("which box", "the box", "heaviest")))
        return json.dumps({"call": diag["name"]})

    def end_session(self) -> None:
        return None
