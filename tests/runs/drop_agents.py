"""Agents whose trials drop for known reasons, for the drop-reason tests."""

from __future__ import annotations

import asyncio
from typing import Any


class DropAgent:
    """Raises on a question about Kyoto, sleeps past any short timeout on one about Lisbon, replies an int to
    the rest (``mode="bad"``); or answers every question but sleeps on the Lisbon ones (``mode="slow"``)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    async def ingest(self, subject: Any) -> None:
        return None

    async def respond(self, turn: Any) -> Any:
        if "Lisbon" in turn.utterance:
            await asyncio.sleep(5)
        if self.mode == "slow":
            return "I don't remember anything like that."
        if "Kyoto" in turn.utterance:
            raise RuntimeError("boom")
        return 7

    async def end_session(self) -> None:
        return None


def bad() -> DropAgent:
    return DropAgent("bad")


def slow() -> DropAgent:
    return DropAgent("slow")
