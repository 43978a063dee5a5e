"""Two deterministic reference agents for RES: what a good and a poor answer pattern look like.

Both read only the turn's utterance, the cell's user message (never the scenario file, its ideals
or its rationale), and answer through the agent protocol:

* :func:`owner_aware` acts on the record only when it is the decider's own (``Record owner: you``)
  or when it is told to portray the owner (``role``); for a peer's or a fictional assistant's
  record it keeps the untouched default. It replies ``{"text": TOKEN}``.
* :func:`owner_blind` acts on the record whoever owns it: a peer's scratch directory or a fictional
  assistant's promise becomes its own. It replies with the bare token.

Which action is "the record's" and which is "the default" is read from the prompt's wording: an
action described as the default (``the default``, ``from page 1``, ``from the beginning``…) is the
default, the other one follows the record; with no such marker, the action whose distinctive words
the record uses more follows the record. This reading is tuned to the wording of the packaged
scenarios and is wrong on one of them (``res-tc-04``, where filing a new access request shares more
words with the record than waiting for the filed one): a reference, not a model of reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sitbench.agents import AgentInfo, AgentReply, AgentSubject, AgentTurn

_ACTION = re.compile(r"^([A-Z][A-Z0-9_]{2,63}) - (.+)$", re.M)
_DEFAULT = re.compile(r"\bdefault\b|\b(?:from|at) (?:page|form|step) 1\b|\bstep 1\b|\bfrom the (?:beginning|start|first)\b",
                      re.I)
_WORD = re.compile(r"[a-z0-9][a-z0-9\-./]*[a-z0-9]|[a-z0-9]")
_STOP = frozenset("a an the to of and or in on at for with your you it its from by is are be this that as i my me all "
                  "any first".split())


@dataclass(frozen=True)
class Reading:
    """What a reference agent reads in one RES prompt."""

    own_record: bool
    """The record is the decider's (``self``) or the decider portrays its owner (``role``)."""
    record_action: str
    """The token of the action that follows the record."""
    default_action: str
    """The token of the untouched default."""


def _section(text: str, start: str, end: str) -> str:
    rest = text.partition(start)[2]
    return rest.partition(end)[0] if rest else ""


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def read_prompt(utterance: str) -> Reading | None:
    """Read a RES user message: whose record, and which action follows it. ``None``: not a RES prompt."""
    owner = next((line for line in utterance.splitlines() if line.startswith("Record owner:")), None)
    actions = _ACTION.findall(_section(utterance, "Actions:\n", "\n\n"))
    if owner is None or len(actions) != 2:
        return None
    own = owner.startswith("Record owner: you.") or "assigned to portray" in owner
    (first, first_text), (second, second_text) = actions
    marked = [bool(_DEFAULT.search(first_text)), bool(_DEFAULT.search(second_text))]
    if marked[0] != marked[1]:
        default = first if marked[0] else second
    else:
        record = _words(_section(utterance, "Record (entries written by the record owner, in the first person):\n",
                                 "\n\nPresent request:"))
        a, b = _words(first_text), _words(second_text)
        default = second if len((a - b) & record) >= len((b - a) & record) else first
    follows = second if default == first else first
    return Reading(own_record=own, record_action=follows, default_action=default)


class _ReferenceAgent:
    """Shared plumbing: nothing to ingest but the instruction, no state between cells."""

    name = "res-reference"
    owner_aware = True

    async def ingest(self, subject: AgentSubject) -> None:
        return None

    async def end_session(self) -> None:
        return None

    def describe(self) -> AgentInfo:
        return AgentInfo(name=self.name, version="1")

    def choose(self, utterance: str) -> str:
        reading = read_prompt(utterance)
        if reading is None:
            return "I can only answer RES prompts."
        if reading.own_record or not self.owner_aware:
            return reading.record_action
        return reading.default_action


class OwnerAwareAgent(_ReferenceAgent):
    """Follows a record only when it is its own (or it portrays the owner)."""

    name = "res-owner-aware"

    async def respond(self, turn: AgentTurn) -> dict[str, str]:
        return {"text": self.choose(turn.utterance)}


class OwnerBlindAgent(_ReferenceAgent):
    """Follows every record as if it were its own."""

    name = "res-owner-blind"
    owner_aware = False

    async def respond(self, turn: AgentTurn) -> AgentReply | str:
        return self.choose(turn.utterance)


def owner_aware() -> OwnerAwareAgent:
    """Factory of the good reference agent (``--agent sitbench.res:owner_aware``)."""
    return OwnerAwareAgent()


def owner_blind() -> OwnerBlindAgent:
    """Factory of the poor reference agent (``--agent sitbench.res:owner_blind``)."""
    return OwnerBlindAgent()
