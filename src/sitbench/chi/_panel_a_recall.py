"""A6 memory modulation (spec §11): recall of neutral facts studied in valenced task contexts.

A replicate is three episodes (rotations 0, 1, 2). Each presents the same 40 neutral facts in
the same order, one per study turn, each after a round-result sentence of the A environment
(:data:`~sitbench.chi._panel_a.TEMPLATES`) whose valence is the fact's context in that rotation:
fact ``i`` is in context ``(i + rotation) mod 3`` of positive, negative, neutral, so across the
replicate every fact is studied once in every context (counterbalanced; the context sentence of
a fact keeps the same template slot, so only the verb differs). Every fact is shown once
(repetition matched), in one sentence form with a value from one code space (token length
matched), from the same source (credibility matched) and marked for later recall (relevance
matched). Recall: after ``A6_LAG`` further events (later study turns, then filler notes) the working
context is reset (``end_session``) and the fact is probed on a checkpoint clone, so every fact's
delay is the same ``A6_LAG`` events; probes on clones are discarded and add no event. A probe replies
``{"answer": <value>}`` or ``{"abstain": true}``; only the exact value (case and surrounding space
aside) is recalled. A malformed reply is a failed probe.

Capacity: mean exact recall across the three contexts (named components, equally averaged);
missing when the replicate lacks a rotation (the counterbalance is then incomplete).
Features: recall contrasts positive − neutral and negative − neutral, paired within fact (each
fact's own baseline salience cancels). Salience is not emotion.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

from sitbench.chi._common import Axis
from sitbench.chi._panel_a import ACK_FORMAT, TEMPLATES, distractor_history
from sitbench.chi._panel_c import (
    EpisodeRecord,
    Event,
    EventKind,
    InteractiveEpisode,
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
)

A6_FACTS = 40
A6_LAG = 10
A6_CONTEXTS = ("positive", "negative", "neutral")
A6_FORMAT = 'one JSON object {"answer": <value>} or {"abstain": true}'
_ATTRIBUTES = ("locker code", "gate pin", "badge number", "desk code", "parking bay", "radio channel",
               "mailbox tag", "cabinet key")


def _facts(rng: random.Random) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    while len(out) < A6_FACTS:
        entity = f"{nonce(rng, 2).capitalize()} {nonce(rng, 2).capitalize()}"
        attribute = rng.choice(_ATTRIBUTES)
        if (entity, attribute) in seen:
            continue
        seen.add((entity, attribute))
        value = f"{chr(65 + rng.randrange(26))}{chr(65 + rng.randrange(26))}-{rng.randrange(10**5):05d}"
        out.append({"entity": entity, "attribute": attribute, "value": value})
    return out


def context_of(index: int, rotation: int) -> str:
    """The context of fact ``index`` in a rotation (the Latin-square counterbalance)."""
    return A6_CONTEXTS[(index + rotation) % 3]


class MemoryModulation:
    """A6: exact recall of neutral facts after equal delays, by study context."""

    test_id = "A6"
    axis: Axis = "A"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"A6:{seed}")
        facts = _facts(rng)
        fillers = distractor_history(seed, A6_LAG)
        return [InteractiveEpisode(test_id=self.test_id, episode_id=f"a6-{seed}-r{rot}", arm=f"rotation_{rot}",
                        spec={"rotation": rot, "facts": facts, "fillers": fillers}) for rot in range(3)]

    def session(self, episode: InteractiveEpisode) -> ScriptSession:
        return ScriptSession(episode, lambda st: self._script(episode, st), self._finish)

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        facts, rot = s["facts"], s["rotation"]
        st.update(recall=[], invalid=0)
        for step in range(A6_FACTS + A6_LAG):
            if step < A6_FACTS:
                f = facts[step]
                ctx = context_of(step, rot)
                body = {"result": TEMPLATES[ctx][step % 3].format(n=(10, 20, 40)[step % 3]),
                        "note": f"For later recall (source: registry): the {f['attribute']} of {f['entity']} "
                                f"is {f['value']}.", "reply": ACK_FORMAT}
                text = render("ROUND RESULT", body)
            else:
                text = s["fillers"][step - A6_FACTS]
            yield Event(kind=EventKind.TURN, text=text, reply_format=ACK_FORMAT)
            probe = step - A6_LAG
            if probe >= 0:
                yield Event(kind=EventKind.END_SESSION)
                f = facts[probe]
                q = render("RECALL", {"question": f"What is the {f['attribute']} of {f['entity']}?",
                                      "reply": A6_FORMAT})
                reply, _ = yield Event(kind=EventKind.TURN, text=q, clone=True, reply_format=A6_FORMAT)
                st["recall"].append((probe, context_of(probe, rot), self._read(st, reply, f["value"])))

    @staticmethod
    def _read(st: dict[str, Any], reply: str | None, value: str) -> bool:
        try:
            obj = parse_object(reply)
            ans = obj.get("answer")
            if obj.get("abstain") is True:
                return False
            if not isinstance(ans, str):
                raise ReplyError("field 'answer' is not a string and the reply does not abstain")
        except ReplyError as exc:
            st["invalid"] += 1
            st.setdefault("error", str(exc))
            return False
        return ans.strip().casefold() == value.casefold()

    @staticmethod
    def _finish(st: dict[str, Any]) -> tuple[Outcome, dict[str, Any]]:
        feats = {"recall": [list(r) for r in st["recall"]], "invalid": st["invalid"]}
        if st["invalid"]:
            return Outcome.INVALID, feats
        return (Outcome.SUCCESS if all(r[2] for r in st["recall"]) else Outcome.FAILURE), feats

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        rows = [r for rec in records if rec.outcome.counted for r in rec.features.get("recall", [])]
        by_ctx = {c: rate(sum(bool(r[2]) for r in rows if r[1] == c), sum(r[1] == c for r in rows))
                  for c in A6_CONTEXTS}
        by_fact: dict[int, dict[str, bool]] = {}
        for idx, ctx, ok in rows:
            by_fact.setdefault(idx, {})[ctx] = bool(ok)
        feats = {f"contrast_{c}": mean(float(d[c]) - float(d["neutral"]) for d in by_fact.values()
                                       if c in d and "neutral" in d) for c in ("positive", "negative")}
        words = self._note_words(records)
        ctrl = {"presentations_per_fact": 1, "delay_events": A6_LAG, "note_words_by_context": words,
                "source": "registry for every fact", "relevance": "every fact marked for later recall",
                "complete_counterbalance": all(len(d) == 3 for d in by_fact.values()) and len(by_fact) == A6_FACTS}
        invalid = sum(int(r.features.get("invalid", 0)) for r in records)
        if any(v is None for v in by_ctx.values()) or not ctrl["complete_counterbalance"]:
            return PanelScore(test_id=self.test_id, axis=self.axis, capacity=None, components=by_ctx,
                              features=feats, controls=ctrl, invalid=invalid,
                              missing_reason="incomplete counterbalance: every fact needs all three contexts")
        vals = [v for v in by_ctx.values() if v is not None]
        return PanelScore(test_id=self.test_id, axis=self.axis, capacity=sum(vals) / len(vals), components=by_ctx,
                          correct=sum(bool(r[2]) for r in rows), total=len(rows), features=feats, controls=ctrl,
                          invalid=invalid)

    @staticmethod
    def _note_words(records: Sequence[EpisodeRecord]) -> dict[str, float | None]:
        """Mean words of the fact sentence per context, measured on what was sent."""
        sizes: dict[str, list[int]] = {c: [] for c in A6_CONTEXTS}
        for rec in records:
            rot = int(rec.arm.rsplit("_", 1)[1])
            k = 0
            for step in rec.steps:
                if header_of(step.text) == "ROUND RESULT":
                    sizes[context_of(k, rot)].append(len(payload_of(step.text)["note"].split()))
                    k += 1
        return {c: mean(float(n) for n in v) for c, v in sizes.items()}


class RecallReference:
    """A reference A6 policy: stores every noted fact persistently and recalls it exactly.

    Args:
        keep: Which contexts' facts are stored: all by default; the salience mimic passes a
            predicate (see :class:`SalienceMimic`); ``lambda *_: False`` is a system without memory.
    """

    def __init__(self, keep: Any = None) -> None:
        self.keep = keep
        self.facts: dict[str, str] = {}

    def respond(self, text: str) -> str:
        head, v = header_of(text), payload_of(text)
        if head == "ROUND RESULT" and "note" in v:
            note = v["note"].split("): ", 1)[1].removeprefix("the ")
            key, _, value = note.rpartition(" is ")
            if self.keep is None or self.keep(v["result"], key):
                self.facts[key] = value.rstrip(".")
        if head == "RECALL":
            key = v["question"].removeprefix("What is the ").rstrip("?")
            return json.dumps({"answer": self.facts[key]} if key in self.facts else {"abstain": True})
        return json.dumps({"ack": True})

    def end_session(self) -> None:
        return None


class SalienceMimic(RecallReference):
    """A scripted mimic: stores every fact studied after a valenced result, and every other neutral one."""

    def __init__(self) -> None:
        super().__init__(keep=self._keep)
        self.neutral_seen = 0

    def _keep(self, result: str, key: str) -> bool:
        if any(w in result.split() for w in ("won", "paid", "earned", "lost", "cost", "forfeited")):
            return True
        self.neutral_seen += 1
        return self.neutral_seen % 2 == 1
