"""Per-subject dense retrieval over chronicle records for configurations E and F."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sitbench.configs._embedder import Embedder, MiniLMEmbedder, start_embedding
from sitbench.configs._retriever import DenseRetriever, RetrievalDoc, _unit_rows, on_or_before
from sitbench.schema import SubjectEvidence


class ChronicleRetriever:
    """One :class:`DenseRetriever` index per subject, built on first use; embeddings cached on disk."""

    def __init__(self, embedder: Embedder | None = None, cache_dir: Path | None = None) -> None:
        self._embedder = embedder
        self._cache_dir = cache_dir
        self._indexes: dict[str, DenseRetriever] = {}
        # Query text → unit vector, embedded ahead by prepare() and shared by every subject's index.
        self._queries: dict[str, npt.NDArray[np.float32]] = {}

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = MiniLMEmbedder()
        return self._embedder

    def _index(self, subject: SubjectEvidence) -> DenseRetriever:
        if subject.subject not in self._indexes:
            retriever = DenseRetriever(self.embedder, cache_dir=self._cache_dir)
            retriever.index(self._docs(subject))
            self._indexes[subject.subject] = retriever
        return self._indexes[subject.subject]

    @staticmethod
    def _docs(subject: SubjectEvidence) -> list[RetrievalDoc]:
        # Unvalidated: unique ids and ISO dates by construction (records are validated dataset rows).
        return [RetrievalDoc.model_construct(doc_id=f"{i:06d}", text=r.text, t=r.t.isoformat())
                for i, r in enumerate(subject.records)]

    def prepare(self, queries: Iterable[str], subjects: Iterable[SubjectEvidence] = (), batch_size: int = 32) -> int:
        """Embed the distinct ``queries`` not embedded yet, ``batch_size`` at a time, and index ``subjects``,
        before any search.

        A run knows every query it will search for; embedding them in batches is about three
        times faster than one at a time as each trial comes, and a query whose vector the disk
        cache holds (from an earlier run) is not embedded at all. A query that was not prepared
        is still embedded when it is searched for, and a subject not indexed yet is indexed then.

        Args:
            queries: Query texts (repeats are embedded once).
            subjects: Subjects whose records will be searched (their indexes are built now).
            batch_size: Texts per embedder call.

        Returns:
            How many queries were embedded (not found prepared or in the disk cache).
        """
        pending = {s.subject: s for s in subjects if s.records and s.subject not in self._indexes}
        docs = {name: self._docs(subject) for name, subject in pending.items()}
        table = _Prepared(self.embedder)
        retrievers = {name: DenseRetriever(table, cache_dir=self._cache_dir) for name in pending}
        missing = {name: retriever.uncached([d.text for d in docs[name]]) for name, retriever in retrievers.items()}
        uncached = list(dict.fromkeys(text for texts in missing.values() for text in texts))
        new = [q for q in dict.fromkeys(queries) if q not in self._queries]
        # A query's vector is the embedding of its text, as a record's is: both share the disk cache,
        # so a dataset's queries are embedded once, not in every run.
        cache = DenseRetriever(self.embedder, cache_dir=self._cache_dir)
        known = cache.cached_vectors(new)
        unknown = [q for q in new if q not in known]
        # One process loads the model for everything this run embeds, and exits (see embed_groups);
        # meanwhile the subjects whose records are all cached are indexed from the cache.
        vectors = start_embedding(self.embedder, [uncached, unknown], batch_size)
        cached = [name for name in retrievers if not missing[name]]
        for name in cached:
            retrievers[name].index(docs[name])
            self._indexes[name] = retrievers[name]
        doc_vectors, query_vectors = vectors()
        table.vectors.update(zip(uncached, doc_vectors, strict=True))
        for name in [name for name in retrievers if missing[name]]:
            retrievers[name].index(docs[name])
            self._indexes[name] = retrievers[name]
        table.vectors.clear()
        cache.store_vectors(unknown, query_vectors)
        fresh = dict(zip(unknown, query_vectors, strict=True))
        raw = np.array([known[q] if q in known else fresh[q] for q in new], dtype=np.float32).reshape(
            len(new), self.embedder.dim)
        self._queries.update(zip(new, _unit_rows(raw), strict=True))
        return len(unknown)

    def release(self) -> None:
        """Let the embedder drop its model once everything is prepared (it reloads if asked to embed again)."""
        release = getattr(self._embedder, "release", None)
        if callable(release):
            release()

    def top_records(self, subject: SubjectEvidence, query: str, k: int, tau: dt.date | None) -> list[int]:
        """Indexes of the top-k records by cosine similarity; with ``tau``, filtered to t ≤ τ before ranking."""
        if not subject.records:
            return []
        ids = self._index(subject).ranked_ids(query, k=min(k, len(subject.records)),
                                              candidate_filter=on_or_before(tau.isoformat()) if tau else None,
                                              query_vector=self._queries.get(query))
        return [int(doc_id) for doc_id in ids]

    def manifest(self, k: int = 5) -> dict[str, Any]:
        """Retriever fields for the run manifest."""
        from sitbench.configs._retriever import retriever_manifest

        return retriever_manifest(self.embedder, k=k)


class _Prepared:
    """An embedder that answers from vectors embedded beforehand, and asks the real one for any other text."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.vectors: dict[str, npt.NDArray[np.float32]] = {}

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    @property
    def version(self) -> str:
        return self.embedder.version

    @property
    def dim(self) -> int:
        return self.embedder.dim

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> npt.NDArray[np.float32]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.embedder.embed(missing, batch_size=batch_size), strict=True))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self.vectors[text]
        return out
