"""Reliability coefficients with their status and item-bootstrap intervals.

Cohen's κ of two readers from their contingency table; Krippendorff's α (nominal) of any number of
readers with missing ratings, by the ``krippendorff`` package. A coefficient that cannot be computed
is reported as such — ``undefined`` when no unit was rated by two readers, ``degenerate`` when every
rating falls in one category (chance agreement is 1 and the coefficient is 0/0) — never as NaN, 0 or
1. Intervals resample responses (items) with replacement, all units of an item together, with an
explicit seed; resamples in which the coefficient is not defined are counted and left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import krippendorff
import numpy as np

from sitbench.audit._models import Coefficient, Interval, Span

DEGENERATE_TOL = 1e-12


@dataclass
class Ratings:
    """Categorical ratings of units by readers: ``codes[u][reader]`` is a category index (absent = not rated)."""

    categories: list[str]
    readers: list[str]
    units: list[dict[str, int]] = field(default_factory=list)
    item_of_unit: list[int] = field(default_factory=list)
    """Index of the item (response) each unit belongs to: the bootstrap's resampling unit."""

    def add(self, item: int, codes: dict[str, int]) -> None:
        self.units.append(codes)
        self.item_of_unit.append(item)

    def value_counts(self) -> np.ndarray:
        """Units × categories counts (the ``krippendorff`` package's ``value_counts``)."""
        out = np.zeros((len(self.units), len(self.categories)), dtype=float)
        for u, codes in enumerate(self.units):
            for code in codes.values():
                out[u, code] += 1
        return out

    def pair_tables(self, a: str, b: str, n_items: int) -> np.ndarray:
        """Per item, the k × k contingency table of readers a (rows) and b (columns)."""
        k = len(self.categories)
        out = np.zeros((n_items, k, k), dtype=float)
        for item, codes in zip(self.item_of_unit, self.units, strict=True):
            if a in codes and b in codes:
                out[item, codes[a], codes[b]] += 1
        return out


# --------------------------------------------------------------------------- κ


def kappa_of_tables(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """κ of a stack of k × k tables: (κ, observed agreement, n, defined mask); κ is NaN where undefined."""
    n = tables.sum(axis=(-2, -1))
    safe = np.where(n > 0, n, 1)
    po = np.trace(tables, axis1=-2, axis2=-1) / safe
    pa = tables.sum(axis=-1) / safe[..., None]
    pb = tables.sum(axis=-2) / safe[..., None]
    pe = (pa * pb).sum(axis=-1)
    defined = (n > 0) & (1 - pe > DEGENERATE_TOL)
    kappa = np.where(defined, (po - pe) / np.where(defined, 1 - pe, 1), np.nan)
    return kappa, po, n, defined


def cohen_kappa(table: np.ndarray) -> Coefficient:
    """Cohen's κ of one k × k contingency table (rows: reader a, columns: reader b)."""
    kappa, po, n, defined = kappa_of_tables(np.asarray(table, dtype=float)[None])
    units = int(n[0])
    if units == 0:
        return Coefficient(value=None, status="undefined", units=0,
                           note="no unit was rated by both readers")
    if not defined[0]:
        used = [i for i, c in enumerate(np.asarray(table).sum(axis=0) + np.asarray(table).sum(axis=1)) if c]
        return Coefficient(value=None, status="degenerate", units=units, observed_agreement=float(po[0]),
                           note=f"every rating is the same category (index {used[0] if used else '?'}); chance "
                                "agreement is 1, so κ is 0/0")
    return Coefficient(value=float(kappa[0]), status="ok", units=units, observed_agreement=float(po[0]))


# --------------------------------------------------------------------------- α


def alpha_of_counts(value_counts: np.ndarray) -> Coefficient:
    """Krippendorff's α (nominal) from units × categories counts, with its status."""
    counts = np.asarray(value_counts, dtype=float)
    pairable = counts[counts.sum(axis=1) >= 2] if counts.size else counts
    if pairable.shape[0] == 0:
        return Coefficient(value=None, status="undefined", units=0,
                           note="no unit was rated by two readers")
    units = int(pairable.shape[0])
    observed = _observed_agreement(pairable)
    if int((pairable.sum(axis=0) > 0).sum()) < 2:
        return Coefficient(value=None, status="degenerate", units=units, observed_agreement=observed,
                           note="every rating is the same category; expected disagreement is 0, so α is 0/0")
    value = float(krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal"))
    if not np.isfinite(value):  # pragma: no cover - guarded above
        return Coefficient(value=None, status="degenerate", units=units, observed_agreement=observed,
                           note="α is not finite")
    return Coefficient(value=value, status="ok", units=units, observed_agreement=observed)


def _observed_agreement(pairable: np.ndarray) -> float:
    """Share of agreeing ordered reader pairs within units."""
    m = pairable.sum(axis=1)
    agree = (pairable * (pairable - 1)).sum()
    pairs = (m * (m - 1)).sum()
    return float(agree / pairs) if pairs else float("nan")


# --------------------------------------------------------------------------- bootstrap


def resample_items(n_items: int, resamples: int, seed: int) -> np.ndarray:
    """(resamples × n_items) item indices drawn with replacement."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_items, size=(resamples, n_items))


def summarize(values: Sequence[float] | np.ndarray, resamples: int, seed: int, ci: float,
              unit: str = "items") -> Interval:
    """Percentile interval over the defined (finite) resample values."""
    arr = np.asarray(values, dtype=float)
    finite = arr[np.isfinite(arr)]
    defined = int(finite.size)
    if defined == 0:
        return Interval(lower=None, upper=None, ci=ci, resamples=resamples, defined=0, seed=seed, unit=unit,
                        note="the statistic is undefined in every resample")
    lower, upper = (float(x) for x in np.quantile(finite, [(1 - ci) / 2, (1 + ci) / 2]))
    degenerate = upper - lower <= DEGENERATE_TOL * max(1.0, abs(lower), abs(upper))
    notes = []
    if degenerate:
        lower = upper = float(np.median(finite))
        notes.append("degenerate interval: every resample gives the same value (it reflects the sample, "
                     "not certainty)")
    if defined < resamples:
        notes.append(f"{resamples - defined} of {resamples} resamples left out: the statistic is undefined in them")
    return Interval(lower=lower, upper=upper, ci=ci, resamples=resamples, defined=defined, seed=seed, unit=unit,
                    degenerate=degenerate, note="; ".join(notes) or None)


def kappa_interval(tables: np.ndarray, draws: np.ndarray, seed: int, ci: float) -> Interval:
    """Item-bootstrap interval of κ from per-item tables (n_items × k × k)."""
    sums = tables[draws].sum(axis=1)
    kappa, *_ = kappa_of_tables(sums)
    return summarize(kappa, draws.shape[0], seed, ci)


def alpha_interval(ratings: Ratings, n_items: int, draws: np.ndarray, seed: int, ci: float) -> Interval:
    """Item-bootstrap interval of α: each resample stacks the units of the drawn items."""
    counts = ratings.value_counts()
    order = np.argsort(np.asarray(ratings.item_of_unit, dtype=int), kind="stable")
    counts = counts[order]
    per_item = np.bincount(np.asarray(ratings.item_of_unit, dtype=int), minlength=n_items)
    starts = np.concatenate([[0], np.cumsum(per_item)[:-1]])
    values = []
    for row in draws:
        lengths = per_item[row]
        total = int(lengths.sum())
        if total == 0:
            values.append(np.nan)
            continue
        offsets = np.repeat(starts[row] - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
        coefficient = alpha_of_counts(counts[offsets + np.arange(total)])
        values.append(np.nan if coefficient.value is None else coefficient.value)
    return summarize(values, draws.shape[0], seed, ci)


def ratio_interval(numerators: np.ndarray, denominators: np.ndarray, draws: np.ndarray, seed: int, ci: float,
                   combine: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> Interval:
    """Item-bootstrap interval of Σ numerator / Σ denominator (or ``combine(Σnum, Σden)``)."""
    num = numerators[draws].sum(axis=1)
    den = denominators[draws].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = combine(num, den) if combine else np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return summarize(values, draws.shape[0], seed, ci)


# --------------------------------------------------------------------------- spans


def iou(a: Span, b: Span) -> float:
    """Intersection over union of two [start, end) character spans."""
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 else 0.0


def match_spans(a: Sequence[Span], b: Sequence[Span], threshold: float) -> list[tuple[int, int]]:
    """One-to-one alignment of spans with IoU ≥ ``threshold``, largest overlap first (ties: earlier first)."""
    candidates = sorted(((iou(x, y), i, j) for i, x in enumerate(a) for j, y in enumerate(b)
                         if iou(x, y) >= threshold), key=lambda t: (-t[0], t[1], t[2]))
    used_a: set[int] = set()
    used_b: set[int] = set()
    out = []
    for _, i, j in candidates:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            out.append((i, j))
    return sorted(out)
