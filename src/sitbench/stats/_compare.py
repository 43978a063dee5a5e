"""Paired comparison of arms (configurations of runs, or agents) on the probes of one dataset.

Rules (SPEC §2.7, §2.9):

* **Pairs are the unit.** For each endpoint, a pair is compared only when every probe of the endpoint it
  holds is completed in both arms. A probe dropped, unscored or missing in either arm makes that pair
  *incomplete* for the endpoint: it is listed with the probe and left out, never reweighted.
* **Endpoints.** The eight category validities and LAA are pair-balanced (Eq. 40: a lineage's probes, then
  the pair's lineages, then the pairs; a pair counts with the lineages holding probes of a category, LAA
  needs both), as ``sitbench metrics`` computes them. FMR, TL and UEL are plain shares over the compared
  pairs' trials. Macro SIT is the mean of the eight category validities, each over its compared pairs.
* **Pair contributions.** Each endpoint's difference ``arm - baseline`` is the mean of one value per
  compared pair: the pair's difference for pair-balanced endpoints; for a plain share, the pair's hits
  difference scaled by ``K / N`` (K pairs, N trials); for Macro SIT, ``(K / 8) Σ_c d_ck / n_c`` (equal to
  the pair's own Macro SIT difference when every pair is compared in every category). The exact
  sign-flip test flips the sign of each pair's contribution, so it tests the reported difference itself.
* **Intervals.** Percentile cluster bootstrap over pairs with the recorded seed: of the mean contribution
  for pair-balanced endpoints and Macro SIT, of the recomputed share difference for FMR, TL and UEL.
* **Holm** over exactly the eight category validities; a category with no compared pair enters with
  p = 1, which keeps the family at eight (conservative) and is reported.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sitbench.errors import InputError
from sitbench.metrics import PairAccumulator, laa_outcome
from sitbench.schema import CATEGORY_METRICS, Category
from sitbench.stats._analyze import DEFAULT_SEED, _natural_key, check_resampling
from sitbench.stats._bootstrap import BootstrapResult, ResampledCluster, bootstrap_mean, cluster_bootstrap
from sitbench.stats._compare_load import CompareRow, LoadedArm, load_arms
from sitbench.stats._compare_models import (
    ArmComparison,
    ChangeDirection,
    CompareReport,
    ContrastStatus,
    DatasetFingerprint,
    Decidability,
    Decision,
    EndpointComparison,
    EndpointKind,
    HolmSummary,
    PairContrast,
    ProbeChange,
    ProbeCounts,
)
from sitbench.stats._holm import check_alpha, holm
from sitbench.stats._signflip import MAX_EXACT_LIMIT, SignFlipResult, sign_flip_test

CATEGORY_FAMILY: tuple[str, ...] = tuple(CATEGORY_METRICS[c] for c in Category)
"""The Holm family of a comparison: the eight category validities, A–H."""

_SHOWN_PROBLEMS = 3
"""Problems named per incomplete pair (the rest are counted)."""

Select = Callable[[CompareRow], bool]


@dataclass(frozen=True)
class _Options:
    seed: int
    n_resamples: int
    ci: float
    alpha: float


@dataclass(frozen=True)
class _Spec:
    endpoint: str
    kind: EndpointKind
    select: Select
    category: str | None = None
    higher_is_better: bool = True
    value: Callable[[CompareRow], float] | None = None
    """Pair-balanced endpoints: a trial's value."""
    lineages: int | None = None
    """Lineages a pair needs (None: those holding probes of the endpoint)."""
    flag: Callable[[CompareRow], bool] | None = None
    """Plain-share endpoints: whether a trial counts as a hit."""


@dataclass
class _Matched:
    """The probes of one endpoint, matched across the two arms and grouped by pair."""

    pairs: dict[str, list[tuple[CompareRow, CompareRow]]]
    incomplete: dict[str, str]
    excluded: dict[str, int]
    attempted: dict[str, int]
    completed: dict[str, int]
    pairs_attempted: int


@dataclass
class _Result:
    """What one endpoint's computation yields before it becomes an :class:`EndpointComparison`."""

    per_pair: list[PairContrast] = field(default_factory=list)
    baseline: float | None = None
    arm: float | None = None
    bootstrap: BootstrapResult | None = None
    test: SignFlipResult | None = None
    incomplete: dict[str, str] = field(default_factory=dict)


def _valid(row: CompareRow) -> float:
    return 1.0 if row.valid else 0.0


def _laa_correct(row: CompareRow) -> float:
    return 1.0 if laa_outcome(bool(row.valid), bool(row.partner_valid)) == "correct" else 0.0


def _category_spec(category: Category) -> _Spec:
    return _Spec(CATEGORY_METRICS[category], EndpointKind.CATEGORY, lambda r: r.category is category,
                 category=category.value, value=_valid)


_CATEGORY_SPECS: tuple[_Spec, ...] = tuple(_category_spec(c) for c in Category)
_DIAGNOSTIC_SPECS: tuple[_Spec, ...] = (
    _Spec("LAA", EndpointKind.DIAGNOSTIC, lambda r: r.theorem_qualified, value=_laa_correct, lineages=2),
    _Spec("FMR", EndpointKind.DIAGNOSTIC, lambda r: r.category in (Category.B, Category.G),
          higher_is_better=False, flag=lambda r: r.false_memory),
    _Spec("TL", EndpointKind.DIAGNOSTIC, lambda r: r.category is Category.D and r.stratum == "pre",
          higher_is_better=False, flag=lambda r: r.temporal_leak),
    _Spec("UEL", EndpointKind.DIAGNOSTIC, lambda r: r.category is Category.C,
          higher_is_better=False, flag=lambda r: r.unauthorized_epistemic),
)


# --------------------------------------------------------------------------- matching


def _problem(row: CompareRow | None, label: str) -> str | None:
    if row is None:
        return f"missing in {label}"
    return None if row.status == "completed" else f"{row.status} in {label}"


def _same_probe(probe: str, base: CompareRow | None, arm: CompareRow | None) -> None:
    if base is not None and arm is not None and (base.pair_id, base.lineage_id) != (arm.pair_id, arm.lineage_id):
        raise InputError(f"probe {probe!r}: pair/lineage {base.pair_id}/{base.lineage_id} in one arm and "
                         f"{arm.pair_id}/{arm.lineage_id} in the other; compare runs of one dataset")


def _reason(problems: list[str]) -> str:
    more = len(problems) - _SHOWN_PROBLEMS
    return "; ".join(problems[:_SHOWN_PROBLEMS]) + (f" (+{more} more)" if more > 0 else "")


def _match(base: LoadedArm, arm: LoadedArm, select: Select) -> _Matched:
    labels = (base.info.label, arm.info.label)
    attempted, completed = dict.fromkeys(labels, 0), dict.fromkeys(labels, 0)
    grouped: dict[str, list[tuple[CompareRow, CompareRow]]] = {}
    problems: dict[str, list[str]] = {}
    excluded: Counter[str] = Counter()
    for probe in dict.fromkeys([*base.rows, *arm.rows]):
        b, a = base.rows.get(probe), arm.rows.get(probe)
        label_row = b if b is not None else a
        if label_row is None or not select(label_row):
            continue
        _same_probe(probe, b, a)
        for label, row in zip(labels, (b, a), strict=True):
            attempted[label] += row is not None
            completed[label] += row is not None and row.status == "completed"
        found = [p for p in (_problem(b, labels[0]), _problem(a, labels[1])) if p]
        pair = grouped.setdefault(label_row.pair_id, [])
        if found:
            problems.setdefault(label_row.pair_id, []).extend(f"{probe} {p}" for p in found)
            excluded.update(found)
        elif b is not None and a is not None:
            pair.append((b, a))
    order = sorted(grouped, key=_natural_key)
    return _Matched(
        pairs={p: grouped[p] for p in order if p not in problems},
        incomplete={p: _reason(problems[p]) for p in order if p in problems},
        excluded=dict(sorted(excluded.items())), attempted=attempted, completed=completed,
        pairs_attempted=len(order),
    )


# --------------------------------------------------------------------------- endpoints


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _balanced(spec: _Spec, matched: _Matched, options: _Options) -> _Result:
    assert spec.value is not None
    accumulators = (PairAccumulator(), PairAccumulator())
    for pair, rows in matched.pairs.items():
        for both in rows:
            for accumulator, row in zip(accumulators, both, strict=True):
                accumulator.add(pair, row.lineage_id, spec.value(row))
    need = spec.lineages if spec.lineages is not None else accumulators[0].lineages()
    first, second = (accumulator.result(need) for accumulator in accumulators)
    per_pair = [
        PairContrast(pair_id=p, baseline=first.per_pair[p], arm=second.per_pair[p],
                     difference=second.per_pair[p] - first.per_pair[p],
                     contribution=second.per_pair[p] - first.per_pair[p])
        for p in matched.pairs if p in first.per_pair
    ]
    result = _Result(per_pair=per_pair, incomplete=dict(first.incomplete_reasons))
    if per_pair:
        result.baseline = _mean([p.baseline for p in per_pair if p.baseline is not None])
        result.arm = _mean([p.arm for p in per_pair if p.arm is not None])
        result.bootstrap, result.test = _tests([p.contribution for p in per_pair], options)
    return result


def _tests(contributions: list[float], options: _Options) -> tuple[BootstrapResult, SignFlipResult]:
    boot = bootstrap_mean(contributions, n_resamples=options.n_resamples, seed=options.seed, ci=options.ci)
    return boot, sign_flip_test(contributions, seed=options.seed)


def _share_difference(drawn: Sequence[ResampledCluster[tuple[int, int, int]]]) -> float:
    base_hits = sum(c.payload[0] for c in drawn)
    arm_hits = sum(c.payload[1] for c in drawn)
    return (arm_hits - base_hits) / sum(c.payload[2] for c in drawn)


def _share(spec: _Spec, matched: _Matched, options: _Options) -> _Result:
    assert spec.flag is not None
    flag = spec.flag
    counts = {pair: (sum(flag(b) for b, _ in rows), sum(flag(a) for _, a in rows), len(rows))
              for pair, rows in matched.pairs.items() if rows}
    if not counts:
        return _Result()
    trials, k = sum(n for _, _, n in counts.values()), len(counts)
    per_pair = [
        PairContrast(pair_id=p, baseline=hb / n, arm=ha / n, difference=(ha - hb) / n,
                     contribution=k * (ha - hb) / trials)
        for p, (hb, ha, n) in counts.items()
    ]
    boot = cluster_bootstrap(counts, _share_difference, n_resamples=options.n_resamples, seed=options.seed,
                             ci=options.ci)
    test = sign_flip_test([p.contribution for p in per_pair], seed=options.seed)
    return _Result(per_pair=per_pair, baseline=sum(hb for hb, _, _ in counts.values()) / trials,
                   arm=sum(ha for _, ha, _ in counts.values()) / trials, bootstrap=boot, test=test)


def _endpoint(spec: _Spec, matched: _Matched, result: _Result) -> EndpointComparison:
    incomplete = {**matched.incomplete, **result.incomplete}
    computed = bool(result.per_pair)
    reason = None
    if not computed:
        reason = ("no probe of it in either arm" if not matched.pairs_attempted
                  else "no pair is complete in both arms")
    difference = None if result.arm is None or result.baseline is None else result.arm - result.baseline
    return EndpointComparison(
        endpoint=spec.endpoint, kind=spec.kind, category=spec.category, higher_is_better=spec.higher_is_better,
        status=ContrastStatus.COMPUTED if computed else ContrastStatus.INCOMPLETE, reason=reason,
        baseline_value=result.baseline, arm_value=result.arm, difference=difference,
        ci_lower=result.bootstrap.lower if result.bootstrap else None,
        ci_upper=result.bootstrap.upper if result.bootstrap else None, bootstrap=result.bootstrap,
        p=result.test.p if result.test else None, signflip=result.test, p_holm=None,
        decision=Decision.DESCRIPTIVE if computed else Decision.INCOMPLETE,
        decision_note="" if computed else f"not compared: {reason}", n_pairs=len(result.per_pair),
        pairs_attempted=matched.pairs_attempted, per_pair=result.per_pair,
        incomplete_pairs=dict(sorted(incomplete.items(), key=lambda kv: _natural_key(kv[0]))),
        attempted=matched.attempted, completed=matched.completed, excluded_trials=matched.excluded,
    )


def _compute(spec: _Spec, base: LoadedArm, arm: LoadedArm, options: _Options) -> EndpointComparison:
    matched = _match(base, arm, spec.select)
    result = _balanced(spec, matched, options) if spec.value is not None else _share(spec, matched, options)
    return _endpoint(spec, matched, result)


def _macro(categories: Sequence[EndpointComparison], options: _Options) -> EndpointComparison:
    """Macro SIT's difference: the mean of the category differences, through each pair's contribution."""
    attempted = Counter[str]()
    completed = Counter[str]()
    for c in categories:
        attempted.update(c.attempted)
        completed.update(c.completed)
    incomplete: dict[str, list[str]] = {}
    for c in categories:
        for pair, why in c.incomplete_pairs.items():
            incomplete.setdefault(pair, []).append(f"{c.endpoint}: {why}")
    pairs = sorted({p.pair_id for c in categories for p in c.per_pair}, key=_natural_key)
    seen = {*incomplete, *pairs}
    missing = [c.endpoint for c in categories if c.status is not ContrastStatus.COMPUTED]
    common = {
        "endpoint": "macro_sit", "kind": EndpointKind.MACRO, "category": None, "higher_is_better": True,
        "p_holm": None, "pairs_attempted": len(seen),
        "incomplete_pairs": {p: "; ".join(v) for p, v in sorted(incomplete.items(), key=lambda kv: _natural_key(kv[0]))},
        "attempted": dict(attempted), "completed": dict(completed), "excluded_trials": {},
    }
    if missing:
        reason = f"no pair compared in {', '.join(missing)} (Macro SIT is undefined when a category is)"
        return EndpointComparison(
            **common, status=ContrastStatus.INCOMPLETE, reason=reason, baseline_value=None, arm_value=None,
            difference=None, ci_lower=None, ci_upper=None, bootstrap=None, p=None, signflip=None,
            decision=Decision.INCOMPLETE, decision_note=f"not compared: {reason}", n_pairs=0, per_pair=[])
    per_pair = _macro_pairs(categories, pairs)
    boot, test = _tests([p.contribution for p in per_pair], options)
    baseline = _mean([c.baseline_value for c in categories if c.baseline_value is not None])
    arm = _mean([c.arm_value for c in categories if c.arm_value is not None])
    return EndpointComparison(
        **common, status=ContrastStatus.COMPUTED, reason=None, baseline_value=baseline, arm_value=arm,
        difference=arm - baseline, ci_lower=boot.lower, ci_upper=boot.upper, bootstrap=boot, p=test.p,
        signflip=test, decision=Decision.DESCRIPTIVE, decision_note="", n_pairs=len(per_pair), per_pair=per_pair)


def _macro_pairs(categories: Sequence[EndpointComparison], pairs: list[str]) -> list[PairContrast]:
    k, m = len(pairs), len(categories)
    contribution = dict.fromkeys(pairs, 0.0)
    values: dict[str, list[tuple[float, float]]] = {p: [] for p in pairs}
    for c in categories:
        for p in c.per_pair:
            assert p.difference is not None and p.baseline is not None and p.arm is not None
            contribution[p.pair_id] += k * p.difference / (m * c.n_pairs)
            values[p.pair_id].append((p.baseline, p.arm))
    out = []
    for pair in pairs:
        whole = len(values[pair]) == m
        base = _mean([b for b, _ in values[pair]]) if whole else None
        arm = _mean([a for _, a in values[pair]]) if whole else None
        out.append(PairContrast(pair_id=pair, baseline=base, arm=arm,
                                difference=None if base is None or arm is None else arm - base,
                                contribution=contribution[pair]))
    return out


# --------------------------------------------------------------------------- Holm and decidability


def smallest_signflip_p(n_pairs: int) -> float:
    """The smallest p the exact two-sided sign-flip test can give with ``n_pairs`` pairs: ``2^(1-n)``.

    Computed by the test itself on n equal differences (only the observed assignment and its mirror are
    as extreme), beyond its exact range by that formula.

    Raises:
        InputError: ``n_pairs`` below 1.
    """
    if n_pairs < 1:
        raise InputError(f"n_pairs: {n_pairs} must be at least 1")
    if n_pairs <= MAX_EXACT_LIMIT:
        return sign_flip_test([1.0] * n_pairs, max_exact=n_pairs).p
    return 2.0 ** (1 - n_pairs)


def pairs_needed(alpha: float = 0.05, family_size: int = len(CATEGORY_FAMILY)) -> int:
    """Fewest pairs with which any member of a Holm family can fall below ``alpha``.

    Holm's first step multiplies the smallest p by the family size, so this is the least n whose
    :func:`smallest_signflip_p`, Holm-adjusted with the rest of the family at p = 1, is below ``alpha``
    (9 pairs for 0.05 over eight categories).

    Raises:
        InputError: ``alpha`` outside (0, 1) or a family size below 1.
    """
    check_alpha(alpha)
    if family_size < 1:
        raise InputError(f"family_size: {family_size} must be at least 1")
    n = 1
    while holm([smallest_signflip_p(n)] + [1.0] * (family_size - 1), alpha).adjusted[0] >= alpha:
        n += 1
    return n


def _decidability(categories: Sequence[EndpointComparison], alpha: float) -> Decidability:
    m = len(categories)
    n = max((c.n_pairs for c in categories), default=0)
    needed = pairs_needed(alpha, m)
    smallest = smallest_signflip_p(n) if n else None
    message = None
    if n < needed:
        why = (f"the exact sign-flip test's smallest p is {smallest:.4g}" if smallest is not None
               else "no pair is complete in both arms in any category")
        message = (f"no difference can be decided with {n} pairs: {why}; at least {needed} pairs are needed "
                   f"for p < {alpha:g} after Holm over {m} categories")
    return Decidability(n_pairs=n, smallest_p=smallest, pairs_needed=needed, family_size=m, alpha=alpha,
                        decidable=n >= needed, message=message)


def _holm(categories: list[EndpointComparison], alpha: float, labels: tuple[str, str],
          decidability: Decidability) -> tuple[list[EndpointComparison], HolmSummary]:
    missing = [c.endpoint for c in categories if c.p is None]
    result = holm([1.0 if c.p is None else c.p for c in categories], alpha)
    updated = []
    for c, adjusted, reject in zip(categories, result.adjusted, result.reject, strict=True):
        if c.p is None:
            updated.append(c)
            continue
        updated.append(c.model_copy(update={
            "p_holm": adjusted, "decision": Decision.DIFFERENCE if reject else Decision.NOT_REJECTED,
            "decision_note": _decision_note(c, adjusted, reject, alpha, labels, decidability)}))
    note = f"Holm–Bonferroni over the eight category validities at family-wise alpha {alpha:g}"
    note += (f"; {', '.join(missing)} had no compared pair and entered with p = 1 (the family stays at eight)."
             if missing else ".")
    summary = HolmSummary(alpha=alpha, members=[c.endpoint for c in categories], missing=missing,
                          adjusted={c.endpoint: a for c, a in zip(categories, result.adjusted, strict=True)},
                          reject={c.endpoint: r and c.p is not None
                                  for c, r in zip(categories, result.reject, strict=True)}, note=note)
    return updated, summary


def _decision_note(c: EndpointComparison, adjusted: float, reject: bool, alpha: float, labels: tuple[str, str],
                   decidability: Decidability) -> str:
    if reject:
        assert c.difference is not None
        way = "higher" if c.difference > 0 else "lower"
        return (f"difference shown at family-wise alpha {alpha:g} (Holm p = {adjusted:.4g}): {labels[1]} is {way} "
                f"than {labels[0]}")
    note = f"no difference shown at family-wise alpha {alpha:g} (Holm p = {adjusted:.4g})"
    if c.n_pairs < decidability.pairs_needed:
        note += f"; {c.n_pairs} pairs cannot show one alone (at least {decidability.pairs_needed} are needed)"
    return note


def _describe_descriptive(c: EndpointComparison) -> EndpointComparison:
    if c.status is not ContrastStatus.COMPUTED:
        return c
    return c.model_copy(update={"decision_note": f"outside the Holm family: raw sign-flip p = {c.p:.4g}"})


# --------------------------------------------------------------------------- probes


def _changes(base: LoadedArm, arm: LoadedArm) -> tuple[list[ProbeChange], ProbeCounts]:
    shared = [p for p in base.rows if p in arm.rows]
    changes: list[ProbeChange] = []
    both = 0
    for probe in shared:
        b, a = base.rows[probe], arm.rows[probe]
        if b.status != "completed" or a.status != "completed":
            continue
        both += 1
        if bool(b.valid) == bool(a.valid):
            continue
        changes.append(ProbeChange(
            probe_id=probe, category=b.category.value, pair_id=b.pair_id, lineage_id=b.lineage_id,
            change=ChangeDirection.PASS_TO_FAIL if b.valid else ChangeDirection.FAIL_TO_PASS,
            baseline_failed_checks=list(b.failed_checks), arm_failed_checks=list(a.failed_checks)))
    changes.sort(key=lambda c: _natural_key(c.probe_id))
    counts = ProbeCounts(
        shared=len(shared), only_baseline=len(base.rows) - len(shared),
        only_arm=sum(p not in base.rows for p in arm.rows), both_completed=both,
        pass_to_fail=sum(c.change is ChangeDirection.PASS_TO_FAIL for c in changes),
        fail_to_pass=sum(c.change is ChangeDirection.FAIL_TO_PASS for c in changes))
    return changes, counts


# --------------------------------------------------------------------------- the comparison


def _compare_two(base: LoadedArm, arm: LoadedArm, options: _Options) -> ArmComparison:
    labels = (base.info.label, arm.info.label)
    categories = [_compute(spec, base, arm, options) for spec in _CATEGORY_SPECS]
    decidability = _decidability(categories, options.alpha)
    categories, family = _holm(categories, options.alpha, labels, decidability)
    macro = _describe_descriptive(_macro(categories, options))
    diagnostics = [_describe_descriptive(_compute(spec, base, arm, options)) for spec in _DIAGNOSTIC_SPECS]
    changes, counts = _changes(base, arm)
    return ArmComparison(baseline=labels[0], arm=labels[1], categories=categories, macro_sit=macro,
                         diagnostics=diagnostics, holm=family, decidability=decidability, probes=counts,
                         changes=changes)


def _pick_baseline(arms: Sequence[LoadedArm], baseline: str | None) -> LoadedArm:
    labels = [arm.info.label for arm in arms]
    duplicated = sorted({label for label in labels if labels.count(label) > 1})
    if duplicated:
        raise InputError(f"arm label {duplicated[0]!r} names two arms; give the runs directories of different names")
    if len(arms) < 2:
        only = labels[0] if labels else "none"
        raise InputError(f"RUN: compare needs two arms at least, and the runs hold one ({only}); pass another "
                         "scored run of the same dataset")
    if baseline is None:
        return arms[0]
    for arm in arms:
        if arm.info.label == baseline:
            return arm
    raise InputError(f"--baseline {baseline!r}: no such arm; the arms are {', '.join(labels)}")


def _notes(options: _Options, arms: Sequence[LoadedArm]) -> list[str]:
    notes = [
        "Differences are arm minus baseline, on the probes both arms hold; shares in 0–1.",
        ("A pair is compared on an endpoint only when every probe of that endpoint it holds is completed in both "
         "arms; a probe dropped, unscored or missing in either arm makes the pair incomplete for that endpoint "
         "(listed with the probe), never reweighted."),
        ("Category validities and LAA are pair-balanced (seed Eq. 40; a pair counts with the lineages holding "
         "probes of the category, LAA needs both); FMR, TL and UEL are plain shares over the compared pairs' "
         "trials; Macro SIT is the mean of the eight category differences."),
        (f"p: two-sided sign-flip test over the pairs' contributions (exact up to 24 pairs, Monte Carlo above "
         f"with seed {options.seed}); intervals: {options.ci:.0%} percentile cluster bootstrap over pairs, "
         f"{options.n_resamples} resamples, seed {options.seed}."),
        "Macro SIT, LAA, FMR, TL and UEL are outside the Holm family: their p is raw.",
    ]
    versions = sorted({str(arm.info.verifier_version) for arm in arms})
    if len(versions) > 1:
        notes.append(f"The runs were scored by different verifiers ({', '.join(versions)}): a verdict may differ "
                     "by reader, not by arm; rescore them with one (`sitbench rescore RUN --out NEW`).")
    return notes


def compare_arms(
    arms: Sequence[LoadedArm],
    dataset: DatasetFingerprint,
    *,
    baseline: str | None = None,
    seed: int = DEFAULT_SEED,
    n_resamples: int = 1000,
    ci: float = 0.95,
    alpha: float = 0.05,
) -> CompareReport:
    """Compare every arm with the baseline arm (the first, or the one labelled ``baseline``).

    Raises:
        InputError: fewer than two arms, two arms of one label, an unknown baseline, or a bad option.
    """
    check_resampling(seed, n_resamples, ci, alpha)
    base = _pick_baseline(arms, baseline)
    options = _Options(seed=seed, n_resamples=n_resamples, ci=ci, alpha=alpha)
    others = [arm for arm in arms if arm is not base]
    return CompareReport(
        dataset=dataset, seed=seed, n_resamples=n_resamples, ci=ci, alpha=alpha, baseline=base.info.label,
        arms=[base.info, *(arm.info for arm in others)],
        comparisons=[_compare_two(base, arm, options) for arm in others], notes=_notes(options, arms))


def compare_runs(
    run_dirs: Sequence[Path | str],
    *,
    baseline: str | None = None,
    seed: int = DEFAULT_SEED,
    n_resamples: int = 1000,
    ci: float = 0.95,
    alpha: float = 0.05,
) -> CompareReport:
    """Load scored runs of one dataset and compare their arms (``sitbench compare``).

    Each configuration of a run is an arm labelled ``RUN:CONFIG``; an agent run is one arm labelled by the
    agent's name. Every arm is compared with the baseline: per-category validity differences with a
    cluster-bootstrap interval and the exact sign-flip p, Holm over the eight categories, Macro SIT, LAA,
    FMR, TL and UEL differences, whether the number of pairs allows any decision, and each probe whose
    verdict changed.

    Args:
        run_dirs: scored run directories, all made on one dataset.
        baseline: label of the baseline arm (default: the first arm of the first run).
        seed: bootstrap seed (and Monte-Carlo seed above 24 pairs); recorded.
        n_resamples: bootstrap resamples per endpoint.
        ci: coverage of the percentile intervals.
        alpha: family-wise error rate of Holm over the eight categories.

    Raises:
        InputError: a run that is missing, not scored or of another dataset (naming both runs and the fix),
            a malformed score file, or a bad option.
    """
    arms, dataset = load_arms(run_dirs)
    return compare_arms(arms, dataset, baseline=baseline, seed=seed, n_resamples=n_resamples, ci=ci, alpha=alpha)
