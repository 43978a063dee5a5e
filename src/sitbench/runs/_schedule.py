"""One trial's declared schedule: its turns, pressure turns and session resets, through one candidate.

The runner (``sitbench run``) and the Inspect solver (``sitbench[inspect]``) both replay a trial with
:func:`run_trial`, so a trial means the same calls, in the same order, with the same messages, under
either harness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sitbench.candidates import (
    Candidate,
    CandidateRequest,
    CandidateResponse,
    DecodingConfig,
    Message,
    PromptView,
)
from sitbench.configs import (
    BUDGETED_G,
    SESSION_RESET_POLICY,
    BuildContext,
    PromptBuild,
    Retriever,
    build_budgeted_prompt,
    build_prompt,
    count_prompt_tokens,
)
from sitbench.errors import InputError
from sitbench.lineage import IsolationAudit
from sitbench.runs._oracle import oracle_selection
from sitbench.runs._records import TrialRecord, TurnRecord
from sitbench.schema import envelope_for
from sitbench.stores import LoadedDataset
from sitbench.verify import DEFAULT_MAX_RESPONSE_CHARS

_PERFECT_HANDLED = ("D", "E", "F", "G", "H", BUDGETED_G)


@dataclass(frozen=True)
class SessionPrompt:
    """The prompt that opens a session: the configuration's evidence and the turn's envelope."""

    build: PromptBuild
    budget: dict[str, Any] | None = None
    """For ``G_budget``: the budget record."""


def _selected(ds: LoadedDataset, config: str, probe_id: str, handler: str) -> list[int] | None:
    """Records the harness selects (configuration I, or a perfect handler in D–H); None otherwise."""
    if config == "I" or (handler == "perfect" and config in _PERFECT_HANDLED):
        probe = ds.hidden.probes[probe_id]
        query = ds.visible.queries[probe.query_key]
        return oracle_selection(probe, query, ds.hidden.lineages[probe.lineage_id], ds.hidden.registry)
    return None


def session_prompt(ds: LoadedDataset, config: str, probe_id: str, turn_index: int, *, handler: str = "native",
                   retriever: Retriever | None = None) -> SessionPrompt:
    """The serialized prompt of the session that starts at ``turn_index`` (0: the trial's first call)."""
    probe = ds.hidden.probes[probe_id]
    query = ds.visible.queries[probe.query_key]
    subject = ds.visible.subjects[query.subject]
    context = BuildContext(retriever=retriever, selected=_selected(ds, config, probe_id, handler))
    if config == BUDGETED_G:
        budgeted = build_budgeted_prompt(subject, query, turn_index, context)
        return SessionPrompt(budgeted.build, budgeted.record.model_dump(mode="json"))
    return SessionPrompt(build_prompt(config, subject, query, turn_index, context))


def opening_utterances(ds: LoadedDataset, probe_id: str) -> list[str]:
    """The utterances of the turns that open a session of the probe's schedule: the queries that
    configurations E and F retrieve with (a later turn of a session adds no evidence)."""
    turns = ds.visible.queries[ds.hidden.probes[probe_id].query_key].turns
    return [turn.utterance for index, turn in enumerate(turns)
            if index == 0 or turn.session != turns[index - 1].session]


async def run_trial(ds: LoadedDataset, config: str, probe_id: str, candidate: Candidate, *, model: str,
                    handler: str = "native", decoding: DecodingConfig | None = None,
                    retriever: Retriever | None = None, audit: IsolationAudit | None = None,
                    drop_on_error: bool = True,
                    max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS) -> TrialRecord:
    """Replay one trial's schedule through ``candidate`` and record every call.

    A session's first call carries the configuration's evidence; later calls in the same session
    replay exactly what was sent and answered, plus the new envelope. A session reset starts a new
    conversation that keeps only what the configuration declares (its evidence, rebuilt at the new
    turn); what crossed the reset is written to ``persisted``. Every serialized prompt passes the
    isolation audit before it is sent.

    Args:
        drop_on_error: a candidate that raises (other than an ``InputError``) is an infrastructure
            drop of the trial; with False the exception propagates (a harness that handles errors
            and retries itself, such as Inspect).
        max_response_chars: an answer longer than this ends the schedule there (:func:`cap_trial`).
    """
    probe = ds.hidden.probes[probe_id]
    query = ds.visible.queries[probe.query_key]
    subject = ds.visible.subjects[query.subject]
    audit = audit or IsolationAudit.for_dataset(ds)
    decoding = decoding or DecodingConfig()
    trial_id = f"{config}:{probe_id}"
    turns: list[TurnRecord] = []
    persisted: list[str] = []
    conversation: list[Message] = []
    session_view: PromptView = {}
    replies: list[dict[str, str]] = []
    session = query.turns[0].session
    prompt_tokens, evidence_ms, budget = 0, 0.0, None

    def record(status: str, drop_reason: str | None = None) -> TrialRecord:
        return TrialRecord(trial_id=trial_id, config=config, probe_id=probe_id, model=model,
                           handler=handler, turns=turns, persisted=persisted,
                           status=status, drop_reason=drop_reason,
                           prompt_tokens=prompt_tokens, evidence_ms=evidence_ms, budget=budget)

    for index, turn in enumerate(query.turns):
        if turn.session != session:
            conversation, replies = [], []
            persisted.append(f"reset before session {turn.session}: {SESSION_RESET_POLICY[config]}")
            session = turn.session
        if not conversation:
            opened = session_prompt(ds, config, probe_id, index, handler=handler, retriever=retriever)
            if opened.budget is not None:
                budget = opened.budget
            messages, view, evidence_ms = opened.build.messages, opened.build.view, opened.build.evidence_ms
            session_view = view
        else:
            messages = [*conversation, Message(role="user", content=envelope_for(query, index).render())]
            view = {**session_view, "utterance": turn.utterance, "tau": turn.t.isoformat(),
                                "history": list(replies)}
        audit.check(trial_id, subject.subject, messages)
        request = CandidateRequest(trial_id=f"{trial_id}#{index}", messages=messages, decoding=decoding, view=view)
        try:
            response = await candidate.complete(request)
        except InputError:
            raise
        except Exception as exc:  # an answerer that raises is an infrastructure drop, never a wrong answer
            if not drop_on_error:
                raise
            response = CandidateResponse(text=None, status="drop", drop_reason=f"candidate error: {exc!r}"[:300])
        turns.append(TurnRecord(turn=index, session=turn.session, messages=messages, response=response))
        prompt_tokens = count_prompt_tokens(messages)
        if response.status == "drop" or response.text is None:
            return record("dropped", response.drop_reason or "no response")
        if len(response.text) > max_response_chars:
            break  # the trial is invalid whatever comes next: nothing more is sent (see cap_trial)
        conversation = [*messages, Message(role="assistant", content=response.text)]
        replies.append({"user": messages[-1].content, "assistant": response.text})
    return cap_trial(record("completed"), max_response_chars)


def cap_trial(record: TrialRecord, cap: int) -> TrialRecord:
    """``record`` with its first answer longer than ``cap`` characters cut at the cap and the turns after it
    left out, flagged ``over_length`` (the answer's length); unchanged when every answer is within the cap.

    The trial then ends at that answer: it is scored invalid (``over_length``) without being read, and neither
    the answer nor a prompt that repeats it is stored whole, so one runaway answer cannot fill the disk."""
    for index, turn in enumerate(record.turns):
        text = turn.response.text
        if text is not None and len(text) > cap:
            cut = turn.model_copy(update={"response": turn.response.model_copy(update={"text": text[:cap]})})
            return record.model_copy(update={"turns": [*record.turns[:index], cut], "over_length": len(text),
                                             "status": "completed", "drop_reason": None})
    return record
