"""``audit sample``: a stratified, oversampled draw of scored responses with known inclusion probabilities.

Strata are category × configuration × predicted act set × confidence band × (predicted unmapped
assertion or not), all read from the stratifying reading in ``scores.jsonl`` (true acts are unknown
before annotation, seed §8.3): the rule extractor's reading when the run has one (the primary or the
second of two readers), else the primary reader's. A run scored by two readers puts every *contested*
response (the readers' verdicts differ) in one stratum of its own, ``contested``, whatever its
category or reading: that is where a reader is known to be wrong, so it is oversampled on its own.
Each stratum gets a weight, the product of the oversampling factors that apply to it (contested,
compound and rare act sets, unmapped assertions, low and medium confidence). The allocation gives each stratum a floor, then shares the rest of ``n`` in
proportion to N_h·w_h, capped at N_h. Fractional sizes a_h become integers by systematic rounding
with a seeded start, so E[n_h] = a_h and each response's inclusion probability is exactly
π_h = a_h / N_h — the number inverse-probability weighting divides by.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sitbench._version import __version__
from sitbench.audit._models import (
    Allocation,
    AuditSample,
    Phase,
    SampleItem,
    SourceRun,
    Stratum,
    Vocabulary,
)
from sitbench.errors import InputError
from sitbench.schema import (
    Act,
    Category,
    ClosedWorldDeclaration,
    Confidence,
    ConfidenceLevel,
    Envelope,
    Observation,
    Proposition,
)

if TYPE_CHECKING:
    from sitbench.runs import ScoreRecord

DEFAULT_WEIGHTS: dict[str, float] = {"compound": 2.0, "rare": 2.0, "unmapped": 3.0, "low": 3.0, "medium": 1.5,
                                     "contested": 4.0}
"""Oversampling weight of each factor (a stratum's weight is the product of those that apply)."""

CONTESTED_STRATUM = "contested"
"""Key of the one stratum that holds every contested response of two-reader runs."""

STRATIFYING_EXTRACTOR = "rules"
"""The extractor whose reading stratifies a run scored by two readers, when it is one of them."""

DEFAULT_RARE_SHARE = 0.05
DEFAULT_FLOOR = 1

_ACT_ORDER = list(Act)
_DEV_SPLITS = {"pilot", "dev", "e6"}


@dataclass(frozen=True)
class Unit:
    """One completed, scored response of a source run: a member of the audit population."""

    run: str
    trial_id: str
    probe_id: str
    config: str
    category: Category
    acts: tuple[Act, ...]
    confidence: ConfidenceLevel
    unmapped: bool
    envelope: Envelope
    response: str
    universe: tuple[str, ...]
    split: str
    contested: bool = False

    @property
    def stratum(self) -> str:
        if self.contested:
            return CONTESTED_STRATUM
        return stratum_key(self.category, self.config, self.acts, self.confidence, self.unmapped)


def act_set_label(acts: Sequence[Act]) -> str:
    """``ABSTAIN+REJECT`` (canonical order), ``none`` for the empty set."""
    return "+".join(a.value for a in sorted(acts, key=_ACT_ORDER.index)) or "none"


def confidence_band(confidence: Confidence) -> ConfidenceLevel:
    """The confidence band a reading is stratified by: today its level. A numeric confidence score, once
    observations carry one, is binned into these bands here, and strata, factors and π follow unchanged."""
    return confidence.level


def stratifying_observation(record: ScoreRecord) -> Observation | None:
    """The reading that stratifies a scored trial: the rule extractor's when the trial has one (primary or
    second reader), else the primary reader's."""
    primary = record.observation
    second = record.second.observation if record.second is not None else None
    if primary is not None and primary.extractor != STRATIFYING_EXTRACTOR and second is not None \
            and second.extractor == STRATIFYING_EXTRACTOR:
        return second
    return primary


def stratum_key(category: Category, config: str, acts: Sequence[Act], confidence: ConfidenceLevel,
                unmapped: bool) -> str:
    """``category|config|acts|confidence|unmapped``."""
    return "|".join((category.value, config, act_set_label(acts), confidence.value,
                     "unmapped" if unmapped else "mapped"))


# --------------------------------------------------------------------------- allocation


def _proportional_capped(total: float, sizes: Sequence[float], caps: Sequence[float]) -> list[float]:
    """Share ``total`` in proportion to ``sizes``, none above its cap (water-filling)."""
    out = [0.0] * len(sizes)
    active = [i for i, s in enumerate(sizes) if s > 0 and caps[i] > 0]
    left = total
    while active and left > 1e-12:
        mass = sum(sizes[i] for i in active)
        over = [i for i in active if left * sizes[i] / mass >= caps[i] - 1e-12]
        if not over:
            for i in active:
                out[i] = left * sizes[i] / mass
            return out
        for i in over:
            out[i] = float(caps[i])
            left -= caps[i]
        active = [i for i in active if i not in over]
    return out


def allocate(populations: Sequence[int], weights: Sequence[float], n: int, floor: int) -> tuple[list[float], bool]:
    """Expected sample sizes a_h (summing to ``n``) and whether the floor applied.

    Each stratum first gets ``min(N_h, floor)`` when every stratum can (Σ ≤ n); the rest of ``n`` is
    shared in proportion to N_h·w_h, no stratum above N_h.

    Raises:
        InputError: ``n`` exceeds the population.
    """
    total = sum(populations)
    if n > total:
        raise InputError(f"--n {n}: the source runs hold only {total} completed responses; "
                         f"ask for at most --n {total} (a census)")
    base = [min(p, floor) for p in populations]
    floor_applied = sum(base) <= n
    fixed = base if floor_applied else [0] * len(populations)
    extra = _proportional_capped(n - sum(fixed), [p * w for p, w in zip(populations, weights, strict=True)],
                                 [p - f for p, f in zip(populations, fixed, strict=True)])
    return [f + e for f, e in zip(fixed, extra, strict=True)], floor_applied


def systematic_round(expected: Sequence[float], rng: np.random.Generator) -> list[int]:
    """Integer sizes with E[n_h] = a_h and Σ n_h = Σ a_h: ⌊a_h⌋ plus one where a point of the
    systematic sequence u, u+1, … (u uniform in [0, 1)) falls in the stratum's fractional interval."""
    floors, fractions = [], []
    for a in expected:
        nearest = round(a)
        if abs(a - nearest) < 1e-9:
            floors.append(int(nearest))
            fractions.append(0.0)
        else:
            floors.append(math.floor(a))
            fractions.append(a - math.floor(a))
    u = float(rng.random())
    extras = round(sum(fractions))

    def before(x: float) -> int:
        # Points u + k (k = 0, 1, …) below x.
        return max(0, math.ceil(x - u - 1e-12))

    sizes, cumulative = [], 0.0
    for base, frac in zip(floors, fractions, strict=True):
        start, cumulative = cumulative, cumulative + frac
        # At most one point falls in [start, cumulative), as frac < 1.
        hit = min(1, before(cumulative) - before(start)) if frac else 0
        sizes.append(base + hit)
    # Floating-point sums may put the last point a hair beyond the end; the total is exact by design.
    short = sum(floors) + extras - sum(sizes)
    for i in reversed(range(len(sizes))):
        if short == 0:
            break
        if short > 0 and fractions[i] and sizes[i] == floors[i]:
            sizes[i] += 1
            short -= 1
        elif short < 0 and sizes[i] > floors[i]:
            sizes[i] -= 1
            short += 1
    return sizes


def parse_weights(options: Sequence[str]) -> dict[str, float]:
    """``--weight compound=2`` options over the defaults.

    Raises:
        InputError: an unknown factor or a weight that is not a positive number.
    """
    weights = dict(DEFAULT_WEIGHTS)
    for option in options:
        name, sep, value = option.partition("=")
        if not sep or name not in DEFAULT_WEIGHTS:
            raise InputError(f"--weight {option!r}: expected FACTOR=NUMBER with FACTOR one of "
                             f"{', '.join(DEFAULT_WEIGHTS)}, e.g. --weight low=4")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not math.isfinite(number) or number <= 0 or number > 1000:
            raise InputError(f"--weight {option!r}: the weight must be a number in (0, 1000]")
        weights[name] = number
    return weights


# --------------------------------------------------------------------------- population


def _sha(path: Path) -> str:
    from sitbench.stores import sha256_file

    return sha256_file(path) if path.is_file() else ""


def load_population(runs: Sequence[Path], dataset: Path | None = None) -> tuple[
        list[Unit], list[SourceRun], dict[str, Proposition], dict[str, ClosedWorldDeclaration], str]:
    """Every completed, scored response of ``runs``: units, source runs, vocabulary and the signal.

    Raises:
        InputError: a run is missing or unscored, its dataset is not the one it was made with, the
            runs were scored by different extractors, or their registries disagree on an id.
    """
    from sitbench.runs import MANIFEST_FILE as MANIFEST
    from sitbench.runs import RESPONSES_FILE as RESPONSES
    from sitbench.runs import SCORES_FILE as SCORES
    from sitbench.runs import RunStore, run_dataset_dir, verify_run_dataset
    from sitbench.stores import load_dataset
    from sitbench.verify import Judge

    units: list[Unit] = []
    sources: list[SourceRun] = []
    props: dict[str, Proposition] = {}
    scopes: dict[str, ClosedWorldDeclaration] = {}
    signals: Counter[str] = Counter()
    names: set[str] = set()
    for run in runs:
        store = RunStore(run).require()
        manifest = store.manifest()
        name, k = run.resolve().name, 2
        while name in names:
            name, k = f"{run.resolve().name}-{k}", k + 1
        names.add(name)
        ds = load_dataset(run_dataset_dir(run, manifest, dataset))
        verify_run_dataset(ds, manifest.dataset, run)
        judge = Judge(ds.hidden, ds.visible.queries)
        trials = {t.trial_id: t for t in store.trials()}
        pair_split = {m: pair.split for pair in ds.pairs.values() for m in pair.members}
        for prop in ds.hidden.registry.propositions:
            if props.setdefault(prop.prop_id, prop) != prop:
                raise InputError(f"{run}: proposition {prop.prop_id} differs from the one of an earlier run's "
                                 "dataset; sample runs of different registries separately")
        for decl in ds.hidden.registry.closed_world:
            if scopes.setdefault(decl.cw_id, decl) != decl:
                raise InputError(f"{run}: closed-world declaration {decl.cw_id} differs from an earlier run's; "
                                 "sample runs of different registries separately")
        for record in store.scores():
            observation = stratifying_observation(record)
            if record.status != "completed" or observation is None:
                continue
            trial = trials.get(record.trial_id)
            text = trial.response_text if trial is not None else None
            if text is None:
                raise InputError(f"{run / SCORES}: trial {record.trial_id!r} has no response in {RESPONSES}; "
                                 f"score the run again with `sitbench score {run}`")
            signals[f"{observation.extractor}@{observation.verifier_version}"] += 1
            probe = judge.probe(record.probe_id)
            envelope = judge.envelope(probe)
            universe = tuple(p.prop_id for p in judge.vocabulary(envelope).universe)
            units.append(Unit(
                run=name, trial_id=record.trial_id, probe_id=record.probe_id, config=record.config,
                category=record.category, acts=tuple(sorted(set(observation.acts), key=_ACT_ORDER.index)),
                confidence=confidence_band(observation.confidence), unmapped=bool(observation.unmapped),
                envelope=envelope, response=text, universe=universe,
                split=pair_split.get(probe.lineage_id, "dev"), contested=record.agreement == "contested"))
        sources.append(SourceRun(
            name=name, path=str(run.resolve()), run_id=manifest.run_id,
            manifest_sha256=_sha(run / MANIFEST), scores_sha256=_sha(run / SCORES),
            responses_sha256=_sha(run / RESPONSES), manifest=manifest.model_dump(mode="json")))
    if not units:
        raise InputError(f"{', '.join(map(str, runs))}: no completed, scored response to sample; "
                         "score the runs first with `sitbench score RUN`")
    if len(signals) > 1:
        listed = ", ".join(f"{s} ({n})" for s, n in signals.most_common())
        raise InputError(f"the runs were scored by different extractors ({listed}); the stratification signal "
                         "must be one: rescore them with one extractor (`sitbench rescore RUN --out DIR`)")
    return units, sources, props, scopes, next(iter(signals))


def check_phase(units: Sequence[Unit], phase: Phase) -> None:
    """A development audit never holds held-out responses; a held-out audit holds only those.

    Raises:
        InputError: naming a trial from the wrong side of the split.
    """
    for unit in units:
        heldout = unit.split == "heldout"
        if phase == "dev" and heldout:
            raise InputError(f"--phase dev: run {unit.run} trial {unit.trial_id} answers a held-out pair; a "
                             "development audit samples only the reference pilot and development pairs "
                             "(seed §8.3): give --phase heldout for a post-freeze reliability audit")
        if phase == "heldout" and not heldout:
            raise InputError(f"--phase heldout: run {unit.run} trial {unit.trial_id} answers a {unit.split} pair, "
                             "not a held-out one; a held-out audit samples only held-out pairs (seed §8.3)")


# --------------------------------------------------------------------------- the draw


def _factors(acts: tuple[Act, ...], confidence: ConfidenceLevel, unmapped: bool, act_share: float,
             rare_share: float) -> list[str]:
    out = []
    if len(acts) >= 2:
        out.append("compound")
    if act_share < rare_share:
        out.append("rare")
    if unmapped:
        out.append("unmapped")
    if confidence is ConfidenceLevel.LOW:
        out.append("low")
    elif confidence is ConfidenceLevel.MEDIUM:
        out.append("medium")
    return out


def _stratum_factors(key: str, first: Unit, act_share: float, rare_share: float) -> list[str]:
    """The oversampling factors of a stratum (read from its first member: all share the key's values)."""
    if key == CONTESTED_STRATUM:
        # Contested responses of every category and reading: only the contested factor describes them all.
        return ["contested"]
    return _factors(first.acts, first.confidence, first.unmapped, act_share, rare_share)


def _stratum(key: str, members: Sequence[Unit], factors: list[str], weight: float, expected: float, size: int,
             pi: float) -> Stratum:
    pooled = Stratum(key=key, contested=True, population=len(members), factors=factors, weight=weight,
                     expected=expected, sampled=size, inclusion_probability=pi)
    if key == CONTESTED_STRATUM:
        return pooled
    first = members[0]
    return pooled.model_copy(update={"contested": False, "category": first.category, "config": first.config,
                                     "acts": list(first.acts), "confidence": first.confidence,
                                     "unmapped": first.unmapped})


def _item_id(seed: int, run_id: str, trial_id: str) -> str:
    return "it-" + hashlib.sha256(f"{seed}:{run_id}:{trial_id}".encode()).hexdigest()[:10]


def draw_sample(units: Sequence[Unit], sources: Sequence[SourceRun], props: Mapping[str, Proposition],
                scopes: Mapping[str, ClosedWorldDeclaration], signal: str, *, n: int, seed: int, phase: Phase,
                floor: int = DEFAULT_FLOOR, weights: Mapping[str, float] | None = None,
                rare_share: float = DEFAULT_RARE_SHARE, created_at: str | None = None) -> AuditSample:
    """Stratify ``units``, allocate ``n`` and draw; returns the sample (nothing is written)."""
    weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
    check_phase(units, phase)
    by_stratum: dict[str, list[Unit]] = {}
    for unit in sorted(units, key=lambda u: (u.run, u.trial_id)):
        by_stratum.setdefault(unit.stratum, []).append(unit)
    keys = sorted(by_stratum)
    act_counts = Counter(u.acts for u in units)
    total = len(units)
    factors = {key: _stratum_factors(key, by_stratum[key][0], act_counts[by_stratum[key][0].acts] / total, rare_share)
               for key in keys}
    stratum_weight = {key: math.prod(weights[f] for f in factors[key]) for key in keys}
    populations = [len(by_stratum[k]) for k in keys]
    expected, floor_applied = allocate(populations, [stratum_weight[k] for k in keys], n, floor)
    rng = np.random.default_rng(seed)
    sizes = systematic_round(expected, rng)
    run_ids = {s.name: s.run_id for s in sources}
    chosen: list[tuple[Unit, float]] = []
    strata: list[Stratum] = []
    for key, population, a, size in zip(keys, populations, expected, sizes, strict=True):
        members = by_stratum[key]
        pi = min(1.0, a / population)
        picks = sorted(rng.choice(population, size=size, replace=False).tolist()) if size else []
        chosen.extend((members[i], pi) for i in picks)
        strata.append(_stratum(key, members, factors[key], stratum_weight[key], a, size, pi))
    order = rng.permutation(len(chosen)).tolist()
    items = []
    for position, index in enumerate(order):
        unit, pi = chosen[index]
        items.append(SampleItem(
            item_id=_item_id(seed, run_ids[unit.run], unit.trial_id), position=position, envelope=unit.envelope,
            response=unit.response, universe=list(unit.universe), run=unit.run, trial_id=unit.trial_id,
            probe_id=unit.probe_id, config=unit.config, category=unit.category, stratum=unit.stratum,
            predicted_acts=list(unit.acts), confidence=unit.confidence, has_unmapped=unit.unmapped,
            contested=unit.contested, inclusion_probability=pi))
    items.sort(key=lambda i: i.position)
    allocation = Allocation(n=n, seed=seed, floor=floor, floor_applied=floor_applied, weights=weights,
                            rare_share=rare_share)
    used = {pid for item in items for pid in item.universe}
    vocabulary = Vocabulary(propositions=[p for pid, p in props.items() if pid in used],
                            closed_world=list(scopes.values()))
    digest = hashlib.sha256(json.dumps({
        "phase": phase, "allocation": allocation.model_dump(mode="json"), "signal": signal,
        "items": [next(s.run_id for s in sources if s.name == i.run) + ":" + i.trial_id for i in items],
    }, sort_keys=True).encode()).hexdigest()
    return AuditSample(
        sample_id=f"audit-{digest[:12]}", phase=phase,
        created_at=created_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        package_version=__version__, signal=signal, population=total, allocation=allocation, strata=strata,
        runs=list(sources), vocabulary=vocabulary, items=items)


def sample_runs(runs: Sequence[Path], *, n: int, seed: int, phase: Phase, floor: int = DEFAULT_FLOOR,
                weights: Mapping[str, float] | None = None, rare_share: float = DEFAULT_RARE_SHARE,
                dataset: Path | None = None) -> AuditSample:
    """Load the runs' scored responses and draw the audit sample."""
    units, sources, props, scopes, signal = load_population(runs, dataset)
    return draw_sample(units, sources, props, scopes, signal, n=n, seed=seed, phase=phase, floor=floor,
                       weights=weights, rare_share=rare_share)


def load_sample(path: Path) -> AuditSample:
    """Read a sample written by ``audit sample``.

    Raises:
        InputError: not a sample file, or malformed.
    """
    from sitbench.stores import load_model, read_json

    data = read_json(path, hint="write one with `sitbench audit sample RUN... --out FILE`")
    if not isinstance(data, dict) or data.get("format") != "sitbench-audit-sample/1":
        raise InputError(f"{path}: not an audit sample (format {data.get('format') if isinstance(data, dict) else None!r}); "
                         "write one with `sitbench audit sample RUN... --out FILE`")
    return load_model(path, AuditSample)
