"""The interface a system under test implements to be driven through SIT's schedules."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from sitbench.agents._models import (
    AgentInfo,
    AgentReply,
    AgentSubject,
    AgentTurn,
    IngestReport,
)


@runtime_checkable
class Agent(Protocol):
    """An agent with its own memory: ingest one subject's evidence, then answer a trial's turns.

    The harness calls, for each trial: ``ingest`` once (or ``fork`` of an agent that ingested the
    same evidence), then ``respond`` for every turn of the declared schedule, with ``end_session``
    between sessions, then ``close()`` (optional) when the harness is done with it. Projection to
    the turn's date, disclosure to the interlocutor and provenance are the agent's job: that is
    what is measured.

    Methods may be ``async def`` (preferred: the harness can then time them out) or plain ones,
    which run on the harness's event loop: a plain method that blocks forever cannot be timed out,
    so make it async (or use the HTTP protocol) when it may hang.
    A method that raises, runs past the call timeout or returns something malformed drops the
    trial with the reason; it is re-attempted by ``sitbench run --resume``.
    """

    async def ingest(self, subject: AgentSubject) -> IngestReport | None:
        """Take in one subject's evidence as persistent state.

        Args:
            subject: store 1's evidence for the subject, under an opaque key.

        Returns:
            Optionally, the tokens and memory operations ingesting cost.
        """
        ...

    async def respond(self, turn: AgentTurn) -> AgentReply | str | dict[str, Any]:
        """Answer one turn of the schedule, as the identity, on the turn's date.

        Args:
            turn: the envelope (date, interlocutor, utterance) and capability mode.

        Returns:
            The answer text, a dict with a ``"text"`` string (and optionally ``"usage"``,
            ``"memory_ops"``, ``"model"``), or an :class:`AgentReply`: the forms
            :func:`sitbench.agents.normalize_reply` reads, for every battery alike.
        """
        ...

    async def end_session(self) -> None:
        """End the conversation: its context is gone; persistent state (memory) is kept."""
        ...


@runtime_checkable
class ForkableAgent(Agent, Protocol):
    """An agent that can copy its ingested state, so one ingest serves every trial of a subject."""

    async def fork(self) -> Agent:
        """A new agent whose state is an independent copy of this one's (this one is unchanged)."""
        ...


AgentFactory = Callable[[], "Agent | Awaitable[Agent]"]
"""What ``--agent module:factory`` names: called with no argument, once per clean state needed."""


def agent_info(agent: Any) -> AgentInfo:
    """The agent's ``describe()`` as :class:`AgentInfo` (a dict is validated; none gives defaults)."""
    describe = getattr(agent, "describe", None)
    info = describe() if callable(describe) else None
    if isinstance(info, AgentInfo):
        found = info
    elif isinstance(info, dict):
        found = AgentInfo.model_validate(info)
    else:
        found = AgentInfo(name=type(agent).__name__)
    if not found.supports_fork and callable(getattr(agent, "fork", None)):
        found = found.model_copy(update={"supports_fork": True})
    return found
