"""RES cells answered by an agent of the agent protocol (``sitbench res run --agent SPEC``).

An agent is driven as ``sitbench run --agent`` drives one, and its reply is read by the same
function (:func:`sitbench.agents.normalize_reply`). Every cell gets a fresh agent from the factory:

1. ``ingest`` receives a store-1 evidence file whose only record is the battery's system message
   (the instruction every model gets);
2. ``respond`` receives one turn whose utterance is the cell's user message, byte for byte (the
   record owner, the record, the present request, the two actions and the decision frame);
3. ``end_session`` and, when the agent has one, ``close``.

A call that raises, runs past the timeout or returns a reply in no accepted form makes the cell an
``error`` row whose reason starts with the words of :class:`sitbench.agents.AgentFailure`
(``agent error``, ``agent timeout``, ``agent malformed output``), as a dropped SIT trial's does.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import inspect
import time
from typing import Any

from sitbench.agents import (
    AgentFailure,
    AgentOutputError,
    AgentSubject,
    AgentTurn,
    LoadedAgent,
    check_agent,
    make_agent,
    normalize_reply,
)
from sitbench.candidates import CandidateRequest, CandidateResponse
from sitbench.errors import InputError
from sitbench.res._prompts import SYSTEM_PROMPT

AGENT_PREFIX = "agent:"
"""How an agent's rows are labelled in ``results.jsonl``'s ``model`` field: ``agent:SPEC``."""

RES_DATE = dt.date(2026, 9, 10)
"""The date every RES turn carries (the preregistration's date): the battery has no calendar."""


def res_subject() -> AgentSubject:
    """The ingest payload: evidence whose only record is the battery's system message."""
    from sitbench.schema import EventKind, EvidenceRecord, Invariants, Provenance, SubjectEvidence, Tier

    record = EvidenceRecord(t=RES_DATE, kind=EventKind.EPISODIC, text=SYSTEM_PROMPT, provenance=Provenance.TOLD_BY,
                            disclosure=Tier.PUBLIC)
    key = "res-" + hashlib.sha256(SYSTEM_PROMPT.encode("utf-8")).hexdigest()[:12]
    invariants = Invariants(alias="RES harness", birth_date=dt.date(2000, 1, 1), hometown="n/a", education="n/a",
                            hobbies=[], traits=[])
    evidence = SubjectEvidence(subject=key, invariants=invariants, occupations=[], records=[record])
    return AgentSubject(subject_key=key, evidence=evidence)


def res_turn(utterance: str) -> AgentTurn:
    """The ``respond`` input of one cell: the user message as the utterance."""
    from sitbench.configs import CAPABILITY_POLICY
    from sitbench.schema import CapabilityMode, Interlocutor

    mode = CapabilityMode.GENERAL_ALLOWED
    envelope = f"[DATE: {RES_DATE.isoformat()}] [SPEAKER: the RES harness] [MESSAGE: {utterance}]"
    return AgentTurn(turn=0, session=1, date=RES_DATE,
                     interlocutor=Interlocutor(interlocutor_id="res-harness", description="the RES harness"),
                     utterance=utterance, capability=mode, capability_policy=CAPABILITY_POLICY[mode],
                     envelope=envelope)


async def _awaited(value: Any, timeout_s: float) -> Any:
    return await asyncio.wait_for(value, timeout_s) if inspect.isawaitable(value) else value


class AgentCandidate:
    """An agent as the answerer of RES cells: a fresh agent per cell, its reply read by the agent protocol."""

    def __init__(self, loaded: LoadedAgent, timeout_s: float = 120.0) -> None:
        self.loaded = loaded
        self.timeout_s = timeout_s
        self.name = AGENT_PREFIX + loaded.spec

    def describe(self) -> dict[str, Any]:
        return {"provider": "agent", "agent": self.loaded.spec, "transport": self.loaded.transport.value,
                "info": self.loaded.info.model_dump(mode="json"), "timeout_s": self.timeout_s,
                "options": dict(self.loaded.options)}

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        """One cell: ingest the system message, answer the user message; a failure is a ``drop`` with its reason."""
        started = time.perf_counter()
        user = next(m.content for m in request.messages if m.role == "user")
        agent: Any = None
        step = "factory"
        try:
            agent = await _awaited(make_agent(self.loaded.factory), self.timeout_s)
            check_agent(self.loaded.spec, agent)
            step = "ingest"
            await _awaited(agent.ingest(res_subject()), self.timeout_s)
            step = "respond"
            reply = normalize_reply(await _awaited(agent.respond(res_turn(user)), self.timeout_s))
            step = "end_session"
            await _awaited(agent.end_session(), self.timeout_s)
        except (AgentOutputError, InputError) as exc:
            return self._drop(f"{AgentFailure.MALFORMED.value}: {exc}", started)
        except TimeoutError:
            return self._drop(f"{AgentFailure.TIMEOUT.value}: {step} ran past {self.timeout_s:g}s", started)
        except Exception as exc:  # noqa: BLE001 - an agent that raises is an error cell, never a crash
            return self._drop(f"{AgentFailure.ERROR.value}: {step}: {exc!r}"[:300], started)
        finally:
            close = getattr(agent, "close", None)
            if callable(close):
                # A failing close of a finished agent changes no answer.
                with contextlib.suppress(Exception):
                    await _awaited(close(), self.timeout_s)
        usage = reply.usage.model_dump() if reply.usage else {}
        return CandidateResponse(text=reply.text, provider="agent", model_sent=self.name, returned_model=reply.model,
                                 usage=usage, latency_s=time.perf_counter() - started)

    async def aclose(self) -> None:
        """Release what the agent spec shares between cells (an HTTP agent's connection pool)."""
        if self.loaded.aclose is not None:
            await self.loaded.aclose()

    def _drop(self, reason: str, started: float) -> CandidateResponse:
        return CandidateResponse(text=None, status="drop", drop_reason=reason, provider="agent", model_sent=self.name,
                                 latency_s=time.perf_counter() - started)
