"""Records a run writes: manifest, one response record and one score record per trial."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sitbench.candidates import CandidateResponse, DecodingConfig, Message
from sitbench.schema import Category, Observation, Verdict


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class TurnRecord(_Record):
    """One call to the candidate within a trial's schedule."""

    turn: int
    """Index into the query's turns."""
    session: int
    """Conversation session of the turn."""
    messages: list[Message]
    """Exact messages sent."""
    response: CandidateResponse
    """What came back."""


class TrialRecord(_Record):
    """``responses.jsonl``: the exact inputs and outputs of one trial."""

    trial_id: str
    """``CONFIG:PROBE_ID`` — unique within a run."""
    config: str
    """Configuration A–I."""
    probe_id: str
    """Probe (evaluator-side id; never sent to the candidate)."""
    model: str
    """Candidate spec."""
    handler: Literal["native", "perfect"] = "native"
    """Evidence handler: the configuration's own, or the perfect (oracle-selected) one."""
    turns: list[TurnRecord] = Field(default_factory=list)
    """Every call of the schedule, in order."""
    persisted: list[str] = Field(default_factory=list)
    """What crossed each session reset, in words (logged exactly, seed §4.1)."""
    status: Literal["completed", "dropped"]
    """``dropped`` marks an infrastructure failure (never scored as wrong)."""
    drop_reason: str | None = None
    """Why the trial was dropped."""
    prompt_tokens: int = 0
    """Prompt size of the scored turn (whitespace tokens unless a tokenizer is named in the manifest)."""
    evidence_ms: float = 0.0
    """Time spent building evidence (projection, retrieval, state) for the scored turn."""

    @property
    def response_text(self) -> str | None:
        """Text of the scored (last) turn."""
        return self.turns[-1].response.text if self.turns else None


class ScoreRecord(_Record):
    """``scores.jsonl``: observation, per-check verdict and the labels metrics need."""

    trial_id: str
    """Matches the trial record."""
    config: str
    """Configuration A–I."""
    probe_id: str
    """Probe id."""
    lineage_id: str
    """Target lineage."""
    pair_id: str
    """Collision pair of the target lineage."""
    category: Category
    """Probe category."""
    stratum: str | None = None
    """Probe stratum (pre/post, L1–L5, authorized_disclosure/withholding)."""
    theorem_qualified: bool = False
    """Member of Q*_disc."""
    gate_sensitive: bool = False
    """In the E8 gate-sensitive set."""
    capability: str
    """Capability mode of the query."""
    status: Literal["completed", "dropped"]
    """Dropped trials carry no observation or verdict."""
    observation: Observation | None = None
    """Γ̂ of the scored turn."""
    verdict: Verdict | None = None
    """Target verdict (SValid with checks)."""
    partner: Verdict | None = None
    """Partner-contract verdict for theorem-qualified probes."""
    false_memory: bool = False
    """B/G: Ĝ contains a prohibited positive claim (affirms the false premise)."""
    temporal_leak: bool = False
    """D pre: Ĝ asserts a proposition (or equivalence-class member) acquired after τ_q."""
    unauthorized_epistemic: bool = False
    """C: Ĝ asserts an unacquired fact with a personal or acquired provenance."""
    prompt_tokens: int = 0
    """Copied from the trial record (E6)."""


class RunManifest(_Record):
    """``manifest.json`` of a run: everything needed to trace and reproduce every number."""

    run_id: str
    """Opaque id."""
    created_at: str
    """UTC timestamp of the run's start."""
    finished_at: str | None = None
    """UTC timestamp of the run's end."""
    package_version: str
    """sitbench version."""
    git_commit: str | None = None
    """Commit of the sitbench checkout, when run from one."""
    dataset: dict[str, Any]
    """Suite, seed, SHA-256 of the dataset manifest and counts."""
    configs: list[str]
    """Configurations run."""
    handler: Literal["native", "perfect"] = "native"
    """Evidence handler for D–H."""
    candidate: dict[str, Any]
    """The candidate's ``describe()`` (provider, model id, base URL — never a key)."""
    decoding: DecodingConfig
    """Decoding parameters."""
    verifier_version: str | None = None
    """Verifier that produced scores.jsonl (set by ``score``)."""
    retriever: dict[str, Any] | None = None
    """Retriever id, model, version, k, similarity (configurations E/F)."""
    templates_sha256: str
    """SHA-256 of the prompt templates and policy texts."""
    shard: str | None = None
    """``i/n`` when the run is one shard."""
    seeds: dict[str, int] = Field(default_factory=dict)
    """Every seed used."""
    counts: dict[str, int] = Field(default_factory=dict)
    """attempted, completed, dropped."""
    session_reset_policy: str = ""
    """What each configuration keeps across a context reset."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Rescoring history and other notes."""
