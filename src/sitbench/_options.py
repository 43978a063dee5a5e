"""Numeric command-line options that are checked before anything runs: type, finiteness and range.

Every option that sizes work or memory (resamples, draws, sample sizes, token budgets, connections)
has an upper bound, so a typo such as ``--resamples 10000000000`` is refused in one line instead of
filling the machine's memory.
"""

from __future__ import annotations

import math
from typing import Any

import click

#: Largest seed accepted anywhere: seeds go to numpy, to providers' int64 fields and to manifests.
MAX_SEED = 2**63 - 1


class Bounded(click.ParamType):  # type: ignore[type-arg]  # generic in new click; a subscript breaks older ones
    """A finite number inside a range: NaN and infinities are refused, not silently accepted.

    Args:
        kind: ``int`` or ``float``.
        low: Smallest value allowed (``None``: no lower bound).
        high: Largest value allowed (``None``: no upper bound).
        low_open: Refuse ``low`` itself (a value must be greater than it).
    """

    def __init__(self, kind: type, low: float | None, high: float | None, *, low_open: bool = False) -> None:
        self.kind, self.low, self.high, self.low_open = kind, low, high, low_open
        self.name = kind.__name__

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The number, or a usage error saying which bound it breaks."""
        try:
            number = self.kind(value)
        except (TypeError, ValueError, OverflowError):
            self.fail(f"{value!r} is not a valid {self.name}", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        too_low = self.low is not None and (number <= self.low if self.low_open else number < self.low)
        if too_low or (self.high is not None and number > self.high):
            low = "" if self.low is None else f"{'>' if self.low_open else '≥'} {self.low:,}"
            high = "" if self.high is None else f"≤ {self.high:,}"
            self.fail(f"{value!r} is out of range: use a value {' and '.join(x for x in (low, high) if x)}",
                      param, ctx)
        return number


#: A seed: a whole number in 0 … 2**63 − 1.
SEED = Bounded(int, 0, MAX_SEED)

#: Most bootstrap resamples per estimate (a million resamples of 25 pairs take seconds, not hours).
MAX_RESAMPLES = 1_000_000
#: Most Monte-Carlo sign-flip draws.
MAX_DRAWS = 10_000_000
#: Largest token budget or output length in tokens.
MAX_TOKENS = 1_000_000
#: Most calls in flight at once.
MAX_CONNECTIONS = 1024
#: Longest history, in events, that an option may ask for.
MAX_HISTORY = 1_000_000
