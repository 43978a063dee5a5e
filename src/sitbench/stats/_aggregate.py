"""Pair-balanced aggregation (SIT Eq. 40) and paired per-pair differences."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, ValidationError

from sitbench.errors import InputError


class PairRecord(BaseModel):
    """One scored trial (or token count) attributed to a lineage of a collision pair."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    pair_id: str
    """Collision pair the lineage belongs to."""
    lineage_id: str
    """Lineage (pair member) the trial was run for."""
    stratum: str | None = None
    """Experiment stratum (e.g. ``pre_acquisition``, ``L3``); ``None`` when unstratified."""
    value: float | None
    """The trial's value (``SValid`` as 0/1, a token count…); ``None`` when the trial was
    attempted but not completed (timeout, infrastructure failure)."""


class PairBalanced(BaseModel):
    """Pair-balanced mean with its per-pair values and completeness accounting."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    mean: float | None
    """Unweighted mean of ``per_pair`` over complete pairs; ``None`` when none is complete."""
    per_pair: dict[str, float]
    """Pair id → mean of its lineages' values, for complete pairs, in first-seen order."""
    per_lineage: dict[str, dict[str, float]]
    """Pair id → lineage id → stratum-balanced lineage value, for complete pairs."""
    incomplete: list[str]
    """Pairs left out because a lineage or a required stratum has no completed trial."""
    incomplete_reasons: dict[str, str]
    """Pair id → why it is incomplete."""
    strata: list[str] | None
    """Required strata, each weighted equally within a lineage; ``None`` when unstratified."""
    attempted: int
    """Records seen (trials attempted)."""
    completed: int
    """Records with a value (trials completed)."""
    pairs_attempted: int
    """Distinct pairs seen."""
    pairs_completed: int
    """Pairs with every lineage and every required stratum completed."""


class PairDifferences(BaseModel):
    """Per-pair paired differences ``d_k = second_k - first_k`` over matched pairs."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    diffs: dict[str, float]
    """Pair id → second configuration's pair value minus the first's."""
    mean: float | None
    """Unweighted mean of ``diffs``; ``None`` when no pair is complete in both."""
    incomplete: list[str]
    """Pairs complete in only one of the two configurations (or in neither)."""


RecordLike = PairRecord | tuple[str, str, str | None, float | None]


def _coerce(record: RecordLike, index: int) -> PairRecord:
    if isinstance(record, PairRecord):
        return record
    try:
        pair_id, lineage_id, stratum, value = record
        return PairRecord(pair_id=pair_id, lineage_id=lineage_id, stratum=stratum, value=value)
    except (TypeError, ValueError, ValidationError) as exc:
        raise InputError(
            f"records: record #{index + 1} {record!r} is not (pair_id, lineage_id, stratum, value): "
            f"{str(exc).splitlines()[0]}; fix that record"
        ) from exc


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return math.fsum(items) / len(items)


def pair_balanced(
    records: Iterable[RecordLike],
    *,
    strata: Sequence[str] | None = None,
    lineages_per_pair: int = 2,
) -> PairBalanced:
    """Pair-balanced aggregation (Eq. 40).

    For each pair: average the completed trials within each (lineage, stratum) cell,
    average the strata of a lineage with equal weight, average the lineages of the pair,
    and finally average the pairs. A pair in which some lineage has no completed trial
    in a required stratum (or that has fewer than ``lineages_per_pair`` lineages with
    records) is *incomplete*: it is listed with its reason and left out, never
    reweighted.

    Args:
        records: :class:`PairRecord` objects or ``(pair_id, lineage_id, stratum, value)``
            tuples; ``value=None`` marks an attempted trial that did not complete.
        strata: required strata, in report order. ``None`` means: every stratum label
            present in ``records`` is required (a single implicit stratum when all
            records have ``stratum=None``).
        lineages_per_pair: lineages each pair must have (2 for collision pairs).

    Returns:
        The mean over complete pairs, per-pair and per-lineage values, incomplete pairs
        with reasons, and attempted/completed counts.

    Raises:
        InputError: a malformed record, a non-finite value, a stratum outside ``strata``,
            a lineage listed under two pairs, or a pair with too many lineages.
    """
    if lineages_per_pair < 1:
        raise InputError(f"lineages_per_pair: {lineages_per_pair} must be at least 1")
    rows = [_coerce(record, i) for i, record in enumerate(records)]
    declared = list(strata) if strata is not None else None
    if declared is not None:
        if len(set(declared)) != len(declared) or not declared:
            raise InputError(f"strata: {declared!r} must be a non-empty list of distinct names")
    labels = {row.stratum for row in rows}
    if declared is None:
        named = sorted(label for label in labels if label is not None)
        if named and None in labels:
            raise InputError(
                "records: some records have a stratum and some have none; "
                "give every record a stratum or pass strata explicitly"
            )
        declared = named or None
    required: list[str | None] = list(declared) if declared is not None else [None]

    lineage_owner: dict[str, str] = {}
    # pair -> lineage -> stratum -> completed values; dicts keep first-seen order.
    cells: dict[str, dict[str, dict[str | None, list[float]]]] = {}
    for index, row in enumerate(rows):
        if row.value is not None and not math.isfinite(row.value):
            raise InputError(
                f"records: record #{index + 1} (pair {row.pair_id!r}, lineage {row.lineage_id!r}) "
                f"has value {row.value!r}; values must be finite (use None for a failed trial)"
            )
        if declared is not None and row.stratum not in declared:
            raise InputError(
                f"records: record #{index + 1} has stratum {row.stratum!r}, not one of {declared}; "
                "fix the record or the declared strata"
            )
        owner = lineage_owner.setdefault(row.lineage_id, row.pair_id)
        if owner != row.pair_id:
            raise InputError(
                f"records: record #{index + 1}: lineage {row.lineage_id!r} appears in pairs "
                f"{owner!r} and {row.pair_id!r}; a lineage belongs to exactly one pair"
            )
        by_stratum = cells.setdefault(row.pair_id, {}).setdefault(row.lineage_id, {})
        values = by_stratum.setdefault(row.stratum, [])
        if row.value is not None:
            values.append(float(row.value))

    per_pair: dict[str, float] = {}
    per_lineage: dict[str, dict[str, float]] = {}
    incomplete: list[str] = []
    reasons: dict[str, str] = {}
    for pair_id, lineages in cells.items():
        if len(lineages) > lineages_per_pair:
            raise InputError(
                f"records: pair {pair_id!r} has {len(lineages)} lineages ({', '.join(lineages)}); "
                f"expected {lineages_per_pair}"
            )
        problems: list[str] = []
        if len(lineages) < lineages_per_pair:
            problems.append(f"only {len(lineages)} of {lineages_per_pair} lineages have records")
        lineage_values: dict[str, float] = {}
        for lineage_id, by_stratum in lineages.items():
            missing = [s for s in required if not by_stratum.get(s)]
            if missing:
                what = "any completed trial" if missing == [None] else f"stratum {', '.join(map(str, missing))}"
                problems.append(f"lineage {lineage_id!r} lacks {what}")
                continue
            lineage_values[lineage_id] = _mean(_mean(by_stratum[s]) for s in required)
        if problems:
            incomplete.append(pair_id)
            reasons[pair_id] = "; ".join(problems)
            continue
        per_lineage[pair_id] = lineage_values
        per_pair[pair_id] = _mean(lineage_values.values())

    return PairBalanced(
        mean=_mean(per_pair.values()) if per_pair else None,
        per_pair=per_pair,
        per_lineage=per_lineage,
        incomplete=incomplete,
        incomplete_reasons=reasons,
        strata=declared,
        attempted=len(rows),
        completed=sum(row.value is not None for row in rows),
        pairs_attempted=len(cells),
        pairs_completed=len(per_pair),
    )


def pair_differences(first: PairBalanced, second: PairBalanced) -> PairDifferences:
    """Per-pair differences ``second - first`` over pairs complete in both configurations.

    Args:
        first: pair-balanced result of the first configuration of a contrast.
        second: pair-balanced result of the second configuration.

    Returns:
        The matched differences in the first result's pair order (then the second's), their
        mean, and the pairs that are not complete in both.
    """
    order = list(dict.fromkeys([*first.per_pair, *first.incomplete, *second.per_pair, *second.incomplete]))
    diffs = {
        pair: second.per_pair[pair] - first.per_pair[pair]
        for pair in order
        if pair in first.per_pair and pair in second.per_pair
    }
    return PairDifferences(
        diffs=diffs,
        mean=_mean(diffs.values()) if diffs else None,
        incomplete=[pair for pair in order if pair not in diffs],
    )
