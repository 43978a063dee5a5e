"""Progress of a run: a live bar on a terminal, plain rate-limited lines everywhere else.

A run whose stderr is a file, a pipe or a CI log (``CI=true``) gets one line every
``SITBENCH_PROGRESS_SECONDS`` seconds (default 10) — done/total, rate and ETA — and a last
line when it ends, so an hour-long run in a log is never silent; a run shorter than one
interval prints nothing, which keeps test output and quick runs quiet.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self, TextIO

from sitbench.errors import InputError

DEFAULT_INTERVAL_S = 10.0
"""Seconds between two progress lines when stderr is not a terminal."""

INTERVAL_ENV = "SITBENCH_PROGRESS_SECONDS"
"""Environment variable overriding :data:`DEFAULT_INTERVAL_S` (a number > 0)."""


def _interval() -> float:
    raw = os.environ.get(INTERVAL_ENV)
    if raw is None:
        return DEFAULT_INTERVAL_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 86_400):
        raise InputError(f"environment variable {INTERVAL_ENV}={raw!r}: use a number of seconds in (0, 86400], "
                         f"or unset it for the default {DEFAULT_INTERVAL_S:g}")
    return value


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class LineProgress:
    """The subset of :class:`rich.progress.Progress` a run uses, written as plain lines.

    One task only (a run has one). Lines go to ``stream`` (default stderr) at most once per
    ``interval`` seconds, plus a final one on exit when any line was written or the run took
    at least one interval.
    """

    def __init__(self, label: str, *, interval: float | None = None, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.label = label
        self.interval = _interval() if interval is None else interval
        self._stream = stream
        self._clock = clock
        self._lock = threading.Lock()
        self.total: int | None = None
        self.completed = 0
        self._start_completed = 0
        self._started = clock()
        self._last = self._started
        self.lines = 0

    def __enter__(self) -> Self:
        self._started = self._last = self._clock()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None and (self.lines or self._clock() - self._started >= self.interval):
            self._emit(final=True)

    def add_task(self, description: str, total: int | None = None, **_: Any) -> int:
        """Start the (single) task; returns its id, ``0``."""
        self.total = total
        return 0

    def update(self, task: int, *, total: int | None = None, completed: int | None = None, **_: Any) -> None:
        """Set the total and/or the trials already done (a resumed run's finished trials)."""
        with self._lock:
            if total is not None:
                self.total = total
            if completed is not None:
                self.completed = self._start_completed = completed

    def advance(self, task: int, advance: int = 1) -> None:
        """Count finished trials; writes a line when the interval has passed."""
        with self._lock:
            self.completed += advance
            now = self._clock()
            if now - self._last >= self.interval:
                self._last = now
                self._emit(final=False)

    def line(self, *, final: bool = False) -> str:
        """The progress line as it would be written now."""
        elapsed = max(self._clock() - self._started, 1e-9)
        done_here = self.completed - self._start_completed
        rate = done_here / elapsed
        total = self.total
        head = f"{self.label}: {self.completed}/{total if total is not None else '?'} trials"
        if total:
            head += f" ({100 * self.completed / total:.1f} %)"
        parts = [head, f"{rate:.2f} trials/s", f"elapsed {_duration(elapsed)}"]
        if final:
            parts.append("finished")
        elif total is not None and rate > 0:
            parts.append(f"ETA {_duration((total - self.completed) / rate)}")
        return ", ".join(parts)

    def _emit(self, *, final: bool) -> None:
        stream = self._stream if self._stream is not None else sys.stderr
        stream.write(self.line(final=final) + "\n")
        stream.flush()
        self.lines += 1


def _live_terminal() -> bool:
    return os.environ.get("CI") != "true" and sys.stderr.isatty()


def progress_display(label: str) -> Any:
    """A live bar when stderr is a terminal (and not CI), else :class:`LineProgress`."""
    if not _live_terminal():
        return LineProgress(label)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True)
