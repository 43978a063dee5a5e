"""The RES results file: one JSON line per model × scenario × condition cell."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sitbench.errors import InputError
from sitbench.stores import JsonProblem, loads_json, read_text, reject_unpaired_surrogate

CellStatus = Literal["ok", "invalid", "error"]


class ResultRow(BaseModel):
    """One observed cell, written as soon as its call finishes."""

    model_config = ConfigDict(extra="ignore")

    model: str = Field(min_length=1)
    """The candidate spec given with ``--model``, e.g. ``local/smollm2``."""
    scenario_id: str = Field(min_length=1)
    """Scenario of this cell."""
    condition: Literal["self", "peer", "fiction", "role"]
    """Actor assignment of this cell."""
    response: str | None = None
    """Raw response text; ``None`` when the call failed."""
    parsed_action: str | None = None
    """The one action token found in the response; ``None`` unless ``status`` is ``ok``."""
    status: CellStatus
    """``ok`` (exactly one token), ``invalid`` (both or neither) or ``error`` (no response)."""
    error: str | None = None
    """Infrastructure failure reason when ``status`` is ``error`` (kept, never dropped)."""
    invalid_reason: str | None = None
    """Why a response is ``invalid``: ``no action token`` or ``both action tokens``."""
    category: str | None = None
    """Scenario category, copied for convenience."""
    execution_index: int | None = Field(None, ge=0)
    """Position of this cell in the seeded execution order (0-based)."""
    trial_id: str | None = None
    """Trial key sent with the request."""
    prompt_sha256: str | None = None
    """SHA-256 of the JSON-serialized messages sent."""
    model_sent: str | None = None
    """Exact model identifier the candidate sent to its provider."""
    provider: str | None = None
    """Provider name reported by the candidate."""
    returned_model: str | None = None
    """Model id the provider reported back, when it does."""
    system_fingerprint: str | None = None
    """Provider revision, when returned."""
    usage: dict[str, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)
    """Token usage as reported by the provider."""
    retries: int = Field(0, ge=0, le=1_000_000)
    """Retries the candidate spent on this call."""
    latency_s: float = Field(0.0, ge=0.0, allow_inf_nan=False)
    """Wall time of the call, including retries."""
    cached: bool = False
    """True when the response came from the response cache (``--cache``), not a new call."""
    finished_at: str | None = None
    """UTC time the cell finished, ISO 8601."""

    @model_validator(mode="after")
    def _status_consistent(self) -> ResultRow:
        if self.status == "ok" and self.parsed_action is None:
            raise ValueError("status is 'ok' but parsed_action is null")
        if self.status != "ok" and self.parsed_action is not None:
            raise ValueError(f"status is {self.status!r} but parsed_action is set")
        return self


def read_results(path: Path) -> list[tuple[int, ResultRow]]:
    """Read a ``results.jsonl`` file.

    Args:
        path: The results file.

    Returns:
        ``(line number, row)`` pairs in file order.

    Raises:
        InputError: unreadable file or a malformed row (names the line and field).
    """
    text = read_text(Path(path), hint="give the results.jsonl of a `sitbench res run`")
    rows: list[tuple[int, ResultRow]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = loads_json(line, str(path), number, surrogates=False)
        except JsonProblem as exc:
            if exc.malformed is None:
                raise
            raise InputError(
                f"{path} line {number}: not valid JSON ({exc.malformed}); a run may have been cut "
                "mid-line; delete that line and re-run the missing cell"
            ) from None
        reject_unpaired_surrogate(line, str(path), number)
        if not isinstance(raw, dict):
            raise InputError(f"{path} line {number}: expected a JSON object per line")
        try:
            rows.append((number, ResultRow.model_validate(raw)))
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(part) for part in error["loc"]) or "(row)"
            message = str(error["msg"]).removeprefix("Value error, ")
            raise InputError(
                f"{path} line {number}: field {field!r}: {message}; fix the row or re-run "
                "`sitbench res run`"
            ) from None
    return rows
