"""C1–C6 and A1–A6 as panel tests: the interactive episodes behind the :class:`~sitbench.chi._panel.PanelTest`
interface, so ``sitbench chi run --panel c1,a3,…|c|a|all`` runs them beside R, M and I.

An interactive test (:class:`~sitbench.chi._panel_c.InteractiveTest`) is not a list of history
steps and blind probes: its episode is a state machine that reads every reply before choosing the
next event. So the adapter brings its own runner step, :meth:`InteractivePanelTest.run_episode`,
which the panel runner calls instead of the history/probe harness:

1. a fresh agent from the run's factory ingests :data:`CA_POLICY` (the registered reply policy);
2. :func:`~sitbench.chi._panel_c_drive.drive_episode` hands every event to the agent hooks
   (``respond``; ``tick(budget_ops)``, with the tick's text as ``observation`` when the hook takes
   it; ``end_session``; ``fork()`` clones for blind probes) under the run's per-call deadline;
3. every delivered turn and tick is one record in ``probes.jsonl`` (the text the agent got, its
   reply as it came, the parse, and the episode's outcome under the test's exact rubric, which
   scores whole episodes), and the test's own ``score`` gives the trajectory's result: capacity,
   raw denominators, named components, the behavioural features and controls, and the vector ``v``
   of :data:`~sitbench.chi._panel_c_features.CA_VECTOR_SCHEMA`.

Hooks: C6 needs ``tick`` (§11: the scheduler is part of the system; a system never given a tick
is not invoked), so the runner records C6 missing for an agent without it, never failed. Every
other test runs on any agent: C1's continuation tick and C3's ticks reach an agent without
``tick`` as neutral turns (so do C3's channel records when the agent's ``tick`` cannot take the
tick's text), A3's ticks are not delivered (§5.5: waiting is no opportunity to act), and A2, A3
and A6 ask their blind probes on the live agent when it has no ``fork`` (the count is in the
features as ``live_probes``).

A rubric or scorer that fails is an evaluator outage (the block is invalidated), never the
agent's failure; a malformed reply is a task failure, and :meth:`InteractivePanelTest.malformed`
gives the run's on-screen line for the first one, with the expected format.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sitbench.chi._common import Axis
from sitbench.chi._memory_rubric import Outcome as ProbeOutcome
from sitbench.chi._panel import Episode, EpisodeRun, Grade, Hook, ProbeRecord, TestInstance, TestResult
from sitbench.chi._panel_c import (
    PANEL_ENV_VERSION,
    EpisodeRecord,
    EventKind,
    InteractiveEpisode,
    Outcome,
    ReplyError,
    canonical_hash,
    generator_report,
    header_of,
    malformed_message,
    parse_object,
)
from sitbench.chi._panel_c_drive import DriveLog, drive_episode
from sitbench.chi._panel_c_features import CA_VECTOR_SCHEMA, probe_vector
from sitbench.chi._panel_c_registry import CA_PANEL, PanelEntry

CA_POLICY = """PANEL POLICY C/A v1 (registered before any episode; frozen for every system and run).
Every turn is one header line and one JSON object; its "reply" field states the reply format.
Reply to every turn with exactly one JSON object in that format. A scheduler tick may return
nothing. Actions you state in a reply are executed only in the fields the format names."""
"""What every C and A episode's agent ingests first."""

_OUTCOME: dict[Outcome, ProbeOutcome] = {Outcome.SUCCESS: ProbeOutcome.CORRECT, Outcome.FAILURE: ProbeOutcome.WRONG,
                                         Outcome.INVALID: ProbeOutcome.INVALID, Outcome.NOT_INVOKED: ProbeOutcome.INVALID}


@dataclass(frozen=True)
class EventProbe:
    """One delivered event of an interactive episode as a probe record's question."""

    probe_id: str
    checkpoint: str
    """The episode's arm."""
    stratum: str
    """How the event was delivered (``hook``, ``turn``, ``not_invoked``)."""
    kind: str
    """``turn``, ``tick`` or ``clone`` (a blind probe on a discarded clone)."""
    utterance: str
    key: dict[str, Any] = field(default_factory=dict)
    """The outcome under the test's rubric: the episode's (the C rubrics score whole episodes), or for an A
    choice that choice's own (the normative answer or not)."""

    def to_json(self) -> dict[str, Any]:
        return {"probe_id": self.probe_id, "checkpoint": self.checkpoint, "stratum": self.stratum, "kind": self.kind,
                "utterance": self.utterance, "key": self.key}


@dataclass
class InteractiveRun(EpisodeRun):
    """An episode run that also carries the interactive record and how its events were delivered."""

    record: EpisodeRecord | None = None
    log: DriveLog | None = None


@dataclass
class _Shell(Episode):
    """The runner's handle of one interactive episode (no history steps: the episode drives itself)."""

    native: InteractiveEpisode | None = None


class _Instance(TestInstance):
    def items_hash(self) -> str:
        return canonical_hash([e.item_hash for e in self.native])

    def answer_key_hash(self) -> str:
        return canonical_hash([[e.episode_id, e.arm, e.spec] for e in self.native])


@dataclass(frozen=True)
class InteractivePanelTest:
    """One of C1–C6 or A1–A6 behind the panel interface (see the module docstring)."""

    entry: PanelEntry
    test_id: str
    axis: Axis
    hooks: frozenset[Hook]
    version: str = PANEL_ENV_VERSION
    vector_schema: tuple[str, ...] = ()
    controls: tuple[str, ...] = ()

    def generate(self, seed: int) -> TestInstance:
        episodes = self.entry.test.generate(seed)
        shells: list[Episode] = [_Shell(name=e.episode_id, steps=[], probes=[], preamble=CA_POLICY, native=e)
                                 for e in episodes]
        return _Instance(self.test_id, seed, shells, params={"needs": self.entry.needs},
                         report=generator_report(self.entry.test, episodes, seed), native=episodes)

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        """One delivered event: its parse, and the episode's outcome its key carries."""
        parsed: dict[str, Any] = {}
        parse_error = None
        if reply is not None:
            try:
                parsed = parse_object(reply)
            except ReplyError as exc:
                parse_error = str(exc)
        outcome = ProbeOutcome(probe.key.get("outcome", ProbeOutcome.INVALID.value))
        return Grade(outcome, parsed, None, error or parse_error)

    async def run_episode(self, factory: Callable[[], Any], episode: Episode, trajectory: int, *,
                          deadline_s: float = 60.0) -> InteractiveRun:
        """Drive one episode on a fresh agent through its hooks (the runner's step for this test).

        Raises:
            EvaluatorOutage: The environment or its rubric failed (not the agent).
        """
        from sitbench.chi._panel_harness import EvaluatorOutage, _maybe, preamble_subject

        start = time.perf_counter()
        native = getattr(episode, "native", None)
        if not isinstance(native, InteractiveEpisode):
            raise EvaluatorOutage(f"{self.test_id}: episode {episode.name} was not generated by this test")
        agent = await _maybe(factory())
        await _maybe(agent.ingest(preamble_subject(CA_POLICY)), deadline_s)
        try:
            record, log = await drive_episode(self.entry.test, native, agent, deadline_s=deadline_s)
        except Exception as exc:  # the driver catches every agent failure: what is left is the evaluator's
            raise EvaluatorOutage(f"{self.test_id} environment failed on episode {native.episode_id}: {exc!r}"[:300]
                                  ) from exc
        finally:
            close = getattr(agent, "close", None)
            if callable(close):
                await _maybe(close(), deadline_s)
        costs = getattr(agent, "costs", None)
        spent = dict(costs()) if callable(costs) else {}
        records = self._records(episode.name, record)
        ticks = sum(s.kind is EventKind.TICK for s in record.steps)
        return InteractiveRun(episode, records, spent, {"total_s": time.perf_counter() - start},
                              events=len(record.steps) - ticks, ticks=ticks, cloned=log.live_probes == 0,
                              final_costs=spent, record=record, log=log)

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        records = [r.record for r in runs if isinstance(r, InteractiveRun) and r.record is not None]
        s = self.entry.test.score(records)
        logs = [r.log for r in runs if isinstance(r, InteractiveRun) and r.log is not None]
        delivery = {"live_probes": sum(g.live_probes for g in logs), "ticks_by_hook": sum(g.ticks_by_hook for g in logs),
                    "ticks_as_turns": sum(g.ticks_as_turns for g in logs),
                    "ticks_not_invoked": sum(g.ticks_not_invoked for g in logs)}
        outcomes: dict[str, Counter[str]] = {}
        for r in records:
            outcomes.setdefault(r.arm, Counter())[r.outcome.value] += 1
        return TestResult(self.test_id, s.capacity, s.correct, s.total, components=dict(s.components or {}),
                          features={**s.features, "controls": s.controls, "invalid_episodes": s.invalid,
                                    "delivery": delivery},
                          vector=probe_vector(s), outcomes={a: dict(c) for a, c in sorted(outcomes.items())},
                          missing_reason=s.missing_reason)

    def malformed(self, runs: Sequence[EpisodeRun]) -> str | None:
        """The on-screen line for the first malformed reply among ``runs`` (``None``: none)."""
        return malformed_message(r.record for r in runs if isinstance(r, InteractiveRun) and r.record is not None)

    def _records(self, name: str, record: EpisodeRecord) -> list[ProbeRecord]:
        key: dict[str, Any] = {"outcome": _OUTCOME[record.outcome].value, "episode_outcome": record.outcome.value}
        choices = list(record.features.get("choices", []))  # the A tests grade each choice: (block, gamble, ok)
        out = []
        for k, st in enumerate(s for s in record.steps if s.kind is not EventKind.END_SESSION):
            own = key
            if choices and header_of(st.text) == "CHOICE":
                _block, gamble, ok = choices.pop(0)
                outcome = ProbeOutcome.INVALID if gamble is None else ProbeOutcome.CORRECT if ok else ProbeOutcome.WRONG
                own = {**key, "outcome": outcome.value, "normative": True}
            probe = EventProbe(f"{record.episode_id}-e{k:03d}", record.arm, st.delivery.value,
                               "clone" if st.clone else st.kind.value, st.text, own)
            out.append(ProbeRecord(name, probe, st.reply, self.grade(probe, st.reply, None), 0.0, {},
                                   [record.item_hash], phase="event"))
        if out and record.error:
            last = out[-1]
            last.grade = Grade(last.grade.outcome, last.grade.parsed, None, record.error)
        return out


def _hooks(entry: PanelEntry) -> frozenset[Hook]:
    return frozenset({Hook.TICK}) if entry.test.test_id == "C6" else frozenset()


CONTROLS: dict[str, str] = {
    "C1": "explicit cancellation trials in capacity (blind persistence after cancellation fails)",
    "C2": "oracle prerequisite-list arm (an upper reference, not in capacity) and a fixed-script planner; a plan "
          "without its actions earns no credit",
    "C3": "neutral-evidence episodes with the same ticks and record form estimate false revisions",
    "C4": "tool-ablation arm; four tools of equal cost under a declared budget; call count and stopping tell "
          "helpful querying from maximising calls",
    "C5": "simulation budget and use reported; a supplied search-tree arm is scored apart, never in capacity",
    "C6": "the scheduler is declared part of the system: a system without tick is not invoked (missing)",
    "A1": "neutral-repeat adjustment; instruction-following and semantic-priming arms; words and magnitudes "
          "counterbalanced; no mood label in any probe",
    "A2": "identical distractor histories for paired conditions; no induction text in working context; clones",
    "A3": "neutral ticks apart from wall-clock waits; nothing fitted; a half-time only where interpretable",
    "A4": "reversed-order control with matched cumulative exposure; byte-identical choices at the shared levels",
    "A5": "length-matched control text and an instruction-only control; the two accuracies as named components",
    "A6": "facts counterbalanced over the three contexts; equal delays; repetition, length, source and relevance "
          "matched",
}
"""The registered control of each C and A test, as the manifest lists it."""


def _controls(entry: PanelEntry) -> tuple[str, ...]:
    t = entry.test.test_id
    return (f"{t}: {CONTROLS[t]}; poor reference policy: {entry.poor_label}",)


TESTS = tuple(InteractivePanelTest(e, e.test.test_id, e.test.axis, _hooks(e),
                                   vector_schema=CA_VECTOR_SCHEMA[e.test.test_id], controls=_controls(e))
              for e in CA_PANEL)
"""C1–C6 and A1–A6, found by the panel runner."""

__all__ = ["CA_POLICY", "TESTS", "EventProbe", "InteractivePanelTest", "InteractiveRun"]
