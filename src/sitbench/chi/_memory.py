"""Memory quality ``Q_M`` and effective indexed memory capacity EIMC (spec §3).

Formulas::

    f      = f_raw + invalid_lure_rate        (both parts are reported)
    Q_M(N) = r^a_r * t^a_t * s^a_s * u^a_u * i^a_i * (1 - f)^a_f
             (every alpha > 0, sum alpha = 1, baseline 1/6)
    EIMC   = largest tested N on the registered grid with Q_M(N) >= tau

Decisions where the specification leaves room:

* A grid load whose ``Q_M`` is undefined (some factor missing, or the load was
  not run) is *untested*: it neither passes nor fails and is listed in
  ``untested``. "Largest tested N" means the largest load with a defined Q_M.
* Status is ``no_passing_tested_load`` (EIMC ``None``) when no tested load
  passes, including when nothing was tested; ``lower_bound/right_censored``
  when the largest tested load passes; otherwise ``observed``.
* ``nonmonotone`` is true when Q_M strictly increases between two consecutive
  tested loads (quality is nonmonotone in N). ``pass_pattern_nonmonotone`` is
  the narrower event that a failing load is followed by a passing one, the case
  where EIMC and ``sustained_prefix_eimc`` differ.
* ``sustained_prefix_eimc`` follows the spec literally: the largest tested N
  such that it and every smaller *tested* load pass.
* ``Q_M >= tau`` is compared exactly in double precision; there is no
  tolerance on the threshold.
* A factor with a zero denominator is missing, not zero.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sitbench.chi._common import (
    MEMORY_FACTORS,
    baseline_weights,
    check_optional_unit,
    check_unit,
    check_weights,
)
from sitbench.errors import InputError

EIMCStatus = Literal["observed", "no_passing_tested_load", "lower_bound/right_censored"]
"""Status of an EIMC estimate on a finite grid."""

SENSITIVITY_TAUS: tuple[float, ...] = (0.7, 0.8, 0.9)
"""Thresholds at which EIMC sensitivity is always reported."""

DEFAULT_TAU = 0.8
"""Default illustrative threshold."""

F_PARTS_TOLERANCE = 1e-9
"""Declared tolerance when a given ``f`` is checked against ``f_raw + invalid_lure_rate``."""


class Counts(BaseModel):
    """A retained numerator and denominator."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    correct: int = Field(ge=0)
    """Numerator: probes passed."""
    total: int = Field(ge=0)
    """Denominator: probes administered."""

    @model_validator(mode="after")
    def _check(self) -> Counts:
        if self.correct > self.total:
            raise InputError(f"field 'correct': {self.correct} exceeds total {self.total}")
        return self

    @property
    def rate(self) -> float | None:
        """``correct / total``, or ``None`` for an empty denominator."""
        return None if self.total == 0 else self.correct / self.total


class LureCounts(BaseModel):
    """Absent-lure outcomes: two mutually exclusive failure kinds over all lures."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unsupported: int = Field(ge=0)
    """Unsupported affirmative answers."""
    invalid: int = Field(ge=0)
    """Invalid or timed-out responses."""
    total: int = Field(ge=0)
    """All absent-lure probes."""

    @model_validator(mode="after")
    def _check(self) -> LureCounts:
        if self.unsupported + self.invalid > self.total:
            raise InputError(
                f"field 'f': unsupported ({self.unsupported}) + invalid ({self.invalid}) exceed total lures "
                f"({self.total}); the two failures are mutually exclusive"
            )
        return self


class MemoryPoint(BaseModel):
    """The six factors at one load ``N`` (proportions in [0, 1]; ``None`` = missing)."""

    model_config = ConfigDict(extra="forbid")

    r: float | None = None
    """Exact known-target retrieval accuracy."""
    t: float | None = None
    """Temporal (event time, ordering, as-of) accuracy."""
    s: float | None = None
    """Content and exact source/status accuracy."""
    u: float | None = None
    """Current/historical accuracy under the registered update policy."""
    i: float | None = None
    """Target accuracy with interfering distractors."""
    f_raw: float | None = None
    """Unsupported affirmative answers / all absent lures."""
    invalid_lure_rate: float | None = None
    """Invalid or timed-out responses / all absent lures."""
    f: float | None = None
    """Conservative false-memory rate ``f_raw + invalid_lure_rate`` (or given directly)."""
    clean_i: float | None = None
    """Paired clean (unrelated-distractor) accuracy, reported beside ``i``."""
    counts: dict[str, Counts | LureCounts] | None = None
    """Retained numerators/denominators per factor (``f`` holds :class:`LureCounts`)."""

    @model_validator(mode="after")
    def _check(self) -> MemoryPoint:
        for name in ("r", "t", "s", "u", "i", "f_raw", "invalid_lure_rate", "f", "clean_i"):
            check_optional_unit(getattr(self, name), name)
        if self.f_raw is not None and self.invalid_lure_rate is not None:
            total = self.f_raw + self.invalid_lure_rate
            check_unit(total, "f_raw + invalid_lure_rate")
            if self.f is None:
                object.__setattr__(self, "f", total)
            elif abs(self.f - total) > F_PARTS_TOLERANCE:
                raise InputError(
                    f"field 'f': {self.f!r} differs from f_raw + invalid_lure_rate = {total!r}; give consistent values"
                )
        elif (self.f_raw is None) != (self.invalid_lure_rate is None) and self.f is None:
            raise InputError("field 'f': give both f_raw and invalid_lure_rate (or f itself)")
        return self

    @classmethod
    def from_counts(
        cls,
        *,
        r: tuple[int, int] | None,
        t: tuple[int, int] | None,
        s: tuple[int, int] | None,
        u: tuple[int, int] | None,
        i: tuple[int, int] | None,
        lures: tuple[int, int, int] | None,
        clean_i: tuple[int, int] | None = None,
    ) -> MemoryPoint:
        """Build a point from raw counts, retaining them.

        Args:
            r: ``(correct, total)`` retrieval probes; likewise ``t``, ``s``, ``u``, ``i``, ``clean_i``.
            lures: ``(unsupported_affirmative, invalid_or_timeout, total_lures)``.

        Returns:
            The point; a factor with a zero denominator is missing.
        """
        counts: dict[str, Counts | LureCounts] = {}
        rates: dict[str, float | None] = {}
        for name, pair in (("r", r), ("t", t), ("s", s), ("u", u), ("i", i), ("clean_i", clean_i)):
            if pair is None:
                rates[name] = None
                continue
            c = Counts(correct=pair[0], total=pair[1])
            counts[name] = c
            rates[name] = c.rate
        f_raw = inv = None
        if lures is not None:
            lc = LureCounts(unsupported=lures[0], invalid=lures[1], total=lures[2])
            counts["f"] = lc
            if lc.total > 0:
                f_raw, inv = lc.unsupported / lc.total, lc.invalid / lc.total
        return cls(f_raw=f_raw, invalid_lure_rate=inv, counts=counts, **rates)

    @property
    def interference_gap(self) -> float | None:
        """``i - clean_i`` (signed; a difference, never a ratio)."""
        return None if self.i is None or self.clean_i is None else self.i - self.clean_i


def q_m(point: MemoryPoint, alpha: Mapping[str, float] | None = None) -> float | None:
    """Memory quality ``Q_M`` at one load.

    Args:
        point: The six factors.
        alpha: Exponents keyed ``r t s u i f`` (all > 0, sum 1); baseline 1/6 when omitted.

    Returns:
        ``Q_M`` in [0, 1], or ``None`` when any factor is missing.
    """
    a = baseline_weights(MEMORY_FACTORS) if alpha is None else check_weights(alpha, MEMORY_FACTORS, "alpha")
    values = [point.r, point.t, point.s, point.u, point.i, None if point.f is None else 1.0 - point.f]
    if any(v is None for v in values):
        return None
    return math.prod(v ** a[k] for v, k in zip(values, MEMORY_FACTORS, strict=True))  # type: ignore[operator]


def eimc_from_curve(
    grid: Sequence[int], q: Mapping[int, float | None], tau: float
) -> tuple[int | None, EIMCStatus, int | None]:
    """EIMC, its status and the sustained-prefix EIMC from a Q_M curve.

    Args:
        grid: Registered loads, strictly increasing.
        q: ``Q_M`` per load (``None`` or absent = untested).
        tau: Threshold in (0, 1].

    Returns:
        ``(eimc, status, sustained_prefix_eimc)``.
    """
    tested = [n for n in grid if q.get(n) is not None]
    passing = [n for n in tested if q[n] >= tau]  # type: ignore[operator]
    if not passing:
        return None, "no_passing_tested_load", None
    eimc = max(passing)
    status: EIMCStatus = "lower_bound/right_censored" if eimc == tested[-1] else "observed"
    sustained: int | None = None
    for n in tested:
        if q[n] >= tau:  # type: ignore[operator]
            sustained = n
        else:
            break
    return eimc, status, sustained


class EIMCResult(BaseModel):
    """A Memory Capacity Curve with its EIMC summary."""

    model_config = ConfigDict(extra="forbid")

    grid: list[int]
    """Registered loads, increasing."""
    tau: float
    """Threshold used for ``eimc``."""
    alpha: dict[str, float]
    """Exponents used for ``Q_M``."""
    points: dict[int, MemoryPoint]
    """All six factors per tested load, as given."""
    q_m: dict[int, float | None]
    """``Q_M`` per registered load (``None`` = undefined/untested)."""
    eimc: int | None
    """Largest passing tested load, or ``None``."""
    status: EIMCStatus
    """``observed``, ``no_passing_tested_load`` or ``lower_bound/right_censored``."""
    nonmonotone: bool
    """``Q_M`` strictly increases somewhere along the tested loads."""
    pass_pattern_nonmonotone: bool
    """A failing tested load is followed by a passing one."""
    sustained_prefix_eimc: int | None
    """Largest tested load such that it and every smaller tested load pass."""
    sensitivity: dict[str, int | None]
    """EIMC at tau = 0.7, 0.8 and 0.9 (keys as strings)."""
    sensitivity_status: dict[str, EIMCStatus]
    """EIMC status at each sensitivity threshold."""
    untested: list[int]
    """Registered loads without a defined ``Q_M``."""
    mean_q_m: float | None
    """Mean ``Q_M`` over the registered grid (the M8 capacity entry); ``None`` if any load is undefined."""


def check_grid(grid: Sequence[object], field: str = "grid") -> list[int]:
    """Validate a load grid: non-empty, positive integers, strictly increasing."""
    if not isinstance(grid, Sequence) or isinstance(grid, (str, bytes)) or not grid:
        raise InputError(f"field '{field}': expected a non-empty list of loads")
    out: list[int] = []
    for k, n in enumerate(grid):
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise InputError(f"field '{field}[{k}]': load {n!r} must be a positive integer")
        if out and n <= out[-1]:
            raise InputError(f"field '{field}': loads must be strictly increasing; {n} follows {out[-1]}")
        out.append(n)
    return out


def check_tau(tau: object, field: str = "tau") -> float:
    """Validate a threshold: finite and in (0, 1]."""
    value = check_unit(tau, field)
    if value <= 0.0:
        raise InputError(f"field '{field}': threshold must be > 0; give a tau in (0, 1]")
    return value


def memory_curve(
    grid: Sequence[int],
    points: Mapping[int, MemoryPoint],
    tau: float = DEFAULT_TAU,
    alpha: Mapping[str, float] | None = None,
) -> EIMCResult:
    """Score a Memory Capacity Curve: ``Q_M`` at every load, EIMC, status, flags and sensitivity.

    Args:
        grid: Registered loads, strictly increasing.
        points: Factors per load; loads must be on the grid. Absent loads are untested.
        tau: Threshold in (0, 1] (default 0.8).
        alpha: Q_M exponents; baseline 1/6 when omitted.

    Returns:
        The :class:`EIMCResult`.

    Raises:
        InputError: On an invalid grid, threshold, exponent or off-grid point.
    """
    g = check_grid(list(grid))
    t = check_tau(tau)
    a = baseline_weights(MEMORY_FACTORS) if alpha is None else check_weights(alpha, MEMORY_FACTORS, "alpha")
    off = sorted(set(points) - set(g))
    if off:
        raise InputError(f"field 'points': load(s) {off} are not on the registered grid {g}; add them to the grid")
    q = {n: (q_m(points[n], a) if n in points else None) for n in g}
    eimc, status, sustained = eimc_from_curve(g, q, t)
    tested = [n for n in g if q[n] is not None]
    tq = [q[n] for n in tested]
    nonmono = any(b > a_ for a_, b in itertools.pairwise(tq))  # type: ignore[operator]
    passes = [v >= t for v in tq]  # type: ignore[operator]
    pattern = any((not p) and later for k, p in enumerate(passes) for later in passes[k + 1 :])
    sens: dict[str, int | None] = {}
    sens_status: dict[str, EIMCStatus] = {}
    for st in SENSITIVITY_TAUS:
        e, s_, _ = eimc_from_curve(g, q, st)
        sens[str(st)], sens_status[str(st)] = e, s_
    defined = [v for v in q.values() if v is not None]
    return EIMCResult(
        grid=g,
        tau=t,
        alpha=a,
        points=dict(points),
        q_m=q,
        eimc=eimc,
        status=status,
        nonmonotone=nonmono,
        pass_pattern_nonmonotone=pattern,
        sustained_prefix_eimc=sustained,
        sensitivity=sens,
        sensitivity_status=sens_status,
        untested=[n for n in g if q[n] is None],
        mean_q_m=(math.fsum(defined) / len(g)) if len(defined) == len(g) else None,
    )
