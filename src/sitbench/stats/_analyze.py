"""The confirmatory analysis of scored runs: E1–E8 with Holm, plus secondary comparisons.

Rules fixed here (seed §8.1–8.2, SPEC §2.7/§2.9):

* **Matched eligible trials.** A contrast pairs the trials of its two configurations by
  probe id. A probe is eligible only when it was completed in both configurations (for
  E6: and both carry a prompt-token count); a probe dropped or missing in either one is
  left out of both, so the configurations are always compared on the same trials.
* **Pair-balanced endpoint (Eq. 40).** Within a lineage the eligible trials are averaged
  per stratum and the experiment's strata weighted equally; the two lineages are
  averaged; ``d_k`` is the second configuration's pair value minus the first's. A pair in
  which a lineage lacks a required stratum, or has probes but no eligible trial, is
  *incomplete* for that contrast and listed with its reason — never reweighted.
* **Tests and intervals.** Each primary contrast gets the two-sided sign-flip test of
  ``|mean d|`` (exact up to ``max_exact`` pairs) and a 95 % percentile cluster-bootstrap
  interval over pair ids. Each pair's whole payload (both configurations, both lineages,
  all strata) reduces to its ``d_k`` before resampling, so resampling pairs and
  recomputing the mean of ``d`` *is* the cluster bootstrap; it uses the recorded seed.
* **Holm over exactly E1–E8.** Adjusted p-values and decisions are reported only when all
  eight contrasts could be computed. When one cannot, its raw p does not exist, and Holm
  over the remaining ones would be a smaller family than the one declared; the adjusted
  values are then ``null`` with the reason, and no confirmatory decision is made.
* **Secondary comparisons** (seed §8.1) are reported descriptively — per-pair
  differences, mean and interval — under their own key, with no p-value, and never enter
  the family.
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from sitbench.errors import InputError
from sitbench.metrics import PairRecord, laa_outcome, pair_balanced
from sitbench.runs import RunManifest, RunStore, ScoreRecord
from sitbench.schema import Category
from sitbench.stats._bootstrap import BootstrapResult, bootstrap_mean
from sitbench.stats._experiments import (
    CONFIRMATORY_FAMILY,
    EXPERIMENTS,
    Experiment,
    ProbeFilter,
    holm_family,
)
from sitbench.stats._holm import check_alpha
from sitbench.stats._signflip import MAX_EXACT_LIMIT, SignFlipResult, sign_flip_test

LineageRule = Literal["auto", "both", "present"]
"""How many lineages a pair needs in a probe subset.

``both`` is the plan (seed §8.2): a pair lacking either member's probes of the subset is
incomplete. ``auto`` (the default) counts each pair with the lineages the runs hold probes of
the subset for — a fixture such as the pilot gives some categories to one member only — and
names those pairs in ``single_lineage_pairs``; on a suite that gives every category to both
members it computes exactly what ``both`` does. ``present`` is the same computation as ``auto``.
"""

STRATUM_ALIASES: dict[str, str] = {"pre": "pre_acquisition", "post": "post_acquisition"}
"""Short stratum labels used by datasets, mapped to the registry's names."""

SECONDARY_COMPARISONS: dict[str, tuple[tuple[str, str], ...]] = {
    "E1": (("B", "C"), ("B", "D")),
    "E2": (("C", "G"), ("C", "H")),
    "E3": (("E", "F"), ("D", "G"), ("D", "H")),
    "E4": (("E", "F"), ("F", "G")),
    "E5": (("B", "G"), ("B", "H"), ("C", "G")),
    "E6": (("D", "G"), ("D", "E"), ("D", "H")),
    "E7": (("B", "G"), ("C", "D"), ("C", "E"), ("C", "F"), ("C", "H")),
    "E8": (),
}
"""Experiment id → (first, second) configurations compared descriptively on the same
endpoint and probe subset (seed §8.1: B vs C for E1, E/F vs F/G/H for E3, …)."""

DEFAULT_SEED = 20_240_601
"""Bootstrap (and Monte-Carlo) seed used when none is given; always recorded in the output."""

_WHITESPACE_TOKENS = "whitespace-separated words (the runner's default; no tokenizer is named in the run manifest)"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)


class PairResult(_Model):
    """Pair-level endpoint of both configurations and their difference."""

    pair_id: str
    """Collision pair."""
    first: float
    """Pair value of the first configuration."""
    second: float
    """Pair value of the second configuration."""
    d: float
    """``second - first``."""


class ContrastBand(_Model):
    """The band of a contrast over two readers: each side's pair-averaged value and the mean difference, lowest
    and highest over the contested verdicts."""

    first: tuple[float, float]
    """(low, high) of the first configuration's value, averaged over the contrast's pairs."""
    second: tuple[float, float]
    """(low, high) of the second configuration's value."""
    mean: tuple[float, float]
    """(low, high) of ``mean d``: the second's low minus the first's high, and the reverse."""


class ContrastResult(_Model):
    """One contrast: per-pair differences, mean, interval and (primary only) the test."""

    id: str
    """``E1`` … ``E8`` for a primary contrast; ``E1:B-C`` style for a secondary one."""
    experiment: str
    """Experiment the contrast belongs to."""
    role: Literal["primary", "secondary"]
    """Primary contrasts form the Holm family; secondary ones are descriptive only."""
    title: str
    """Experiment title."""
    first_config: str
    """Configuration subtracted."""
    second_config: str
    """Configuration whose value comes first in ``d = second - first``."""
    endpoint: str
    """Endpoint (``LAA``, ``A_epi``, …, ``prompt_tokens``)."""
    probe_subset: str
    """The probe subset in words."""
    strata: list[str] | None
    """Strata weighted equally within each lineage; ``None`` when unstratified."""
    direction: Literal["positive", "negative"]
    """Sign of ``mean d`` that favours the hypothesis."""
    status: Literal["computed", "incomplete"]
    """``incomplete`` when no pair has an eligible value in both configurations."""
    reason: str | None
    """Why the contrast is incomplete."""
    n_pairs: int
    """Pairs with a difference."""
    per_pair: list[PairResult]
    """Pair-level values and differences, in pair-id order."""
    mean: float | None
    """Unweighted mean of ``d`` over the pairs."""
    ci_lower: float | None
    """Lower bound of the percentile bootstrap interval."""
    ci_upper: float | None
    """Upper bound of the percentile bootstrap interval."""
    bootstrap: BootstrapResult | None
    """The full bootstrap result (seed, resamples, degeneracy)."""
    p: float | None
    """Raw two-sided sign-flip p-value (primary contrasts only)."""
    signflip: SignFlipResult | None
    """The full sign-flip result (primary contrasts only)."""
    p_holm: float | None
    """Holm-adjusted p over E1–E8; ``None`` unless all eight were computed."""
    decision: Literal["reject_null", "not_rejected", "no_decision", "descriptive"]
    """Confirmatory decision at the family-wise level, or why there is none."""
    decision_note: str
    """The decision in words."""
    favours_hypothesis: bool | None
    """Whether ``mean d`` points the hypothesised way (``None`` without a mean)."""
    incomplete_pairs: dict[str, str]
    """Pairs left out of the contrast and why."""
    attempted: dict[str, int]
    """Configuration → trials of the probe subset seen."""
    completed: dict[str, int]
    """Configuration → trials of the probe subset completed."""
    matched_trials: int
    """Probes eligible in both configurations (the matched trials actually used)."""
    excluded_trials: dict[str, int]
    """Why probes of the subset were not matched (dropped or missing in a configuration)."""
    sources: dict[str, str]
    """Configuration → run the records came from."""
    band: ContrastBand | None = None
    """Two-reader runs: the contrast's inputs and mean with every contested verdict counted as a failure and as
    a pass; None with one reader (or for a token endpoint)."""
    single_lineage_pairs: list[str] = []
    """Pairs counted with one lineage because the runs hold only that member's probes of the subset
    (lineage rule ``auto``/``present``); ``both`` marks such pairs incomplete instead."""


class FamilySummary(_Model):
    """Holm–Bonferroni over the confirmatory family E1–E8."""

    members: list[str]
    """The declared family, in plan order."""
    computed: list[str]
    """Members with a raw p-value."""
    missing: dict[str, str]
    """Members that could not be computed, and why."""
    complete: bool
    """True when all eight have a raw p-value (only then are adjusted p-values reported)."""
    alpha: float
    """Family-wise error rate."""
    adjusted: dict[str, float] | None
    """Holm-adjusted p-values; ``None`` when the family is incomplete."""
    reject: dict[str, bool] | None
    """Rejections at ``alpha``; ``None`` when the family is incomplete."""
    note: str
    """How the family was handled."""


class RunSource(_Model):
    """A run directory that contributed records."""

    path: str
    """Run directory as given."""
    run_id: str | None
    """Run id from its manifest (``None`` without a manifest)."""
    model: str | None
    """Candidate spec from its manifest."""
    handler: str | None
    """Evidence handler from its manifest."""
    configs: list[str]
    """Configurations it contributed."""
    records: int
    """Score records read."""
    used_for: Literal["all", "E6"]
    """``E6``: the run was passed as the token-scaling run and feeds only E6 and its secondaries."""


class AnalysisReport(_Model):
    """``sitbench analyze``: the confirmatory family, its Holm adjustment and the secondaries."""

    seed: int
    """Seed of the bootstrap (and of any Monte-Carlo sign-flip test)."""
    n_resamples: int
    """Bootstrap resamples per contrast."""
    ci: float
    """Coverage of the bootstrap intervals."""
    alpha: float
    """Family-wise error rate of the Holm procedure."""
    lineage_rule: LineageRule
    """``both``: a pair needs both lineages in the subset (the plan); ``auto`` (default) and
    ``present``: a pair counts with the lineages the runs hold probes of the subset for."""
    e6_tokenizer: str
    """Tokenizer the E6 prompt-token counts were made with."""
    runs: list[RunSource]
    """Where the records came from."""
    experiments: list[ContrastResult]
    """E1–E8 in plan order."""
    family: FamilySummary
    """Holm over exactly E1–E8."""
    secondary: list[ContrastResult]
    """Descriptive secondary comparisons (never in the family)."""
    notes: list[str]
    """Rules applied, in words."""


class _Row(NamedTuple):
    """What the analysis keeps of one score record: its labels and its verdicts' validity, no more."""

    trial_id: str
    config: str
    probe_id: str
    lineage_id: str
    pair_id: str
    category: Category
    stratum: str | None
    theorem_qualified: bool
    gate_sensitive: bool
    capability: str
    status: str
    valid: bool | None
    partner_valid: bool | None
    prompt_tokens: int
    history_length: int
    second_valid: bool | None = None
    second_partner_valid: bool | None = None


def _intern(text: str | None) -> str | None:
    return None if text is None else sys.intern(text)


def _row(record: ScoreRecord | _Row) -> _Row:
    if isinstance(record, _Row):
        return record
    return _Row(
        record.trial_id, record.config, record.probe_id, sys.intern(record.lineage_id),
        sys.intern(record.pair_id), record.category, _intern(record.stratum), record.theorem_qualified,
        record.gate_sensitive, sys.intern(record.capability), record.status,
        None if record.verdict is None else record.verdict.valid,
        None if record.partner is None else record.partner.valid, record.prompt_tokens, record.history_length,
        None if record.second is None else record.second.verdict.valid,
        None if record.second is None or record.second.partner is None else record.second.partner.valid,
    )


AnalysisRecord = ScoreRecord | _Row
"""What :func:`analyze` reads: score records (as :meth:`RunStore.iter_scores` yields them)."""


def load_score_rows(run_dir: Path | str) -> list[ScoreRecord]:
    """Read the analysis fields of ``RUN/scores.jsonl`` (:meth:`RunStore.iter_scores` with ``summary``).

    Observations and per-check breakdowns are skipped rather than validated; the record checks are
    those of :func:`sitbench.metrics.iter_scores` (a trial twice, a completed trial without its
    verdict or, theorem-qualified, without its partner verdict). :func:`analyze_runs` reads runs one
    record at a time instead of through this list.

    Raises:
        InputError: the directory or file is missing, or a line is malformed or fails a check;
            the message names the file and line.
    """
    return list(RunStore(Path(run_dir)).iter_scores(summary=True))


@dataclass(frozen=True)
class _Spec:
    id: str
    experiment: Experiment
    role: Literal["primary", "secondary"]
    first: str
    second: str


@contextlib.contextmanager
def _collection_paused() -> Iterator[None]:
    # Tens of thousands of nested records make the cyclic collector rescan the growing heap
    # over and over (about 4x the loading time); nothing built here forms cycles worth
    # collecting before the call returns.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _natural_key(text: str) -> list[object]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def _selector(experiment: Experiment) -> Callable[[_Row], bool]:
    """Which score records belong to the experiment's probe subset."""
    category = Category(experiment.probe_category) if experiment.probe_category else None
    capability = experiment.capability
    key = experiment.probe_filter
    if key is ProbeFilter.THEOREM_QUALIFIED:
        return lambda r: r.theorem_qualified
    if key is ProbeFilter.GATE_SENSITIVE:
        return lambda r: r.category is category and r.gate_sensitive
    if key is ProbeFilter.HISTORY_LENGTH:
        # E6: the fixed query set at history length T, every category. Runs scored before the
        # length was recorded carry 0 and are taken whole (the token-scaling run is then T = 500 only).
        length = experiment.history_length
        if length is None:
            raise InputError(f"experiment {experiment.id}: probe_filter {key.value!r} needs history_length; "
                             "fix the registry")
        return lambda r: r.history_length in (length, 0)
    if category is None:
        raise InputError(f"experiment {experiment.id}: probe_filter {key.value!r} needs a probe_category; "
                         "fix the registry")
    if capability is not None:
        return lambda r: r.category is category and r.capability == capability
    return lambda r: r.category is category


World = Literal["point", "low", "high"]
"""Which reading of a two-reader trial an endpoint takes: the primary reader's, or a contested verdict counted
as a failure (``low``) or as a pass (``high``)."""


def _verdicts(record: _Row, world: World) -> tuple[bool | None, bool | None]:
    """(target valid, partner valid) of a trial in a world (the primary reader's with one reader)."""
    valid, partner = record.valid, record.partner_valid
    if world == "point" or record.second_valid is None or valid is None:
        return valid, partner
    second_partner = record.second_partner_valid
    partners = [v for v in (partner, second_partner) if v is not None]
    if world == "low":  # a failure: valid only if both say so; the partner fits if either says so
        return valid and record.second_valid, any(partners) if partners else None
    return valid or record.second_valid, all(partners) if partners else None


def _value(experiment: Experiment, record: _Row, world: World = "point") -> float | None:
    """The trial's endpoint value, or ``None`` when the trial is not eligible."""
    if record.status != "completed":
        return None
    if experiment.endpoint == "prompt_tokens":
        return float(record.prompt_tokens) if record.prompt_tokens > 0 else None
    valid, partner_valid = _verdicts(record, world)
    if valid is None:
        raise InputError(
            f"trial {record.trial_id!r}: field 'verdict' is null on a completed trial; "
            "re-score the run with `sitbench rescore RUN`"
        )
    if experiment.endpoint == "LAA":
        if partner_valid is None:
            raise InputError(
                f"trial {record.trial_id!r}: field 'partner' is null on a completed theorem-qualified trial "
                "(LAA needs the partner-contract verdict); re-score the run with `sitbench rescore RUN`"
            )
        return 1.0 if laa_outcome(valid, partner_valid) == "correct" else 0.0
    return 1.0 if valid else 0.0


def _exclusion(value_first: float | None, value_second: float | None, first: _Row | None,
               second: _Row | None, spec: _Spec) -> str | None:
    sides = ((spec.first, first, value_first), (spec.second, second, value_second))
    for config, record, _ in sides:
        if record is None:
            return f"missing in {config}"
    for config, record, _ in sides:
        if record is not None and record.status != "completed":
            return f"dropped in {config}"
    for config, _, value in sides:
        if value is None:
            return f"no prompt-token count in {config}"
    return None


def _cell_records(cells: Mapping[tuple[str, str, str | None], list[float]]) -> list[PairRecord]:
    """One record per (pair, lineage, stratum) cell carrying the cell mean.

    Eq. 40 first averages each cell, so handing the aggregation the cell means gives the
    same result as handing it every trial — with one record per cell instead of one per
    trial (a held-out run has about a hundred thousand trial rows across the contrasts).
    """
    return [
        PairRecord(pair_id=pair, lineage_id=lineage, stratum=stratum,
                   value=math.fsum(values) / len(values) if values else None)
        for (pair, lineage, stratum), values in cells.items()
    ]


def _pair_values(
    rows: list[PairRecord],
    strata: Sequence[str] | None,
    lineage_counts: Mapping[str, int] | None,
) -> tuple[dict[str, float], dict[str, str]]:
    """Pair id → pair-balanced value, and pair id → why it is incomplete."""
    if lineage_counts is None:
        result = pair_balanced(rows, strata=strata, lineages_per_pair=2)
        return dict(result.per_pair), dict(result.incomplete_reasons)
    by_pair: dict[str, list[PairRecord]] = {}
    for row in rows:
        by_pair.setdefault(row.pair_id, []).append(row)
    values: dict[str, float] = {}
    reasons: dict[str, str] = {}
    for pair_id, pair_rows in by_pair.items():
        result = pair_balanced(pair_rows, strata=strata, lineages_per_pair=lineage_counts[pair_id])
        if result.mean is None:
            reasons[pair_id] = result.incomplete_reasons[pair_id]
        else:
            values[pair_id] = result.mean
    return values, reasons


@dataclass
class _Cells:
    """Each configuration's eligible values per (pair, lineage, stratum) cell, in one world."""

    first: dict[tuple[str, str, str | None], list[float]]
    second: dict[tuple[str, str, str | None], list[float]]
    excluded: dict[str, int]
    matched: int
    lineages: dict[str, set[str]]

    @classmethod
    def collect(cls, spec: _Spec, strata: Sequence[str] | None, first_by_probe: Mapping[str, _Row],
                second_by_probe: Mapping[str, _Row], probes: Sequence[str], world: World) -> _Cells:
        # A cell with no eligible value still marks its presence (its pair is then incomplete).
        cells = cls({}, {}, {}, 0, {})
        for probe in probes:
            a, b = first_by_probe.get(probe), second_by_probe.get(probe)
            label = a or b
            assert label is not None
            if a is not None and b is not None and (a.lineage_id, a.pair_id) != (b.lineage_id, b.pair_id):
                raise InputError(
                    f"probe {probe!r}: lineage/pair differ between {spec.first} ({a.lineage_id}/{a.pair_id}) and "
                    f"{spec.second} ({b.lineage_id}/{b.pair_id}); the runs are of different datasets — analyze "
                    "runs of one dataset together"
                )
            va = _value(spec.experiment, a, world) if a is not None else None
            vb = _value(spec.experiment, b, world) if b is not None else None
            why = _exclusion(va, vb, a, b, spec)
            if why is None:
                cells.matched += 1
            else:
                cells.excluded[why] = cells.excluded.get(why, 0) + 1
                va = vb = None
            stratum = STRATUM_ALIASES.get(label.stratum or "", label.stratum) if strata is not None else None
            cells.lineages.setdefault(label.pair_id, set()).add(label.lineage_id)
            cell = (label.pair_id, label.lineage_id, stratum)
            first_values_in_cell = cells.first.setdefault(cell, [])
            second_values_in_cell = cells.second.setdefault(cell, [])
            if va is not None and vb is not None:
                first_values_in_cell.append(va)
                second_values_in_cell.append(vb)
        return cells


def _band(spec: _Spec, strata: Sequence[str] | None, first_by_probe: Mapping[str, _Row],
          second_by_probe: Mapping[str, _Row], probes: Sequence[str], counts: Mapping[str, int] | None,
          pairs: Sequence[str]) -> ContrastBand | None:
    """The contrast's band over two readers, on the pairs of its point estimate; None with one reader."""
    rows = [*first_by_probe.values(), *second_by_probe.values()]
    if spec.experiment.endpoint == "prompt_tokens" or not any(r.second_valid is not None for r in rows):
        return None
    sides: dict[str, tuple[dict[str, float], dict[str, float]]] = {}
    for world in ("low", "high"):
        cells = _Cells.collect(spec, strata, first_by_probe, second_by_probe, probes, world)
        first, _ = _pair_values(_cell_records(cells.first), strata, counts)
        second, _ = _pair_values(_cell_records(cells.second), strata, counts)
        sides[world] = (first, second)
    (first_low, second_low), (first_high, second_high) = sides["low"], sides["high"]

    def mean(values: Mapping[str, float]) -> float:
        return math.fsum(values[p] for p in pairs) / len(pairs)

    return ContrastBand(first=(mean(first_low), mean(first_high)), second=(mean(second_low), mean(second_high)),
                        mean=(mean(second_low) - mean(first_high), mean(second_high) - mean(first_low)))


def _compute(
    spec: _Spec,
    subset: Mapping[str, list[_Row]],
    sources: Mapping[str, str],
    *,
    lineage_rule: LineageRule,
    seed: int,
    n_resamples: int,
    ci: float,
    max_exact: int,
    n_draws: int,
) -> ContrastResult:
    experiment = spec.experiment
    strata = list(experiment.strata) if experiment.strata else None
    first_rows = subset.get(spec.first, [])
    second_rows = subset.get(spec.second, [])
    base = {
        "id": spec.id,
        "experiment": experiment.id,
        "role": spec.role,
        "title": experiment.title,
        "first_config": spec.first,
        "second_config": spec.second,
        "endpoint": experiment.endpoint,
        "probe_subset": experiment.probe_subset,
        "strata": strata,
        "direction": experiment.direction,
        "attempted": {spec.first: len(first_rows), spec.second: len(second_rows)},
        "completed": {
            spec.first: sum(r.status == "completed" for r in first_rows),
            spec.second: sum(r.status == "completed" for r in second_rows),
        },
        "sources": {c: sources[c] for c in (spec.first, spec.second) if c in sources},
    }

    def incomplete(reason: str, *, matched: int = 0, excluded: dict[str, int] | None = None,
                   pairs: dict[str, str] | None = None) -> ContrastResult:
        return ContrastResult(
            **base, status="incomplete", reason=reason, n_pairs=0, per_pair=[], mean=None, ci_lower=None,
            ci_upper=None, bootstrap=None, p=None, signflip=None, p_holm=None,
            decision="no_decision" if spec.role == "primary" else "descriptive",
            decision_note=f"not computed: {reason}", favours_hypothesis=None, incomplete_pairs=pairs or {},
            matched_trials=matched, excluded_trials=excluded or {},
        )

    missing = [c for c in (spec.first, spec.second) if c not in subset]
    if missing:
        return incomplete(f"no records of configuration {' or '.join(missing)} in the runs given")
    if not first_rows and not second_rows:
        return incomplete("no trial of the probe subset in either configuration")

    if strata is not None:
        bad = [r for r in (*first_rows, *second_rows) if STRATUM_ALIASES.get(r.stratum or "", r.stratum) not in strata]
        if bad:
            return incomplete(
                f"{len(bad)} trial(s) of the subset carry no usable stratum (e.g. {bad[0].trial_id!r} has "
                f"stratum {bad[0].stratum!r}; expected one of {', '.join(strata)}); fix the probes' strata and "
                "re-score"
            )

    first_by_probe = {r.probe_id: r for r in first_rows}
    second_by_probe = {r.probe_id: r for r in second_rows}
    probes = list(dict.fromkeys([*first_by_probe, *second_by_probe]))
    cells = _Cells.collect(spec, strata, first_by_probe, second_by_probe, probes, "point")
    first_cells, second_cells, excluded, matched, lineages = (cells.first, cells.second, cells.excluded,
                                                              cells.matched, cells.lineages)
    counts = {pair: len(members) for pair, members in lineages.items()} if lineage_rule != "both" else None
    single = [pair for pair in sorted(lineages, key=_natural_key) if counts is not None and counts[pair] < 2]
    first_values, first_reasons = _pair_values(_cell_records(first_cells), strata, counts)
    second_values, _ = _pair_values(_cell_records(second_cells), strata, counts)
    # Both configurations see the same eligible trials, so a pair is complete in both or in neither.
    order = sorted(lineages, key=_natural_key)
    incomplete_pairs = {pair: first_reasons[pair] for pair in order if pair in first_reasons}
    per_pair = [
        PairResult(pair_id=pair, first=first_values[pair], second=second_values[pair],
                   d=second_values[pair] - first_values[pair])
        for pair in order
        if pair in first_values and pair in second_values
    ]
    if not per_pair:
        return incomplete("no pair has eligible trials in every required lineage and stratum of both "
                          "configurations", matched=matched, excluded=excluded, pairs=incomplete_pairs).model_copy(
                              update={"single_lineage_pairs": single})

    diffs = [row.d for row in per_pair]
    mean = math.fsum(diffs) / len(diffs)
    band = _band(spec, strata, first_by_probe, second_by_probe, probes, counts, [row.pair_id for row in per_pair])
    boot = bootstrap_mean(diffs, n_resamples=n_resamples, seed=seed, ci=ci)
    test = sign_flip_test(diffs, max_exact=max_exact, n_draws=n_draws, seed=seed) if spec.role == "primary" else None
    return ContrastResult(
        **base, status="computed", reason=None, n_pairs=len(per_pair), per_pair=per_pair, mean=mean,
        ci_lower=boot.lower, ci_upper=boot.upper, bootstrap=boot, p=test.p if test else None, signflip=test,
        p_holm=None,
        decision="no_decision" if spec.role == "primary" else "descriptive",
        decision_note="pending Holm" if spec.role == "primary" else "secondary comparison: descriptive only, no test",
        favours_hypothesis=experiment.favours_hypothesis(mean) if mean != 0 else False,
        incomplete_pairs=incomplete_pairs, matched_trials=matched, excluded_trials=excluded,
        single_lineage_pairs=single, band=band,
    )


def _family(primary: list[ContrastResult], alpha: float) -> tuple[list[ContrastResult], FamilySummary]:
    missing = {c.id: c.reason or "not computed" for c in primary if c.p is None}
    computed = [c.id for c in primary if c.p is not None]
    if missing:
        note = (
            f"Holm-Bonferroni is declared over exactly {', '.join(CONFIRMATORY_FAMILY)}; "
            f"{', '.join(missing)} could not be computed, so no adjusted p-value and no confirmatory decision "
            "is reported (adjusting over the remaining contrasts would shrink the declared family). "
            "Raw p-values are shown for information only."
        )
        updated = [
            c.model_copy(update={
                "decision": "no_decision",
                "decision_note": c.decision_note if c.p is None else
                f"no confirmatory decision: the family is incomplete (missing {', '.join(missing)})",
            })
            for c in primary
        ]
        return updated, FamilySummary(members=list(CONFIRMATORY_FAMILY), computed=computed, missing=missing,
                                      complete=False, alpha=alpha, adjusted=None, reject=None, note=note)
    result = holm_family({c.id: c.p for c in primary if c.p is not None}, alpha=alpha)
    adjusted = dict(zip(result.experiments, result.adjusted, strict=True))
    reject = dict(zip(result.experiments, result.reject, strict=True))
    updated = []
    for c in primary:
        favour = "in the hypothesised direction" if c.favours_hypothesis else "against the hypothesised direction"
        note = (f"null rejected at family-wise alpha {alpha:g} (Holm p = {adjusted[c.id]:.4g}), {favour}"
                if reject[c.id] else f"null not rejected at family-wise alpha {alpha:g} (Holm p = {adjusted[c.id]:.4g})")
        updated.append(c.model_copy(update={
            "p_holm": adjusted[c.id],
            "decision": "reject_null" if reject[c.id] else "not_rejected",
            "decision_note": note,
        }))
    note = f"Holm-Bonferroni over exactly {', '.join(CONFIRMATORY_FAMILY)} at family-wise alpha {alpha:g}."
    return updated, FamilySummary(members=list(CONFIRMATORY_FAMILY), computed=computed, missing={}, complete=True,
                                  alpha=alpha, adjusted=adjusted, reject=reject, note=note)


def _group(records: Iterable[AnalysisRecord], what: str) -> dict[str, list[_Row]]:
    # Records are reduced to rows as they are read: a run's observations and verdict breakdowns are
    # never held, only what the contrasts match and average.
    by_config: dict[str, list[_Row]] = {}
    seen: set[tuple[str, str]] = set()
    for full in records:
        record = _row(full)
        key = (record.config, record.trial_id)
        if key in seen:
            raise InputError(
                f"{what}: trial {record.trial_id!r} of configuration {record.config} appears twice; "
                "merge shards with `sitbench merge` instead of passing overlapping runs"
            )
        seen.add(key)
        by_config.setdefault(record.config, []).append(record)
    return by_config


def check_resampling(seed: int, n_resamples: int, ci: float, alpha: float) -> None:
    """Refuse a bad seed, resample count, interval level or alpha with an InputError naming the fix."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed: {seed!r} must be a non-negative integer")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 2:
        raise InputError(f"n_resamples: {n_resamples!r} must be an integer ≥ 2, e.g. 1000")
    if not 0.0 < ci < 1.0:
        raise InputError(f"ci: {ci!r} must lie strictly between 0 and 1, e.g. 0.95")
    check_alpha(alpha)


def _check_options(seed: int, n_resamples: int, ci: float, alpha: float, max_exact: int,
                   lineage_rule: str) -> None:
    check_resampling(seed, n_resamples, ci, alpha)
    if not 0 <= max_exact <= MAX_EXACT_LIMIT:
        raise InputError(f"max_exact: {max_exact} is outside 0..{MAX_EXACT_LIMIT}")
    if lineage_rule not in ("auto", "both", "present"):
        raise InputError(f"lineage_rule: {lineage_rule!r} must be 'auto', 'both' or 'present'")


def analyze(
    records: Iterable[AnalysisRecord],
    *,
    e6_records: Iterable[AnalysisRecord] | None = None,
    sources: Mapping[str, str] | None = None,
    e6_sources: Mapping[str, str] | None = None,
    runs: Sequence[RunSource] = (),
    e6_tokenizer: str | None = None,
    seed: int = DEFAULT_SEED,
    n_resamples: int = 1000,
    ci: float = 0.95,
    alpha: float = 0.05,
    lineage_rule: LineageRule = "auto",
    max_exact: int = 24,
    n_draws: int = 100_000,
) -> AnalysisReport:
    """Run the confirmatory analysis E1–E8 (and the secondary comparisons) on score records.

    Args:
        records: score records of one model, any configurations A–I (and ``G_budget``), in any
            order; an iterator is read once, keeping only each record's labels and validity.
        e6_records: records of a separate token-scaling run (T = 500); when given, E6 and
            its secondary comparisons use only these, and ``records`` feed E1–E5, E7, E8.
        sources: configuration → where its records came from (reported per contrast).
        e6_sources: the same for ``e6_records``.
        runs: run directories to list in the report.
        e6_tokenizer: tokenizer the prompt-token counts were made with.
        seed: bootstrap seed (also the Monte-Carlo seed above ``max_exact`` pairs); recorded.
        n_resamples: bootstrap resamples per contrast.
        ci: coverage of the percentile intervals.
        alpha: family-wise error rate of Holm–Bonferroni.
        lineage_rule: ``auto`` (default; each pair counts with the lineages the records hold
            probes of the subset for, and such pairs are named per contrast), ``both`` (the plan:
            each pair needs both lineages in the subset) or ``present`` (the same as ``auto``).
        max_exact: largest number of pairs for the exact sign-flip enumeration.
        n_draws: Monte-Carlo sign draws above ``max_exact``.

    Returns:
        The report: E1–E8 with per-pair differences, mean, interval, p, Holm p and
        decision; the family summary; the secondary comparisons; the rules in words.

    Raises:
        InputError: a bad option, a duplicated trial, a completed trial without its
            verdict, or records of different datasets for the same probe.
    """
    _check_options(seed, n_resamples, ci, alpha, max_exact, lineage_rule)
    with _collection_paused():
        return _analyze(records, e6_records, sources, e6_sources, runs, e6_tokenizer, seed=seed,
                        n_resamples=n_resamples, ci=ci, alpha=alpha, lineage_rule=lineage_rule,
                        max_exact=max_exact, n_draws=n_draws)


def _analyze(
    records: Iterable[AnalysisRecord],
    e6_records: Iterable[AnalysisRecord] | None,
    sources: Mapping[str, str] | None,
    e6_sources: Mapping[str, str] | None,
    runs: Sequence[RunSource],
    e6_tokenizer: str | None,
    *,
    seed: int,
    n_resamples: int,
    ci: float,
    alpha: float,
    lineage_rule: LineageRule,
    max_exact: int,
    n_draws: int,
) -> AnalysisReport:
    main = _group(records, "records")
    token_run = _group(e6_records, "e6_records") if e6_records is not None else None
    main_sources = dict(sources or {c: "records" for c in main})
    token_sources = dict(e6_sources or ({c: "e6_records" for c in token_run} if token_run is not None else {}))
    options = {"lineage_rule": lineage_rule, "seed": seed, "n_resamples": n_resamples, "ci": ci,
               "max_exact": max_exact, "n_draws": n_draws}

    primary: list[ContrastResult] = []
    secondary: list[ContrastResult] = []
    for experiment in EXPERIMENTS:
        is_e6 = experiment.endpoint == "prompt_tokens"
        data = token_run if is_e6 and token_run is not None else main
        where = token_sources if is_e6 and token_run is not None else main_sources
        comparisons = [(experiment.first_config, experiment.second_config),
                       *SECONDARY_COMPARISONS.get(experiment.id, ())]
        select = _selector(experiment)
        # The probe subset of each configuration, selected once per experiment.
        subset = {config: [r for r in data[config] if select(r)]
                  for config in dict.fromkeys(c for pair in comparisons for c in pair) if config in data}
        spec = _Spec(experiment.id, experiment, "primary", experiment.first_config, experiment.second_config)
        primary.append(_compute(spec, subset, where, **options))  # type: ignore[arg-type]
        for first, second in comparisons[1:]:
            spec = _Spec(f"{experiment.id}:{first}-{second}", experiment, "secondary", first, second)
            secondary.append(_compute(spec, subset, where, **options))  # type: ignore[arg-type]
    primary, family = _family(primary, alpha)

    notes = [
        ("d_k = second configuration's pair-level endpoint minus the first's; p is the two-sided exact "
         "sign-flip test of |mean d| (Monte Carlo above max_exact pairs, with the recorded seed)."),
        "Matched eligible trials: a probe dropped or missing in either configuration is left out of both.",
        ("Pair-balanced (seed §8.2, Eq. 40): strata weighted equally within each lineage, then lineages, then pairs; a pair "
         "missing a required lineage or stratum is incomplete for that contrast, never reweighted."),
        f"Intervals: {ci:.0%} percentile cluster bootstrap over pair ids, {n_resamples} resamples, seed {seed}.",
        family.note,
        "Secondary comparisons are descriptive (effect and interval, no p-value) and are not in the family.",
    ]
    if lineage_rule != "both":
        single = {c.id: c.single_lineage_pairs for c in primary if c.single_lineage_pairs}
        if single:
            listed = "; ".join(f"{cid}: {', '.join(pairs)}" for cid, pairs in single.items())
            notes.append(f"lineage_rule {lineage_rule!r}: the runs hold only one member's probes of some subsets, "
                         f"so those pairs count with that lineage alone ({listed}); this deviates from the plan, "
                         "which needs both members (lineage_rule 'both', where such pairs are incomplete).")
        else:
            notes.append(f"lineage_rule {lineage_rule!r}: every pair holds both members' probes of every subset, "
                         "so this is the plan's rule ('both').")
    return AnalysisReport(
        seed=seed, n_resamples=n_resamples, ci=ci, alpha=alpha, lineage_rule=lineage_rule,
        e6_tokenizer=e6_tokenizer or _WHITESPACE_TOKENS, runs=list(runs), experiments=primary, family=family,
        secondary=secondary, notes=notes,
    )


def _tokenizer_of(manifest: RunManifest | None) -> str | None:
    if manifest is None:
        return None
    named = manifest.extra.get("tokenizer")
    if isinstance(named, dict):
        named = named.get("name")
    if not named and manifest.tokenizer and not manifest.tokenizer.startswith("whitespace"):
        named = manifest.tokenizer
    return str(named) if named else None


def _load_group(
    paths: Sequence[Path], used_for: Literal["all", "E6"], full_records: bool
) -> tuple[list[_Row], dict[str, str], list[RunSource], list[tuple[Path, RunManifest]]]:
    rows: list[_Row] = []
    sources: dict[str, str] = {}
    runs: list[RunSource] = []
    manifests: list[tuple[Path, RunManifest]] = []
    for path in paths:
        store = RunStore(path)
        start = len(rows)
        with _collection_paused():
            rows.extend(_row(record) for record in store.iter_scores(summary=not full_records))
        configs = list(dict.fromkeys(r.config for r in rows[start:]))
        for config in configs:
            if config in sources:
                raise InputError(
                    f"{path}: configuration {config} is also in {sources[config]}; pass each configuration from "
                    "one run (merge shards with `sitbench merge`; give a token-scaling run with --e6-run)"
                )
            sources[config] = str(path)
        manifest = store.manifest_or_none()
        if manifest is not None:
            manifests.append((path, manifest))
        runs.append(RunSource(
            path=str(path), run_id=manifest.run_id if manifest else None,
            model=str(manifest.candidate.get("spec")) if manifest else None,
            handler=manifest.handler if manifest else None, configs=configs, records=len(rows) - start,
            used_for=used_for,
        ))
    return rows, sources, runs, manifests


def analyze_runs(
    run_dirs: Sequence[Path | str],
    *,
    e6_run: Path | str | None = None,
    full_records: bool = False,
    **options: object,
) -> AnalysisReport:
    """Load scored run directories and run :func:`analyze` on them.

    Every configuration must come from exactly one run; all runs must be of the same
    candidate and evidence handler (their manifests are compared when present).

    Args:
        run_dirs: scored run directories (``scores.jsonl`` inside).
        e6_run: a scored token-scaling run (configurations D and ``G_budget`` at T = 500)
            that feeds E6 only.
        full_records: validate every field of every record with the full schema
            (:meth:`RunStore.iter_scores`) instead of reading only the fields the analysis uses
            (``summary``; same record checks, much faster).
        **options: passed on to :func:`analyze` (``seed``, ``n_resamples``, ``ci``, ``alpha``,
            ``lineage_rule``, ``max_exact``, ``n_draws``).

    Raises:
        InputError: a missing or malformed run, a configuration in two runs, or runs of
            different models or handlers.
    """
    if not run_dirs:
        raise InputError("RUN: give at least one scored run directory")
    records, sources, runs, manifests = _load_group([Path(p) for p in run_dirs], "all", full_records)
    e6_records = e6_sources = None
    tokenizer = None
    if e6_run is not None:
        e6_records, e6_sources, e6_runs, e6_manifests = _load_group([Path(e6_run)], "E6", full_records)
        runs += e6_runs
        manifests += e6_manifests
        tokenizer = _tokenizer_of(e6_manifests[0][1]) if e6_manifests else None
    else:
        named = {t for _, m in manifests if (t := _tokenizer_of(m))}
        tokenizer = "; ".join(sorted(named)) if named else None
    if manifests:
        first_path, first = manifests[0]
        for path, manifest in manifests[1:]:
            for field, mine, theirs in (("candidate.spec", manifest.candidate.get("spec"), first.candidate.get("spec")),
                                        ("handler", manifest.handler, first.handler)):
                if mine != theirs:
                    raise InputError(
                        f"{RunStore(path).manifest_path}: field '{field}' is {mine!r} but {first_path} has {theirs!r}; "
                        "primary contrasts compare configurations of one model and handler — analyze each "
                        "separately"
                    )
    return analyze(records, e6_records=e6_records, sources=sources, e6_sources=e6_sources, runs=runs,
                   e6_tokenizer=tokenizer, **options)  # type: ignore[arg-type]
