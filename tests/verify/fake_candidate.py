"""A scripted stand-in for a candidate model, for the LLM extractor's logic tests only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sitbench.candidates import CandidateRequest, CandidateResponse

Script = Callable[[CandidateRequest], CandidateResponse] | str | None


class FakeCandidate:
    """A scripted candidate: each call answers with the next script entry (the last repeats).

    An entry is the answer text, None for a drop, or a function of the request.
    """

    def __init__(self, *script: Script) -> None:
        self.name = "fake/scripted"
        self.script = list(script)
        self.requests: list[CandidateRequest] = []

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        self.requests.append(request)
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if callable(step):
            return step(request)
        if step is None:
            return CandidateResponse(text=None, status="drop", drop_reason="timeout after 60s", provider="fake")
        return CandidateResponse(text=step, model_sent="scripted", provider="fake")

    def describe(self) -> dict[str, Any]:
        return {"provider": "fake", "model": "scripted"}
