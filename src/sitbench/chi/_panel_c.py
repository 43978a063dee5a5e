"""The episode contract the C (cognitive autonomy) and A (affective modulation) tests share (spec §5, §11).

Every test of these two axes is a :class:`InteractiveTest`: it generates seeded episodes (each with an
item hash), opens an :class:`EpisodeSession` per episode (a state machine that emits
:class:`Event` objects and reads the reply to each), and scores the finished
:class:`EpisodeRecord` objects into a :class:`PanelScore` (capacity, raw denominators, behavioral
features, controls). Nothing here drives an agent: a runner maps each event onto an agent hook
(``respond``, ``tick``, ``end_session``, ``fork``; :mod:`sitbench.chi._panel_c_drive` does it for
an Agent) and hands back the reply text. :func:`play` is the in-process driver for a
:class:`Policy` (the reference policies, the tests; a policy's ``tick(text, budget_ops)`` always
gets the tick's text). The mapping:

* :attr:`EventKind.TURN`: one ``respond`` turn; a reply is required and read exactly.
* :attr:`EventKind.TICK`: one declared neutral scheduler tick through ``tick(budget_ops)``; the
  reply (actions, hypotheses) is optional and ``None`` means the system did nothing. The event's
  text carries the tick number and any record newly placed in the allowed information channel.
  For a system without a ``tick`` hook the event's :attr:`Event.no_tick` says what happens, per
  test: :attr:`NoTick.TURN` delivers the tick as a neutral turn (C1's continuation tick, C3's
  channel records), :attr:`NoTick.SKIP` delivers nothing (A3: a non-invoked system's waiting is
  no opportunity to act, §5.5) and :attr:`NoTick.MISSING` records the whole episode as not
  invoked (C6: wall-clock idleness of a non-invoked system is not a failed test).
* :attr:`EventKind.END_SESSION`: ``end_session``: the working context is reset.
* An event with ``clone=True`` is a blind probe asked on a ``fork()`` clone that is discarded
  after the one question (A2, A3, A6); without ``fork`` it is asked on the live system and the
  contamination is recorded.

Replies are one JSON object (a Markdown code fence is tolerated, nothing else is). A malformed
required reply is a task failure (§5), never a dropped observation: it ends a C episode as
invalid and fails the one probe of an A episode; the first one of a run is reported with the
expected format (:func:`malformed_message`). A capacity whose registered condition has no scored
item is missing (:func:`strict_mean`), never the mean of the rest (§2).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from sitbench.chi._capacity import TaskScore
from sitbench.chi._common import Axis

PANEL_ENV_VERSION = "chi-panel-ca-0.1"
"""Version of the C/A environments and rubrics; part of every generator hash."""


class EventKind(str, Enum):
    """How an event reaches the system under test."""

    TURN = "turn"
    """A ``respond`` turn; the reply is required."""
    TICK = "tick"
    """A neutral scheduler tick through ``tick(budget_ops)``; the reply is optional."""
    END_SESSION = "end_session"
    """``end_session``: transient working context is reset."""


class NoTick(str, Enum):
    """What a tick becomes for a system without a ``tick`` hook (declared per test)."""

    TURN = "turn"
    """Delivered as a neutral turn whose reply is read like a tick's."""
    SKIP = "skip"
    """Not delivered: the system is not invoked and has no opportunity to act."""
    MISSING = "missing"
    """The episode is recorded as not invoked (missing, never failed)."""


class Delivery(str, Enum):
    """How an event was actually delivered."""

    HOOK = "hook"
    TURN = "turn"
    NOT_INVOKED = "not_invoked"


class Outcome(str, Enum):
    """An episode's outcome under its rubric."""

    SUCCESS = "success"
    FAILURE = "failure"
    INVALID = "invalid"
    """A malformed required reply, a timeout or a refusal: a task failure (§5)."""
    NOT_INVOKED = "not_invoked"
    """The test needs a hook the system lacks: missing, never a failure."""

    @property
    def counted(self) -> bool:
        """Whether the episode enters a denominator."""
        return self is not Outcome.NOT_INVOKED


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Event(_Frozen):
    """One thing the environment does to the system."""

    kind: EventKind
    text: str = ""
    """What the system receives: a header line, then one JSON object (:func:`payload_of`)."""
    budget_ops: int = Field(default=0, ge=0)
    """Operations the system may spend on this event (ticks; turns that allow actions)."""
    clone: bool = False
    """Ask on a discarded ``fork()`` clone (a blind probe)."""
    no_tick: NoTick = NoTick.TURN
    """For ticks: what a system without ``tick`` gets."""
    observation: bool = False
    """For ticks: the text carries a record newly placed in the allowed information channel."""
    reply_format: str = ""
    """The reply format the rubric reads (shown with a malformed reply)."""


class Step(_Frozen):
    """One delivered event and what came back."""

    kind: EventKind
    text: str
    delivery: Delivery
    reply: str | None = None
    clone: bool = False


class InteractiveEpisode(_Frozen):
    """One generated item: its test, arm, seed-derived content and hash."""

    test_id: str
    episode_id: str
    arm: str
    """The condition or control arm (``main``, ``cancel``, ``neutral_evidence``, ``positive``…)."""
    spec: dict[str, Any]
    """Everything the environment needs, including the hidden answer key (never sent)."""

    @property
    def item_hash(self) -> str:
        """SHA-256 of the episode's canonical JSON (test, id, arm, spec)."""
        return canonical_hash({"test": self.test_id, "id": self.episode_id, "arm": self.arm, "spec": self.spec})


class EpisodeRecord(_Frozen):
    """One finished episode: outcome, the evidence for it, and its behavioral features."""

    test_id: str
    episode_id: str
    arm: str
    item_hash: str
    outcome: Outcome
    features: dict[str, Any] = {}
    steps: tuple[Step, ...] = ()
    error: str | None = None
    """Why the outcome is invalid or not invoked."""
    expected_format: str | None = None
    """The reply format of the event whose reply was malformed (for the on-screen message)."""


class PanelScore(_Frozen):
    """A test's score: capacity with raw denominators, features and controls (spec §2)."""

    test_id: str
    axis: Axis
    capacity: float | None
    """Task score in [0, 1] as §11 defines it; ``None`` when missing."""
    correct: int | None = None
    total: int | None = None
    components: dict[str, float | None] | None = None
    """Named compound components (equally averaged into ``capacity``)."""
    features: dict[str, Any] = {}
    """The declared behavioral features z: never rewarded."""
    controls: dict[str, Any] = {}
    """What the registered control measured."""
    missing_reason: str | None = None
    invalid: int = 0
    """Episodes that were task failures by malformed reply or timeout."""

    def task_score(self) -> TaskScore:
        """The kit's :class:`TaskScore` for the axis capacity."""
        if self.capacity is None:
            return TaskScore(test_id=self.test_id, axis=self.axis, missing_reason=self.missing_reason or "missing")
        if self.components is not None:
            return TaskScore(test_id=self.test_id, axis=self.axis, components=self.components, correct=self.correct,
                             total=self.total)
        return TaskScore(test_id=self.test_id, axis=self.axis, score=self.capacity, correct=self.correct,
                         total=self.total)


class EpisodeSession(Protocol):
    """A running episode: emits events, reads the reply to each, then reports its record."""

    def next_event(self) -> Event | None:
        """The next event, or ``None`` when the episode is over."""
        ...

    def send(self, reply: str | None, delivery: Delivery) -> None:
        """The reply to the last event (``None``: nothing came back) and how it was delivered."""
        ...

    def record(self) -> EpisodeRecord:
        """The finished episode's record."""
        ...


@runtime_checkable
class InteractiveTest(Protocol):
    """What a runner needs from one registered test of the C or A axis."""

    test_id: str
    axis: Axis

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        """The seeded episodes of one replicate (the same seed gives the same item hashes)."""
        ...

    def session(self, episode: InteractiveEpisode) -> EpisodeSession:
        """A fresh session for one episode."""
        ...

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        """Capacity, features and controls of one replicate's records."""
        ...


class Policy(Protocol):
    """A system the in-process driver can run: the reference policies and test doubles."""

    def respond(self, text: str) -> str:
        """Reply to one turn."""
        ...

    def end_session(self) -> None:
        """Reset transient context."""
        ...


class ReplyError(ValueError):
    """A reply that does not follow the format the rubric reads."""


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


def parse_object(text: str | None) -> dict[str, Any]:
    """Read one JSON object from a reply (a code fence is tolerated; nothing else is).

    Raises:
        ReplyError: When the reply is absent or is not exactly one JSON object.
    """
    if text is None:
        raise ReplyError("no reply")
    body = text.strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1).strip()
    try:
        obj = json.loads(body)
    except (json.JSONDecodeError, ValueError) as exc:
        raise ReplyError("not one JSON object") from exc
    if not isinstance(obj, dict):
        raise ReplyError("not a JSON object")
    return obj


def actions_of(obj: Mapping[str, Any], field: str = "actions") -> list[dict[str, Any]]:
    """The list of action objects in ``obj[field]`` (absent: none).

    Raises:
        ReplyError: When the field is not a list of objects.
    """
    raw = obj.get(field, [])
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(a, dict) for a in raw):
        raise ReplyError(f"field '{field}' is not a list of objects")
    return list(raw)


def format_message(test_id: str, episode_id: str, error: str, reply_format: str) -> str:
    """The on-screen message for the first malformed reply of a run: what was wrong and what is expected."""
    return (f"{test_id} episode {episode_id}: malformed reply ({error}); scored as a task failure. "
            f"Expected: {reply_format}")


def render(header: str, payload: Mapping[str, Any]) -> str:
    """An event's text: one header line, then one compact JSON object."""
    return header + "\n" + json.dumps(payload, sort_keys=True, separators=(",", ":"))


def payload_of(text: str) -> dict[str, Any]:
    """The JSON object of an event text rendered by :func:`render`."""
    _, _, body = text.partition("\n")
    out = json.loads(body) if body else {}
    return out if isinstance(out, dict) else {}


def header_of(text: str) -> str:
    """The header line of an event text."""
    return text.partition("\n")[0]


def canonical_hash(obj: Any) -> str:
    """SHA-256 of the canonical JSON form of ``obj``."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def generator_report(test: InteractiveTest, episodes: Sequence[InteractiveEpisode], seed: int) -> dict[str, Any]:
    """The generator report of one replicate: version, seed, counts per arm and the items hash."""
    arms: dict[str, int] = {}
    for e in episodes:
        arms[e.arm] = arms.get(e.arm, 0) + 1
    return {"test": test.test_id, "version": PANEL_ENV_VERSION, "seed": seed, "episodes": len(episodes),
            "arms": dict(sorted(arms.items())), "items_hash": canonical_hash([e.item_hash for e in episodes])}


Script = Generator[Event, "tuple[str | None, Delivery]", None]
"""An episode written as a generator: it yields events and receives ``(reply, delivery)``."""


class ScriptSession:
    """An :class:`EpisodeSession` over a generator script and a finishing function.

    The script yields events and receives each reply; ``finish`` turns the delivered steps (and
    whatever the script left in ``state``) into the record. A :class:`ReplyError` raised by the
    script ends the episode as invalid.
    """

    def __init__(self, episode: InteractiveEpisode, script: Callable[[dict[str, Any]], Script],
                 finish: Callable[[dict[str, Any]], tuple[Outcome, dict[str, Any]]]) -> None:
        self.episode = episode
        self.state: dict[str, Any] = {}
        self._gen = script(self.state)
        self._finish = finish
        self._steps: list[Step] = []
        self._pending: Event | None = None
        self._done = False
        self._error: str | None = None
        self._not_invoked = False
        self._format: str | None = None

    def next_event(self) -> Event | None:
        if self._done:
            return None
        if self._pending is None:
            try:
                self._pending = next(self._gen)
            except StopIteration:
                self._done = True
                return None
        return self._pending

    def send(self, reply: str | None, delivery: Delivery) -> None:
        ev = self._pending
        if ev is None:
            raise RuntimeError("send() without a pending event")
        self._steps.append(Step(kind=ev.kind, text=ev.text, delivery=delivery, reply=reply, clone=ev.clone))
        self._pending = None
        had_error = "error" in self.state
        if delivery is Delivery.NOT_INVOKED and ev.kind is EventKind.TICK and ev.no_tick is NoTick.MISSING:
            self._not_invoked = True
            self._done = True
            return
        try:
            self._pending = self._gen.send((reply, delivery))
        except StopIteration:
            self._done = True
        except ReplyError as exc:
            self._error = str(exc)
            self._done = True
        if (self._error is not None or ("error" in self.state and not had_error)) and self._format is None:
            self._format = ev.reply_format

    def record(self) -> EpisodeRecord:
        e = self.episode
        if self._not_invoked:
            outcome, features = Outcome.NOT_INVOKED, dict[str, Any]()
            error: str | None = "no tick hook: the scheduler ticks this test needs were never delivered"
        elif self._error is not None:
            outcome, features, error = Outcome.INVALID, {}, self._error
        else:
            outcome, features = self._finish(self.state)
            error = str(self.state["error"]) if outcome is Outcome.INVALID and "error" in self.state else None
        return EpisodeRecord(test_id=e.test_id, episode_id=e.episode_id, arm=e.arm, item_hash=e.item_hash,
                             outcome=outcome, features=features, steps=tuple(self._steps), error=error,
                             expected_format=self._format if outcome is Outcome.INVALID else None)


def first_error(records: Iterable[EpisodeRecord]) -> EpisodeRecord | None:
    """The first invalid record (for the on-screen malformed-reply message)."""
    return next((r for r in records if r.outcome is Outcome.INVALID), None)


def malformed_message(records: Iterable[EpisodeRecord]) -> str | None:
    """The on-screen message for the first malformed reply among ``records`` (``None`` when there is none)."""
    r = first_error(records)
    if r is None:
        return None
    return format_message(r.test_id, r.episode_id, r.error or "malformed reply", r.expected_format or "see the prompt")


def _deliver(policy: Policy, ev: Event) -> tuple[str | None, Delivery]:
    if ev.kind is EventKind.END_SESSION:
        policy.end_session()
        return None, Delivery.HOOK
    if ev.kind is EventKind.TURN:
        return policy.respond(ev.text), Delivery.HOOK
    tick = getattr(policy, "tick", None)
    if callable(tick):
        out = tick(ev.text, ev.budget_ops)
        return (None if out is None else str(out)), Delivery.HOOK
    if ev.no_tick is NoTick.TURN:
        return policy.respond(ev.text), Delivery.TURN
    return None, Delivery.NOT_INVOKED


def play(test: InteractiveTest, episode: InteractiveEpisode, policy: Policy) -> EpisodeRecord:
    """Run one episode against an in-process policy (the reference driver of the event mapping).

    Args:
        test: The test.
        episode: One of its generated episodes.
        policy: A :class:`Policy`, optionally with ``tick(text, budget_ops)`` (a scheduler hook) and
            ``fork()`` (checkpoint clones; without it a deep copy is used).

    Returns:
        The episode's record.
    """
    session = test.session(episode)
    ev = session.next_event()
    while ev is not None:
        target = policy
        if ev.clone:
            fork = getattr(policy, "fork", None)
            target = fork() if callable(fork) else copy.deepcopy(policy)
        reply, delivery = _deliver(target, ev)
        session.send(reply, delivery)
        ev = session.next_event()
    return session.record()


def run_test(test: InteractiveTest, seed: int,
             make_policy: Callable[[], Policy]) -> tuple[list[EpisodeRecord], PanelScore]:
    """Every episode of one replicate, each on a fresh policy, and the score."""
    records = [play(test, e, make_policy()) for e in test.generate(seed)]
    return records, test.score(records)


def rate(num: int, den: int) -> float | None:
    """``num / den``, or ``None`` for an empty denominator."""
    return None if den == 0 else num / den


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the non-missing values (``None`` when there are none)."""
    vs = [v for v in values if v is not None]
    return None if not vs else sum(vs) / len(vs)


def strict_mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values, ``None`` when any is missing (a capacity is never taken over a subset, §2)."""
    vs = list(values)
    if not vs or any(v is None for v in vs):
        return None
    return sum(v for v in vs if v is not None) / len(vs)


def proportion_score(test_id: str, axis: Axis, records: Sequence[EpisodeRecord], arms: Sequence[str],
                     *, features: dict[str, Any], controls: dict[str, Any]) -> PanelScore:
    """A proportion capacity over the counted episodes of ``arms`` (missing when none was invoked)."""
    scored = [r for r in records if r.arm in arms]
    counted = [r for r in scored if r.outcome.counted]
    invalid = sum(r.outcome is Outcome.INVALID for r in counted)
    if not counted:
        reason = "not invoked: the system has no tick hook" if scored else "no episodes"
        return PanelScore(test_id=test_id, axis=axis, capacity=None, features=features, controls=controls,
                          missing_reason=reason)
    ok = sum(r.outcome is Outcome.SUCCESS for r in counted)
    return PanelScore(test_id=test_id, axis=axis, capacity=ok / len(counted), correct=ok, total=len(counted),
                      features=features, controls=controls, invalid=invalid)


_SYLLABLES = ("ba", "de", "fi", "go", "ku", "la", "me", "ni", "po", "ru", "sa", "te", "vi", "zo", "ka", "lu")


def nonce(rng: Any, syllables: int = 3) -> str:
    """A pronounceable nonce word (no meaning a model could lean on)."""
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables))
