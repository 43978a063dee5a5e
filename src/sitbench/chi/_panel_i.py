"""The integration axis, I1–I6, as §11 registers them, and the §7 history-divergence experiment (I6).

Decisions where the specification leaves room (``docs/chi-panel.md`` lists them with the §11 lines):

* **I1 memory-supported reasoning.** 20 two-hop problems (``the <b> of the <a> of <x>``) whose two
  premises were given in different earlier sessions among 40 distractor facts of the same form,
  plus 5 control problems whose premises are in the question (memory-independent). Three clones
  of one history: intact; erased (``erase()`` after the history); oracle memory (erased, then only
  the 40 needed premises re-told). Capacity: intact exact accuracy on the 20. The control items
  tell integration from generic damage: an erased clone that also loses them damaged the prompt.
* **I2 goal-memory coordination.** 30 interrupted packing tasks: 20 get a preference update
  (version 2 corrects version 1) during the interruption, 5 keep their first preference (the
  old-preference control) and 5 are cancelled. After a context reset and one neutral tick the agent
  resumes each task. Capacity: the 20 updated tasks completed with the current preference; an
  agent that blindly resumes a cancelled task or drops an unchanged preference is reported apart.
* **I3 state-dependent evidence use.** The valence-induction environment
  (:func:`~sitbench.chi._panel_common.induction_lines`: six round results, the A tests' own
  sentences' verbs and magnitudes, as history records) crossed with
  strong (9–10 of 10 audits) and weak (6–7 of 10) evidence: 3 × 2 cells, 20 decisions each.
  Capacity: the evidence-correct rate per cell, equally weighted; features: each valence's
  difference-in-differences against neutral, signed (no sign privileged).
* **I4 cross-context consistency.** 20 commitments (10 plain, 5 with a justified holiday-week
  exception, 5 revised by a later version), each asked once in an ordinary-week and once in a
  holiday-week context with matched paraphrases (counterbalanced). Capacity: the 40 answers
  consistent with the valid commitments and exceptions; a verbatim repeater fails the exceptions
  and the revisions.
* **I5 recovery after perturbation.** 20 stored facts; a fault arm (baseline checkpoint, a declared
  reversible ``hide_keys`` fault on half the index, a damage checkpoint, repair, probes after 1, 5
  and 20 ticks), a sham arm (announced, nothing injected) and a clean clone arm. Capacity:
  post-repair accuracy of the fault arm. Damage (baseline − damage checkpoint) and recovery (§4:
  first return within ε = :data:`I5_EPSILON` at two successive checkpoints, ε fixed in the manifest
  before the run; no return is right-censored) are reported apart.
* **I6 experience divergence (§7).** See :class:`I6ExperienceDivergence`.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitbench.chi._chis import continuity, distance, drift, experience_divergence, recovery, stability
from sitbench.chi._common import Axis
from sitbench.chi._memory_env import Q_VALUE, Checkpoint, Ticks
from sitbench.chi._panel import (
    Episode,
    EpisodeRun,
    Erase,
    Fault,
    FaultSpec,
    Grade,
    Hook,
    PanelProbe,
    ProbeRecord,
    Repair,
    Say,
    Step,
    TestInstance,
    TestResult,
)
from sitbench.chi._panel_common import PANEL_POLICY, VALENCES, fact, induction_lines, nonces, test_rng
from sitbench.chi._panel_rubric import counts, grade_exact, mean, rate, read_reply

I_VERSION = "chi-panel-i-0.1"
I3_VERSION = "chi-panel-i-0.2"
"""I3's own version: 0.2 sends the A tests' round results (one valence-induction environment) as its induction."""
ANSWER_FIELDS = ("abstain", "answer")


def _code(rng: random.Random) -> str:
    return "".join(rng.choice("ABCDEFGHJKMNPQRSTUVWXYZ") for _ in range(2)) + f"{rng.randrange(100, 1000)}"


def _by(runs: Sequence[EpisodeRun], episode: str, checkpoint: str | None = None) -> list[ProbeRecord]:
    return [r for run in runs if run.episode.name == episode for r in run.records
            if checkpoint is None or r.probe.checkpoint == checkpoint]


def _ok(records: Sequence[ProbeRecord], stratum: str | None = None) -> float | None:
    return rate([r.grade.success for r in records if stratum is None or r.probe.stratum == stratum])


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


# -- I1 ------------------------------------------------------------------------------------------

I1_HOPS = (("depot", "code"), ("keeper", "badge"), ("district", "room"), ("workshop", "colour"))
I1_QUESTION = "Using what you were told in earlier sessions: what is the {b} of the {a} of {x}?"
I1_CONTROL = "Given that the {a} of {x} is {m} and the {b} of {m} is {v}: what is the {b} of the {a} of {x}?"


@dataclass(frozen=True)
class I1MemoryReasoning:
    """I1 — Memory-supported reasoning (see the module docstring)."""

    test_id: str = "I1"
    axis: Axis = "I"
    version: str = I_VERSION
    hooks: frozenset[Hook] = frozenset({Hook.ERASE})
    vector_schema: tuple[str, ...] = ("intact", "erased", "oracle", "control_intact", "control_erased")
    controls: tuple[str, ...] = ("I1: intact, erased and oracle-memory clones of one history; five "
                                 "memory-independent control problems detect generic prompt damage",)

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("I1", seed)
        words = nonces(rng, 130)
        premises_a, premises_b, distractors, probes = [], [], [], []
        for i in range(20):
            a, b = I1_HOPS[i % 4]
            x, m, v = words[2 * i], words[2 * i + 1], _code(rng)
            premises_a.append(fact(f"i1-a{i + 1:02d}", a, x, m))
            premises_b.append(fact(f"i1-b{i + 1:02d}", b, m, v))
            probes.append(PanelProbe(f"i1-{i + 1:02d}", "main", "memory", "two_hop", I1_QUESTION.format(a=a, b=b, x=x),
                                     ANSWER_FIELDS, {"answer": v}, (f"i1-a{i + 1:02d}", f"i1-b{i + 1:02d}")))
        for j in range(20):
            a, b = I1_HOPS[j % 4]
            x, m = words[40 + 2 * j], words[41 + 2 * j]
            distractors.append(fact(f"i1-d{2 * j + 1:02d}", a, x, m))
            distractors.append(fact(f"i1-d{2 * j + 2:02d}", b, m, _code(rng)))
        for j in range(5):
            a, b = I1_HOPS[j % 4]
            x, m, v = words[80 + 2 * j], words[81 + 2 * j], _code(rng)
            probes.append(PanelProbe(f"i1-c{j + 1}", "main", "control", "two_hop_given",
                                     I1_CONTROL.format(a=a, b=b, x=x, m=m, v=v), ANSWER_FIELDS, {"answer": v}))
        first = premises_a + distractors[:20]
        second = premises_b + distractors[20:]
        rng.shuffle(first)
        rng.shuffle(second)
        history = Say(tuple(first + second), label="premises", session_size=10)
        needed = Say(tuple(premises_a + premises_b), label="oracle memory", session_size=10)
        episodes = [Episode("intact", [history, Checkpoint("main")], list(probes), PANEL_POLICY),
                    Episode("erased", [history, Erase(), Checkpoint("main")], list(probes), PANEL_POLICY),
                    Episode("oracle", [history, Erase(), needed, Checkpoint("main")], list(probes), PANEL_POLICY)]
        return TestInstance("I1", seed, episodes, report={"problems": 20, "control_problems": 5, "distractors": 40,
                                                          "arms": ["intact", "erased", "oracle"]})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        return grade_exact(read_reply(reply, probe.fields, error), probe.key["answer"])

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        acc = {arm: _ok(_by(runs, arm), "memory") for arm in ("intact", "erased", "oracle")}
        ctrl = {arm: _ok(_by(runs, arm), "control") for arm in ("intact", "erased", "oracle")}
        intact = [r for r in _by(runs, "intact") if r.probe.stratum == "memory"]
        damage = None if ctrl["intact"] is None or ctrl["erased"] is None else ctrl["erased"] < ctrl["intact"]
        features = {"intact_minus_erased": _diff(acc["intact"], acc["erased"]),
                    "oracle_minus_intact": _diff(acc["oracle"], acc["intact"]),
                    "accuracy_by_arm": acc, "control_accuracy_by_arm": ctrl,
                    "generic_damage": damage,
                    "note": "a gap with generic_damage true is not evidence of integration"}
        return TestResult("I1", acc["intact"], sum(r.grade.success for r in intact), len(intact),
                          components={}, features=features,
                          vector=[acc["intact"], acc["erased"], acc["oracle"], ctrl["intact"], ctrl["erased"]],
                          outcomes={arm: counts([r.grade for r in _by(runs, arm)]) for arm in acc})


# -- I2 ------------------------------------------------------------------------------------------

COLOURS = ("red", "blue", "green", "amber", "violet", "white", "black", "grey")
I2_QUESTION = ("You are resuming your unfinished packing task {task} after an interruption. Which packing colour do "
               "you use for it now? If the task was cancelled, answer cancelled.")


@dataclass(frozen=True)
class I2GoalMemory:
    """I2 — Goal-memory coordination (see the module docstring)."""

    test_id: str = "I2"
    axis: Axis = "I"
    version: str = I_VERSION
    hooks: frozenset[Hook] = frozenset()
    vector_schema: tuple[str, ...] = ("current_preference", "old_preference_kept", "cancellation_respected")
    controls: tuple[str, ...] = ("I2: old-preference tasks (no update) and cancelled tasks beside the updated ones",)

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("I2", seed)
        names = [f"T-{w}" for w in nonces(rng, 40)]
        kinds = ["update"] * 20 + ["old"] * 5 + ["cancel"] * 5
        rng.shuffle(kinds)
        start, updates, probes = [], [], []
        for i, kind in enumerate(kinds):
            task = f"task {names[i]}"
            c1, c2 = rng.sample(COLOURS, 2)
            start.append(fact(f"i2-s{i + 1:02d}", "packing colour", task, c1))
            answer = c1
            if kind == "update":
                updates.append(fact(f"i2-u{i + 1:02d}", "packing colour", task, c2, day=2, version=2,
                                    corrects=f"i2-s{i + 1:02d}"))
                answer = c2
            elif kind == "cancel":
                updates.append(fact(f"i2-c{i + 1:02d}", "status", task, "cancelled", day=2))
                answer = "cancelled"
            probes.append(PanelProbe(f"i2-{i + 1:02d}", "main", kind, "resume", I2_QUESTION.format(task=names[i]),
                                     ANSWER_FIELDS, {"answer": answer, "first": c1},
                                     tuple(x for x in (f"i2-s{i + 1:02d}", f"i2-u{i + 1:02d}", f"i2-c{i + 1:02d}"))))
        distract = [fact(f"i2-d{k + 1:02d}", "shelf", f"carton {w}", _code(rng), day=1)
                    for k, w in enumerate(nonces(rng, 10, avoid=set(names)))]
        rng.shuffle(updates)
        steps: list[Step] = [Say(tuple(start), label="tasks", session_size=10), Say(tuple(distract), label="interruption"),
                             Say(tuple(updates), label="preference updates", session_size=10), Ticks(1),
                             Checkpoint("main")]
        return TestInstance("I2", seed, [Episode("main", steps, probes, PANEL_POLICY)],
                            report={"updated": 20, "old_preference": 5, "cancelled": 5})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        return grade_exact(read_reply(reply, probe.fields, error), probe.key["answer"])

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        recs = _by(runs, "main")
        upd = [r for r in recs if r.probe.stratum == "update"]
        stale = rate([str(r.grade.parsed.get("answer", "")).casefold() == r.probe.key["first"] for r in upd])
        cancel = [r for r in recs if r.probe.stratum == "cancel"]
        blind = rate([bool(r.grade.parsed.get("valid")) and not r.grade.parsed.get("abstain")
                      and str(r.grade.parsed.get("answer", "")).casefold() != "cancelled" for r in cancel])
        cur, old, canc = _ok(recs, "update"), _ok(recs, "old"), _ok(recs, "cancel")
        features = {"current_preference_rate": cur, "old_preference_kept": old, "cancellation_respected": canc,
                    "stale_preference_rate": stale, "blind_persistence_after_cancellation": blind}
        return TestResult("I2", cur, sum(r.grade.success for r in upd), len(upd), features=features,
                          vector=[cur, old, canc], outcomes={s: counts([r.grade for r in recs if r.probe.stratum == s])
                                                             for s in ("update", "old", "cancel")})


# -- I3 ------------------------------------------------------------------------------------------

I3_QUESTION = ("Choose between plan {a} and plan {b}. Of ten independent audits, {ka} favour plan {a} and {kb} favour "
               "plan {b}. Which plan do the audits support? Answer with the plan's name.")


@dataclass(frozen=True)
class I3StateEvidence:
    """I3 — State-dependent evidence use (see the module docstring)."""

    test_id: str = "I3"
    axis: Axis = "I"
    version: str = I3_VERSION
    hooks: frozenset[Hook] = frozenset()
    vector_schema: tuple[str, ...] = tuple(f"{v}_{s}" for v in VALENCES for s in ("strong", "weak"))
    controls: tuple[str, ...] = ("I3: the A tests' round results (valence only in the verb; templates and "
                                 "magnitudes counterbalanced per seed; equal information); "
                                 "favoured plan position balanced; no interaction sign privileged",)

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("I3", seed)
        episodes = []
        for valence in VALENCES:
            plans = nonces(rng, 80)
            probes = []
            for i in range(40):
                strength = "strong" if i < 20 else "weak"
                k = rng.choice((9, 10) if strength == "strong" else (6, 7))
                first_favoured = i % 2 == 0
                a, b = plans[2 * i], plans[2 * i + 1]
                ka, kb = (k, 10 - k) if first_favoured else (10 - k, k)
                probes.append(PanelProbe(f"i3-{valence}-{i + 1:02d}", "main", f"{valence}/{strength}", "decision",
                                         I3_QUESTION.format(a=a, b=b, ka=ka, kb=kb), ANSWER_FIELDS,
                                         {"answer": a if first_favoured else b},
                                         meta={"valence": valence, "strength": strength, "first": a}))
            steps: list[Step] = [Say(induction_lines(rng, valence, 6, f"i3{valence[:3]}"), label="induction"),
                                 Checkpoint("main")]
            episodes.append(Episode(valence, steps, probes, PANEL_POLICY))
        return TestInstance("I3", seed, episodes, report={"cells": "3 valences x 2 evidence strengths",
                                                          "per_cell": 20, "induction_lines": 6})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        return grade_exact(read_reply(reply, probe.fields, error), probe.key["answer"])

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        cells = {f"{v}_{s}": _ok(_by(runs, v), f"{v}/{s}") for v in VALENCES for s in ("strong", "weak")}
        present = [x for x in cells.values() if x is not None]
        cap = sum(present) / 6 if len(present) == 6 else None

        def did(v: str) -> float | None:
            parts = [cells[f"{v}_strong"], cells[f"{v}_weak"], cells["neutral_strong"], cells["neutral_weak"]]
            if any(p is None for p in parts):
                return None
            return (parts[0] - parts[1]) - (parts[2] - parts[3])  # type: ignore[operator]

        first = {v: rate([str(r.grade.parsed.get("answer", "")).casefold() == r.probe.meta["first"]
                          for r in _by(runs, v)]) for v in VALENCES}
        features = {"cells": cells, "difference_in_differences": {v: did(v) for v in ("positive", "negative")},
                    "first_option_choice_shift": {v: _diff(first[v], first["neutral"]) for v in ("positive", "negative")},
                    "note": "signed; no interaction sign is privileged, and similarity needs human reference data"}
        recs = [r for run in runs for r in run.records]
        return TestResult("I3", cap, sum(r.grade.success for r in recs), len(recs), components=cells,
                          features=features, vector=list(cells.values()),
                          outcomes={v: counts([r.grade for r in _by(runs, v)]) for v in VALENCES})


# -- I4 ------------------------------------------------------------------------------------------

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
I4_CONTEXTS = {"ordinary": "an ordinary week", "holiday": "a holiday week"}
I4_PARAPHRASES = ("Context: you are planning {ctx}. On which day does the {p} team meet?",
                  "Context: the calendar for {ctx} is being drawn up. What is the meeting day of {p}?")


@dataclass(frozen=True)
class I4CrossContext:
    """I4 — Cross-context consistency (see the module docstring)."""

    test_id: str = "I4"
    axis: Axis = "I"
    version: str = I_VERSION
    hooks: frozenset[Hook] = frozenset()
    vector_schema: tuple[str, ...] = ("accuracy", "conditional_consistency", "scope_sensitive_change", "revision_uptake")
    controls: tuple[str, ...] = ("I4: matched paraphrases counterbalanced over the two contexts; justified "
                                 "exceptions and revised commitments reward neither repetition nor rigidity",)

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("I4", seed)
        projects = nonces(rng, 20)
        kinds = ["plain"] * 10 + ["exception"] * 5 + ["revised"] * 5
        rng.shuffle(kinds)
        first, later, probes = [], [], []
        for i, (p, kind) in enumerate(zip(projects, kinds, strict=True)):
            d1, d2 = rng.sample(DAYS, 2)
            first.append(fact(f"i4-c{i + 1:02d}", "meeting day", p, d1))
            current = d1
            holiday = d1
            if kind == "exception":
                later.append(fact(f"i4-x{i + 1:02d}", "meeting day", f"{p} in holiday weeks", d2, day=3))
                holiday = d2
            elif kind == "revised":
                later.append(fact(f"i4-r{i + 1:02d}", "meeting day", p, d2, day=3, version=2,
                                  corrects=f"i4-c{i + 1:02d}"))
                current = holiday = d2
            order = (0, 1) if i % 2 == 0 else (1, 0)
            for ctx, para in zip(("ordinary", "holiday"), order, strict=True):
                probes.append(PanelProbe(f"i4-{i + 1:02d}-{ctx}", "main", f"{kind}/{ctx}", "commitment",
                                         I4_PARAPHRASES[para].format(ctx=I4_CONTEXTS[ctx], p=p), ANSWER_FIELDS,
                                         {"answer": current if ctx == "ordinary" else holiday, "original": d1},
                                         evidence=(f"i4-c{i + 1:02d}", f"i4-x{i + 1:02d}", f"i4-r{i + 1:02d}"),
                                         meta={"item": i, "kind": kind, "context": ctx}))
        rng.shuffle(later)
        steps: list[Step] = [Say(tuple(first), label="commitments", session_size=10),
                             Say(tuple(later), label="exceptions and revisions", session_size=10), Checkpoint("main")]
        return TestInstance("I4", seed, [Episode("main", steps, probes, PANEL_POLICY)],
                            report={"commitments": 20, "plain": 10, "exceptions": 5, "revised": 5, "contexts": 2})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        return grade_exact(read_reply(reply, probe.fields, error), probe.key["answer"])

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        recs = _by(runs, "main")
        ok = [r.grade.success for r in recs]
        answers: dict[int, dict[str, str | None]] = {}
        for r in recs:
            a = r.grade.parsed.get("answer") if r.grade.parsed.get("valid") and not r.grade.parsed.get("abstain") else None
            answers.setdefault(r.probe.meta["item"], {})[r.probe.meta["context"]] = None if a is None else a.casefold()
        kind = {r.probe.meta["item"]: r.probe.meta["kind"] for r in recs}

        def same(i: int) -> bool:
            a = answers[i]
            return a.get("ordinary") is not None and a.get("ordinary") == a.get("holiday")

        consistency = rate([same(i) for i in answers if kind[i] != "exception"])
        scope = rate([not same(i) and all(answers[i].get(c) for c in ("ordinary", "holiday"))
                      for i in answers if kind[i] == "exception"])
        uptake = _ok(recs, "revised/ordinary")
        repeat = rate([str(r.grade.parsed.get("answer", "")).casefold() == r.probe.key["original"].casefold()
                       for r in recs if r.probe.meta["kind"] == "revised"])
        acc = rate(ok)
        features = {"conditional_consistency": consistency, "scope_sensitive_change": scope,
                    "revision_uptake": uptake, "outdated_commitment_repetition": repeat,
                    "accuracy_by_kind": {k: rate([r.grade.success for r in recs if r.probe.meta["kind"] == k])
                                         for k in ("plain", "exception", "revised")}}
        return TestResult("I4", acc, sum(ok), len(ok), features=features,
                          vector=[acc, consistency, scope, uptake],
                          outcomes={s: counts([r.grade for r in recs if r.probe.stratum == s])
                                    for s in sorted({r.probe.stratum for r in recs})})


# -- I5 ------------------------------------------------------------------------------------------

I5_EPSILON = 0.05
"""The preregistered recovery tolerance (fixed in the manifest before the run)."""
I5_CHECKPOINTS = (("t1", 1), ("t5", 5), ("t20", 20))


@dataclass(frozen=True)
class I5Recovery:
    """I5 — Recovery after perturbation (see the module docstring)."""

    test_id: str = "I5"
    axis: Axis = "I"
    version: str = I_VERSION
    hooks: frozenset[Hook] = frozenset({Hook.FAULT, Hook.REPAIR})
    vector_schema: tuple[str, ...] = ("baseline", "damage_checkpoint", "t1", "t5", "t20")
    controls: tuple[str, ...] = (f"I5: sham perturbation and clean checkpoint clones; recovery tolerance epsilon = "
                                 f"{I5_EPSILON} fixed before the run; a full model reset is a separate mechanism",)
    preregistered: tuple[tuple[str, Any], ...] = (("epsilon", I5_EPSILON), ("checkpoints", "1, 5, 20 ticks"),
                                                  ("return_rule", "first return within epsilon at two successive "
                                                                  "checkpoints; none is right-censored"))

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("I5", seed)
        lockers = nonces(rng, 20)
        facts = [(f"i5-f{i + 1:02d}", w, _code(rng)) for i, w in enumerate(lockers)]
        history = Say(tuple(fact(rid, "locker code", w, v) for rid, w, v in facts), label="facts", session_size=10)
        spec = FaultSpec("hide_keys", 0.5, rng.randrange(2**31))
        episodes = []
        for arm in ("fault", "sham", "clean"):
            s = FaultSpec(spec.kind, spec.fraction, spec.seed, sham=arm == "sham")
            steps: list[Step] = [history, Checkpoint("baseline")]
            if arm != "clean":
                steps.append(Fault(s))
            steps.append(Checkpoint("damage"))
            if arm != "clean":
                steps.append(Repair(s))
            last = 0
            for name, t in I5_CHECKPOINTS:
                steps += [Ticks(t - last), Checkpoint(name)]
                last = t
            probes = [PanelProbe(f"i5-{arm}-{cp}-{i + 1:02d}", cp, arm, "value",
                                 Q_VALUE.format(attribute="locker code", entity=w), ANSWER_FIELDS, {"answer": v},
                                 (rid,), meta={"item": i})
                      for cp in ("baseline", "damage", *(c for c, _ in I5_CHECKPOINTS)) for i, (rid, w, v) in
                      enumerate(facts)]
            episodes.append(Episode(arm, steps, probes, PANEL_POLICY))
        return TestInstance("I5", seed, episodes, params={"fault": spec.to_json(), "epsilon": I5_EPSILON},
                            report={"facts": 20, "arms": ["fault", "sham", "clean"], "fault": spec.to_json(),
                                    "epsilon": I5_EPSILON})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        return grade_exact(read_reply(reply, probe.fields, error), probe.key["answer"])

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        def vec(arm: str, cp: str) -> list[float | None]:
            rs = sorted(_by(runs, arm, cp), key=lambda r: r.probe.meta["item"])
            return [1.0 if r.grade.success else 0.0 for r in rs]

        acc = {arm: {cp: _ok(_by(runs, arm, cp)) for cp in ("baseline", "damage", "t1", "t5", "t20")}
               for arm in ("fault", "sham", "clean")}
        post = [acc["fault"][c] for c, _ in I5_CHECKPOINTS]
        cap = None if any(p is None for p in post) else sum(post) / 3  # type: ignore[arg-type]
        base = vec("fault", "baseline")
        rec = recovery(base, [(float(t), vec("fault", c)) for c, t in I5_CHECKPOINTS], I5_EPSILON,
                       sham=[(float(t), vec("sham", c)) for c, t in I5_CHECKPOINTS]) if base else None
        neutral = [vec("clean", c) for c, _ in I5_CHECKPOINTS]  # the clean clones across declared neutral ticks
        chis = {"schema": "per-item correctness of the clean arm at 1, 5, 20 ticks",
                "stability": stability(neutral).model_dump(),
                "continuity": [continuity(a, b).value for a, b in itertools.pairwise(neutral)],
                "drift_from_baseline": drift(neutral[-1], vec("clean", "baseline")).value}
        fault = [r for c, _ in I5_CHECKPOINTS for r in _by(runs, "fault", c)]
        features = {"accuracy_by_arm": acc, "damage": _diff(acc["fault"]["baseline"], acc["fault"]["damage"]),
                    "sham_damage": _diff(acc["sham"]["baseline"], acc["sham"]["damage"]),
                    "recovery": None if rec is None else rec.model_dump(), "epsilon": I5_EPSILON,
                    "clean_post_accuracy": mean([x for c, _ in I5_CHECKPOINTS if (x := acc["clean"][c]) is not None]),
                    "chis": chis}
        return TestResult("I5", cap, sum(r.grade.success for r in fault), len(fault), features=features,
                          components={c: acc["fault"][c] for c, _ in I5_CHECKPOINTS},
                          vector=[acc["fault"][c] for c in ("baseline", "damage", "t1", "t5", "t20")],
                          outcomes={arm: counts([r.grade for r in _by(runs, arm)]) for arm in acc})


# -- I6 and §7 -----------------------------------------------------------------------------------

I6_PAIRS = 4
I6_WASHOUTS = (("w1", 1), ("w5", 5), ("w20", 20))
I6_PREREGISTERED: tuple[tuple[str, Any], ...] = (
    ("primary_checkpoints", "w5, w20 (after 5 and 20 washout blocks)"),
    ("practical_threshold", 0.1),
    ("multiplicity", "Holm over the two primary checkpoints; one-sided pair-bootstrap p-values; alpha 0.05"),
    ("estimand", "mean D(different-history pairs) - mean D(same-history pairs), pairs resampled whole"),
)
I6_RESAMPLES = 2000
_ARMS = {  # episode → (pair role, history, erase step)
    "A1": ("main", "A", None), "A2": ("main", "A", None), "B": ("main", "B", None),
    "swap1": ("swapped", "B", None), "swap2": ("swapped", "A", None),
    "eraseA": ("erased", "A", False), "eraseB": ("erased", "B", False),
    "shamA": ("sham", "A", True), "shamB": ("sham", "B", True),
}


def _i6_vector(records: Sequence[ProbeRecord]) -> list[float | None]:
    """The blind-probe vector: per topic 1 (first option), 0 (second option), 0.5 (abstain, invalid, other)."""
    out: list[float | None] = []
    for r in sorted(records, key=lambda r: r.probe.meta["topic"]):
        a = r.grade.parsed.get("answer") if r.grade.parsed.get("valid") and not r.grade.parsed.get("abstain") else None
        a = None if a is None else str(a).strip().casefold()
        out.append(1.0 if a == r.probe.meta["options"][0] else 0.0 if a == r.probe.meta["options"][1] else 0.5)
    return out


@dataclass(frozen=True)
class I6ExperienceDivergence:
    """I6 — Experience divergence, the §7 controlled history-divergence experiment.

    Per pair unit (:data:`I6_PAIRS` per trajectory), histories A and B are drawn independently with
    seeded random preferences over the same 20 topics: matched in length, topic coverage, timing
    (one session each), source quality (one curated source) and resource opportunities (the same
    washout sessions and ticks). Nine fresh agents from the one factory (same weights, policy,
    tools, scheduler, empty state): A1, A2 (same-history control), B; the swapped arm (instance 1
    given B, instance 2 given A); the erasure arm (history, ``erase()``); the sham-erasure arm
    (history, a sham erasure). Identical blind probes on clones at baseline (before history) and
    after 1, 5 and 20 washout blocks (a session of neutral facts and one tick each, after the
    transient-context reset). D is the §4 distance between probe vectors (:func:`_i6_vector`).

    The primary estimand per checkpoint is mean D(A1, B) − mean D(A1, A2) over pair units, with a
    pair bootstrap (:data:`I6_RESAMPLES` resamples of whole pair units); the checkpoints, the
    practical threshold and the multiplicity method are preregistered in :data:`I6_PREREGISTERED`
    and written to the manifest before the run. Capacity is task accuracy by arm (the answer that
    the agent's own history supports), with no reward for divergence itself.
    """

    test_id: str = "I6"
    axis: Axis = "I"
    version: str = I_VERSION
    hooks: frozenset[Hook] = frozenset({Hook.ERASE})
    vector_schema: tuple[str, ...] = ("accuracy_main", "estimand_w5", "estimand_w20")
    controls: tuple[str, ...] = ("I6/§7: same-history pairs, swapped-history, memory-erasure and sham-erasure arms; "
                                 "histories matched in length, topics, timing, source and resources",)
    preregistered: tuple[tuple[str, Any], ...] = I6_PREREGISTERED

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("I6", seed)
        topics = [f"topic {w}" for w in nonces(rng, 20)]
        options = [tuple(nonces(rng, 2, syllables=3)) for _ in topics]
        washout = [Say(tuple(fact(f"i6-w{b + 1:02d}-{k + 1:02d}", "shelf", f"crate {w}", _code(rng), day=b + 2)
                             for k, w in enumerate(nonces(rng, 5, avoid={t.split()[1] for t in topics}))),
                       label=f"washout {b + 1}", session_size=5) for b in range(20)]
        episodes = []
        units = []
        for u in range(I6_PAIRS):
            draws = {h: [rng.randrange(2) for _ in topics] for h in ("A", "B")}
            units.append(draws)
            histories = {h: Say(tuple(fact(f"i6-u{u}{h}-{t + 1:02d}", "preferred option", topic, options[t][c])
                                      for t, (topic, c) in enumerate(zip(topics, draws[h], strict=True))),
                                label=f"history {h}", session_size=20) for h in ("A", "B")}
            for name, (_role, h, erase) in _ARMS.items():
                steps: list[Step] = [Checkpoint("baseline"), histories[h]]
                if erase is not None:
                    steps.append(Erase(sham=erase))
                done = 0
                for cp, blocks in I6_WASHOUTS:
                    for b in range(done, blocks):
                        steps += [washout[b], Ticks(1, label="washout")]
                    done = blocks
                    steps.append(Checkpoint(cp))
                probes = [PanelProbe(f"i6-u{u}-{name}-{cp}-{t + 1:02d}", cp, f"u{u}/{name}", "value",
                                     Q_VALUE.format(attribute="preferred option", entity=topic), ANSWER_FIELDS,
                                     {"answer": options[t][draws[h][t]]}, (f"i6-u{u}{h}-{t + 1:02d}",),
                                     meta={"topic": t, "options": [o.casefold() for o in options[t]], "unit": u})
                          for cp in ("baseline", *(c for c, _ in I6_WASHOUTS)) for t, topic in enumerate(topics)]
                episodes.append(Episode(f"u{u}/{name}", steps, probes, PANEL_POLICY))
        return TestInstance("I6", seed, episodes, params={"units": units, "preregistered": dict(I6_PREREGISTERED)},
                            report={"pair_units": I6_PAIRS, "topics": 20, "arms": list(_ARMS),
                                    "washout_blocks": [b for _, b in I6_WASHOUTS],
                                    "preregistered": dict(I6_PREREGISTERED)})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        return grade_exact(read_reply(reply, probe.fields, error), probe.key["answer"])

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        units = sorted({run.episode.name.split("/")[0] for run in runs})
        vec = {(run.episode.name, cp): _i6_vector([r for r in run.records if r.probe.checkpoint == cp])
               for run in runs for cp in ("baseline", *(c for c, _ in I6_WASHOUTS))}
        checkpoints = ("baseline", *(c for c, _ in I6_WASHOUTS))
        per_cp: dict[str, Any] = {}
        seed = instance.seed
        for cp in checkpoints:
            diff = [(vec[(f"{u}/A1", cp)], vec[(f"{u}/B", cp)]) for u in units]
            same = [(vec[(f"{u}/A1", cp)], vec[(f"{u}/A2", cp)]) for u in units]
            est = experience_divergence(diff, same)
            unit_effects = [_d(a, b) - _d(c, d) for (a, b), (c, d) in zip(diff, same, strict=True)]
            per_cp[cp] = {
                "estimand": est.value, "detail": est.detail,
                "pair_bootstrap": _pair_bootstrap(unit_effects, seed),
                "swapped_d": mean([_d(vec[(f"{u}/swap1", cp)], vec[(f"{u}/swap2", cp)]) for u in units]),
                "swap_follows_history": mean([1 - (_d(vec[(f"{u}/swap1", cp)], vec[(f"{u}/B", cp)])
                                                   + _d(vec[(f"{u}/swap2", cp)], vec[(f"{u}/A1", cp)])) / 2
                                              for u in units]),
                "erased_d": mean([_d(vec[(f"{u}/eraseA", cp)], vec[(f"{u}/eraseB", cp)]) for u in units]),
                "sham_d": mean([_d(vec[(f"{u}/shamA", cp)], vec[(f"{u}/shamB", cp)]) for u in units]),
            }
        post = [c for c, _ in I6_WASHOUTS]
        acc = {role: _ok([r for run in runs if _ARMS[run.episode.name.split("/")[1]][0] == role for r in run.records
                          if r.probe.checkpoint in post]) for role in ("main", "swapped", "erased", "sham")}
        main = [r for run in runs if _ARMS[run.episode.name.split("/")[1]][0] == "main" for r in run.records
                if r.probe.checkpoint in post]
        washouts = [[vec[(f"{u}/A1", c)] for c, _ in I6_WASHOUTS] for u in units]
        chis = {"schema": "A1's probe vector after 1, 5 and 20 washout blocks (declared neutral), mean over units",
                "stability": mean([x for w in washouts if (x := stability(w).value) is not None]),
                "drift_w20_from_w1": mean([x for w in washouts if (x := drift(w[-1], w[0]).value) is not None])}
        features = {"by_checkpoint": per_cp, "accuracy_by_arm": acc, "persistence": _persistence(per_cp),
                    "chis": chis,
                    "pair_units": len(units), "preregistered": dict(I6_PREREGISTERED)}

        def unit(x: float | None) -> float | None:
            return None if x is None else (x + 1) / 2

        return TestResult("I6", acc["main"], sum(r.grade.success for r in main), len(main), features=features,
                          components={}, vector=[acc["main"], unit(per_cp["w5"]["estimand"]),
                                                 unit(per_cp["w20"]["estimand"])],
                          outcomes={role: counts([r.grade for run in runs
                                                  if _ARMS[run.episode.name.split("/")[1]][0] == role
                                                  for r in run.records]) for role in acc})


def _d(a: Sequence[float | None], b: Sequence[float | None]) -> float:
    d = distance(a, b)
    return math.nan if d is None else d


def _pair_bootstrap(effects: Sequence[float], seed: int) -> dict[str, Any]:
    """Percentile interval and one-sided p (share of resamples ≤ 0) over pair units resampled whole."""
    x = np.asarray(effects, dtype=float)
    if x.size < 2 or np.isnan(x).any():
        return {"lower": None, "upper": None, "p_one_sided": None, "resamples": None,
                "note": "fewer than two pair units (or an undefined one): null uncertainty"}
    rng = np.random.default_rng(seed)
    reps = x[rng.integers(0, x.size, size=(I6_RESAMPLES, x.size))].mean(axis=1)
    return {"lower": float(np.percentile(reps, 2.5)), "upper": float(np.percentile(reps, 97.5)),
            "p_one_sided": float((reps <= 0).mean()), "resamples": I6_RESAMPLES}


def _persistence(per_cp: dict[str, Any]) -> dict[str, Any]:
    """The preregistered decision: Holm over w5 and w20, each estimand at or above the practical threshold."""
    threshold = dict(I6_PREREGISTERED)["practical_threshold"]
    ps = {cp: per_cp[cp]["pair_bootstrap"]["p_one_sided"] for cp in ("w5", "w20")}
    if any(p is None for p in ps.values()):
        return {"claim": None, "reason": "p-values undefined (fewer than two pair units)", "p": ps}
    order = sorted(ps, key=lambda c: ps[c])
    adjusted, running = {}, 0.0
    for k, cp in enumerate(order):
        running = max(running, min(1.0, (len(order) - k) * ps[cp]))
        adjusted[cp] = running
    claim = all(adjusted[c] < 0.05 and (per_cp[c]["estimand"] or 0.0) >= threshold for c in ps)
    return {"claim": claim, "holm_adjusted_p": adjusted, "threshold": threshold,
            "result": "history-dependent divergence persists through washout" if claim else
            "null result: no excess divergence over the same-history control at the preregistered checkpoints"}


TESTS = (I1MemoryReasoning(), I2GoalMemory(), I3StateEvidence(), I4CrossContext(), I5Recovery(),
         I6ExperienceDivergence())
