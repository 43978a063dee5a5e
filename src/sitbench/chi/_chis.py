"""CHIS sequences and the derived measures of spec §4.

Feature vectors ``v`` are fixed, normalized blind-probe vectors in [0, 1]^d;
``None`` marks an unavailable coordinate. Distance is
``D(v, w) = mean(|v - w|)``.

Decisions where the specification leaves room:

* A measure that touches an unavailable coordinate is *missing* (``None``,
  with ``status="missing"``); no partial metric is computed.
* Vectors of different lengths mean a changed schema, which starts a new
  series: that is an input error, not a missing value.
* Recovery: "first return" is the first post-repair checkpoint ``k`` with
  ``D_k <= epsilon`` *and* ``D_{k+1} <= epsilon``. A final checkpoint within
  epsilon with no successor cannot confirm a return, so the result is
  right-censored at the last checkpoint. A missing distance breaks a run of
  successive checkpoints.
* Hysteresis uses the levels present in both schedules strictly between
  their smallest and largest shared level (the matched interior levels).
* Memory accumulation on a fixed panel: both EIMCs observed gives an exact
  change; a right-censored later EIMC gives a lower bound on the change; a
  right-censored earlier EIMC gives an upper bound; both censored, or any
  ``no_passing_tested_load``, leaves the change undetermined. Grids must match.
* Decay half-time: the first observed time whose effect has magnitude at most
  half the initial effect, with no interpolation. Undefined when the initial
  effect is zero or missing, or when any observed effect has the opposite sign
  (sign-reversing induction); ``not_reached`` when no observed point crosses.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sitbench.chi._common import check_optional_unit, check_unit
from sitbench.chi._memory import EIMCResult
from sitbench.errors import InputError

Vector = Sequence[float | None]
"""A normalized feature vector; ``None`` marks an unavailable coordinate."""


def _check_vector(v: Vector, field: str) -> list[float | None]:
    if not isinstance(v, Sequence) or len(v) == 0:
        raise InputError(f"field '{field}': expected a non-empty feature vector")
    return [check_optional_unit(x, f"{field}[{k}]") for k, x in enumerate(v)]


def distance(v: Vector, w: Vector) -> float | None:
    """``D(v, w) = mean(|v - w|)``; ``None`` when any coordinate is unavailable.

    Raises:
        InputError: On values outside [0, 1] or a length mismatch (changed schema).
    """
    a, b = _check_vector(v, "v"), _check_vector(w, "w")
    if len(a) != len(b):
        raise InputError(
            f"field 'v': feature vectors have lengths {len(a)} and {len(b)}; a changed schema starts a new series"
        )
    if any(x is None for x in a) or any(x is None for x in b):
        return None
    return math.fsum(abs(x - y) for x, y in zip(a, b, strict=True)) / len(a)  # type: ignore[operator]


class CHISRecord(BaseModel):
    """One CHIS checkpoint: ``(time, CHI, profiles, state descriptors, configuration/resources)``."""

    model_config = ConfigDict(extra="forbid")

    step: int
    """Checkpoint index in the sequence."""
    time: float | None = None
    """Event/tick time of the checkpoint."""
    chi: float | None
    """CHI in [0, 100], or ``None`` (the rest of the record stays valid)."""
    capacities: dict[str, float | None]
    """Capacity profile ``p`` per axis."""
    human_similarity: dict[str, float | None] | None
    """Similarity profile ``h`` per axis, or ``None`` without calibration."""
    state: dict[str, Any] = {}
    """State descriptors (active goals, indexed units, memory versions, snapshot hashes)."""
    resources: dict[str, Any] = {}
    """Configuration and resources at this checkpoint."""


class Measure(BaseModel):
    """A derived measure's value, or the reason it has none."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """Measure name."""
    value: float | None
    """The value; ``None`` when missing or undefined."""
    status: Literal["ok", "missing", "undefined"]
    """``missing``: an input feature is unavailable; ``undefined``: the definition does not apply."""
    detail: dict[str, Any] = {}
    """Supporting figures (signed changes, per-checkpoint distances...)."""


def _missing(name: str, **detail: Any) -> Measure:
    return Measure(name=name, value=None, status="missing", detail=detail)


def continuity(v_current: Vector, v_next: Vector) -> Measure:
    """Continuity ``1 - D(v_next, v_current)`` over a declared neutral interval."""
    d = distance(v_next, v_current)
    return _missing("continuity") if d is None else Measure(name="continuity", value=1.0 - d, status="ok")


def drift(v_t: Vector, v_baseline: Vector) -> Measure:
    """Drift ``D(v_t, v_baseline)``, with signed coordinate changes in ``detail['signed']``."""
    d = distance(v_t, v_baseline)
    if d is None:
        return _missing("drift")
    signed = [x - y for x, y in zip(v_t, v_baseline, strict=True)]  # type: ignore[operator]
    return Measure(name="drift", value=d, status="ok", detail={"signed": signed})


def plasticity(
    pre_intervention: Vector,
    post_intervention: Vector,
    pre_control: Vector,
    post_control: Vector,
    target: int,
) -> Measure:
    """Target-coordinate change under intervention minus that under control.

    Args:
        pre_intervention: Feature vector before the intervention.
        post_intervention: After the intervention.
        pre_control: Before the control condition.
        post_control: After the control condition.
        target: Index of the target coordinate.
    """
    vecs = [_check_vector(v, n) for v, n in ((pre_intervention, "pre_intervention"), (post_intervention, "post_intervention"), (pre_control, "pre_control"), (post_control, "post_control"))]
    if len({len(v) for v in vecs}) != 1:
        raise InputError("field 'plasticity': vectors differ in length; a changed schema starts a new series")
    if not 0 <= target < len(vecs[0]):
        raise InputError(f"field 'target': index {target} is outside the feature vector of length {len(vecs[0])}")
    a, b, c, d = (v[target] for v in vecs)
    if a is None or b is None or c is None or d is None:
        return _missing("plasticity")
    return Measure(
        name="plasticity",
        value=(b - a) - (d - c),
        status="ok",
        detail={"intervention_change": b - a, "control_change": d - c},
    )


def stability(neutral_checkpoints: Sequence[Vector]) -> Measure:
    """Stability ``1 - mean adjacent D`` over neutral checkpoints; undefined with fewer than two."""
    if len(neutral_checkpoints) < 2:
        return Measure(name="stability", value=None, status="undefined", detail={"reason": "fewer than two checkpoints"})
    ds = [distance(a, b) for a, b in itertools.pairwise(neutral_checkpoints)]
    if any(d is None for d in ds):
        return _missing("stability", adjacent=ds)
    return Measure(name="stability", value=1.0 - math.fsum(ds) / len(ds), status="ok", detail={"adjacent": ds})  # type: ignore[arg-type]


class RecoveryResult(BaseModel):
    """Recovery after a fault: distances to the pre-fault baseline and the first sustained return."""

    model_config = ConfigDict(extra="forbid")

    distances: list[float | None]
    """``D`` to the pre-fault baseline at each post-repair checkpoint."""
    times: list[float]
    """Times of the checkpoints."""
    epsilon: float
    """Return tolerance."""
    return_time: float | None
    """Time of the first checkpoint starting two successive checkpoints within epsilon."""
    censored: bool
    """True when no return was observed (right-censored)."""
    censored_at: float | None
    """Last observed time when censored."""
    sham: RecoveryResult | None = None
    """The same analysis on the sham-fault arm; ``None`` when no sham was given."""


def recovery(
    baseline: Vector,
    checkpoints: Sequence[tuple[float, Vector]],
    epsilon: float,
    sham: Sequence[tuple[float, Vector]] | None = None,
) -> RecoveryResult:
    """Recovery distance and first return within ``epsilon`` at two successive checkpoints.

    Args:
        baseline: Pre-fault feature vector.
        checkpoints: ``(time, vector)`` after repair, in increasing time.
        epsilon: Preregistered tolerance in [0, 1].
        sham: Checkpoints of the sham-fault arm (required by the protocol; analysed the same way).

    Returns:
        The :class:`RecoveryResult`; no return is right-censored, never imputed.
    """
    eps = check_unit(epsilon, "epsilon")
    times = [float(t) for t, _ in checkpoints]
    if any(b <= a for a, b in itertools.pairwise(times)):
        raise InputError("field 'checkpoints': times must be strictly increasing")
    ds = [distance(v, baseline) for _, v in checkpoints]
    ret: float | None = None
    for k in range(len(ds) - 1):
        if ds[k] is not None and ds[k + 1] is not None and ds[k] <= eps and ds[k + 1] <= eps:  # type: ignore[operator]
            ret = times[k]
            break
    return RecoveryResult(
        distances=ds,
        times=times,
        epsilon=eps,
        return_time=ret,
        censored=ret is None,
        censored_at=(times[-1] if times else None) if ret is None else None,
        sham=None if sham is None else recovery(baseline, sham, eps),
    )


def hysteresis(forward: Mapping[float, float | None], reverse: Mapping[float, float | None]) -> Measure:
    """Mean absolute forward/reverse response gap at matched interior stimulus levels.

    Args:
        forward: Response (in [0, 1]) per stimulus level on the ascending schedule.
        reverse: Response per level on the descending schedule.
    """
    shared = sorted(set(forward) & set(reverse))
    interior = shared[1:-1]
    if not interior:
        return Measure(name="hysteresis", value=None, status="undefined", detail={"reason": "no matched interior level"})
    gaps: list[float] = []
    for level in interior:
        a = check_optional_unit(forward[level], f"forward[{level}]")
        b = check_optional_unit(reverse[level], f"reverse[{level}]")
        if a is None or b is None:
            return _missing("hysteresis", levels=interior)
        gaps.append(abs(a - b))
    return Measure(name="hysteresis", value=math.fsum(gaps) / len(gaps), status="ok", detail={"levels": interior, "gaps": gaps})


class Accumulation(BaseModel):
    """Change in EIMC and Q_M between two checkpoints on the same panel."""

    model_config = ConfigDict(extra="forbid")

    eimc_change: int | None
    """``EIMC_after - EIMC_before`` (exact or a bound, see ``eimc_change_kind``)."""
    eimc_change_kind: Literal["exact", "lower_bound", "upper_bound", "undetermined"]
    """How to read ``eimc_change``: censored capacities give bounds, not exact deltas."""
    q_m_change: dict[int, float | None]
    """``Q_M`` change per load; ``None`` where either side is undefined."""


def memory_accumulation(before: EIMCResult, after: EIMCResult) -> Accumulation:
    """Change in EIMC and Q_M on a fixed panel.

    Raises:
        InputError: When the grids, thresholds or exponents differ (unmatched panels).
    """
    if before.grid != after.grid or before.tau != after.tau or before.alpha != after.alpha:
        raise InputError("field 'grid': curves use different grids, tau or alpha; no comparison across unmatched panels")
    q = {n: (None if before.q_m[n] is None or after.q_m[n] is None else after.q_m[n] - before.q_m[n]) for n in before.grid}  # type: ignore[operator]
    kinds = (before.status, after.status)
    if "no_passing_tested_load" in kinds or kinds == ("lower_bound/right_censored", "lower_bound/right_censored"):
        return Accumulation(eimc_change=None, eimc_change_kind="undetermined", q_m_change=q)
    delta = after.eimc - before.eimc  # type: ignore[operator]
    if kinds == ("observed", "observed"):
        kind: Literal["exact", "lower_bound", "upper_bound"] = "exact"
    elif after.status == "lower_bound/right_censored":
        kind = "lower_bound"
    else:
        kind = "upper_bound"
    return Accumulation(eimc_change=delta, eimc_change_kind=kind, q_m_change=q)


def experience_divergence(
    different_history_pairs: Sequence[tuple[Vector, Vector]],
    same_history_pairs: Sequence[tuple[Vector, Vector]],
) -> Measure:
    """Mean D of different-history pairs minus mean D of same-history control pairs.

    ``detail['exceeds_control']`` is reported either way: a failure to exceed
    same-history variance is a negative result that must be reported.
    """
    if not different_history_pairs or not same_history_pairs:
        return Measure(name="experience_divergence", value=None, status="undefined", detail={"reason": "needs pairs in both arms"})
    diff = [distance(a, b) for a, b in different_history_pairs]
    same = [distance(a, b) for a, b in same_history_pairs]
    if any(d is None for d in diff + same):
        return _missing("experience_divergence")
    md = math.fsum(diff) / len(diff)  # type: ignore[arg-type]
    ms = math.fsum(same) / len(same)  # type: ignore[arg-type]
    return Measure(
        name="experience_divergence",
        value=md - ms,
        status="ok",
        detail={"different_history_mean_d": md, "same_history_mean_d": ms, "exceeds_control": md > ms, "n_pairs": [len(diff), len(same)]},
    )


def decay_half_time(times: Sequence[float], effects: Sequence[float | None]) -> Measure:
    """First observed half-amplitude time of an A-axis induction effect (no curve fitting).

    Args:
        times: Checkpoint times, increasing, the first being the initial effect.
        effects: Signed effect at each time (``None`` = missing).
    """
    if len(times) != len(effects) or not times:
        raise InputError("field 'effects': give one effect per time")
    for k, v in enumerate(effects):
        if v is not None and not math.isfinite(v):
            raise InputError(f"field 'effects[{k}]': nonfinite effect {v!r}; give a finite number or null")
    if any(b <= a for a, b in itertools.pairwise(times)):
        raise InputError("field 'times': times must be strictly increasing")
    e0 = effects[0]
    points = {"times": list(times), "effects": list(effects)}
    if e0 is None:
        return _missing("decay_half_time", **points)
    if e0 == 0.0:
        return Measure(name="decay_half_time", value=None, status="undefined", detail={"reason": "zero initial effect", **points})
    if any(e is not None and e * e0 < 0 for e in effects):
        return Measure(name="decay_half_time", value=None, status="undefined", detail={"reason": "sign-reversing effect", **points})
    for t, e in zip(times[1:], effects[1:], strict=True):
        if e is None:
            return _missing("decay_half_time", **points)
        if abs(e) <= abs(e0) / 2:
            return Measure(name="decay_half_time", value=float(t), status="ok", detail=points)
    return Measure(name="decay_half_time", value=None, status="undefined", detail={"reason": "not_reached", **points})

