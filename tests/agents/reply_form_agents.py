"""Agents that answer in each reply form (and one that does not), for the one-protocol tests.

Each echoes a fixed answer: a memory-panel abstention (JSON) or, for a RES prompt, the first
action token, so a test can check that the text reached the stored results unchanged.
"""

from __future__ import annotations

import json
from typing import Any

from sitbench.agents import AgentReply

ABSTAIN = json.dumps({"abstain": True, "answer": None})


def _text(utterance: str) -> str:
    tokens = [line.split(" - ")[0] for line in utterance.splitlines() if " - " in line]
    return tokens[0] if "Record owner:" in utterance and tokens else ABSTAIN


class FormAgent:
    """Answers in the form ``form``: ``str``, ``dict``, ``model`` (AgentReply), ``plain`` (an accepted form whose
    text is plain words, not the memory rubric's JSON) or ``bad`` (an int)."""

    def __init__(self, form: str) -> None:
        self.form = form

    async def ingest(self, subject: Any) -> None:
        return None

    async def respond(self, turn: Any) -> Any:
        text = _text(turn.utterance)
        if self.form == "str":
            return text
        if self.form == "dict":
            return {"text": text}
        if self.form == "model":
            return AgentReply(text=text)
        if self.form == "plain":
            return "I hold no record of that."
        return 42

    async def end_session(self) -> None:
        return None


def dict_form() -> FormAgent:
    return FormAgent("dict")


def model_form() -> FormAgent:
    return FormAgent("model")


def bad_form() -> FormAgent:
    return FormAgent("bad")


def plain_text() -> FormAgent:
    return FormAgent("plain")
