"""Numeric command-line options that are checked before anything runs: type, finiteness and range.

Every option that sizes work or memory (resamples, draws, sample sizes, token budgets, connections)
has an upper bound, so a typo such as ``--resamples 10000000000`` is refused in one line instead of
filling the machine's memory.
"""

from __future__ import annotations

import math
import os
from typing import Any

import click
import click.types

#: Largest seed accepted anywhere: seeds go to numpy, to providers' int64 fields and to manifests.
MAX_SEED = 2**63 - 1


class Bounded(click.types._NumberRangeBase):  # type: ignore[type-arg]  # generic in new click
    """A finite number inside a range: NaN and infinities are refused, not silently accepted.

    Its range is shown in ``--help`` as click shows an ``IntRange``'s (``[default: 8; 1<=x<=1024]``), so
    every bounded option states its bound.

    Args:
        kind: ``int`` or ``float``.
        low: Smallest value allowed (``None``: no lower bound).
        high: Largest value allowed (``None``: no upper bound).
        low_open: Refuse ``low`` itself (a value must be greater than it).
    """

    def __init__(self, kind: type, low: float | None, high: float | None, *, low_open: bool = False) -> None:
        self.kind, self.low, self.high, self.low_open = kind, low, high, low_open
        self.name = kind.__name__
        # What click's help reads (``_describe_range``); conversion is this class's own.
        self.min, self.max, self.min_open, self.max_open, self.clamp = low, high, low_open, False, False

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

    def _clamp(self, bound: Any, dir: Any, open: bool) -> Any:
        raise NotImplementedError("a bounded option refuses a value out of range; it never clamps")


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

#: Most worker processes of a run or a scoring, whatever the machine.
MAX_WORKERS = 64
#: Most worker processes per CPU.
WORKERS_PER_CPU = 4


def max_workers() -> int:
    """The most worker processes allowed on this machine: 4 × the CPU count, never above 64."""
    return max(1, min(WORKERS_PER_CPU * (os.cpu_count() or 1), MAX_WORKERS))


def check_workers(requested: int) -> int:
    """``requested`` (``--workers``) when it lies in 1 … :func:`max_workers`.

    Raises:
        InputError: it does not, in one line that says the bound and how it is made.
    """
    from sitbench.errors import InputError

    if requested < 1:
        raise InputError(f"--workers {requested}: must be at least 1 (1 works in this process)")
    most = max_workers()
    if requested > most:
        raise InputError(f"--workers {requested}: at most {most} on this machine ({WORKERS_PER_CPU} × "
                         f"{os.cpu_count() or 1} CPUs, never above {MAX_WORKERS})")
    return requested


class Workers(click.ParamType):  # type: ignore[type-arg]  # generic in new click; a subscript breaks older ones
    """``--workers``: a whole number in 1 … :func:`max_workers`; beyond it, one ``error: --workers N`` line."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The number of processes, or an :class:`InputError` saying the bound on this machine."""
        if isinstance(value, int):
            return check_workers(value)
        try:
            number = int(str(value).strip())
        except ValueError:
            self.fail(f"{value!r} is not a whole number of processes", param, ctx)
        return check_workers(number)


#: ``--workers`` of ``run`` and ``score``.
WORKERS = Workers()
#: The bound of ``--workers``, as its help says it.
WORKERS_HELP = (f"1 … {WORKERS_PER_CPU} × the CPU count, never above {MAX_WORKERS} (here: {max_workers()}); "
                "never more processes than trials are started")
