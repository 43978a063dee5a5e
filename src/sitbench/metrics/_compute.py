"""SIT metrics over scored trials (SPEC §2.7): category validity, Macro SIT, LAA/IC, FMR/TL/UEL."""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from sitbench.errors import InputError
from sitbench.metrics._aggregate import PairAccumulator, PairBalanced
from sitbench.metrics._audited import Audited
from sitbench.runs import DUPLICATE_HINT, SCORES_FILE, RunStore, ScoreRecord, score_problem
from sitbench.schema import CATEGORY_METRICS, Category
from sitbench.verify import Corrected, CorrectionStatus, correct, correct_mean, shipped_card

CORRECTION_SEED = 0
"""Seed of the bootstrap behind every card-corrected interval (fixed, so a figure is reproducible)."""

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


class Band(_Model):
    """The range a figure spans when two readers disagree: every contested verdict counted as a failure, and as
    a pass (a contested flag raised, and not). ``low`` ≤ ``high``; both None when the figure is undefined."""

    low: float | None
    """The figure's lowest value over the contested verdicts."""
    high: float | None
    """Its highest value."""


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
    n_unscored: int = 0
    """Trials the verifier could not read, or the run holds no whole record of: attempted, not completed, and
    left out of every figure (never counted as failures)."""
    unscored: dict[str, int] = Field(default_factory=dict)
    """Unscored trials by reason (``extractor unavailable``, ``torn``, ``not run``)."""
    n_over_length: int = 0
    """Completed trials whose answer was longer than the run's cap: scored invalid (``over_length``) unread."""
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
    n_two_readers: int = 0
    """Completed trials read by two readers (``--extractor FIRST+SECOND``); 0 with one reader."""
    contested: dict[str, int] = Field(default_factory=dict)
    """Category letter → trials whose two readers' verdicts differ (two readers only)."""
    band: dict[str, Band] | None = None
    """Two readers only: each figure's band (A_pos … A_session, macro_sit, LAA, IC_wrong, IC_none, FMR, TL,
    UEL); the figure itself is the primary reader's. None with one reader."""
    reader: str | None = None
    """``id@version`` of the reader whose verdicts the figures are (the primary reader); None when the
    configuration's verdicts come from several."""
    corrected: dict[str, Corrected] = Field(default_factory=dict)
    """A_pos … A_session and macro_sit corrected for the reader's measured false-reject and false-accept rates
    (its verifier card, Rogan–Gladen), each with its status: ``no_card`` when none was measured for this
    reader and scorer, ``too_small`` when the card has fewer than 30 annotated answers of a verdict."""
    audited: dict[str, Audited] | None = None
    """With a human audit of the run (``sitbench metrics RUN --audit REFERENCE``): A_pos … A_session and
    macro_sit corrected by it (observed + the inverse-probability-weighted mean of human − verifier verdict),
    each with its stratified bootstrap interval; None without an audit."""


LAAOutcome = Literal["correct", "wrong_identity", "neither", "both"]
"""Outcome of a theorem-qualified trial by ``(v_T, v_P)`` (Eq. 48)."""


def laa_outcome(target_valid: bool, partner_valid: bool) -> LAAOutcome:
    """The LAA outcome of a completed theorem-qualified trial (Eq. 48): the one definition of LAA.

    ``correct`` — valid for the target and not for the partner, what LAA counts;
    ``wrong_identity`` — fits the partner's history instead (IC_wrong); ``neither`` (IC_none);
    ``both`` — excluded by inv10, counted so a violation shows.
    """
    if target_valid:
        return "both" if partner_valid else "correct"
    return "wrong_identity" if partner_valid else "neither"


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


_LINEAGES_PER_PAIR = 2


class _RecordProblem(InputError):
    """A record that metrics cannot use, named by its trial (the caller adds the file)."""

_IC_METRICS: tuple[tuple[str, LAAOutcome], ...] = (
    ("LAA", "correct"), ("IC_wrong", "wrong_identity"), ("IC_none", "neither"))


class _Tally:
    """Attempted and completed trials of one group."""

    __slots__ = ("attempted", "completed")

    def __init__(self) -> None:
        self.attempted = 0
        self.completed = 0


class _Reading(NamedTuple):
    """What the figures read of one completed trial: its verdicts and flags (one reader's, or a bound)."""

    valid: bool
    partner_valid: bool | None
    false_memory: bool
    temporal_leak: bool
    unauthorized_epistemic: bool


def _readings(record: ScoreRecord) -> tuple[_Reading, _Reading, _Reading] | None:
    """The primary reading of a completed trial, then its pessimistic and optimistic bounds: with two readers
    a contested verdict counted as a failure and as a pass (a flag raised by either reader, and by both)."""
    if record.status != "completed":
        return None
    assert record.verdict is not None  # checked by score_problem
    partner = record.partner.valid if record.partner is not None else None
    point = _Reading(record.verdict.valid, partner, record.false_memory, record.temporal_leak,
                     record.unauthorized_epistemic)
    other = record.second
    if other is None:
        return point, point, point  # the same tuple three times: nothing is built for one reader
    second = _Reading(other.verdict.valid, other.partner.valid if other.partner is not None else None,
                      other.false_memory, other.temporal_leak, other.unauthorized_epistemic)
    partners = [v for v in (point.partner_valid, second.partner_valid) if v is not None]
    low = _Reading(point.valid and second.valid, any(partners) if partners else None,
                   point.false_memory or second.false_memory, point.temporal_leak or second.temporal_leak,
                   point.unauthorized_epistemic or second.unauthorized_epistemic)
    high = _Reading(point.valid or second.valid, all(partners) if partners else None,
                    point.false_memory and second.false_memory, point.temporal_leak and second.temporal_leak,
                    point.unauthorized_epistemic and second.unauthorized_epistemic)
    return point, low, high


class _Figures:
    """The value-dependent parts of one configuration's metrics, under one reading of every trial."""

    def __init__(self) -> None:
        # Categories are not split evenly over a pair's members (the pilot has D probes for one
        # lineage only), so each pair is aggregated with the lineages that have probes of the
        # category there; strata are not weighted: descriptive metrics average a lineage's probes.
        self.categories = {category: PairAccumulator() for category in CATEGORY_ORDER}
        self.laa = {metric: PairAccumulator() for metric, _ in _IC_METRICS}
        self.outcomes = {"correct": 0, "wrong_identity": 0, "neither": 0, "both": 0}
        self.flags = {"FMR": [0, 0], "TL": [0, 0], "UEL": [0, 0]}  # [hits, completed trials]

    def add(self, record: ScoreRecord, reading: _Reading | None) -> None:
        value = None if reading is None else float(reading.valid)
        self.categories[record.category].add(record.pair_id, record.lineage_id, value)
        if record.theorem_qualified:
            label: LAAOutcome | None = None
            if reading is not None:
                assert reading.partner_valid is not None  # checked by score_problem
                label = laa_outcome(reading.valid, reading.partner_valid)
                self.outcomes[label] += 1
            for metric, outcome in _IC_METRICS:
                self.laa[metric].add(record.pair_id, record.lineage_id,
                                     None if label is None else float(label == outcome))
        if reading is not None:
            if record.category in (Category.B, Category.G):
                self._flag("FMR", reading.false_memory)
            if record.category is Category.D and record.stratum == "pre":
                self._flag("TL", reading.temporal_leak)
            if record.category is Category.C:
                self._flag("UEL", reading.unauthorized_epistemic)

    def _flag(self, metric: str, hit: bool) -> None:
        counts = self.flags[metric]
        counts[0] += hit
        counts[1] += 1

    def values(self) -> tuple[dict[str, float | None], dict[str, PairBalanced]]:
        """Every figure by metric name, and the pair-balanced result behind each category and LAA figure."""
        values: dict[str, float | None] = {}
        results: dict[str, PairBalanced] = {}
        for category in CATEGORY_ORDER:
            accumulator = self.categories[category]
            # Each pair counts with the lineages it has (a lineage with probes but no completed trial
            # still makes its pair incomplete: reported, never silently reweighted).
            result = results[category.value] = accumulator.result(accumulator.lineages())
            values[CATEGORY_METRICS[category]] = result.mean
        category_values = list(values.values())
        values["macro_sit"] = (None if any(v is None for v in category_values)
                               else math.fsum(v for v in category_values if v is not None) / len(category_values))
        for metric, _ in _IC_METRICS:
            # Both members of a pair carry every theorem-qualified probe, so both are required.
            result = results[metric] = self.laa[metric].result(_LINEAGES_PER_PAIR)
            values[metric] = result.mean
        for metric, (hits, total) in self.flags.items():
            values[metric] = _share(hits, total)
        return values, results


BANDED: tuple[str, ...] = (*(CATEGORY_METRICS[c] for c in Category), "macro_sit", "LAA", "IC_wrong", "IC_none",
                           "FMR", "TL", "UEL")
"""The figures that carry a band when two readers scored the run."""


class _ConfigAccumulator:
    """One configuration's metrics, fed one score record at a time."""

    def __init__(self) -> None:
        self.trials = _Tally()
        self.category_trials = {category: _Tally() for category in CATEGORY_ORDER}
        self.laa_trials = _Tally()
        self.point = _Figures()
        # The bounds exist from the first two-reader record on: until then every reading is the primary's, so
        # they start as copies of the point figures (one reader costs nothing extra).
        self.bounds: tuple[_Figures, _Figures] | None = None
        self.unscored: dict[str, int] = {}
        self.over_length = 0
        self.two_readers = 0
        self.contested: dict[str, int] = {}
        self.readers: set[tuple[str, str]] = set()

    def add(self, record: ScoreRecord) -> None:
        completed = record.status == "completed"
        if record.status == "unscored":
            reason = (record.unscored_reason or "unknown").split(":", 1)[0]
            self.unscored[reason] = self.unscored.get(reason, 0) + 1
        self.over_length += record.over_length is not None
        for tally in (self.trials, self.category_trials[record.category]):
            tally.attempted += 1
            tally.completed += completed
        if record.theorem_qualified:
            self.laa_trials.attempted += 1
            self.laa_trials.completed += completed
        if record.verdict is not None and record.over_length is None:
            self.readers.add((record.verdict.extractor or "?", record.verdict.verifier_version))
        if record.second is not None:
            self.two_readers += 1
            if record.agreement == "contested":
                self.contested[record.category.value] = self.contested.get(record.category.value, 0) + 1
        readings = _readings(record)
        point, low, high = readings or (None, None, None)
        if self.bounds is None and record.second is not None:
            self.bounds = (copy.deepcopy(self.point), copy.deepcopy(self.point))
        self.point.add(record, point)
        if self.bounds is not None:
            self.bounds[0].add(record, low)
            self.bounds[1].add(record, high)

    def _band(self) -> dict[str, Band] | None:
        if self.bounds is None:
            return None
        low, _ = self.bounds[0].values()
        high, _ = self.bounds[1].values()
        band: dict[str, Band] = {}
        for metric in BANDED:
            ends = [v for v in (low[metric], high[metric]) if v is not None]
            band[metric] = Band(low=min(ends) if ends else None, high=max(ends) if ends else None)
        return band

    def _corrected(self, values: dict[str, float | None]) -> tuple[str | None, dict[str, Corrected]]:
        if len(self.readers) != 1:
            return None, {}
        ((reader, scorer),) = self.readers
        card = shipped_card().for_reader(reader, scorer)
        corrected: dict[str, Corrected] = {}
        parts: list[tuple[float, np.ndarray | None]] = []
        for category in CATEGORY_ORDER:
            metric = CATEGORY_METRICS[category]
            result, draws = correct(values[metric], self.category_trials[category].completed,
                                    card.categories.get(category.value) if card else None, seed=CORRECTION_SEED)
            corrected[metric] = result
            if result.estimate is not None:
                parts.append((result.estimate, draws))
        if card is None:
            corrected["macro_sit"] = Corrected(status=CorrectionStatus.NO_CARD)
        elif len(parts) == len(CATEGORY_ORDER):
            corrected["macro_sit"] = correct_mean(parts)
        else:
            corrected["macro_sit"] = Corrected(status=CorrectionStatus.TOO_SMALL)
        return reader, corrected

    def result(self) -> ConfigMetrics:
        values, results = self.point.values()
        reader, corrected = self._corrected(values)
        counts: dict[str, TrialCounts] = {}
        for category in CATEGORY_ORDER:
            tally, result = self.category_trials[category], results[category.value]
            counts[category.value] = TrialCounts(attempted=tally.attempted, completed=tally.completed,
                                                 pairs=result.pairs_completed,
                                                 incomplete_pairs=result.incomplete_reasons)
        laa = results["LAA"]
        counts[LAA_KEY] = TrialCounts(attempted=self.laa_trials.attempted, completed=self.laa_trials.completed,
                                      pairs=laa.pairs_completed, incomplete_pairs=laa.incomplete_reasons)
        (_, n_fmr), (_, n_tl), (_, n_uel) = self.point.flags["FMR"], self.point.flags["TL"], self.point.flags["UEL"]
        return ConfigMetrics(
            **values,
            n_attempted=self.trials.attempted,
            n_completed=self.trials.completed,
            n_unscored=sum(self.unscored.values()),
            unscored=dict(sorted(self.unscored.items(), key=lambda kv: -kv[1])),
            n_over_length=self.over_length,
            n_FMR=n_fmr,
            n_TL=n_tl,
            n_UEL=n_uel,
            laa_outcomes=LAAOutcomes(**self.point.outcomes),
            counts=counts,
            n_two_readers=self.two_readers,
            contested={c.value: self.contested.get(c.value, 0) for c in CATEGORY_ORDER} if self.two_readers else {},
            band=self._band(),
            reader=reader,
            corrected=corrected,
        )


def compute_metrics(records: Iterable[ScoreRecord]) -> dict[str, ConfigMetrics]:
    """Compute every SIT metric per configuration, aggregating the records as they come.

    Category validities (``A_pos`` … ``A_session``) are pair-balanced means of
    ``verdict.valid`` over completed trials (Eq. 40); within a category each pair counts
    with the lineages that have probes of it. ``LAA``/``IC_wrong``/``IC_none`` are
    pair-balanced shares of the ``(verdict.valid, partner.valid)`` outcomes
    (:func:`laa_outcome`) of completed theorem-qualified trials, over pairs where both members
    completed. ``FMR``, ``TL`` and ``UEL`` are plain shares over completed trials of the
    per-trial flags scoring stores. Dropped trials count as attempted and never as failures.
    Memory grows with configurations, pairs and lineages, not with trials (plus one trial id per
    trial, to refuse a trial given twice).

    Args:
        records: score records, in any order, of one or more configurations (an iterator is
            read once, e.g. :func:`iter_scores`).

    Returns:
        Configuration → metrics, configurations in sorted order (A…I).

    Raises:
        InputError: a duplicate trial id, a completed trial without a verdict (or without a
            partner verdict when theorem-qualified), a lineage listed under two pairs, or a
            pair with more than two lineages.
    """
    by_config: dict[str, _ConfigAccumulator] = {}
    seen: set[tuple[str, str]] = set()
    pair_of: dict[str, str] = {}
    members: dict[str, set[str]] = {}
    for record in records:
        key = (record.config, record.trial_id)
        problem = DUPLICATE_HINT if key in seen else score_problem(record)
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
            raise _RecordProblem(f"trial {record.trial_id!r}: {problem}")
        seen.add(key)
        accumulator = by_config.get(record.config)
        if accumulator is None:
            accumulator = by_config[record.config] = _ConfigAccumulator()
        accumulator.add(record)
    return {config: by_config[config].result() for config in sorted(by_config)}


def iter_scores(run_dir: Path | str, *, summary: bool = True) -> Iterator[ScoreRecord]:
    """Read ``RUN/scores.jsonl`` one record at a time, checked for metrics.

    Args:
        run_dir: a run directory written by ``sitbench run`` and scored by ``sitbench score``.
        summary: skip observations and per-check breakdowns (:meth:`RunStore.iter_scores`), which no
            metric reads.

    Raises:
        InputError: the directory or its score file is missing, a line is malformed, a trial
            appears twice, or a completed trial lacks its verdict (or, when theorem-qualified,
            its partner verdict); the message names the file and line.
    """
    return RunStore(Path(run_dir)).iter_scores(summary=summary)


def run_metrics(run_dir: Path | str) -> dict[str, ConfigMetrics]:
    """:func:`compute_metrics` of ``RUN/scores.jsonl``, read one record at a time.

    Raises:
        InputError: as :func:`iter_scores`, a record metrics cannot use (named with the file), or a
            manifest.json beside the scores that is malformed (the figures would be of an unknown run).
    """
    run = Path(run_dir)
    if run.is_dir():
        RunStore(run).manifest_or_none()
    records = iter_scores(run)
    try:
        return compute_metrics(records)
    except _RecordProblem as exc:
        raise InputError(f"{run / SCORES_FILE}: {exc}") from None


def load_scores(run_dir: Path | str) -> list[ScoreRecord]:
    """Read every record of ``RUN/scores.jsonl``, in file order, with the checks of :func:`iter_scores`.

    Raises:
        InputError: as :func:`iter_scores`.
    """
    return list(RunStore(Path(run_dir)).iter_scores())
