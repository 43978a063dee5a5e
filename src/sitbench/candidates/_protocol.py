"""The one interface every answerer implements: mocks, HTTP APIs, local models."""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, SkipValidation
from typing_extensions import TypedDict


class Message(BaseModel):
    """One chat message sent to a candidate."""

    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    """Chat role."""
    content: str
    """Exact text of the message."""


class DecodingConfig(BaseModel):
    """Decoding parameters; recorded verbatim in every run manifest."""

    model_config = ConfigDict(frozen=True)

    temperature: float = Field(default=0.0, ge=0.0, le=2.0, allow_inf_nan=False)
    """Sampling temperature, 0–2; 0 requests greedy decoding."""
    top_p: float = Field(default=1.0, gt=0.0, le=1.0, allow_inf_nan=False)
    """Nucleus sampling mass, in (0, 1]."""
    max_tokens: int = Field(default=512, ge=1)
    """Maximum output tokens (at least 1)."""
    seed: int | None = 0
    """Seed passed to providers that accept one (never treated as proof of determinism)."""


class PromptView(TypedDict, total=False):
    """The structured twin of a prompt's candidate-visible evidence, written by the prompt builders
    (:func:`sitbench.configs.build_prompt`) and the runner's schedule, read by the deterministic mocks
    and the reference agents. Every key is optional: a configuration shows only what its prompt shows.
    Records, beliefs, relationships and acquisitions are the visible store's records dumped as JSON.
    """

    config: str
    """The configuration that built the prompt (``A``–``I``, ``G_budget``)."""
    tau: str
    """The envelope's date (ISO), the τ of the turn being answered."""
    capability: str | None
    """The capability mode declared to the candidate (C–I), else ``None``."""
    interlocutor_id: str
    """Opaque id of the person asking."""
    interlocutor: str
    """How the person asking is described in the envelope."""
    utterance: str
    """What the person says this turn."""
    profile: dict[str, Any] | None
    """The public profile shown (B–I), else ``None``."""
    records: list[dict[str, Any]]
    """Evidence records shown, oldest first (D–I)."""
    beliefs: list[dict[str, Any]]
    """Belief histories shown (G–I)."""
    relationships: list[dict[str, Any]]
    """Relationship states shown (D–I)."""
    acquisitions: list[dict[str, Any]]
    """Acquisition records shown (D–I)."""
    mediation: list[dict[str, Any]] | None
    """Mediation items of configuration H."""
    history: list[dict[str, str]]
    """Earlier exchanges of the session, each ``{"user": …, "assistant": …}`` (none at its opening turn)."""
    budget: dict[str, Any]
    """``G_budget``'s budget record."""


class CandidateRequest(BaseModel):
    """Everything a candidate may see for one model call."""

    trial_id: str
    """Opaque trial key (never shown to the model; used for logs and caching)."""
    messages: list[Message]
    """The serialized conversation, exactly as a remote model receives it."""
    decoding: DecodingConfig = Field(default_factory=DecodingConfig)
    """Decoding parameters."""
    view: SkipValidation[PromptView] | None = None
    """Structured form of the same candidate-visible evidence the messages carry.

    Deterministic mocks read it instead of parsing prose; remote models ignore it.
    It never contains anything the messages do not (no contract, no lineage id). Typed for the code that
    writes and reads it, not validated per call (it is built by sitbench itself, once per prompt)."""
    response_format: dict[str, Any] | None = None
    """Constrain the output, in the OpenAI chat-completions form; None (the default) sends nothing.

    ``{"type": "json_schema", "json_schema": {"name": ..., "schema": {...}, "strict": true}}``
    asks for JSON that matches the schema, ``{"type": "json_object"}`` for any JSON object.
    ``openai/`` sends it (as ``{"type": "json_object", "schema": ...}`` to servers that only
    take that form, see its ``response_format_style`` option), ``llamacpp/`` and ``local/``
    compile the schema into a grammar, ``anthropic/`` and the mocks ignore it: a caller must
    still validate what comes back."""


class CandidateResponse(BaseModel):
    """What came back from one call, or why nothing did."""

    text: str | None
    """Response text; None when the call ended in an infrastructure drop."""
    status: Literal["ok", "drop"] = "ok"
    """``drop`` marks an infrastructure failure (timeout, content filter, missing response)."""
    drop_reason: str | None = None
    """Why the trial was dropped, e.g. ``timeout after 60s`` or ``content_filter``."""
    model_sent: str = ""
    """Exact model identifier sent to the provider."""
    provider: str = ""
    """Provider name, e.g. ``openai-compatible``, ``anthropic``, ``llama.cpp``, ``mock``."""
    returned_model: str | None = None
    """Model id the provider reported back, when it reports one."""
    system_fingerprint: str | None = None
    """Provider revision / system fingerprint, when returned."""
    usage: dict[str, int] = Field(default_factory=dict)
    """Token usage as reported by the provider."""
    retries: int = 0
    """Retries spent on this call."""
    latency_s: float = 0.0
    """Wall time of the call including retries."""
    cached: bool = False
    """Served from the response cache: no model call was made for it in this run."""


def response_schema(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """The JSON schema inside a ``response_format`` (either form), or None when it carries none."""
    if not response_format:
        return None
    if response_format.get("type") == "json_schema":
        inner = response_format.get("json_schema") or {}
        schema = inner.get("schema") if isinstance(inner, dict) else None
        return schema if isinstance(schema, dict) else None
    schema = response_format.get("schema")
    return schema if isinstance(schema, dict) else None


@runtime_checkable
class Candidate(Protocol):
    """Anything that answers: ``await candidate.complete(request)``."""

    name: str
    """The model spec the user gave, e.g. ``mock/oracle`` or ``openai/gpt-4o-mini``."""

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        """Answer one request. Must not raise for infrastructure failures: return a drop."""
        ...

    def describe(self) -> dict[str, Any]:
        """Manifest fields for this candidate (provider, model id, base URL…); never secrets."""
        ...
