"""What passes between the harness and an agent, and what a run records about it.

Every model here is serialized: sent to an agent (in process or over HTTP), returned by one,
or written into a run's ``manifest.json`` and ``responses.jsonl``. ``sitbench schema`` exports
them as JSON Schema so an agent in any language can be checked against them.
"""

from __future__ import annotations

import datetime as dt
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sitbench.schema import CapabilityMode, Interlocutor, SubjectEvidence


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class StatePolicy(str, Enum):
    """How each trial starts from a clean declared state."""

    FORK = "fork"
    """The subject is ingested once; every trial runs on a ``fork()`` of that ingested state."""
    REINGEST = "reingest"
    """Every trial gets a fresh agent from the factory, which ingests the subject again."""


class Transport(str, Enum):
    """Where the agent runs."""

    PYTHON = "python"
    """A factory called in this process."""
    HTTP = "http"
    """A server speaking the HTTP agent protocol."""


class AgentFailure(str, Enum):
    """Why an agent trial was dropped: the first words of its ``drop_reason``."""

    ERROR = "agent error"
    """A call raised (or the HTTP agent answered an error status)."""
    TIMEOUT = "agent timeout"
    """A call ran past the per-call timeout."""
    MALFORMED = "agent malformed output"
    """A call returned something the protocol does not allow."""


class MemoryOp(str, Enum):
    """Kinds of memory operation an agent may report."""

    ADD = "add"
    """Something was written to persistent memory."""
    SEARCH = "search"
    """Memory was searched or retrieved from."""
    UPDATE = "update"
    """An existing memory was changed."""
    DELETE = "delete"
    """A memory was removed."""
    OTHER = "other"
    """Anything else (indexing, consolidation, summarization…)."""


class MemoryOperation(_Model):
    """One memory operation, as the agent reports it (the harness records it, never checks it)."""

    op: MemoryOp
    """What kind of operation."""
    count: int = Field(default=1, ge=0)
    """How many items it touched (records written, hits returned…)."""
    detail: str = ""
    """Free text: the query searched, the store used…"""


class AgentSubject(_Model):
    """``ingest`` input: one subject's candidate-visible evidence, exactly as store 1 holds it."""

    subject_key: str
    """Opaque key of this evidence (a content hash): it reveals no lineage, pair or probe."""
    evidence: SubjectEvidence
    """The subject's store-1 file: dated records with provenance and disclosure tier, acquisitions,
    relationships (with clearance tiers), beliefs with history, profile invariants and occupations.
    Its ``subject`` field carries ``subject_key``. Records that the trial's own schedule produces (a
    conversation the agent is about to have) are withheld: the agent is to remember them itself."""
    withheld_records: int = Field(default=0, ge=0)
    """How many such session records were withheld."""


class AgentTurn(_Model):
    """``respond`` input: one user turn of a trial's declared schedule."""

    turn: int = Field(ge=0)
    """Index of the turn within the trial's schedule."""
    session: int = Field(ge=1)
    """Conversation session of the turn; ``end_session`` was called before a new one starts."""
    date: dt.date
    """The date of the conversation: the agent answers as of this day."""
    interlocutor: Interlocutor
    """Who is speaking: an id matched against the evidence's relationships (unknown ids are
    strangers, public clearance) and the description the envelope uses."""
    utterance: str
    """What the interlocutor says."""
    capability: CapabilityMode
    """Capability mode α of the query."""
    capability_policy: str
    """The policy sentence of that mode (the same text configurations C–I show)."""
    envelope: str
    """The canonical envelope Env(q) of this turn, byte-identical to the one every configuration sends."""


class TokenUsage(_Model):
    """Tokens spent, when the agent's model reports them."""

    prompt_tokens: int = Field(default=0, ge=0)
    """Input tokens."""
    completion_tokens: int = Field(default=0, ge=0)
    """Output tokens."""


class AgentReply(_Model):
    """``respond`` output (an agent may also return the bare text)."""

    text: str
    """The answer, in the identity's voice."""
    usage: TokenUsage | None = None
    """Tokens this answer cost, when known."""
    memory_ops: list[MemoryOperation] = Field(default_factory=list)
    """Memory operations made while answering."""
    model: str | None = None
    """Model id behind the answer, when the agent wraps one."""


class IngestReport(_Model):
    """``ingest`` output (optional: an agent may return nothing)."""

    usage: TokenUsage | None = None
    """Tokens ingesting cost, when known."""
    memory_ops: list[MemoryOperation] = Field(default_factory=list)
    """Memory operations made while ingesting."""


class AgentInfo(_Model):
    """What an agent says about itself (``describe()``; ``GET /info`` over HTTP)."""

    name: str = "agent"
    """Name of the system under test."""
    version: str = ""
    """Its version."""
    model: str | None = None
    """Model it wraps, when any."""
    supports_fork: bool = False
    """Whether ``fork()`` (``POST /fork``) copies an ingested state."""
    hooks: list[Literal["tick", "erase", "inject_fault", "repair_fault"]] = Field(default_factory=list)
    """The optional CHI panel hooks the agent offers (over HTTP ``POST /tick``, ``/erase``, ``/fault``,
    ``/repair``); a CHI test that needs a hook not listed is recorded missing for the agent, never failed."""


class AgentManifest(_Model):
    """``manifest.json`` ``agent``: which agent ran and how trials got a clean state."""

    spec: str
    """The ``--agent`` value."""
    transport: Transport
    """In process (``python``) or over the HTTP agent protocol (``http``)."""
    info: AgentInfo
    """What the agent said about itself."""
    state_policy: StatePolicy
    """How each trial started clean."""
    timeout_s: float
    """Limit on each call to the agent; a call past it drops the trial."""
    withholding: str
    """What is left out of the evidence an agent ingests, in words."""
    options: dict[str, str] = Field(default_factory=dict)
    """Keyword arguments given to the factory (``--agent-option KEY=VALUE``)."""


class AgentTrialRecord(_Model):
    """``responses.jsonl`` ``agent``: the accounting of one trial run through an agent."""

    state_policy: StatePolicy
    """How the trial started clean."""
    subject_key: str
    """Opaque key of the ingested evidence."""
    evidence_sha256: str
    """SHA-256 of the exact ingest payload."""
    withheld_records: int = 0
    """Session records withheld because the trial's schedule produces them."""
    ingest_ms: float = 0.0
    """Time ``ingest`` took (under ``fork``, the one shared ingest of this evidence)."""
    fork_ms: float | None = None
    """Time ``fork`` took, under ``fork``."""
    answer_ms: float = 0.0
    """Time the ``respond`` calls took, all turns together: each from the moment the agent's code first runs to
    its return (time queued behind other trials in the event loop is not the agent's; waits the agent awaits
    itself, such as a model call, are)."""
    end_sessions: int = 0
    """Session resets (``end_session`` calls) in the schedule."""
    usage: TokenUsage = Field(default_factory=TokenUsage)
    """Tokens reported over ingest (when not shared) and every answer."""
    ingest_ops: list[MemoryOperation] = Field(default_factory=list)
    """Memory operations reported by ingest."""
    turn_ops: list[list[MemoryOperation]] = Field(default_factory=list)
    """Memory operations reported by each ``respond``, in turn order."""


class StateRequest(_Model):
    """Body of ``POST /end_session`` and ``POST /reset``."""

    state: str
    """Opaque handle of one agent state, chosen by the harness."""


class IngestRequest(_Model):
    """Body of ``POST /ingest``."""

    state: str
    """Handle of a new, empty state to ingest into."""
    subject: AgentSubject
    """The evidence."""


class RespondRequest(_Model):
    """Body of ``POST /respond``."""

    state: str
    """Handle of the state answering."""
    turn: AgentTurn
    """The turn."""


class ForkRequest(_Model):
    """Body of ``POST /fork``."""

    state: str
    """Handle of the new state."""
    source: str
    """Handle of an ingested state to copy (it stays as it is)."""


class TickRequest(_Model):
    """Body of ``POST /tick``: one neutral scheduler tick of ``state``."""

    state: str
    """Handle of the agent state."""
    budget_ops: int | None = None
    """Background operations the tick may use (None: the agent's declared budget)."""
    observation: str | None = None
    """The tick's text when the harness sends one (the C and A tests): the tick number and any record newly
    placed in the allowed information channel (C3); None for a plain maintenance tick."""


class TickReply(_Model):
    """Body an agent returns from ``POST /tick`` (``{}`` is enough: nothing done)."""

    ok: bool = True
    """Always true; a failure is an HTTP error status."""
    text: str | None = None
    """What the agent does on this tick, in the reply format the tick's text states (C1's and C6's actions,
    C3's logged hypothesis); None: nothing."""


class FaultRequest(_Model):
    """Body of ``POST /fault`` and ``POST /repair``: a declared, bounded, reversible memory-index fault."""

    state: str
    """Handle of the agent state."""
    fault: dict[str, Any]
    """The fault as the harness declares it: ``kind`` (``hide_keys``), ``fraction``, ``seed``, ``sham``."""


class Ack(_Model):
    """Body an agent returns from ``/end_session``, ``/fork`` and ``/reset`` (``{}`` is enough)."""

    ok: bool = True
    """Always true; a failure is an HTTP error status."""


#: Agent-protocol models exported by ``sitbench schema`` (file name stem → model).
AGENT_SCHEMAS: dict[str, type[BaseModel]] = {
    "agent_subject": AgentSubject,
    "agent_turn": AgentTurn,
    "agent_reply": AgentReply,
    "agent_ingest_report": IngestReport,
    "agent_info": AgentInfo,
    "agent_http_ingest": IngestRequest,
    "agent_http_respond": RespondRequest,
    "agent_http_state": StateRequest,
    "agent_http_fork": ForkRequest,
    "agent_http_tick": TickRequest,
    "agent_http_tick_reply": TickReply,
    "agent_http_fault": FaultRequest,
    "agent_http_ack": Ack,
    "agent_trial_record": AgentTrialRecord,
    "agent_manifest": AgentManifest,
}
