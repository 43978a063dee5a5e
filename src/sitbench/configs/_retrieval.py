"""Per-subject dense retrieval over chronicle records for configurations E and F."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sitbench.configs._embedder import Embedder, MiniLMEmbedder
from sitbench.configs._retriever import DenseRetriever, RetrievalDoc, on_or_before
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
            # Unvalidated: unique ids and ISO dates by construction (records are validated dataset rows).
            retriever.index([RetrievalDoc.model_construct(doc_id=f"{i:06d}", text=r.text, t=r.t.isoformat())
                             for i, r in enumerate(subject.records)])
            self._indexes[subject.subject] = retriever
        return self._indexes[subject.subject]

    def prepare(self, queries: Iterable[str], subjects: Iterable[SubjectEvidence] = (), batch_size: int = 32) -> int:
        """Embed the distinct ``queries`` not embedded yet, ``batch_size`` at a time, and index ``subjects``,
        before any search.

        A run knows every query it will search for; embedding them in batches is about three
        times faster than one at a time as each trial comes. A query that was not prepared is
        still embedded when it is searched for, and a subject not indexed yet is indexed then.

        Args:
            queries: Query texts (repeats are embedded once).
            subjects: Subjects whose records will be searched (their indexes are built now).
            batch_size: Texts per embedder call.

        Returns:
            How many queries were embedded.
        """
        for subject in subjects:
            if subject.records:
                self._index(subject)
        new = [q for q in dict.fromkeys(queries) if q not in self._queries]
        if new:
            embedding = DenseRetriever(self.embedder, batch_size=batch_size)
            self._queries.update(zip(new, embedding.query_vectors(new), strict=True))
        return len(new)

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
