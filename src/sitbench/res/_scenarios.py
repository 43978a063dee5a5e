"""RES scenarios: the fixed, preregistered episodes and their ideals.

The shipped ``scenarios.jsonl`` holds eighteen scenarios (six ``local_state``,
six ``commitment``, six ``task_continuity``). Each row fixes the episode, the
present request, the two action tokens in their presentation order, and the two
ideals. The preregistration sets the ``role`` ideal equal to the ``self`` ideal,
so it is derived (:attr:`ResScenario.role_ideal`) rather than stored.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sitbench.errors import InputError
from sitbench.stores import JsonProblem, loads_json, read_bytes, read_text, reject_unpaired_surrogate

Category = Literal["local_state", "commitment", "task_continuity"]
CATEGORIES: tuple[Category, ...] = ("local_state", "commitment", "task_continuity")

TOKEN_PATTERN = re.compile(r"^[A-Z][A-Z0-9_]{2,63}$")
"""Action tokens are upper-case identifiers, so a whole-token match is unambiguous."""

PACKAGED_SCENARIOS = "scenarios.jsonl"


class ResAction(BaseModel):
    """One of the two scenario-specific actions a response must name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    token: str
    """The literal token the response must contain, e.g. ``WRITE_SCRATCH_V2``."""
    description: str = Field(min_length=1)
    """What the action does, shown to the model next to the token."""


class ScoringKey(BaseModel):
    """The fields scoring needs for one scenario (what ``--scenarios`` must provide)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    scenario_id: str = Field(min_length=1)
    """Stable scenario identifier, e.g. ``res-ls-01``."""
    category: str = Field(min_length=1)
    """Scenario category; strict specificity is also reported per category."""
    self_ideal: str
    """Token implied when the record belongs to the decision maker (also the ``role`` ideal)."""
    control_ideal: str
    """Token implied by the untouched default (the ``peer`` and ``fiction`` ideal)."""

    @model_validator(mode="after")
    def _ideals_differ(self) -> ScoringKey:
        if self.self_ideal == self.control_ideal:
            raise ValueError(
                "self_ideal and control_ideal are equal; the self-consistent action must "
                "differ from the untouched default"
            )
        return self

    @property
    def role_ideal(self) -> str:
        """The ``role`` ideal; the preregistration fixes it to the ``self`` ideal."""
        return self.self_ideal

    @property
    def tokens(self) -> tuple[str, str]:
        """The two action tokens as ``(self_ideal, control_ideal)``."""
        return (self.self_ideal, self.control_ideal)

    def ideal(self, condition: str) -> str:
        """The ideal token for ``condition`` (``self``, ``peer``, ``fiction`` or ``role``)."""
        return self.self_ideal if condition in ("self", "role") else self.control_ideal


class ResScenario(ScoringKey):
    """A complete RES scenario: everything a prompt needs plus the ideals."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: Category
    """``local_state``, ``commitment`` or ``task_continuity``."""
    episode: str = Field(min_length=1)
    """The record: first-person entries by the record owner, identical in every condition."""
    request: str = Field(min_length=1)
    """The present request addressed to the decision maker, identical in every condition."""
    actions: tuple[ResAction, ResAction]
    """The two actions in their fixed presentation order."""
    rationale: str = ""
    """Why the self ideal follows from owning the record and the control ideal is the default.

    Documentation for auditors; never shown to a model."""

    @model_validator(mode="after")
    def _tokens_consistent(self) -> ResScenario:
        first, second = (action.token for action in self.actions)
        for token in (first, second):
            if not TOKEN_PATTERN.match(token):
                raise ValueError(
                    f"action token {token!r} must be 3-64 characters of A-Z, 0-9 and '_' "
                    "starting with a letter"
                )
        if first == second:
            raise ValueError(f"both actions use the token {first!r}; give them distinct tokens")
        if {self.self_ideal, self.control_ideal} != {first, second}:
            raise ValueError(
                f"self_ideal {self.self_ideal!r} and control_ideal {self.control_ideal!r} must be "
                f"the two action tokens {first!r} and {second!r}"
            )
        return self

    @property
    def self_consistent_first(self) -> bool:
        """Whether the self-consistent action is presented first."""
        return self.actions[0].token == self.self_ideal


_Row = TypeVar("_Row", bound=ScoringKey)


def _describe_validation_error(exc: ValidationError) -> tuple[str, str]:
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or "(row)"
    message = str(error["msg"]).removeprefix("Value error, ")
    return field, message


def _load_rows(text: str, source: str, model: type[_Row]) -> list[_Row]:
    rows: list[_Row] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = loads_json(line, source, number, surrogates=False)
        except JsonProblem as exc:
            if exc.malformed is None:
                raise
            raise InputError(
                f"{source} line {number}: not valid JSON ({exc.malformed}); write one JSON object per line"
            ) from None
        if not isinstance(raw, dict):
            raise InputError(f"{source} line {number}: expected a JSON object per line")
        reject_unpaired_surrogate(line, source, number)
        try:
            row = model.model_validate(raw)
        except ValidationError as exc:
            field, message = _describe_validation_error(exc)
            raise InputError(
                f"{source} line {number}: field {field!r}: {message}; fix the scenario row"
            ) from None
        if row.scenario_id in seen:
            raise InputError(
                f"{source} line {number}: field 'scenario_id': {row.scenario_id!r} repeats line "
                f"{seen[row.scenario_id]}; scenario ids must be unique"
            )
        seen[row.scenario_id] = number
        rows.append(row)
    if not rows:
        raise InputError(f"{source}: no scenarios found; give a JSONL file with one scenario per line")
    return rows


def _read_text(path: Path | None) -> tuple[str, str]:
    if path is None:
        text = resources.files("sitbench.res").joinpath(PACKAGED_SCENARIOS).read_text("utf-8")
        return text, PACKAGED_SCENARIOS
    return read_text(Path(path), hint="check the path given to --scenarios"), str(path)


def load_scenarios(path: Path | None = None) -> list[ResScenario]:
    """Load full RES scenarios.

    Args:
        path: A JSONL file of scenarios; ``None`` loads the packaged ``scenarios.jsonl``.

    Returns:
        The scenarios in file order.

    Raises:
        InputError: the file is unreadable, a row is malformed, or ids repeat.
    """
    text, source = _read_text(path)
    return _load_rows(text, source, ResScenario)


def load_scoring_keys(path: Path | None = None) -> list[ScoringKey]:
    """Load the scoring fields (``scenario_id``, ``category``, ``self_ideal``, ``control_ideal``).

    Args:
        path: A JSONL file; other fields are ignored. ``None`` uses the packaged scenarios.

    Raises:
        InputError: the file is unreadable, a row is malformed, or ids repeat.
    """
    text, source = _read_text(path)
    return _load_rows(text, source, ScoringKey)


def scenarios_sha256(path: Path | None = None) -> str:
    """SHA-256 of the scenario file's bytes (the packaged file when ``path`` is ``None``)."""
    if path is None:
        data = resources.files("sitbench.res").joinpath(PACKAGED_SCENARIOS).read_bytes()
    else:
        data = read_bytes(Path(path), hint="check the path given to --scenarios")
    return hashlib.sha256(data).hexdigest()


def category_counts(scenarios: Sequence[ScoringKey]) -> dict[str, int]:
    """Number of scenarios per category, in first-seen order."""
    counts: dict[str, int] = {}
    for scenario in scenarios:
        counts[scenario.category] = counts.get(scenario.category, 0) + 1
    return counts
