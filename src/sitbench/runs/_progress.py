"""Progress of a run: a live bar on a terminal, plain rate-limited lines everywhere else.

A run whose stderr is a file, a pipe or a CI log (``CI=true``) gets one line every
``SITBENCH_PROGRESS_SECONDS`` seconds (default 10) — done/total, rate and ETA — and a last
line when it ends, so an hour-long run in a log is never silent; a run shorter than one
interval prints nothing, which keeps test output and quick runs quiet. Before the first trial
(loading a large dataset, embedding its records for E/F) a line says what is being prepared
each interval; the rate and the ETA count from the first trial on, and the ETA is shown only
after a second of trials.
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
                 clock: Callable[[], float] = time.monotonic, unit: str = "trials") -> None:
        self.label = label
        self.unit = unit
        self.interval = _interval() if interval is None else interval
        self._stream = stream
        self._clock = clock
        self._lock = threading.Lock()
        self.total: int | None = None
        self.completed = 0
        self.description = ""
        self._start_completed = 0
        self._started = clock()
        self._phase_started: float | None = None
        self._last = self._started
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self.lines = 0

    def __enter__(self) -> Self:
        self._started = self._last = self._clock()
        # A step before the first trial (loading a large dataset, embedding its records) can take a minute:
        # the heartbeat writes a line each interval in which nothing else was written.
        self._beat = threading.Thread(target=self._heartbeat, name="sitbench-progress", daemon=True)
        self._beat.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join()
        if exc_type is None and (self.lines or self._clock() - self._started >= self.interval):
            with self._lock:
                self._emit(final=True)

    def _heartbeat(self) -> None:
        while not self._stop.wait(max(self.interval, 1.0)):
            with self._lock:
                if self._clock() - self._last >= self.interval:
                    self._last = self._clock()
                    self._emit(final=False)

    def add_task(self, description: str, total: int | None = None, **_: Any) -> int:
        """Start the (single) task; returns its id, ``0``."""
        self.total = total
        return 0

    def update(self, task: int, *, total: int | None = None, completed: int | None = None,
               description: str | None = None, **_: Any) -> None:
        """Set the total and/or the trials already done (a resumed run's finished trials), or say what a step before
        the trials is doing (``description``; ``""`` when the trials start). The rate and the ETA count from the
        moment the total is known and no such step is under way."""
        with self._lock:
            if description is not None:
                self.description = description
            if total is not None:
                self.total = total
            if completed is not None:
                self.completed = self._start_completed = completed
            if (total is not None or description is not None) and self.total is not None and not self.description:
                self._phase_started = self._clock()
                self._start_completed = self.completed

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
        now = self._clock()
        elapsed = max(now - self._started, 1e-9)
        total = self.total
        if total is None or (self.description and not final):
            done = "" if total is None else f"{self.completed}/{total} {self.unit}, "
            doing = f" ({self.description})" if self.description else ""
            return f"{self.label}: {done}preparing{doing}, elapsed {_duration(elapsed)}"
        running = max(now - (self._phase_started if self._phase_started is not None else self._started), 1e-9)
        done_here = self.completed - self._start_completed
        rate = done_here / running
        head = f"{self.label}: {self.completed}/{total} {self.unit}"
        if total:
            head += f" ({100 * self.completed / total:.1f} %)"
        parts = [head, f"{rate:.2f} {self.unit}/s", f"elapsed {_duration(elapsed)}"]
        if final:
            parts.append("finished")
        elif rate > 0 and running >= 1.0:
            # Only after a second of trials: the first few finish at a rate that says nothing yet.
            parts.append(f"ETA {_duration((total - self.completed) / rate)}")
        return ", ".join(parts)

    def _emit(self, *, final: bool) -> None:
        stream = self._stream if self._stream is not None else sys.stderr
        stream.write(self.line(final=final) + "\n")
        stream.flush()
        self.lines += 1


def _live_terminal() -> bool:
    return os.environ.get("CI") != "true" and sys.stderr.isatty()


def progress_display(label: str, unit: str = "trials") -> Any:
    """A live bar when stderr is a terminal (and not CI), else :class:`LineProgress` counting ``unit``."""
    if not _live_terminal():
        return LineProgress(label, unit=unit)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn(label), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), transient=True)
