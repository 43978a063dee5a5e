"""Pair-balanced aggregation (SIT Eq. 40) and paired per-pair differences.

Below both metrics and stats: the category validities, LAA/IC and the E1–E8 contrasts all reduce
their trials through :class:`PairAccumulator`, which keeps one exact sum and count per
(pair, lineage, stratum) cell, so a run's trials are aggregated as they are read.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

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


class _ExactSum:
    """The exact sum of floats, rounded once when read (so the mean equals ``math.fsum(values) / n``)."""

    __slots__ = ("count", "fraction", "integral")

    def __init__(self) -> None:
        self.count = 0
        self.integral = 0
        self.fraction: Fraction | None = None

    def add(self, value: float) -> None:
        self.count += 1
        if value.is_integer():
            self.integral += int(value)  # 0/1 verdicts and token counts: exact and fast
        else:
            self.fraction = Fraction(value) + (self.fraction or 0)

    def mean(self) -> float:
        total = self.integral if self.fraction is None else self.fraction + self.integral
        # Both conversions round correctly, as math.fsum does: the same float as the mean of the list.
        return float(total) / self.count


class PairAccumulator:
    """Pair-balanced aggregation (Eq. 40) fed one trial at a time: memory grows with cells, not trials.

    Each (pair, lineage, stratum) cell keeps the exact sum and count of its completed values, which
    is all Eq. 40 reads. :func:`pair_balanced` is this accumulator fed a sequence at once.

    Args:
        strata: required strata, in report order; ``None`` means every stratum label added is
            required (a single implicit stratum when none has one).
    """

    def __init__(self, strata: Sequence[str] | None = None) -> None:
        declared = list(strata) if strata is not None else None
        if declared is not None and (len(set(declared)) != len(declared) or not declared):
            raise InputError(f"strata: {declared!r} must be a non-empty list of distinct names")
        self._declared = declared
        self._labels: set[str | None] = set()
        self._owner: dict[str, str] = {}
        # pair -> lineage -> stratum -> exact sum of completed values; dicts keep first-seen order.
        self._cells: dict[str, dict[str, dict[str | None, _ExactSum]]] = {}
        self.attempted = 0
        """Records added (trials attempted)."""
        self.completed = 0
        """Records added with a value (trials completed)."""

    def add(self, pair_id: str, lineage_id: str, value: float | None, stratum: str | None = None) -> None:
        """Add one trial: ``value=None`` marks an attempted trial that did not complete.

        Raises:
            InputError: a non-finite value, a stratum outside the declared strata, or a lineage
                listed under two pairs (naming the record by its 1-based position).
        """
        self.attempted += 1
        index = self.attempted
        if value is not None and not math.isfinite(value):
            raise InputError(
                f"records: record #{index} (pair {pair_id!r}, lineage {lineage_id!r}) "
                f"has value {value!r}; values must be finite (use None for a failed trial)"
            )
        if self._declared is not None and stratum not in self._declared:
            raise InputError(
                f"records: record #{index} has stratum {stratum!r}, not one of {self._declared}; "
                "fix the record or the declared strata"
            )
        owner = self._owner.setdefault(lineage_id, pair_id)
        if owner != pair_id:
            raise InputError(
                f"records: record #{index}: lineage {lineage_id!r} appears in pairs "
                f"{owner!r} and {pair_id!r}; a lineage belongs to exactly one pair"
            )
        self._labels.add(stratum)
        by_stratum = self._cells.setdefault(pair_id, {}).setdefault(lineage_id, {})
        cell = by_stratum.get(stratum)
        if cell is None:
            cell = by_stratum[stratum] = _ExactSum()
        if value is not None:
            cell.add(float(value))
            self.completed += 1

    def lineages(self) -> dict[str, int]:
        """Pair id → lineages with records, in first-seen order."""
        return {pair: len(lineages) for pair, lineages in self._cells.items()}

    def result(self, lineages_per_pair: int | Mapping[str, int] = 2) -> PairBalanced:
        """The pair-balanced mean of what was added.

        Args:
            lineages_per_pair: lineages each pair must have (2 for collision pairs), or pair id →
                that number for each pair.

        Raises:
            InputError: records with and without a stratum mixed (when no strata were declared), or a
                pair with more lineages than it may have.
        """
        if isinstance(lineages_per_pair, int) and lineages_per_pair < 1:
            raise InputError(f"lineages_per_pair: {lineages_per_pair} must be at least 1")
        declared = self._declared
        if declared is None:
            named = sorted(label for label in self._labels if label is not None)
            if named and None in self._labels:
                raise InputError(
                    "records: some records have a stratum and some have none; "
                    "give every record a stratum or pass strata explicitly"
                )
            declared = named or None
        required: list[str | None] = list(declared) if declared is not None else [None]

        per_pair: dict[str, float] = {}
        per_lineage: dict[str, dict[str, float]] = {}
        incomplete: list[str] = []
        reasons: dict[str, str] = {}
        for pair_id, lineages in self._cells.items():
            expected = lineages_per_pair if isinstance(lineages_per_pair, int) else lineages_per_pair[pair_id]
            if len(lineages) > expected:
                raise InputError(
                    f"records: pair {pair_id!r} has {len(lineages)} lineages ({', '.join(lineages)}); "
                    f"expected {expected}"
                )
            problems: list[str] = []
            if len(lineages) < expected:
                problems.append(f"only {len(lineages)} of {expected} lineages have records")
            lineage_values: dict[str, float] = {}
            for lineage_id, by_stratum in lineages.items():
                missing = [s for s in required if s not in by_stratum or not by_stratum[s].count]
                if missing:
                    what = "any completed trial" if missing == [None] else f"stratum {', '.join(map(str, missing))}"
                    problems.append(f"lineage {lineage_id!r} lacks {what}")
                    continue
                lineage_values[lineage_id] = _mean(by_stratum[s].mean() for s in required)
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
            attempted=self.attempted,
            completed=self.completed,
            pairs_attempted=len(self._cells),
            pairs_completed=len(per_pair),
        )


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
    accumulator = PairAccumulator(strata)
    for index, record in enumerate(records):
        row = _coerce(record, index)
        accumulator.add(row.pair_id, row.lineage_id, row.value, row.stratum)
    return accumulator.result(lineages_per_pair)


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
