"""Interchange: UTF-8 JSON manifests and JSONL observation records (spec §9).

Every observation carries the required fields ``version, config_hash, run,
agent, seed, step, wall_time, history_hash, state_hash, capacities,
human_similarity, chi, reference_kind, synthetic, budgets``. Unknown fields are
rejected so a typo cannot silently drop data.

Validation rules (each raises :class:`~sitbench.errors.InputError` naming the
file, the line, the field and the fix):

* nonfinite numbers (``NaN``, ``Infinity``) anywhere are rejected;
* capacities and similarities must lie in [0, 1]; CHI in [0, 100];
* ``capacities`` and a non-null ``human_similarity`` name all five axes, with
  ``null`` marking a missing value (explicit missingness);
* a non-null CHI needs all five similarities and must equal
  ``100 * prod h_j ** w_j`` under the manifest weights (to within
  ``CHI_CHECK_TOLERANCE``): a stored CHI cannot disagree with its profile;
* ``reference_kind`` ``none`` carries no similarity and no CHI; any similarity
  needs a calibration (or synthetic reference) ID in the manifest;
* the evidence class may not claim more than the data: a synthetic record can
  only appear under ``synthetic-demonstration`` or ``illustrative-schema-only``
  and never carries a ``human`` reference; ``human-referenced`` needs a
  calibration ID, non-synthetic records with ``reference_kind`` ``human`` and
  all five similarities in every record;
* memory curves need a declared ``memory_mechanism``; an ``in-context`` or
  ``replayed-transcript`` curve is labelled as such, never as persistent EIMC;
* each ``(run, step)`` appears once; versions and (when declared) the config
  hash match the manifest; feature vectors match the declared probe schema;
  memory curves use the manifest's load grid.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sitbench._options import MAX_RESAMPLES, MAX_SEED
from sitbench.chi._capacity import TaskScore
from sitbench.chi._common import AXES, MEMORY_FACTORS, SPEC_VERSION, check_weights
from sitbench.chi._memory import DEFAULT_TAU, MemoryPoint, check_grid, check_tau
from sitbench.chi._similarity import chi_score
from sitbench.chi._uncertainty import check_resampling
from sitbench.errors import InputError
from sitbench.stores import JsonProblem, loads_json, read_bytes, read_text, reject_unpaired_surrogate

EvidenceClass = Literal["synthetic-demonstration", "capacity-only", "human-referenced", "illustrative-schema-only"]
"""Evidence classes; the synthetic class may never be described as either empirical class."""

ReferenceKind = Literal["human", "synthetic", "none"]
"""What the similarity profile is measured against."""

MemoryMechanism = Literal["persistent", "in-context", "replayed-transcript", "none", "oracle-evidence"]
"""Declared memory mechanism: context-window size alone is never persistent memory. ``none`` is a
system with no persistent mechanism (a no-persistence control or a scripted mimic);
``oracle-evidence`` is a diagnostic selection ceiling that reads the answer key's evidence."""

CHI_CHECK_TOLERANCE = 1e-9
"""Declared absolute tolerance (CHI points) when checking a stored CHI against its profile."""

_STRICT = ConfigDict(extra="forbid", allow_inf_nan=False)


def _five_axes(value: dict[str, float | None] | None, field: str) -> dict[str, float | None] | None:
    if value is None:
        return None
    extra = sorted(set(value) - set(AXES))
    absent = [a for a in AXES if a not in value]
    if extra:
        raise ValueError(f"unknown axis {extra}; axes are {list(AXES)}")
    if absent:
        raise ValueError(f"axis {absent} absent; give all five axes, null where missing")
    for a, v in value.items():
        if v is not None and not 0.0 <= v <= 1.0:
            raise ValueError(f"{field}.{a} = {v!r} is outside [0, 1]")
    return {a: value[a] for a in AXES}


class MemoryCurveRecord(BaseModel):
    """A Memory Capacity Curve measured at one checkpoint."""

    model_config = _STRICT

    grid: list[int]
    """Registered loads (must equal the manifest's ``load_grid``)."""
    points: dict[int, MemoryPoint]
    """Factors per load; absent loads are untested."""
    delay: float | None = None
    """Event delay between ingestion and probing (ticks or intervening events)."""
    costs: dict[str, float] = {}
    """Costs of this sweep (tokens, retrieval tokens, tool calls, background operations...)."""

    @field_validator("costs")
    @classmethod
    def _costs(cls, v: dict[str, float]) -> dict[str, float]:
        for k, x in v.items():
            if x < 0:
                raise ValueError(f"costs.{k} = {x!r} is negative")
        return v


class ChiObservation(BaseModel):
    """One JSONL record: one run (cluster) at one checkpoint."""

    model_config = _STRICT

    version: str
    """Protocol/kit version; must equal the manifest's ``version``."""
    config_hash: str
    """Hash of the evaluated system's configuration."""
    run: str
    """Independent cluster (trajectory) id; the bootstrap resamples runs."""
    agent: str
    """Agent or system id."""
    seed: int
    """Seed of this run."""
    step: int = Field(ge=0)
    """Checkpoint index."""
    wall_time: float = Field(ge=0)
    """Wall-clock seconds since the run started (reported apart from event time)."""
    history_hash: str
    """Hash of the history ingested so far."""
    state_hash: str
    """Hash of the persistent-state snapshot (tracks artifacts, not identity)."""
    capacities: dict[str, float | None]
    """Capacity ``p`` per axis (all five keys; null = missing)."""
    human_similarity: dict[str, float | None] | None
    """Similarity ``h`` per axis, or null without calibration."""
    chi: float | None = Field(ge=0, le=100)
    """CHI in [0, 100], or null."""
    reference_kind: ReferenceKind
    """``human``, ``synthetic`` or ``none``."""
    synthetic: bool
    """True for synthetic data."""
    budgets: dict[str, float] = Field()
    """Resource budgets and costs (tokens, tool calls, workers, deadline...)."""
    tick: float | None = None
    """Event/tick time of the checkpoint."""
    state: dict[str, Any] = {}
    """State descriptors (active goals, indexed units, memory versions...)."""
    features: list[float | None] | None = None
    """Normalized blind-probe feature vector in [0, 1] (schema ``feature_schemas['probe']``)."""
    memory: MemoryCurveRecord | None = None
    """Memory Capacity Curve at this checkpoint."""
    task_results: list[TaskScore] | None = None
    """Per-test raw outcomes."""

    @field_validator("capacities")
    @classmethod
    def _caps(cls, v: dict[str, float | None]) -> dict[str, float | None]:
        out = _five_axes(v, "capacities")
        assert out is not None
        return out

    @field_validator("human_similarity")
    @classmethod
    def _sim(cls, v: dict[str, float | None] | None) -> dict[str, float | None] | None:
        return _five_axes(v, "human_similarity")

    @field_validator("features")
    @classmethod
    def _feat(cls, v: list[float | None] | None) -> list[float | None] | None:
        for k, x in enumerate(v or []):
            if x is not None and not 0.0 <= x <= 1.0:
                raise ValueError(f"features[{k}] = {x!r} is outside [0, 1]")
        return v

    @field_validator("budgets")
    @classmethod
    def _budgets(cls, v: dict[str, float]) -> dict[str, float]:
        for k, x in v.items():
            if x < 0:
                raise ValueError(f"budgets.{k} = {x!r} is negative")
        return v


class Analysis(BaseModel):
    """Registered analysis settings."""

    model_config = _STRICT

    n_resamples: int = Field(default=2000, le=MAX_RESAMPLES)
    """Whole-cluster bootstrap resamples (at least 2,000; at most ``MAX_RESAMPLES``)."""
    seed: int = Field(default=0, ge=0, le=MAX_SEED)
    """Seed of the resampling generator."""
    level: float = 0.95
    """Nominal coverage of pointwise intervals."""


class ChiManifest(BaseModel):
    """Run manifest kept next to the observation log."""

    model_config = _STRICT

    version: str = SPEC_VERSION
    """Protocol/kit version shared by every record."""
    protocol_id: str
    """Protocol (panel) ID; a changed grid, task set or normalization needs a new one."""
    calibration_id: str | None
    """Frozen calibration ID (or the synthetic reference's ID), null without one."""
    evidence_class: EvidenceClass
    """What the report may claim."""
    system: dict[str, Any]
    """System boundary and configuration: model snapshot, stores, policies, tools, scheduler."""
    feature_schemas: dict[str, list[str]]
    """Named feature schemas; ``probe`` names the coordinates of ``features``."""
    dataset_hashes: dict[str, str]
    """Dataset, generator and answer-key hashes."""
    config_hash: str | None = None
    """When set, every record's ``config_hash`` must equal it."""
    weights: dict[str, float] | None = None
    """CHI axis weights (baseline 1/5 when null)."""
    alpha: dict[str, float] | None = None
    """Q_M exponents (baseline 1/6 when null)."""
    tau: float = DEFAULT_TAU
    """EIMC threshold."""
    load_grid: list[int] | None = None
    """Registered memory load grid."""
    memory_mechanism: MemoryMechanism | None = None
    """What holds the memory probed by memory curves; required when records carry them.
    ``in-context`` and ``replayed-transcript`` curves are never labelled persistent EIMC."""
    neutral_steps: list[int] = []
    """Steps that form the declared neutral interval (continuity and stability use only these)."""
    seeds: list[int] = []
    """Registered seed list."""
    analysis: Analysis = Analysis()
    """Bootstrap settings."""
    controls: list[str] = []
    """Controls run."""
    exclusions: list[str] = []
    """Exclusions and failures."""
    limitations: list[str] = []
    """Known limitations."""


def _nonfinite_field(value: Any, field: str = "") -> tuple[str, str] | None:
    """Dotted path and JSON token of the first NaN or infinity inside parsed JSON (``None``: there is none)."""
    if isinstance(value, float) and not math.isfinite(value):
        return field or "(root)", "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        items: Iterable[tuple[str, Any]] = ((f"{field}.{k}" if field else str(k), v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{field}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for name, item in items:
        found = _nonfinite_field(item, name)
        if found is not None:
            return found
    return None


def _loads(text: str) -> Any:
    try:
        data = loads_json(text, "", surrogates=False)
    except JsonProblem as exc:
        if exc.malformed is not None:
            json.loads(text)  # raises the decoder's error, with its position, for the caller to word
        raise InputError(exc.problem) from None
    if "NaN" in text or "Infinity" in text:
        found = _nonfinite_field(data)
        if found is not None:
            field, token = found
            raise InputError(f"field '{field}': nonfinite value {token} is not allowed; give a finite number")
    return data


def _pydantic_message(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"]) or "(record)"
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "missing":
        return f"field '{loc}': required field is missing; add it"
    if err["type"] == "extra_forbidden":
        return f"field '{loc}': unknown field; remove it or check its spelling"
    if err["type"] == "finite_number":
        return f"field '{loc}': nonfinite value is not allowed; give a finite number"
    return f"field '{loc}': {msg}"


def read_json(path: Path) -> Any:
    """Read a UTF-8 JSON file, rejecting nonfinite constants; errors name the file."""
    text = read_text(path, hint="check the path")
    try:
        data = _loads(text)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} line {exc.lineno}: invalid JSON ({exc.msg}); fix the syntax") from None
    reject_unpaired_surrogate(text, str(path))
    return data


def load_manifest(path: Path) -> ChiManifest:
    """Load and validate a manifest file."""
    data = read_json(path)
    return parse_manifest(data, str(path))


def parse_manifest(data: Any, where: str = "manifest") -> ChiManifest:
    """Validate a manifest object (already parsed from JSON)."""
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object")
    try:
        m = ChiManifest.model_validate(data)
        if m.weights is not None:
            check_weights(m.weights, AXES, "weights")
        if m.alpha is not None:
            check_weights(m.alpha, MEMORY_FACTORS, "alpha")
        check_tau(m.tau)
        if m.load_grid is not None:
            check_grid(m.load_grid, "load_grid")
        check_resampling(2, m.analysis.n_resamples, m.analysis.level)
    except ValidationError as exc:
        raise InputError(f"{where}: {_pydantic_message(exc)}") from None
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    if m.evidence_class == "human-referenced" and m.calibration_id is None:
        raise InputError(
            f"{where}: field 'evidence_class': human-referenced needs a frozen calibration; "
            "set calibration_id or use capacity-only"
        )
    return m


def parse_observation(data: Any, where: str) -> ChiObservation:
    """Validate one observation object (already parsed from JSON)."""
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object per line")
    try:
        return ChiObservation.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{where}: {_pydantic_message(exc)}") from None
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None


def load_observations(path: Path) -> list[ChiObservation]:
    """Load a JSONL file of observations; blank lines are skipped, errors name the line."""
    lines = read_text(path, hint="check the path").splitlines()
    out: list[ChiObservation] = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path} line {n}"
        try:
            data = _loads(line)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: invalid JSON ({exc.msg}); one JSON object per line") from None
        reject_unpaired_surrogate(line, str(path), n)
        out.append(parse_observation(data, where))
    if not out:
        raise InputError(f"{path}: no observation records; add one JSON object per line")
    return out


def validate_records(
    manifest: ChiManifest,
    records: Iterable[ChiObservation],
    where: str = "observations",
    lines: Sequence[int] | None = None,
) -> list[ChiObservation]:
    """Check records against each other and against the manifest, including the evidence class.

    Args:
        manifest: The run manifest.
        records: Parsed observations in file order.
        where: File name used in messages.
        lines: Line number of each record in ``where`` (see :func:`record_lines`);
            without it, messages count records from 1.

    Returns:
        The records, unchanged.
    """
    recs = list(records)
    if lines is not None and len(lines) != len(recs):
        raise ValueError("lines must give one line number per record")
    seen: set[tuple[str, int]] = set()
    cls = manifest.evidence_class
    probe = manifest.feature_schemas.get("probe")
    for k, r in enumerate(recs, start=1):
        at = f"{where} line {lines[k - 1]}" if lines is not None else f"{where} record {k} (run {r.run!r}, step {r.step})"
        key = (r.run, r.step)
        if key in seen:
            raise InputError(f"{at}: field 'step': duplicate (run, step); give one record per run and checkpoint")
        seen.add(key)
        if r.version != manifest.version:
            raise InputError(f"{at}: field 'version': {r.version!r} differs from the manifest's {manifest.version!r}")
        if manifest.config_hash is not None and r.config_hash != manifest.config_hash:
            raise InputError(f"{at}: field 'config_hash': does not match the manifest's config_hash")
        h = r.human_similarity
        has_h = h is not None and any(v is not None for v in h.values())
        if r.synthetic and cls in ("capacity-only", "human-referenced"):
            raise InputError(
                f"{at}: field 'synthetic': synthetic data cannot be reported as {cls}; "
                "use evidence_class synthetic-demonstration"
            )
        if r.synthetic and r.reference_kind == "human":
            raise InputError(f"{at}: field 'reference_kind': a synthetic record cannot have a human reference; use 'synthetic'")
        if r.reference_kind == "none" and (has_h or r.chi is not None):
            raise InputError(f"{at}: field 'reference_kind': 'none' carries no similarity and no CHI; set them to null")
        if has_h and manifest.calibration_id is None:
            raise InputError(f"{at}: field 'human_similarity': similarity needs a calibration; set calibration_id in the manifest")
        if cls == "human-referenced":
            if r.reference_kind != "human":
                raise InputError(f"{at}: field 'reference_kind': human-referenced evidence needs reference_kind 'human'")
            if h is None or any(v is None for v in h.values()):
                raise InputError(f"{at}: field 'human_similarity': human-referenced evidence needs all five axes; report capacity-only instead")
        if r.chi is not None:
            if h is None or any(v is None for v in h.values()):
                raise InputError(f"{at}: field 'chi': CHI must be null when any axis similarity is missing")
            expected = chi_score(h, manifest.weights)
            assert expected is not None
            if not math.isclose(r.chi, expected, rel_tol=0.0, abs_tol=CHI_CHECK_TOLERANCE):
                raise InputError(f"{at}: field 'chi': {r.chi!r} differs from 100*prod(h^w) = {expected!r}; recompute it")
        if r.features is not None:
            if probe is None:
                raise InputError(f"{at}: field 'features': declare feature_schemas.probe in the manifest")
            if len(r.features) != len(probe):
                raise InputError(f"{at}: field 'features': {len(r.features)} values for a {len(probe)}-feature schema; a changed schema starts a new series")
        if r.memory is not None:
            if manifest.memory_mechanism is None:
                raise InputError(
                    f"{at}: field 'memory': declare memory_mechanism in the manifest "
                    "(persistent, in-context or replayed-transcript)"
                )
            grid = check_grid(r.memory.grid, "memory.grid")
            if manifest.load_grid is None or grid != manifest.load_grid:
                raise InputError(f"{at}: field 'memory.grid': {grid} differs from the manifest's load_grid {manifest.load_grid}")
            off = sorted(set(r.memory.points) - set(grid))
            if off:
                raise InputError(f"{at}: field 'memory.points': load(s) {off} are not on the grid")
    return recs


def record_lines(path: Path) -> list[int]:
    """Line numbers of the non-blank lines of a JSONL file (one per record)."""
    text = read_text(path, hint="check the path")
    return [n for n, line in enumerate(text.splitlines(), start=1) if line.strip()]


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes (artifact hash)."""
    return hashlib.sha256(read_bytes(path, hint="check the path")).hexdigest()


def dump_jsonl(records: Iterable[BaseModel]) -> str:
    """Serialize records as UTF-8 JSONL text, one compact object per line."""
    return "".join(json.dumps(r.model_dump(mode="json", exclude_none=False), ensure_ascii=False, allow_nan=False) + "\n" for r in records)
