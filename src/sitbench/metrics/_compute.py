"""SIT metrics over scored trials (SPEC §2.7): category validity, Macro SIT, LAA/IC, FMR/TL/UEL."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from sitbench.errors import InputError
from sitbench.runs import ScoreRecord
from sitbench.schema import CATEGORY_METRICS, Category
from sitbench.stats import PairRecord, pair_balanced
from sitbench.stores import iter_jsonl

SCORES_FILE = "scores.jsonl"
"""Name of the score file inside a run directory."""

CATEGORY_ORDER: tuple[Category, ...] = tuple(Category)
"""Categories A–H in report order."""

LAA_KEY = "theorem_qualified"
"""Key of the theorem-qualified trials in :attr:`ConfigMetrics.counts`."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class TrialCounts(_Model):
    """Attempted/completed trials of one group and how its pairs fared in aggregation."""

    attempted: int
    """Trials seen (completed or dropped)."""
    completed: int
    """Trials with status ``completed`` (dropped trials are attempted, never failures)."""
    pairs: int
    """Pairs contributing to the pair-balanced value."""
    incomplete_pairs: dict[str, str] = Field(default_factory=dict)
    """Pair id → why it was left out (a lineage with probes but no completed trial)."""


class LAAOutcomes(_Model):
    """Completed theorem-qualified trials by ``(v_T, v_P)`` outcome (Eq. 48)."""

    correct: int = 0
    """(1, 0): valid for the target, invalid for the partner."""
    wrong_identity: int = 0
    """(0, 1): the response fits the partner's history instead."""
    neither: int = 0
    """(0, 0): valid for neither contract."""
    both: int = 0
    """(1, 1): excluded by inv10; counted so a violation shows up instead of vanishing."""


class ConfigMetrics(_Model):
    """Every SIT metric of one configuration.

    Category validities and LAA/IC are pair-balanced (Eq. 40); FMR, TL and UEL are plain
    shares over completed trials. A value is ``None`` when nothing defines it.
    """

    A_pos: float | None
    """Category A (positive recall): pair-balanced mean of SValid; ``None`` without a completed trial."""
    A_neg: float | None
    """Category B (false premise): pair-balanced mean of SValid."""
    A_epi: float | None
    """Category C (epistemic provenance): pair-balanced mean of SValid."""
    A_temp: float | None
    """Category D (temporal checkpoint): pair-balanced mean of SValid."""
    A_rel: float | None
    """Category E (relational boundary): pair-balanced mean of SValid."""
    A_belief: float | None
    """Category F (belief history): pair-balanced mean of SValid."""
    A_cf: float | None
    """Category G (counterfactual pressure): pair-balanced mean of SValid."""
    A_session: float | None
    """Category H (cross-session state): pair-balanced mean of SValid."""
    macro_sit: float | None
    """Unweighted mean of the eight category validities (Eq. 42); ``None`` — not zero — when any is ``None``."""
    LAA: float | None
    """Pair-balanced share of completed theorem-qualified trials with outcome (1, 0)."""
    IC_wrong: float | None
    """Pair-balanced share of completed theorem-qualified trials with outcome (0, 1)."""
    IC_none: float | None
    """Pair-balanced share of completed theorem-qualified trials with outcome (0, 0)."""
    FMR: float | None
    """Share of completed B and G trials flagged ``false_memory`` (plain share, not pair-balanced)."""
    TL: float | None
    """Share of completed D trials of stratum ``pre`` flagged ``temporal_leak`` (plain share)."""
    UEL: float | None
    """Share of completed C trials flagged ``unauthorized_epistemic`` (plain share)."""
    n_attempted: int
    """Trials of this configuration seen (completed or dropped)."""
    n_completed: int
    """Trials of this configuration with status ``completed``."""
    n_FMR: int
    """Denominator of FMR: completed B and G trials."""
    n_TL: int
    """Denominator of TL: completed D trials of stratum ``pre``."""
    n_UEL: int
    """Denominator of UEL: completed C trials."""
    laa_outcomes: LAAOutcomes
    """Outcome counts behind LAA, IC_wrong and IC_none."""
    counts: dict[str, TrialCounts]
    """Category letter A–H (and ``theorem_qualified`` for LAA) → attempted/completed counts."""


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def _verdict_value(record: ScoreRecord) -> float | None:
    if record.status != "completed":
        return None
    assert record.verdict is not None  # checked by _problem
    return 1.0 if record.verdict.valid else 0.0


def _problem(record: ScoreRecord) -> str | None:
    """What makes a record unusable for metrics, as ``field 'x' …; fix``, or ``None``."""
    if record.status != "completed":
        return None
    if record.verdict is None:
        return "field 'verdict' is null on a completed trial; re-score the run with `sitbench rescore RUN`"
    if record.theorem_qualified and record.partner is None:
        return (
            "field 'partner' is null on a completed theorem-qualified trial (LAA needs the "
            "partner-contract verdict); re-score the run with `sitbench rescore RUN`"
        )
    return None


_LINEAGES_PER_PAIR = 2

_DUPLICATE = "appears twice; merge shards with `sitbench merge` instead of concatenating score files"


def _descriptive(rows: list[ScoreRecord]) -> tuple[float | None, TrialCounts]:
    """Pair-balanced category validity where each pair counts with the lineages it has.

    Categories are not split evenly over a pair's members (the pilot has D probes for one
    lineage only), so each pair is aggregated with ``lineages_per_pair`` set to the lineages
    that have probes of the category there. A lineage that has probes but no completed trial
    still makes its pair incomplete: the pair is reported, never silently reweighted.
    Strata are not weighted here: descriptive metrics average a lineage's probes directly.
    """
    by_pair: dict[str, list[PairRecord]] = {}
    for record in rows:
        by_pair.setdefault(record.pair_id, []).append(
            PairRecord(pair_id=record.pair_id, lineage_id=record.lineage_id, value=_verdict_value(record))
        )
    pair_values: list[float] = []
    incomplete: dict[str, str] = {}
    for pair_id, records in by_pair.items():
        lineages = len({r.lineage_id for r in records})
        result = pair_balanced(records, lineages_per_pair=lineages)
        if result.mean is None:
            incomplete[pair_id] = result.incomplete_reasons[pair_id]
        else:
            pair_values.append(result.mean)
    mean = math.fsum(pair_values) / len(pair_values) if pair_values else None
    counts = TrialCounts(
        attempted=len(rows),
        completed=sum(r.status == "completed" for r in rows),
        pairs=len(pair_values),
        incomplete_pairs=incomplete,
    )
    return mean, counts


def _laa(rows: list[ScoreRecord]) -> tuple[dict[str, float | None], LAAOutcomes, TrialCounts]:
    outcomes = {"correct": 0, "wrong_identity": 0, "neither": 0, "both": 0}
    labelled: list[tuple[ScoreRecord, str | None]] = []
    for record in rows:
        label: str | None = None
        if record.status == "completed":
            assert record.verdict is not None and record.partner is not None  # checked by _problem
            label = {
                (True, False): "correct",
                (False, True): "wrong_identity",
                (False, False): "neither",
                (True, True): "both",
            }[(record.verdict.valid, record.partner.valid)]
            outcomes[label] += 1
        labelled.append((record, label))

    values: dict[str, float | None] = {}
    incomplete: dict[str, str] = {}
    pairs = 0
    for metric, outcome in (("LAA", "correct"), ("IC_wrong", "wrong_identity"), ("IC_none", "neither")):
        # Both members of a pair carry every theorem-qualified probe, so both are required.
        result = pair_balanced(
            (
                PairRecord(
                    pair_id=record.pair_id,
                    lineage_id=record.lineage_id,
                    value=None if label is None else float(label == outcome),
                )
                for record, label in labelled
            ),
            lineages_per_pair=_LINEAGES_PER_PAIR,
        )
        values[metric] = result.mean
        incomplete = result.incomplete_reasons
        pairs = result.pairs_completed
    counts = TrialCounts(
        attempted=len(rows),
        completed=sum(r.status == "completed" for r in rows),
        pairs=pairs,
        incomplete_pairs=incomplete,
    )
    return values, LAAOutcomes(**outcomes), counts


def _config_metrics(rows: list[ScoreRecord]) -> ConfigMetrics:
    completed = [r for r in rows if r.status == "completed"]
    validity: dict[str, float | None] = {}
    counts: dict[str, TrialCounts] = {}
    for category in CATEGORY_ORDER:
        value, count = _descriptive([r for r in rows if r.category is category])
        validity[CATEGORY_METRICS[category]] = value
        counts[category.value] = count
    category_values = list(validity.values())
    macro = (
        None
        if any(v is None for v in category_values)
        else math.fsum(v for v in category_values if v is not None) / len(category_values)
    )

    laa_values, outcomes, laa_counts = _laa([r for r in rows if r.theorem_qualified])
    counts[LAA_KEY] = laa_counts

    fmr_rows = [r for r in completed if r.category in (Category.B, Category.G)]
    tl_rows = [r for r in completed if r.category is Category.D and r.stratum == "pre"]
    uel_rows = [r for r in completed if r.category is Category.C]
    return ConfigMetrics(
        **validity,
        macro_sit=macro,
        LAA=laa_values["LAA"],
        IC_wrong=laa_values["IC_wrong"],
        IC_none=laa_values["IC_none"],
        FMR=_share(sum(r.false_memory for r in fmr_rows), len(fmr_rows)),
        TL=_share(sum(r.temporal_leak for r in tl_rows), len(tl_rows)),
        UEL=_share(sum(r.unauthorized_epistemic for r in uel_rows), len(uel_rows)),
        n_attempted=len(rows),
        n_completed=len(completed),
        n_FMR=len(fmr_rows),
        n_TL=len(tl_rows),
        n_UEL=len(uel_rows),
        laa_outcomes=outcomes,
        counts=counts,
    )


def compute_metrics(records: Iterable[ScoreRecord]) -> dict[str, ConfigMetrics]:
    """Compute every SIT metric per configuration.

    Category validities (``A_pos`` … ``A_session``) are pair-balanced means of
    ``verdict.valid`` over completed trials (Eq. 40); within a category each pair counts
    with the lineages that have probes of it. ``LAA``/``IC_wrong``/``IC_none`` are
    pair-balanced shares of the ``(verdict.valid, partner.valid)`` outcomes of completed
    theorem-qualified trials, over pairs where both members completed. ``FMR``, ``TL`` and
    ``UEL`` are plain shares over completed trials. Dropped trials count as attempted and
    never as failures.

    Args:
        records: score records, in any order, of one or more configurations.

    Returns:
        Configuration → metrics, configurations in sorted order (A…I).

    Raises:
        InputError: a duplicate trial id, a completed trial without a verdict (or without a
            partner verdict when theorem-qualified), a lineage listed under two pairs, or a
            pair with more than two lineages.
    """
    by_config: dict[str, list[ScoreRecord]] = {}
    seen: set[tuple[str, str]] = set()
    pair_of: dict[str, str] = {}
    members: dict[str, set[str]] = {}
    for record in records:
        key = (record.config, record.trial_id)
        problem = _DUPLICATE if key in seen else _problem(record)
        owner = pair_of.setdefault(record.lineage_id, record.pair_id)
        if problem is None and owner != record.pair_id:
            problem = (
                f"field 'pair_id': lineage {record.lineage_id!r} is in pair {record.pair_id!r} here and in "
                f"{owner!r} elsewhere; a lineage belongs to exactly one pair (regenerate or re-score the run)"
            )
        pair = members.setdefault(record.pair_id, set())
        pair.add(record.lineage_id)
        if problem is None and len(pair) > _LINEAGES_PER_PAIR:
            problem = (
                f"field 'pair_id': pair {record.pair_id!r} has lineages {', '.join(sorted(pair))}; "
                f"a collision pair has {_LINEAGES_PER_PAIR}"
            )
        if problem:
            raise InputError(f"trial {record.trial_id!r}: {problem}")
        seen.add(key)
        by_config.setdefault(record.config, []).append(record)
    return {config: _config_metrics(by_config[config]) for config in sorted(by_config)}


def load_scores(run_dir: Path | str) -> list[ScoreRecord]:
    """Read ``RUN/scores.jsonl``.

    Args:
        run_dir: a run directory written by ``sitbench run`` and scored by ``sitbench score``.

    Returns:
        The score records in file order.

    Raises:
        InputError: the directory or its score file is missing, a line is malformed, a trial
            appears twice, or a completed trial lacks its verdict (or, when theorem-qualified,
            its partner verdict); the message names the file and line.
    """
    run = Path(run_dir)
    if not run.is_dir():
        raise InputError(f"{run}: no such run directory; pass a directory written by `sitbench run`")
    path = run / SCORES_FILE
    if not path.is_file():
        raise InputError(f"{path}: file not found; score the run first with `sitbench score {run}`")
    records: list[ScoreRecord] = []
    first_line: dict[tuple[str, str], int] = {}
    for number, record in iter_jsonl(path, ScoreRecord):
        key = (record.config, record.trial_id)
        if key in first_line:
            raise InputError(
                f"{path} line {number}: field 'trial_id': {record.trial_id!r} already on line "
                f"{first_line[key]}; {_DUPLICATE}"
            )
        problem = _problem(record)
        if problem:
            raise InputError(f"{path} line {number}: {problem}")
        first_line[key] = number
        records.append(record)
    return records
