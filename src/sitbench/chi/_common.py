"""Shared constants and input checks for the CHI/CHIS kit."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from sitbench.errors import InputError

Axis = Literal["R", "M", "C", "A", "I"]
"""One of the five required axes: reasoning, memory, cognitive autonomy, affect, integration."""

AXES: tuple[Axis, ...] = ("R", "M", "C", "A", "I")
"""The five required axes, in the specification's order."""

MEMORY_FACTORS: tuple[str, ...] = ("r", "t", "s", "u", "i", "f")
"""The six Q_M factors: retrieval, temporal, source, update, interference, false memory."""

SPEC_VERSION = "chi-chis-0.1"
"""The specification version these scores implement."""

WEIGHT_SUM_TOLERANCE = 1e-9
"""Declared tolerance when checking that weights (or alphas) sum to 1.

Weights typed as decimals (0.2, 0.3, ...) rarely sum to exactly 1.0 in binary
floating point. This tolerance applies only to *validating* the declared
weights; no score is ever floored, padded or renormalized.
"""


def check_number(value: Any, field: str) -> float:
    """Return ``value`` as a finite float, or raise naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"field '{field}': expected a number, got {value!r}; give a finite number")
    out = float(value)
    if not math.isfinite(out):
        raise InputError(f"field '{field}': nonfinite value {value!r} is not allowed; give a finite number")
    return out


def check_unit(value: Any, field: str) -> float:
    """Return ``value`` as a float in [0, 1], or raise naming ``field``."""
    out = check_number(value, field)
    if not 0.0 <= out <= 1.0:
        raise InputError(f"field '{field}': value {out!r} is outside [0, 1]; give a proportion in [0, 1]")
    return out


def check_optional_unit(value: Any, field: str) -> float | None:
    """Like :func:`check_unit` but ``None`` (missing) passes through."""
    return None if value is None else check_unit(value, field)


def check_weights(weights: Mapping[str, Any], keys: tuple[str, ...], field: str) -> dict[str, float]:
    """Validate exponent weights: exactly ``keys``, all finite and > 0, summing to 1.

    Args:
        weights: The declared weights.
        keys: The keys that must be present, no more and no fewer.
        field: The field name used in error messages.

    Returns:
        The weights as floats, in the order of ``keys``.

    Raises:
        InputError: If any rule is broken.
    """
    if not isinstance(weights, Mapping):
        raise InputError(f"field '{field}': expected an object keyed by {', '.join(keys)}")
    extra = sorted(set(weights) - set(keys))
    missing = [k for k in keys if k not in weights]
    if extra:
        raise InputError(f"field '{field}': unknown key(s) {extra}; allowed keys are {list(keys)}")
    if missing:
        raise InputError(
            f"field '{field}': missing key(s) {missing}; every one of {list(keys)} needs a weight "
            "(scores are never renormalized over a subset)"
        )
    out: dict[str, float] = {}
    for key in keys:
        w = check_number(weights[key], f"{field}.{key}")
        if w <= 0.0:
            raise InputError(f"field '{field}.{key}': weight {w!r} must be > 0; give every weight a positive value")
        out[key] = w
    total = math.fsum(out.values())
    if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
        raise InputError(f"field '{field}': weights sum to {total!r}, not 1; rescale them so they sum to 1")
    return out


def baseline_weights(keys: tuple[str, ...]) -> dict[str, float]:
    """Equal weights ``1/len(keys)`` (the transparent baseline)."""
    return {k: 1.0 / len(keys) for k in keys}
