"""Calibrated human similarity ``h_j`` and the CHI aggregate (spec §2).

Formulas, exactly as specified::

    delta_j^2 = mean_l ((z_jl - mu_jl) / s_jl)^2
    h_j       = exp(-0.5 * delta_j^2)
    CHI       = 100 * prod_j h_j ** w_j        (sum w_j = 1, all w_j > 0, baseline 1/5)

Rules this module enforces:

* Every scale ``s`` must be finite and >= a *declared* positive scale floor;
  zero or negative scales and a missing or non-positive floor are invalid
  input. A frozen scale below its declared floor is rejected rather than
  raised to the floor: the floor belongs to calibration fitting
  (:func:`fit_scales` applies it, visibly), not to scoring.
* An axis with ``h = 0`` gives CHI exactly 0 (``0 ** w == 0`` for ``w > 0``).
* Any axis without a similarity (``None``) gives CHI ``None``: never 0, never a
  CHI renormalized over the available axes.
* No epsilon is added anywhere. ``h`` may underflow to 0.0 for an extreme
  distance; that is the transform's value in double precision, not a floor.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from sitbench.chi._common import (
    AXES,
    Axis,
    baseline_weights,
    check_number,
    check_unit,
    check_weights,
)
from sitbench.errors import InputError


class AxisSimilarity(BaseModel):
    """Calibrated similarity of one axis and how it was obtained."""

    model_config = ConfigDict(extra="forbid")

    axis: Axis
    """The axis."""
    h: float
    """Similarity ``exp(-0.5 * delta^2)`` in [0, 1]."""
    delta_squared: float | None
    """Mean squared standardized distance; ``None`` when ``h`` was supplied directly."""
    n_features: int | None
    """Length of the feature vector ``z``; ``None`` when ``h`` was supplied directly."""


def _as_vector(values: Any, field: str) -> list[float]:
    if not isinstance(values, Sequence) or isinstance(values, (str, bytes)) or len(values) == 0:
        raise InputError(f"field '{field}': expected a non-empty list of numbers")
    return [check_number(v, f"{field}[{k}]") for k, v in enumerate(values)]


def delta_squared(z: Sequence[float], mu: Sequence[float], s: Sequence[float], scale_floor: float) -> float:
    """Mean squared standardized distance of features ``z`` from the centroid ``mu``.

    Args:
        z: Observed behavioural feature vector.
        mu: Frozen human feature means, same length.
        s: Frozen positive scales, same length, each >= ``scale_floor``.
        scale_floor: The declared positive scale floor.

    Returns:
        ``mean_l ((z_l - mu_l) / s_l) ** 2``.

    Raises:
        InputError: On length mismatch, nonfinite values, or a scale that is not
            positive or falls below the declared floor.
    """
    floor = check_number(scale_floor, "scale_floor")
    if floor <= 0.0:
        raise InputError(f"field 'scale_floor': {floor!r} must be > 0; declare a positive floor justified by measurement resolution")
    zv, mv, sv = _as_vector(z, "z"), _as_vector(mu, "mu"), _as_vector(s, "s")
    if not len(zv) == len(mv) == len(sv):
        raise InputError(f"field 'z/mu/s': lengths {len(zv)}/{len(mv)}/{len(sv)} differ; give one mu and one s per feature")
    for k, scale in enumerate(sv):
        if scale <= 0.0:
            raise InputError(f"field 's[{k}]': scale {scale!r} is not positive; zero or negative scales are invalid")
        if scale < floor:
            raise InputError(
                f"field 's[{k}]': scale {scale!r} is below the declared floor {floor!r}; "
                "refit the calibration with the floor applied"
            )
    return math.fsum(((a - b) / c) ** 2 for a, b, c in zip(zv, mv, sv, strict=True)) / len(zv)


def axis_similarity(
    axis: Axis, z: Sequence[float], mu: Sequence[float], s: Sequence[float], scale_floor: float
) -> AxisSimilarity:
    """Calibrated similarity ``h_j = exp(-0.5 * delta_j^2)`` of one axis (see :func:`delta_squared`)."""
    d2 = delta_squared(z, mu, s, scale_floor)
    return AxisSimilarity(axis=axis, h=math.exp(-0.5 * d2), delta_squared=d2, n_features=len(z))


def chi_score(h: Mapping[str, float | None], weights: Mapping[str, float] | None = None) -> float | None:
    """CHI ``= 100 * prod_j h_j ** w_j`` over all five axes.

    Args:
        h: Similarity per axis; must have exactly the keys R, M, C, A, I. A value
            of ``None`` marks missing similarity or calibration.
        weights: Axis weights (all > 0, summing to 1); the 1/5 baseline when omitted.

    Returns:
        CHI in [0, 100], exactly 0 when some ``h_j`` is 0, or ``None`` when any
        axis is missing.

    Raises:
        InputError: On unknown or absent axes, values outside [0, 1] or invalid weights.
    """
    w = baseline_weights(AXES) if weights is None else check_weights(weights, AXES, "weights")
    extra = sorted(set(h) - set(AXES))
    absent = [a for a in AXES if a not in h]
    if extra:
        raise InputError(f"field 'h': unknown axis {extra}; axes are {list(AXES)}")
    if absent:
        raise InputError(f"field 'h': axis {absent} absent; give every axis, with null where similarity is missing")
    values = {a: (None if h[a] is None else check_unit(h[a], f"h.{a}")) for a in AXES}
    known = {a: v for a, v in values.items() if v is not None}
    if len(known) < len(AXES):
        return None
    return float(100.0 * math.prod(known[a] ** w[a] for a in AXES))


def chi_array(h: np.ndarray, weights: Mapping[str, float] | None = None) -> np.ndarray:
    """Vectorized CHI over the last axis of ``h`` (length 5, R..I order); NaN marks missing.

    Used by the bootstrap; rows with any NaN give NaN (a null CHI).
    """
    w = baseline_weights(AXES) if weights is None else check_weights(weights, AXES, "weights")
    wv = np.array([w[a] for a in AXES])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(100.0 * np.prod(np.power(h, wv), axis=-1))


class Calibration(BaseModel):
    """Frozen centroid calibration of one axis: means, floored scales and the floor used."""

    model_config = ConfigDict(extra="forbid")

    mu: list[float]
    """Feature means of the calibration participants."""
    s: list[float]
    """Scales: sample standard deviation (ddof=1), raised to ``scale_floor`` where smaller."""
    scale_floor: float
    """The declared positive floor that was applied."""
    floored: list[bool]
    """Which features had their scale raised to the floor."""
    n_participants: int
    """Number of calibration participants."""


def fit_scales(samples: Sequence[Sequence[float]], scale_floor: float) -> Calibration:
    """Fit a centroid calibration for one axis from independent calibration participants.

    Args:
        samples: One feature vector per participant (at least two).
        scale_floor: Declared positive floor, justified by measurement resolution.

    Returns:
        The frozen :class:`Calibration`, recording which scales were floored.

    Raises:
        InputError: With fewer than two participants, ragged vectors or a non-positive floor.
    """
    floor = check_number(scale_floor, "scale_floor")
    if floor <= 0.0:
        raise InputError(f"field 'scale_floor': {floor!r} must be > 0; declare a positive floor")
    if len(samples) < 2:
        raise InputError("field 'samples': need at least two calibration participants to estimate a scale")
    rows = [_as_vector(r, f"samples[{k}]") for k, r in enumerate(samples)]
    if len({len(r) for r in rows}) != 1:
        raise InputError("field 'samples': participants have feature vectors of different lengths")
    arr = np.array(rows)
    sd = arr.std(axis=0, ddof=1)
    return Calibration(
        mu=[float(x) for x in arr.mean(axis=0)],
        s=[float(max(x, floor)) for x in sd],
        scale_floor=floor,
        floored=[bool(x < floor) for x in sd],
        n_participants=len(rows),
    )
