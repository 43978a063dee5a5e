"""Why a run's trials were dropped, in words a user can act on: the distinct reasons, counted, and whether
re-attempting them (``--resume``) can help.

A drop is never scored as a failure (seed §8.5), but a user has to know why it happened to fix it: a
timeout or a refused connection may pass on a second try, while an agent that raises, returns an ``int`` or
a model that refuses the request on its content fails again in the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from enum import Enum

from pydantic import BaseModel, ConfigDict

from sitbench.runs._records import TrialRecord


class DropKind(str, Enum):
    """Whether trying a dropped trial again can succeed."""

    TRANSIENT = "transient"
    """The network, the server or the clock: a re-attempt (``--resume``) can succeed."""
    PERSISTENT = "persistent"
    """The agent's code, its reply or the request itself: the same trial fails again until that is fixed."""


_TRANSIENT = ("timeout", "connection_", "rate_limited", "server_error", "malformed_response", "agent timeout",
              "no response")
"""How the reasons of failures that can pass on a second try begin (the candidates' and agents' drop reasons)."""

_CUT = 200
"""The longest reason shown; the whole text is in responses.jsonl."""


class DropReason(BaseModel):
    """One distinct reason trials of a run were dropped."""

    model_config = ConfigDict(frozen=True)

    reason: str
    """The reason as recorded (the accepted-forms list of a malformed reply left out), at most 200 characters."""
    count: int
    """How many dropped trials give this reason."""
    kind: DropKind
    """Whether ``--resume`` can help."""
    first_trial: str
    """The first trial (in the run's order) that gave it."""


def drop_kind(reason: str) -> DropKind:
    """Whether a drop with this recorded reason can pass when the trial is tried again.

    Args:
        reason: a trial's ``drop_reason``.

    Returns:
        :attr:`DropKind.TRANSIENT` for a timeout, a refused or reset connection, a rate limit, a server error or a
        garbled body; :attr:`DropKind.PERSISTENT` for everything else (an agent that raised or replied in no
        accepted form, a content filter, a context overflow, a rejected request).
    """
    return DropKind.TRANSIENT if reason.startswith(_TRANSIENT) else DropKind.PERSISTENT


def summarize_drops(trials: Iterable[TrialRecord]) -> list[DropReason]:
    """The distinct reasons of a run's dropped trials, in the order they first occur, each counted.

    Args:
        trials: the run's trial records (dropped and completed alike; only the dropped are read).

    Returns:
        One :class:`DropReason` per distinct reason.
    """
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for trial in trials:
        if trial.status != "dropped":
            continue
        reason = _shown(trial.drop_reason or "unknown")
        counts[reason] += 1
        first.setdefault(reason, trial.trial_id)
    return [DropReason(reason=reason, count=counts[reason], kind=drop_kind(reason), first_trial=trial)
            for reason, trial in first.items()]


def _shown(reason: str) -> str:
    text = " ".join(reason.split("; accepted replies:")[0].split())
    return text if len(text) <= _CUT else f"{text[:_CUT - 3]}..."
