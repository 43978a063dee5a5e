"""Response cache: one SQLite file keyed by the full request, shared by runs and processes.

The key is the SHA-256 of the canonical JSON of everything that decides a
response: the candidate's ``describe()`` without its operational knobs
(timeouts, retry policy, key variable, thread counts), the model id, the base
URL, the exact messages, the decoding config (seed included) and the epoch.
Secrets never enter it: ``describe()`` carries no key, and neither do requests.

Under greedy decoding (temperature 0) identical requests share one entry, even
across trials. Under sampling the trial id joins the key: two trials that send
the same prompt must stay independent samples, not one answer copied twice.

Only completed answers are stored; a drop (timeout, content filter, …) is never
cached, so a rerun retries it. Deterministic mock candidates bypass the cache:
they cost nothing to call and their outputs are fixed by their code, which a
cache would freeze at an old version.

SQLite runs in WAL mode with a busy timeout, so several processes (shards on one
machine) can read and write the same file at once; inserts are ``INSERT OR
IGNORE``, so two writers racing on one key keep the first answer.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict

from sitbench.candidates._protocol import (
    Candidate,
    CandidateRequest,
    CandidateResponse,
    DecodingConfig,
    Message,
)
from sitbench.errors import InputError, OutputError

CACHE_FILE = "responses.sqlite"
"""File name of the response cache inside :func:`default_cache_dir`."""


def default_cache_dir() -> Path:
    """Where sitbench caches responses and embeddings: ``$SITBENCH_CACHE_DIR`` or ``~/.cache/sitbench``."""
    root = os.environ.get("SITBENCH_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "sitbench"


# describe() fields that change how a call is made, not what it answers.
VOLATILE_FIELDS = frozenset({"timeout_s", "retry", "api_key_env", "n_threads", "verbose", "extra_buffers", "sdk"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at TEXT NOT NULL
)
"""
_COLUMNS = frozenset({"key", "model", "response", "created_at"})


def request_key(describe: dict[str, Any], messages: list[Message], decoding: DecodingConfig, epoch: int = 0,
                trial_id: str | None = None, response_format: dict[str, Any] | None = None) -> str:
    """SHA-256 hex digest of the canonical JSON of one request.

    Args:
        describe: The candidate's ``describe()``; volatile fields are dropped here.
        messages: Exact messages sent.
        decoding: Decoding parameters (seed included).
        epoch: Repetition index, so repeated samples of one request get distinct entries.
        trial_id: The request's trial id; used only when ``decoding.temperature > 0``.
        response_format: The request's output constraint; keys of requests without one are
            the same as before the field existed.
    """
    stable = {k: v for k, v in describe.items() if k not in VOLATILE_FIELDS}
    payload = {
        "candidate": stable,
        "model": describe.get("model"),
        "base_url": describe.get("base_url"),
        "messages": [m.model_dump() for m in messages],
        "decoding": decoding.model_dump(),
        "epoch": epoch,
    }
    if decoding.temperature > 0:
        payload["trial_id"] = trial_id
    if response_format is not None:
        payload["response_format"] = response_format
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CacheStats(BaseModel):
    """What ``sitbench cache stats`` prints."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    entries: int
    """Cached responses."""
    size_bytes: int
    """Size of the database file and its WAL."""
    by_model: dict[str, int]
    """Entries per model id."""
    oldest: str | None = None
    """UTC timestamp of the oldest entry."""
    newest: str | None = None
    """UTC timestamp of the newest entry."""


class ResponseCache:
    """The SQLite response store. Safe to share between threads and processes."""

    def __init__(self, path: Path, busy_timeout_ms: int = 30_000, *, read_only: bool = False) -> None:
        """Open the cache at ``path`` (creating it unless ``read_only``).

        Args:
            path: The database file, e.g. ``default_cache_dir() / "responses.sqlite"``.
            busy_timeout_ms: How long a writer waits for another process's lock.
            read_only: open an existing file without changing it (``cache stats``); a missing file
                is an empty cache, and nothing is created.

        Raises:
            InputError: ``path`` is a directory, its folder cannot be made, or it is not an SQLite
                database holding a sitbench response cache (a database of other tables is never
                given one).
        """
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if path.is_dir():
            raise InputError(f"{path}: is a directory, not a cache file; give --cache-path FILE "
                             f"(e.g. {path / CACHE_FILE})")
        if read_only:
            if path.parent.exists() and not path.parent.is_dir():
                raise InputError(f"{path}: the cache's folder {path.parent} is a file, not a folder; give "
                                 "--cache-path a file in a folder")
            if not path.exists():
                return
            if not path.is_file():
                raise InputError(f"{path}: not a regular file (a pipe or a device); give --cache-path a cache file")
        else:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InputError(f"{path}: the cache's folder cannot be created ({exc.strerror}: {exc.filename}); "
                                 "give --cache-path a file in a writable folder") from None
        try:
            target = f"file:{path.resolve().as_posix()}?mode=ro" if read_only else str(path)
            self._db = sqlite3.connect(target, timeout=busy_timeout_ms / 1000, check_same_thread=False,
                                       isolation_level=None, uri=read_only)
        except sqlite3.Error as exc:
            raise InputError(f"{path}: the response cache cannot be opened ({exc}); give --cache-path a "
                             "writable file") from None
        self._check_schema(self._db, busy_timeout_ms, read_only)

    def _check_schema(self, db: sqlite3.Connection, busy_timeout_ms: int, read_only: bool) -> None:
        """Make (in a new, empty database) or check the ``responses`` table; refuse any other database."""
        path = self.path
        try:
            db.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "responses" not in tables:
                db.close()
                raise InputError(f"{path}: an SQLite database but not a sitbench response cache (it holds the "
                                 f"tables {', '.join(sorted(tables)[:5])}, no 'responses'); give --cache-path "
                                 "another file")
            if not read_only:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute(_SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(responses)")} if tables or not read_only \
                else set(_COLUMNS)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise InputError(f"{path}: not a sitbench response cache ({exc}); give --cache-path another file, "
                             "or delete this one if it is a damaged cache") from None
        if not columns >= _COLUMNS:
            db.close()
            raise InputError(f"{path}: an SQLite database but not a sitbench response cache (its 'responses' "
                             f"table lacks {', '.join(sorted(_COLUMNS - columns))}); give --cache-path another "
                             "file")
        if not tables and read_only:
            db.close()
            self._db = None  # an empty database: an empty cache

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise OutputError(f"{self.path}: the response cache was opened read-only or does not exist")
        return self._db

    def get(self, key: str) -> CandidateResponse | None:
        """The cached response for ``key``, marked ``cached=True``, or None."""
        with self._lock:
            if self._db is None:
                return None
            row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return CandidateResponse.model_validate_json(row[0]).model_copy(
            update={"cached": True, "retries": 0, "latency_s": 0.0})

    def put(self, key: str, response: CandidateResponse) -> bool:
        """Store a completed response; drops are refused. Returns whether a row was added.

        Raises:
            OutputError: the cache cannot be written (a full disk, a read-only file), naming it.
        """
        if response.status != "ok" or response.text is None:
            return False
        stored = response.model_copy(update={"cached": False}).model_dump_json()
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        try:
            with self._lock:
                cursor = self._conn.execute(
                    "INSERT OR IGNORE INTO responses (key, model, response, created_at) VALUES (?, ?, ?, ?)",
                    (key, response.model_sent, stored, now))
        except sqlite3.OperationalError as exc:
            # "database or disk is full", "attempt to write a readonly database", "disk I/O error"
            raise OutputError(f"{self.path}: the response cache cannot be written ({exc}); free space, give "
                              "--cache-path a file in a writable folder, or run with --no-cache") from None
        return cursor.rowcount == 1

    def stats(self) -> CacheStats:
        """Entry counts per model, age range and size on disk."""
        if self._db is None:
            return CacheStats(entries=0, size_bytes=0, by_model={})
        with self._lock:
            entries, oldest, newest = self._db.execute(
                "SELECT COUNT(*), MIN(created_at), MAX(created_at) FROM responses").fetchone()
            by_model = dict(self._db.execute(
                "SELECT model, COUNT(*) FROM responses GROUP BY model ORDER BY model").fetchall())
        size = sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())
        return CacheStats(entries=entries, size_bytes=size, by_model=by_model, oldest=oldest, newest=newest)

    def clear(self, model: str | None = None) -> int:
        """Delete every entry (or one model's); returns how many were deleted."""
        with self._lock:
            db = self._conn
            if model is None:
                cursor = db.execute("DELETE FROM responses")
            else:
                cursor = db.execute("DELETE FROM responses WHERE model = ?", (model,))
            deleted = cursor.rowcount
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.execute("VACUUM")
        return deleted

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            if self._db is not None:
                self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def bypasses_cache(candidate: Candidate) -> bool:
    """Deterministic mocks are never cached (see the module docstring)."""
    return candidate.describe().get("provider") == "mock"


class CachedCandidate:
    """Wraps a candidate: answers from the cache when it can, stores what it fetches.

    Attributes:
        hits: Requests answered from the cache.
        misses: Requests passed to the candidate.
    """

    def __init__(self, inner: Candidate, cache: ResponseCache, epoch: int = 0) -> None:
        self.inner = inner
        self.cache = cache
        self.epoch = epoch
        self.name = inner.name
        self._describe = inner.describe()
        self.hits = 0
        self.misses = 0

    def describe(self) -> dict[str, Any]:
        """The wrapped candidate's description."""
        return self.inner.describe()

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        """Cached answer, or the candidate's (stored when it is not a drop)."""
        key = request_key(self._describe, request.messages, request.decoding, self.epoch, request.trial_id,
                          request.response_format)
        cached = self.cache.get(key)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        response = await self.inner.complete(request)
        self.cache.put(key, response)
        return response

    def __getattr__(self, name: str) -> Any:
        # Anything else (aclose, options) belongs to the wrapped candidate.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)
