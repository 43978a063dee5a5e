"""The test interface of the CHI panel runner (spec §1, §5, §11): what one registered test provides.

A registered test (R1 … I6; the memory tests M1–M8 and the interactive C1–C6 and A1–A6 through
adapters) is a :class:`PanelTest`. It is three pure functions around one frozen instance:

1. ``generate(seed)`` draws a :class:`TestInstance`: its episodes (one fresh agent each: the
   §5 schedule as :data:`Step` values, and the blind probes of its checkpoints), the items and
   answer-key hashes, and the generator report (§1: exact item instances or generators). The same
   seed gives the same hashes.
2. ``grade(probe, reply, error)`` reads one reply with the test's exact-answer rubric and
   returns a :class:`Grade`. ``reply`` is ``None`` when the call failed (``error`` says why: an
   in-budget timeout, an agent error, a reply in no accepted form); that is a task failure,
   graded :attr:`Outcome.INVALID`, never dropped (§5).
3. ``score(instance, results)`` turns the episodes' probe records into one trajectory's
   :class:`TestResult`: the task score as §11 defines it, raw counts, named components, the
   behavioural feature vector ``z`` (§2) and the normalised blind-probe vector ``v`` (§4) under
   the test's versioned :attr:`PanelTest.vector_schema`.

A module ``sitbench/chi/_panel_<name>.py`` that defines ``TESTS`` (a tuple of tests) is found by the
runner without further registration; elsewhere, ``register_test(test)`` makes a test runnable.

A test may also bring its own runner step, ``run_episode(factory, episode, trajectory, deadline_s=…)``
(the C and A tests: an episode that reacts to every reply, :mod:`sitbench.chi._panel_interactive`).
The runner (``sitbench.chi._panel_run``) owns everything else: fresh agents from the factory,
the steps through the agent hooks, ``fork()`` clones for blind probes, the neutral-tick
scheduler, records, the kit's interchange. A test declares the agent hooks it needs
(:class:`Hook`); an agent that lacks one gets the test recorded **missing** for that agent
(never failed), and the axis then has no capacity (§2: never renormalise).

Agent hooks beyond the SIT agent protocol (``ingest``, ``respond``, ``end_session``, ``fork``):

* ``tick(budget_ops)`` — one neutral scheduler tick (``POST /tick`` over HTTP).
* ``erase()`` — delete the persistent memory (I1's erased clone, §7's erasure arm); transient
  context goes with it. Over HTTP ``POST /erase``.
* ``inject_fault(fault)`` / ``repair_fault(fault)`` — a bounded, reversible memory-index fault
  that the harness declares (I5) and its repair. ``fault`` is a :class:`FaultSpec` as a dict.
  Over HTTP ``POST /fault`` and ``POST /repair``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from sitbench.chi._common import Axis
from sitbench.chi._memory_env import Checkpoint, Ingest, Ticks
from sitbench.chi._memory_rubric import Outcome

PANEL_VERSION = "chi-panel-0.1"

REGISTERED: dict[str, tuple[str, ...]] = {
    "R": ("R1", "R2", "R3", "R4"),
    "M": ("M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8"),
    "C": ("C1", "C2", "C3", "C4", "C5", "C6"),
    "A": ("A1", "A2", "A3", "A4", "A5", "A6"),
    "I": ("I1", "I2", "I3", "I4", "I5", "I6"),
}
"""The 30 registered tests of §11, by axis, in the specification's order."""

ALL_TESTS: tuple[str, ...] = tuple(t for ts in REGISTERED.values() for t in ts)


class Hook(str, Enum):
    """An agent hook a test needs beyond ``ingest``/``respond``/``end_session``."""

    FORK = "fork"
    TICK = "tick"
    ERASE = "erase"
    FAULT = "inject_fault"
    REPAIR = "repair_fault"


def agent_hooks(agent: Any) -> set[Hook]:
    """The optional hooks ``agent`` offers: an agent's own ``declared_hooks()`` (the HTTP adapter
    reads them from ``GET /info``), else the callables it has."""
    declared = getattr(agent, "declared_hooks", None)
    if callable(declared):
        return {Hook(h) for h in declared()}
    return {h for h in Hook if callable(getattr(agent, h.value, None))}


@dataclass(frozen=True, slots=True)
class Say:
    """History: deliver ``lines`` as session turns, ``end_session`` after every ``session_size``.

    A line is what the agent receives verbatim; panel history lines start with ``RECORD`` so every
    baseline stores them and never answers them.
    """

    lines: tuple[str, ...]
    label: str = "history"
    session_size: int = 50


@dataclass(frozen=True, slots=True)
class Erase:
    """Call ``erase()``: persistent memory deleted (the erasure arm). ``sham`` keeps memory: the harness
    ends the session and calls nothing else, so a sham arm differs from the intact one only in the label."""

    sham: bool = False
    label: str = "erase"


@dataclass(frozen=True, slots=True)
class FaultSpec:
    """A bounded, reversible memory-index fault the harness declares (I5).

    ``kind`` ``"hide_keys"`` hides the index entries of ``fraction`` of the stored units, chosen with
    ``seed``; the units themselves stay stored, so ``repair_fault`` restores them exactly.
    ``sham`` declares a sham perturbation: the harness announces it and injects nothing.
    """

    kind: str = "hide_keys"
    fraction: float = 0.5
    seed: int = 0
    sham: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Fault:
    """Call ``inject_fault(spec)`` (nothing for a sham)."""

    spec: FaultSpec
    label: str = "fault"


@dataclass(frozen=True, slots=True)
class Repair:
    """Call ``repair_fault(spec)`` (nothing for a sham)."""

    spec: FaultSpec
    label: str = "repair"


Step = Say | Ingest | Ticks | Checkpoint | Erase | Fault | Repair
"""One stage of an episode's §5 schedule. ``Ticks`` and ``Checkpoint`` are the memory axis's own."""


@dataclass(frozen=True, slots=True)
class PanelProbe:
    """One blind question on a checkpoint clone and its answer key (evaluator side only)."""

    probe_id: str
    checkpoint: str
    stratum: str
    kind: str
    question: str
    fields: tuple[str, ...]
    key: dict[str, Any]
    evidence: tuple[str, ...] = ()
    """Ids of the history lines that support the keyed answer (the oracle baseline's side channel)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Evaluator-side diagnostics (never sent to an agent)."""

    @property
    def utterance(self) -> str:
        """What the agent is asked: the question and the JSON fields to reply with."""
        return f"{self.question}\nFIELDS: {', '.join(self.fields)}"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["fields"] = list(self.fields)
        out["evidence"] = list(self.evidence)
        return out


@dataclass
class Episode:
    """One fresh agent's schedule and the probes of its checkpoints (an *arm* of the test)."""

    name: str
    steps: list[Step]
    probes: list[PanelProbe]
    preamble: str | None = None
    """The test's registered policy, ingested before any history (None: the memory policy)."""

    def probes_at(self, checkpoint: str) -> list[PanelProbe]:
        return [p for p in self.probes if p.checkpoint == checkpoint]

    @property
    def records(self) -> list[str]:
        return [ln for s in self.steps if isinstance(s, Say) for ln in s.lines]


@dataclass
class TestInstance:
    """One seeded draw of a test: its episodes, parameters and generator report."""

    __test__ = False  # not a pytest class

    test_id: str
    seed: int
    episodes: list[Episode]
    params: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    native: Any = None
    """A test's own object behind the instance (the memory adapter keeps its environment here)."""

    def items_hash(self) -> str:
        """SHA-256 over every episode's schedule and probe text (what agents see)."""
        payload = [{"name": e.name, "steps": [_step_json(s) for s in e.steps],
                    "probes": [p.utterance for p in e.probes]} for e in self.episodes]
        return _sha(payload)

    def answer_key_hash(self) -> str:
        """SHA-256 over every probe's id and key (what the evaluator knows)."""
        return _sha([[p.probe_id, p.key] for e in self.episodes for p in e.probes])


@dataclass(frozen=True)
class Grade:
    """One reply read by a test's rubric."""

    outcome: Outcome
    parsed: dict[str, Any]
    value: float | None = None
    """The probe's own score in [0, 1] where the test scores more than right/wrong (R2: 1 − squared
    error; R4: 1 − Brier); ``None`` where the outcome alone scores it."""
    error: str | None = None

    @property
    def success(self) -> bool:
        return self.outcome.success


@dataclass
class ProbeRecord:
    """The record of one probe (§5.6: question, reply, parse, outcome, source references)."""

    episode: str
    probe: Any
    reply: str | None
    grade: Grade
    latency_s: float
    usage: dict[str, int]
    refs: list[str]
    phase: str = "probe"


@dataclass
class EpisodeRun:
    """What one episode produced: its probe records, costs, event and tick counts."""

    episode: Any
    records: list[ProbeRecord]
    costs: dict[str, float]
    wall: dict[str, float]
    events: int
    ticks: int
    cloned: bool
    pre_exposure: list[ProbeRecord] = field(default_factory=list)
    """Probes asked on clones of the fresh agent before any history (§5.3), when the harness asks any."""
    pre_costs: dict[str, float] = field(default_factory=dict)
    """The agent's cost ledger after the pre-exposure check."""
    final_costs: dict[str, float] = field(default_factory=dict)
    """The agent's cost ledger at the end (store levels such as ``stored_objects`` are read here)."""


@dataclass
class TestResult:
    """One trajectory's outcome of one test."""

    __test__ = False

    test_id: str
    score: float | None
    correct: int | None = None
    total: int | None = None
    components: dict[str, float | None] = field(default_factory=dict)
    features: dict[str, Any] = field(default_factory=dict)
    """The behavioural feature vector ``z`` (§2) and diagnostics, by name."""
    vector: list[float | None] = field(default_factory=list)
    """The blind-probe vector ``v`` in [0, 1]^d (§4), in :attr:`PanelTest.vector_schema` order."""
    outcomes: dict[str, dict[str, int]] = field(default_factory=dict)
    missing_reason: str | None = None


@runtime_checkable
class PanelTest(Protocol):
    """One registered test, as the panel runner drives it (see the module docstring)."""

    test_id: str
    """``"R1"`` … ``"I6"``."""
    axis: Axis
    version: str
    """Generator and rubric version; a change is a new protocol version (§10)."""
    hooks: frozenset[Hook]
    """Agent hooks the test needs; an agent lacking one has the test missing."""
    vector_schema: tuple[str, ...]
    """Names of the coordinates of ``TestResult.vector`` (versioned with ``version``)."""

    def generate(self, seed: int) -> TestInstance:
        """Draw the instance of ``seed`` (pure: the same seed gives the same hashes)."""
        ...

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        """Read one reply with the exact-answer rubric (``reply`` None: the call failed, ``error`` why)."""
        ...

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        """One trajectory's result from its episodes' runs."""
        ...


def _step_json(s: Step) -> dict[str, Any]:
    if isinstance(s, Ingest):
        return {"ingest": [r.record_id for r in s.records], "label": s.label}
    if isinstance(s, Say):
        return {"say": list(s.lines), "label": s.label, "session_size": s.session_size}
    if isinstance(s, (Fault, Repair)):
        return {type(s).__name__.lower(): s.spec.to_json(), "label": s.label}
    return {type(s).__name__.lower(): asdict(s)}


def _sha(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
