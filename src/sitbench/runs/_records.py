"""Records a run writes: manifest, one response record and one score record per trial."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sitbench._version import __version__
from sitbench.agents import AgentManifest, AgentTrialRecord
from sitbench.candidates import CandidateResponse, DecodingConfig, Message
from sitbench.schema import Category, Configuration, Observation, Suite, Verdict

FORMAT_VERSION = 3
"""Version of the run record format (manifest, trial and score records) this sitbench writes and reads.

Raised when a record's fields change meaning or a required field is added. Format 2 added the
``unscored`` status of a score record and the response cap (``over_length``, ``max_response_chars``);
format 3 added a second reader's judgement (``second``, ``agreement``, ``contested_checks``). Every
older record reads as it was. A record without ``format_version`` was written before it existed."""


def check_format_version(version: int, written_by: object = None) -> int:
    """``version`` when this sitbench reads it; a ValueError naming what to install otherwise.

    Args:
        version: a record's ``format_version``.
        written_by: the sitbench version that wrote the record, when the record names it (a manifest).
    """
    if version < 1:
        raise ValueError(f"format_version {version} is not a run record format (formats start at 1)")
    if version > FORMAT_VERSION:
        if written_by:
            fix = f"install sitbench {written_by}, which wrote it (pip install 'sitbench>={written_by}')"
        else:
            fix = (f"install a sitbench newer than {__version__} (pip install --upgrade sitbench); the run's "
                   "manifest.json names the one that wrote it (package_version)")
        raise ValueError(f"format_version {version} is newer than sitbench {__version__} reads (format "
                         f"{FORMAT_VERSION}); {fix}")
    return version


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    @field_validator("format_version", check_fields=False)
    @classmethod
    def _readable_version(cls, version: int) -> int:
        return check_format_version(version)


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
    config: Configuration
    """Configuration A–I (or ``G_budget``)."""
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
    """Prompt size of the scored turn, in tokens of the tokenizer named in the manifest."""
    evidence_ms: float = 0.0
    """Time spent building evidence (projection, retrieval, state) for the scored turn."""
    budget: dict[str, Any] | None = None
    """For ``G_budget``: the budget record (sizes, serialization and truncation rules, dropped items)."""
    agent: AgentTrialRecord | None = None
    """For a run through an agent (``run --agent``): its state, ingest and answer times, tokens and
    reported memory operations; None for a candidate run."""
    over_length: int | None = None
    """Characters of an answer longer than the run's cap (``max_response_chars`` in the manifest): only its
    first ``max_response_chars`` are stored and the schedule stops there. The trial is scored invalid
    (``over_length``), never on the stored prefix; None when every answer was within the cap."""
    format_version: int = FORMAT_VERSION
    """Run record format (:data:`FORMAT_VERSION`); 1 when absent (runs written before it was recorded).
    A newer format than this sitbench reads is refused, naming the version to install."""

    @property
    def response_text(self) -> str | None:
        """Text of the scored (last) turn."""
        return self.turns[-1].response.text if self.turns else None


class _Tally(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ResponseTally(_Tally):
    """The fields of a turn's response that a run's manifest counts."""

    retries: int = 0
    """Retries the call needed."""
    cached: bool = False
    """Whether the response cache answered."""
    model_sent: str | None = None
    """Model id sent to the provider."""
    returned_model: str | None = None
    """Model id the provider returned."""
    system_fingerprint: str | None = None
    """The provider's system fingerprint."""


class TurnTally(_Tally):
    """A turn, as a run's manifest counts it."""

    response: ResponseTally
    """What came back."""


class TrialTally(_Tally):
    """A trial record read for its manifest counts only: prompts and texts are skipped, so reading a
    run of long prompts to count it costs a fraction of reading its records."""

    status: Literal["completed", "dropped"]
    """As in :class:`TrialRecord`."""
    turns: list[TurnTally] = Field(default_factory=list)
    """As in :class:`TrialRecord`, with only what is counted."""


class SecondReading(_Record):
    """The second reader's judgement of a trial scored with two readers (``--extractor FIRST+SECOND``)."""

    extractor: str
    """``id@version`` of the second reader."""
    observation: Observation | None = None
    """Its Γ̂ of the scored turn."""
    verdict: Verdict
    """Its target verdict."""
    partner: Verdict | None = None
    """Its partner-contract verdict (theorem-qualified probes)."""
    false_memory: bool = False
    """The ``false_memory`` flag on its reading."""
    temporal_leak: bool = False
    """The ``temporal_leak`` flag on its reading."""
    unauthorized_epistemic: bool = False
    """The ``unauthorized_epistemic`` flag on its reading."""


class ScoreRecord(_Record):
    """``scores.jsonl``: observation, per-check verdict and the labels metrics need."""

    trial_id: str
    """Matches the trial record."""
    config: Configuration
    """Configuration A–I (or ``G_budget``)."""
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
    status: Literal["completed", "dropped", "unscored"]
    """``completed``: read and judged. ``dropped``: the candidate's infrastructure failed (no answer).
    ``unscored``: there is an answer but the verifier could not read it (its extractor failed), or the run
    stored no whole record of the trial (a torn line, a trial not run yet). Neither dropped nor unscored
    trials carry an observation or verdict, and neither is ever counted as a failure."""
    unscored_reason: str | None = None
    """Why an ``unscored`` trial was not scored, and what finishes it."""
    over_length: int | None = None
    """Characters of an answer above the cap: it was judged invalid (the ``length`` check) without being
    read. None when the answer was within the cap."""
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
    agreement: Literal["agreed", "contested"] | None = None
    """With two readers: ``agreed`` when both readings give the same verdicts, ``contested`` when they differ
    (the figures' bands span both). None with one reader, and on trials no reader read."""
    contested_checks: list[str] = Field(default_factory=list)
    """The checks the two readers' verdicts differ on (``partner.NAME`` for the partner contract's)."""
    second: SecondReading | None = None
    """The second reader's judgement (two readers only); the fields above are the primary reader's."""
    prompt_tokens: int = 0
    """Copied from the trial record (E6)."""
    history_length: int = 0
    """Events in the target lineage's chronicle: T of the E6 token-scaling contrast."""
    ingest_ms: float | None = None
    """Agent runs: time the trial's ingest took (copied from the trial record); None for candidates."""
    answer_ms: float | None = None
    """Agent runs: time the trial's answers took, all turns together."""
    agent_tokens: int | None = None
    """Agent runs: tokens the agent reported (ingest and answers), prompt and completion together."""
    memory_ops: int | None = None
    """Agent runs: memory operations the agent reported (their counts summed)."""
    format_version: int = FORMAT_VERSION
    """Run record format (:data:`FORMAT_VERSION`); 1 when absent (runs written before it was recorded).
    A newer format than this sitbench reads is refused, naming the version to install."""


class ProbeSelection(BaseModel):
    """The probes a partial run was limited to, and how they were chosen."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    probe_ids: list[str] = Field(min_length=1)
    """The chosen probes, in the dataset's order."""
    rule: str
    """How they were chosen, in words (``--probes`` as given, or the seeded stratified draw of ``--limit``)."""
    limit: int | None = None
    """``--limit N``; None for ``--probes``."""
    seed: int | None = None
    """The seed of the ``--limit`` draw; None for ``--probes``."""


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
    """Absolute path, suite, seed, SHA-256 of the dataset manifest and counts."""

    @field_validator("dataset")
    @classmethod
    def _known_suite(cls, dataset: dict[str, Any]) -> dict[str, Any]:
        # A free-form dict, but the fields a reader trusts are checked like any other enum or path.
        suite = dataset.get("suite")
        if suite is not None and suite not in get_args(Suite):
            raise ValueError(f"suite {suite!r} is not one of {', '.join(get_args(Suite))}")
        if "path" in dataset and not isinstance(dataset["path"], str):
            raise ValueError(f"path must be a string (the dataset directory), got {dataset['path']!r}")
        return dataset
    configs: list[Configuration]
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
    probes: ProbeSelection | None = None
    """Set when the run is partial (``--probes`` or ``--limit``): the probes it was limited to, for every
    configuration. ``merge`` refuses a partial run beside a full one."""
    seeds: dict[str, int] = Field(default_factory=dict)
    """Every seed used."""
    counts: dict[str, int] = Field(default_factory=dict)
    """attempted, completed, dropped."""
    session_reset_policy: str = ""
    """What each configuration keeps across a context reset."""
    provider: str | None = None
    """Provider name of the candidate (``openai-compatible``, ``anthropic``, ``llama.cpp``, ``mock``)."""
    models_sent: list[str] = Field(default_factory=list)
    """Distinct model identifiers sent to the provider over the run's calls."""
    returned_models: list[str] = Field(default_factory=list)
    """Distinct model ids (immutable revisions) the provider reported back."""
    system_fingerprints: list[str] = Field(default_factory=list)
    """Distinct system fingerprints the provider reported back."""
    tokenizer: str = "whitespace words"
    """How ``prompt_tokens`` (E6) is counted."""
    cache: dict[str, Any] = Field(default_factory=dict)
    """Response cache: ``enabled``, ``epoch``, and why it was bypassed when it was."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Rescoring history, merged shards and other notes."""
    max_response_chars: int | None = None
    """The cap on one answer, in characters: a longer answer is stored cut at the cap, flagged
    ``over_length`` and scored invalid. None on runs written before the cap existed."""
    agent: AgentManifest | None = None
    """For a run through an agent (``run --agent``): which one, its transport, how each trial started
    clean and the call timeout; None for a candidate run."""
    format_version: int = FORMAT_VERSION
    """Run record format (:data:`FORMAT_VERSION`); 1 when absent (runs written before it was recorded).
    A newer format than this sitbench reads is refused, naming the version to install."""

    @model_validator(mode="before")
    @classmethod
    def _newer_format(cls, data: Any) -> Any:
        # A manifest names the sitbench that wrote it: the version to install when its format is newer.
        if isinstance(data, dict) and isinstance(data.get("format_version"), int):
            check_format_version(data["format_version"], data.get("package_version"))
        return data


def reporting_gaps(manifest: RunManifest) -> list[str]:
    """Seed §8.2 reporting fields a finished run manifest lacks (empty when complete).

    Checks: (1) model id sent, provider, timestamps, returned revision (required
    only for providers that report one: not for mocks); (2) decoding parameters;
    (3) retriever model, similarity and chunk size when E or F ran natively;
    (4) package commit or version, templates hash, dataset hash, verifier version;
    (5) attempted and completed counts.
    """
    gaps: list[str] = []
    if not manifest.models_sent:
        gaps.append("models_sent")
    if not manifest.provider:
        gaps.append("provider")
    if not manifest.created_at or not manifest.finished_at:
        gaps.append("finished_at" if manifest.created_at else "created_at")
    if manifest.provider not in (None, "mock", "agent") and manifest.counts.get("completed", 0) and not (
            manifest.returned_models or manifest.system_fingerprints):
        gaps.append("returned_models")
    decoding = manifest.decoding
    if decoding.temperature is None or decoding.top_p is None or decoding.max_tokens is None:
        gaps.append("decoding")
    if manifest.handler == "native" and any(c in "EF" for c in manifest.configs):
        retriever = manifest.retriever or {}
        for key in ("model_id", "similarity", "k"):
            if retriever.get(key) in (None, ""):
                gaps.append(f"retriever.{key}")
    if not (manifest.git_commit or manifest.package_version):
        gaps.append("git_commit")
    if not manifest.templates_sha256:
        gaps.append("templates_sha256")
    if not manifest.dataset.get("manifest_sha256"):
        gaps.append("dataset.manifest_sha256")
    if not manifest.verifier_version:
        gaps.append("verifier_version")
    for key in ("attempted", "completed"):
        if key not in manifest.counts:
            gaps.append(f"counts.{key}")
    return gaps


RUN_SCHEMAS: dict[str, type[BaseModel]] = {
    "run_manifest": RunManifest,
    "trial_record": TrialRecord,
    "score_record": ScoreRecord,
}
"""``sitbench schema`` names of the run records: ``manifest.json``, a ``responses.jsonl`` line and a
``scores.jsonl`` line."""
