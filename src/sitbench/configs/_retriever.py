"""Top-k dense retrieval over chronicle records (configurations E and F).

Configuration E searches every record of the chronicle ``H_T``, including those
after the evaluation epoch τ; configuration F uses the same retriever and k but
only over ``H_≤τ``. The difference is made by ``candidate_filter``, which is
applied *before* the top-k cut, so F always gets k admissible records when k
exist instead of the admissible remainder of an unfiltered top-k.

Embeddings are cached on disk, one ``.npy`` file per distinct text (a record's or a
query's: a vector is the embedding of its text), named by the SHA-256 of the
embedder version and the text; re-running over the same dataset (or another
configuration over the same chronicle) embeds nothing.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import io
import os
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, field_validator

from sitbench.configs._embedder import Embedder, MiniLMEmbedder
from sitbench.errors import InputError

__all__ = [
    "DEFAULT_K",
    "RETRIEVER_ID",
    "DenseRetriever",
    "Hit",
    "RetrievalDoc",
    "RetrieverManifest",
    "on_or_before",
    "retriever_manifest",
]

#: The paper's top-k for configurations E and F.
DEFAULT_K = 5
#: Identifier of this retriever in run manifests.
RETRIEVER_ID = "sitbench.dense-cosine"


class RetrievalDoc(BaseModel):
    """One retrievable record: a chronicle event's realised text and its date."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    doc_id: str = Field(min_length=1)
    """Stable identifier of the record (e.g. the event id); breaks score ties."""
    text: str
    """The text that is embedded and, when retrieved, shown to the candidate."""
    t: str
    """When the record happened: an ISO date (``2021-03-04``) or ISO date-time."""

    @field_validator("t")
    @classmethod
    def _iso_time(cls, value: str) -> str:
        _parse_when(value, "t")
        return value


class Hit(BaseModel):
    """One retrieved record."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    """The record's ``doc_id``."""
    score: float
    """Cosine similarity between the query and the record, in [-1, 1]."""
    rank: int = Field(ge=1)
    """1 for the best hit; hits are ordered by score descending, then doc_id."""


class RetrieverManifest(BaseModel):
    """What fixes a retriever's output, for the run manifest."""

    retriever_id: str
    """Which retrieval code produced the hits."""
    model_id: str
    """The embedding model."""
    version: str
    """The embedder's exact version (weights hash and preprocessing)."""
    dim: int
    """Embedding width."""
    similarity: str
    """Similarity function between query and record vectors."""
    k: int
    """Number of hits returned per query."""
    max_seq_length: int | None
    """Truncation length of the embedder in tokens, when it has one."""
    tie_break: str
    """How equal scores are ordered."""
    onnxruntime_version: str | None
    """Installed onnxruntime version, when installed."""
    tokenizers_version: str | None
    """Installed tokenizers version, when installed."""


def on_or_before(tau: str) -> Callable[[RetrievalDoc], bool]:
    """A ``candidate_filter`` that keeps records with ``t ≤ τ`` (configuration F).

    When τ is a date, a record dated that same day (with or without a time) is
    kept. When both are date-times they are compared exactly.

    Args:
        tau: The evaluation epoch, an ISO date or date-time.

    Returns:
        A predicate over :class:`RetrievalDoc`.
    """
    try:
        limit = _parse_when(tau, "tau")
    except ValueError as exc:
        raise InputError(f"retrieval filter: {exc}") from exc

    def admissible(doc: RetrievalDoc) -> bool:
        when = _parse_when(doc.t, "t")
        if isinstance(limit, datetime) and isinstance(when, datetime):
            try:
                return when <= limit
            except TypeError as exc:
                raise InputError(
                    f"record '{doc.doc_id}' field 't' ({doc.t}) and tau ({tau}): one has a time zone "
                    "and the other has none; give both with or both without an offset"
                ) from exc
        day = when.date() if isinstance(when, datetime) else when
        limit_day = limit.date() if isinstance(limit, datetime) else limit
        return day <= limit_day

    return admissible


class DenseRetriever:
    """Cosine top-k retrieval over embedded records with an on-disk embedding cache.

    Args:
        embedder: Turns texts into vectors (:class:`MiniLMEmbedder` for the paper's runs).
        cache_dir: Folder for cached document embeddings; ``None`` keeps them in memory only.
        batch_size: Texts per embedder call when indexing.
        query_cache_size: How many query vectors to keep (least recently used are dropped).
    """

    def __init__(
        self,
        embedder: Embedder,
        cache_dir: Path | None = None,
        *,
        batch_size: int = 32,
        query_cache_size: int = 1024,
    ) -> None:
        if query_cache_size < 0:
            raise InputError(f"retriever option 'query_cache_size' is {query_cache_size}: use 0 or more")
        self._embedder = embedder
        self._cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._batch_size = batch_size
        self._query_cache: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._query_cache_size = query_cache_size
        self._docs: tuple[RetrievalDoc, ...] = ()
        self._ids: npt.NDArray[np.str_] = np.array([], dtype=str)
        # One row per distinct text; _text_row maps each record to its row.
        self._matrix: npt.NDArray[np.float32] = np.zeros((0, embedder.dim), dtype=np.float32)
        self._text_row: npt.NDArray[np.intp] = np.zeros(0, dtype=np.intp)
        self._version: str | None = None
        self.cache_hits = 0
        """Document texts whose vectors came from the disk cache (since construction)."""
        self.cache_misses = 0
        """Document texts that had to be embedded (since construction)."""

    @property
    def embedder(self) -> Embedder:
        """The embedder in use."""
        return self._embedder

    @property
    def docs(self) -> tuple[RetrievalDoc, ...]:
        """The indexed records, in indexing order."""
        return self._docs

    def index(self, docs: Sequence[RetrievalDoc]) -> None:
        """Embed and index ``docs``, replacing any previous index.

        Args:
            docs: The records; ``doc_id`` values must be unique.

        Raises:
            InputError: On a duplicate ``doc_id`` or an unwritable cache folder.
        """
        seen: set[str] = set()
        for position, doc in enumerate(docs):
            if doc.doc_id in seen:
                raise InputError(
                    f"retrieval record {position}: field 'doc_id' {doc.doc_id!r} occurs twice; "
                    "give every record a unique id"
                )
            seen.add(doc.doc_id)
        unique_texts = list(dict.fromkeys(doc.text for doc in docs))
        row_of = {text: row for row, text in enumerate(unique_texts)}
        self._matrix = self._document_vectors(unique_texts)
        self._text_row = np.array([row_of[doc.text] for doc in docs], dtype=np.intp)
        self._docs = tuple(docs)
        self._ids = np.array([doc.doc_id for doc in docs], dtype=str)

    def uncached(self, texts: Sequence[str]) -> list[str]:
        """The texts whose vectors the disk cache does not hold (all of them without a cache).

        A cached file that turns out to be damaged is embedded again when :meth:`index` reads it.
        """
        if self._cache_dir is None:
            return list(texts)
        if self._version is None:
            self._version = self._embedder.version
        return [text for text in texts if not self._cache_path(text).is_file()]

    def cached_vectors(self, texts: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The vectors the disk cache holds for ``texts``, as the embedder gave them (not normalised).

        Empty without a cache; a damaged or unusable file counts as absent.
        """
        if self._cache_dir is None:
            return {}
        if self._version is None:
            self._version = self._embedder.version
        dim = self._embedder.dim
        found = {}
        for text in dict.fromkeys(texts):
            vector = _load_vector(self._cache_path(text), dim)
            if vector is not None:
                found[text] = vector
        return found

    def store_vectors(self, texts: Sequence[str], vectors: npt.NDArray[np.float32]) -> None:
        """Write the embedder's ``vectors`` of ``texts`` (one row each) to the disk cache; nothing without one.

        Raises:
            InputError: The cache folder is not writable.
        """
        if self._cache_dir is None:
            return
        if self._version is None:
            self._version = self._embedder.version
        for text, vector in zip(texts, vectors, strict=True):
            self._store_vector(self._cache_path(text), vector)

    def search(
        self,
        query: str,
        k: int = DEFAULT_K,
        *,
        candidate_filter: Callable[[RetrievalDoc], bool] | None = None,
        query_vector: npt.NDArray[np.float32] | None = None,
    ) -> list[Hit]:
        """Return the ``k`` indexed records most similar to ``query``.

        Args:
            query: The text to match (configurations E/F use the query utterance).
            k: Number of hits; fewer come back when fewer records pass the filter.
            candidate_filter: Keeps a record when it returns True; applied before the
                top-k cut (configuration F passes :func:`on_or_before` τ).
            query_vector: ``query``'s row of :meth:`query_vectors`, when it was embedded
                ahead (in a batch); otherwise the query is embedded now, alone.

        Returns:
            Hits ordered by cosine similarity descending, ties by ``doc_id`` ascending,
            ranked from 1.
        """
        rows, scores, order = self._ranked(query, k, candidate_filter, query_vector)
        # Built without validation: ids, finite scores and ranks from 1 are valid by construction.
        return [
            Hit.model_construct(doc_id=str(self._ids[rows[i]]), score=float(scores[i]), rank=rank)
            for rank, i in enumerate(order, start=1)
        ]

    def ranked_ids(
        self,
        query: str,
        k: int = DEFAULT_K,
        *,
        candidate_filter: Callable[[RetrievalDoc], bool] | None = None,
        query_vector: npt.NDArray[np.float32] | None = None,
    ) -> list[str]:
        """The ``doc_id`` values of :meth:`search`'s hits, in rank order, without the hit records.

        Args:
            query: As for :meth:`search`.
            k: As for :meth:`search`.
            candidate_filter: As for :meth:`search`.
            query_vector: As for :meth:`search`.

        Returns:
            Record ids, best first.
        """
        rows, _, order = self._ranked(query, k, candidate_filter, query_vector)
        return [str(doc_id) for doc_id in self._ids[rows[order]]]

    def _ranked(
        self,
        query: str,
        k: int,
        candidate_filter: Callable[[RetrievalDoc], bool] | None,
        query_vector: npt.NDArray[np.float32] | None,
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32], npt.NDArray[np.intp]]:
        """Rows that pass the filter, their scores, and the positions of the top ``k`` among them."""
        if k < 1:
            raise InputError(
                f"retriever option 'k' is {k}: it must be at least 1 (the paper uses {DEFAULT_K})"
            )
        if candidate_filter is None:
            rows = np.arange(len(self._docs))
        else:
            rows = np.array(
                [i for i, doc in enumerate(self._docs) if candidate_filter(doc)], dtype=np.intp
            )
        if rows.size == 0:
            return rows, np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.intp)
        # Score every distinct text once, over the whole index: a record then gets
        # bit-identical scores with or without a filter, and records sharing a text
        # tie exactly (a matrix product may differ in the last bit between rows).
        vector = self._query_vector(query) if query_vector is None else query_vector
        scores = (self._matrix @ vector)[self._text_row[rows]]
        # lexsort's last key is primary: score descending, then doc_id ascending.
        order = np.lexsort((self._ids[rows], -scores))[:k]
        return rows, scores, order

    def query_vectors(self, queries: Sequence[str]) -> npt.NDArray[np.float32]:
        """Unit vectors of ``queries``, embedded ``batch_size`` at a time (for :meth:`search`).

        A vector does not depend on the batch it was embedded in (padding is masked; MiniLM's
        vectors come out bit-identical at batch 1 and 32), and the tests check that E and F
        retrieve the same records either way on the pilot and the dev suite.

        Args:
            queries: The query texts.

        Returns:
            A float32 array with one row per query, in order.
        """
        if not queries:
            return np.zeros((0, self._embedder.dim), dtype=np.float32)
        vectors = self._embedder.embed(list(queries), batch_size=self._batch_size)
        return _unit_rows(self._checked(vectors, len(queries)))

    def manifest(self, k: int = DEFAULT_K) -> dict[str, Any]:
        """This retriever's :func:`retriever_manifest` entry."""
        return retriever_manifest(self._embedder, k=k)

    # -- internals ---------------------------------------------------------

    def _query_vector(self, query: str) -> npt.NDArray[np.float32]:
        cached = self._query_cache.get(query)
        if cached is not None:
            self._query_cache.move_to_end(query)
            return cached
        vector: npt.NDArray[np.float32] = _unit_rows(self._checked(self._embedder.embed([query], batch_size=1), 1))[0]
        if self._query_cache_size:
            self._query_cache[query] = vector
            while len(self._query_cache) > self._query_cache_size:
                self._query_cache.popitem(last=False)
        return vector

    def _document_vectors(self, texts: list[str]) -> npt.NDArray[np.float32]:
        dim = self._embedder.dim
        out = np.zeros((len(texts), dim), dtype=np.float32)
        if not texts:
            return out
        if self._cache_dir is None:
            self.cache_misses += len(texts)
            out[:] = self._checked(self._embedder.embed(texts, batch_size=self._batch_size), len(texts))
            return _unit_rows(out)
        known = self.cached_vectors(texts)
        missing = [row for row, text in enumerate(texts) if text not in known]
        for row, text in enumerate(texts):
            if text in known:
                out[row] = known[text]
        self.cache_hits += len(texts) - len(missing)
        self.cache_misses += len(missing)
        if missing:
            fresh = self._checked(
                self._embedder.embed([texts[row] for row in missing], batch_size=self._batch_size),
                len(missing),
            )
            for vector, row in zip(fresh, missing, strict=True):
                out[row] = vector
            self.store_vectors([texts[row] for row in missing], fresh)
        return _unit_rows(out)

    def _cache_path(self, text: str) -> Path:
        assert self._cache_dir is not None and self._version is not None
        digest = hashlib.sha256()
        digest.update(self._version.encode("utf-8"))
        digest.update(b"\x00")
        digest.update(text.encode("utf-8"))
        key = digest.hexdigest()
        return self._cache_dir / key[:2] / f"{key}.npy"

    def _store_vector(self, path: Path, vector: npt.NDArray[np.float32]) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npy")
            try:
                with os.fdopen(handle, "wb") as stream:
                    np.save(stream, np.ascontiguousarray(vector, dtype=np.float32), allow_pickle=False)
                os.replace(temp, path)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise InputError(
                f"embedding cache {self._cache_dir}: cannot write {path.name} ({exc.strerror or exc}); "
                "point the cache at a writable folder or run without one"
            ) from exc

    def _checked(self, vectors: Any, count: int) -> npt.NDArray[np.float32]:
        array = np.asarray(vectors, dtype=np.float32)
        if array.shape != (count, self._embedder.dim):
            raise ValueError(
                f"embedder {self._embedder.model_id!r} returned shape {array.shape}, "
                f"expected {(count, self._embedder.dim)}"
            )
        return array


def retriever_manifest(embedder: Embedder | None = None, *, k: int = DEFAULT_K) -> dict[str, Any]:
    """Describe the retriever for a run manifest.

    Args:
        embedder: The embedder in use; defaults to :class:`MiniLMEmbedder` (reads and
            hashes the model file, but starts no inference session).
        k: The top-k in use.

    Returns:
        A JSON-ready dict (see :class:`RetrieverManifest` for the fields).
    """
    embedder = embedder if embedder is not None else MiniLMEmbedder()
    max_len = getattr(embedder, "max_seq_length", None)
    manifest = RetrieverManifest(
        retriever_id=RETRIEVER_ID,
        model_id=embedder.model_id,
        version=embedder.version,
        dim=embedder.dim,
        similarity="cosine",
        k=k,
        max_seq_length=max_len if isinstance(max_len, int) else None,
        tie_break="score desc, doc_id asc",
        onnxruntime_version=_installed("onnxruntime"),
        tokenizers_version=_installed("tokenizers"),
    )
    return manifest.model_dump()


def _installed(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=8)
def _npy_header(dim: int) -> bytes:
    """The exact header ``np.save`` writes before a float32 vector of width ``dim``."""
    stream = io.BytesIO()
    np.save(stream, np.zeros(dim, dtype=np.float32), allow_pickle=False)
    return stream.getvalue()[: -4 * dim]


def _load_vector(path: Path, dim: int) -> npt.NDArray[np.float32] | None:
    """A cached vector, or None when the file is absent or unusable (then it is rebuilt)."""
    try:
        data = path.read_bytes()
    except OSError:  # absent, unreadable or not a file
        return None
    header = _npy_header(dim)
    if len(data) == len(header) + 4 * dim and data.startswith(header):
        # What this cache writes: read without np.load's header parser (an index reads thousands).
        vector = np.frombuffer(data, dtype=np.float32, offset=len(header)).copy()
    else:
        try:
            vector = np.load(io.BytesIO(data), allow_pickle=False)
        except (OSError, ValueError, EOFError):
            return None
    if not isinstance(vector, np.ndarray) or vector.dtype != np.float32 or vector.shape != (dim,):
        return None
    if not np.all(np.isfinite(vector)):
        return None
    return vector


def _unit_rows(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    # A zero vector stays zero: it scores 0 against every query.
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)


@functools.lru_cache(maxsize=65536)
def _parse_when(value: str, field: str) -> date | datetime:
    # Cached: a filter parses every record's date on every search.
    try:
        if "T" in value or " " in value.strip():
            return datetime.fromisoformat(value)
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(
            f"field '{field}' is {value!r}: not an ISO date or date-time; write e.g. 2021-03-04"
        ) from exc
