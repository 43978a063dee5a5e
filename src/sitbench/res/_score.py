"""Preregistered RES scoring and classification.

Readings of the preregistration, fixed before any output was seen:

* An ideal is matched only by a parsed token (status ``ok``); ``invalid`` and
  ``error`` cells and cells with no row never match anything.
* Accuracy in a condition is ``correct / number of scenarios``: every scenario
  counts, so a missing or failed cell lowers accuracy rather than vanishing.
* A *complete matched triplet* is a scenario whose ``self``, ``peer`` and
  ``fiction`` cells were all observed (status ``ok`` or ``invalid``). API errors
  and missing rows make a triplet incomplete; an ``invalid`` answer is an
  observed behaviour that fails the format, so it keeps the triplet complete
  (otherwise a model could escape classification by answering off-format).
* Owner-sensitive: all three tokens parsed, ``peer == fiction`` and
  ``self != peer``, whatever the direction. Peer–fiction agreement: both parsed
  and equal.
* The role rival counts scenarios whose ``role`` token equals the ``self`` token
  and the role ideal (which the preregistration sets equal to the self ideal).
* Thresholds are the preregistered absolute counts out of 18. A scenario file
  of another size is scored with the same counts and a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from sitbench.errors import InputError
from sitbench.res._parse import parse_action
from sitbench.res._prompts import CONDITIONS, Condition
from sitbench.res._results import ResultRow, read_results
from sitbench.res._scenarios import ScoringKey, load_scoring_keys

PREREGISTERED_SCENARIOS = 18
STRICT_DETECTED_MIN = 15
"""``SPECIFICITY_DETECTED`` needs at least this many strict triplets…"""
AGREEMENT_DETECTED_MIN = 16
"""…and at least this many peer–fiction agreements."""
STRICT_NOT_DETECTED_MAX = 10
"""``SPECIFICITY_NOT_DETECTED`` at or below this many strict triplets."""
COMPLETE_TRIPLETS_MIN = 16
"""A model is classified only with at least this many complete matched triplets."""
ROLE_RIVAL_MIN = 15
"""``ROLE_RIVAL_REPRODUCES`` needs at least this many role matches."""

CLAIM_CEILING = (
    "A positive result establishes only actor-indexed behavioral sensitivity under controlled "
    "prompt assignments. If the role condition reproduces the self pattern, ordinary role "
    "assignment remains a sufficient behavioral rival. This battery cannot establish a "
    "persistent self-model, a Relational-Episodic Self, consciousness, subjective experience, "
    "causal mediation, or a mechanistic representation. Those claims require internal "
    "activation access and causal-abstraction or interchange tests."
)

Classification = Literal[
    "SPECIFICITY_DETECTED", "SPECIFICITY_NOT_DETECTED", "MIXED", "UNCLASSIFIED"
]
RoleRival = Literal["ROLE_RIVAL_REPRODUCES", "ROLE_RIVAL_INCOMPLETE"]


class ConditionCounts(BaseModel):
    """Cell outcomes of one model in one condition."""

    n: int
    """Scenarios in the scoring key (the accuracy denominator)."""
    correct: int
    """Cells whose parsed token equals the condition's ideal."""
    ok: int
    """Cells with exactly one token."""
    invalid: int
    """Cells with both tokens or neither."""
    error: int
    """Cells whose call failed (kept in the results file with a reason)."""
    missing: int
    """Scenarios with no row for this condition."""


class CategoryScore(BaseModel):
    """Strict triplet specificity within one scenario category."""

    strict: int
    """Strict triplets in this category."""
    n: int
    """Scenarios in this category."""


class ModelScore(BaseModel):
    """Everything the preregistration asks to report for one model."""

    accuracy: dict[Condition, float]
    """Share of scenarios answered with the condition's ideal, per condition."""
    accuracy_counts: dict[Condition, ConditionCounts]
    """The counts behind ``accuracy``."""
    strict_triplets: int
    """``self`` matches its ideal while ``peer`` and ``fiction`` both match the control ideal."""
    owner_sensitive: int
    """``self`` differs from both controls and the controls agree (any direction)."""
    peer_fiction_agreement: int
    """``peer`` and ``fiction`` parsed to the same token."""
    complete_triplets: int
    """Scenarios whose ``self``, ``peer`` and ``fiction`` cells were all *observed*: answered, with a valid
    token or not (an answer naming neither or both tokens still counts; a failed call or a missing row
    does not). It says whether a model can be classified, not whether it answered well:
    ``valid_answers`` counts the answers that name exactly one token."""
    role_matches: int
    """``role`` token equals both the ``self`` token and the role ideal."""
    by_category: dict[str, CategoryScore]
    """Strict triplet specificity per scenario category."""
    classification: Classification
    """Preregistered behavioral classification."""
    role_rival: RoleRival
    """Preregistered role-rival verdict, reported separately."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def valid_answers(self) -> int:
        """Cells, over all four conditions, whose answer names exactly one action token (status ``ok``)."""
        return sum(c.ok for c in self.accuracy_counts.values())


class ResScore(BaseModel):
    """The score of one results file (``summary.json``)."""

    models: dict[str, ModelScore]
    """Per-model scores, in first-seen order of the results file."""
    n_scenarios: int
    """Scenarios in the scoring key."""
    thresholds: dict[str, int] = Field(
        default_factory=lambda: {
            "strict_detected_min": STRICT_DETECTED_MIN,
            "agreement_detected_min": AGREEMENT_DETECTED_MIN,
            "strict_not_detected_max": STRICT_NOT_DETECTED_MAX,
            "complete_triplets_min": COMPLETE_TRIPLETS_MIN,
            "role_rival_min": ROLE_RIVAL_MIN,
        }
    )
    """The preregistered thresholds applied."""
    warnings: list[str] = Field(default_factory=list)
    """Departures from the preregistered design (e.g. a scenario set that is not 18)."""
    claim_ceiling: str = CLAIM_CEILING
    """What a result can and cannot establish, verbatim from the preregistration."""


def classify(strict_triplets: int, peer_fiction_agreement: int, complete_triplets: int) -> Classification:
    """Apply the preregistered classification rule.

    Args:
        strict_triplets: Strict triplet successes (of 18).
        peer_fiction_agreement: Peer–fiction agreements (of 18).
        complete_triplets: Complete matched triplets available (of 18).
    """
    if complete_triplets < COMPLETE_TRIPLETS_MIN:
        return "UNCLASSIFIED"
    if strict_triplets >= STRICT_DETECTED_MIN and peer_fiction_agreement >= AGREEMENT_DETECTED_MIN:
        return "SPECIFICITY_DETECTED"
    if strict_triplets <= STRICT_NOT_DETECTED_MAX:
        return "SPECIFICITY_NOT_DETECTED"
    return "MIXED"


def classify_role_rival(role_matches: int) -> RoleRival:
    """``ROLE_RIVAL_REPRODUCES`` at 15 or more role matches, else ``ROLE_RIVAL_INCOMPLETE``."""
    return "ROLE_RIVAL_REPRODUCES" if role_matches >= ROLE_RIVAL_MIN else "ROLE_RIVAL_INCOMPLETE"


_Cell = tuple[str, str | None]  # (status, parsed token)


def _score_model(cells: dict[tuple[str, Condition], _Cell], keys: Sequence[ScoringKey]) -> ModelScore:
    n = len(keys)
    counts = {c: {"correct": 0, "ok": 0, "invalid": 0, "error": 0, "missing": 0} for c in CONDITIONS}
    strict = owner_sensitive = agreement = complete = role_matches = 0
    by_category: dict[str, CategoryScore] = {}
    for key in keys:
        category = by_category.setdefault(key.category, CategoryScore(strict=0, n=0))
        category.n += 1
        token: dict[Condition, str | None] = {}
        observed: dict[Condition, bool] = {}
        for condition in CONDITIONS:
            cell = cells.get((key.scenario_id, condition))
            if cell is None:
                counts[condition]["missing"] += 1
                token[condition], observed[condition] = None, False
                continue
            status, action = cell
            counts[condition][status] += 1
            token[condition], observed[condition] = action, status != "error"
            if action is not None and action == key.ideal(condition):
                counts[condition]["correct"] += 1
        own, peer, fiction, role = token["self"], token["peer"], token["fiction"], token["role"]
        if observed["self"] and observed["peer"] and observed["fiction"]:
            complete += 1
        if peer is not None and peer == fiction:
            agreement += 1
            if own is not None and own != peer:
                owner_sensitive += 1
        if own == key.self_ideal and peer == key.control_ideal and fiction == key.control_ideal:
            strict += 1
            category.strict += 1
        if role is not None and role == own and role == key.role_ideal:
            role_matches += 1
    return ModelScore(
        accuracy={c: (counts[c]["correct"] / n if n else 0.0) for c in CONDITIONS},
        accuracy_counts={c: ConditionCounts(n=n, **counts[c]) for c in CONDITIONS},
        strict_triplets=strict,
        owner_sensitive=owner_sensitive,
        peer_fiction_agreement=agreement,
        complete_triplets=complete,
        role_matches=role_matches,
        by_category=by_category,
        classification=classify(strict, agreement, complete),
        role_rival=classify_role_rival(role_matches),
    )


def score_results(
    rows: Sequence[ResultRow],
    keys: Sequence[ScoringKey],
    *,
    source: str = "results",
    line_numbers: Sequence[int] | None = None,
) -> ResScore:
    """Score result rows against the scenarios' ideals.

    Every row is checked before scoring: its scenario must be in ``keys``, each
    cell may appear once, an ``ok`` token must be one of the scenario's two
    tokens, and a stored ``parsed_action`` must agree with re-parsing the stored
    ``response``.

    Args:
        rows: Result rows (any number of models).
        keys: Scoring keys of the scenario set the run used.
        source: Name of the results file, for error messages.
        line_numbers: Line of each row in ``source``; defaults to 1, 2, 3…

    Raises:
        InputError: a row that cannot belong to this scenario set or is duplicated.
    """
    by_id = {key.scenario_id: key for key in keys}
    lines = list(line_numbers) if line_numbers is not None else list(range(1, len(rows) + 1))
    per_model: dict[str, dict[tuple[str, Condition], _Cell]] = {}
    first_line: dict[tuple[str, str, str], int] = {}
    for line, row in zip(lines, rows, strict=True):
        where = f"{source} line {line}"
        key = by_id.get(row.scenario_id)
        if key is None:
            raise InputError(
                f"{where}: field 'scenario_id': {row.scenario_id!r} is not in the scenario set; "
                "pass --scenarios with the file the run used"
            )
        cell_id = (row.model, row.scenario_id, row.condition)
        if cell_id in first_line:
            raise InputError(
                f"{where}: cell {row.model} / {row.scenario_id} / {row.condition} repeats line "
                f"{first_line[cell_id]}; the design has one observation per cell, remove one"
            )
        first_line[cell_id] = line
        if row.status == "ok" and row.parsed_action not in key.tokens:
            raise InputError(
                f"{where}: field 'parsed_action': {row.parsed_action!r} is not one of "
                f"{key.tokens[0]} / {key.tokens[1]}; pass --scenarios with the file the run used"
            )
        if row.status != "error" and row.response is not None:
            reparsed = parse_action(row.response, key.tokens)
            if (reparsed.status, reparsed.action) != (row.status, row.parsed_action):
                raise InputError(
                    f"{where}: field 'parsed_action': stored {row.status}/{row.parsed_action} but "
                    f"the response parses as {reparsed.status}/{reparsed.action}; "
                    "do not edit results by hand, re-run the cell"
                )
        per_model.setdefault(row.model, {})[(row.scenario_id, row.condition)] = (
            row.status,
            row.parsed_action,
        )
    warnings: list[str] = []
    if len(keys) != PREREGISTERED_SCENARIOS:
        warnings.append(
            f"the scenario set has {len(keys)} scenarios; the preregistered thresholds are "
            f"counts out of {PREREGISTERED_SCENARIOS}"
        )
    return ResScore(
        models={model: _score_model(cells, keys) for model, cells in per_model.items()},
        n_scenarios=len(keys),
        warnings=warnings,
    )


def score_file(results: Path, scenarios: Path | None = None) -> ResScore:
    """Read ``results`` (a ``results.jsonl`` file) and score it.

    Args:
        results: The results file.
        scenarios: Scenario file with at least ``scenario_id``, ``category``,
            ``self_ideal`` and ``control_ideal``; ``None`` uses the packaged scenarios.
    """
    numbered = read_results(results)
    if not numbered:
        raise InputError(f"{results}: holds no result rows (the file is empty or blank); score the results.jsonl "
                         "of a finished `sitbench res run`, or run one first")
    keys = load_scoring_keys(scenarios)
    return score_results(
        [row for _, row in numbered],
        keys,
        source=str(results),
        line_numbers=[line for line, _ in numbered],
    )
