"""Input checks shared by the statistics functions."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sitbench.errors import InputError


def finite_vector(values: Iterable[float] | np.ndarray, *, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D float64 array, rejecting empty or non-finite input.

    Args:
        values: the numbers to check.
        name: the argument or option name used in error messages.

    Raises:
        InputError: the input is empty, not one-dimensional, non-numeric or not finite.
    """
    try:
        array = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: values must be numbers ({exc}); pass plain floats") from exc
    if array.ndim != 1:
        raise InputError(f"{name}: expected a flat list of numbers, got shape {array.shape}; flatten it")
    if array.size == 0:
        raise InputError(f"{name}: no values given; pass at least one number")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        index = int(bad[0])
        raise InputError(
            f"{name}: value #{index + 1} is {array[index]!r}; every value must be a finite number"
        )
    return array
