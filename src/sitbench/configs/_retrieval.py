"""Per-subject dense retrieval over chronicle records for configurations E and F."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from sitbench.configs._embedder import Embedder, MiniLMEmbedder
from sitbench.configs._retriever import DenseRetriever, RetrievalDoc, on_or_before
from sitbench.schema import SubjectEvidence


class ChronicleRetriever:
    """One :class:`DenseRetriever` index per subject, built on first use; embeddings cached on disk."""

    def __init__(self, embedder: Embedder | None = None, cache_dir: Path | None = None) -> None:
        self._embedder = embedder
        self._cache_dir = cache_dir
        self._indexes: dict[str, DenseRetriever] = {}

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = MiniLMEmbedder()
        return self._embedder

    def _index(self, subject: SubjectEvidence) -> DenseRetriever:
        if subject.subject not in self._indexes:
            retriever = DenseRetriever(self.embedder, cache_dir=self._cache_dir)
            retriever.index([RetrievalDoc(doc_id=f"{i:06d}", text=r.text, t=r.t.isoformat())
                             for i, r in enumerate(subject.records)])
            self._indexes[subject.subject] = retriever
        return self._indexes[subject.subject]

    def top_records(self, subject: SubjectEvidence, query: str, k: int, tau: dt.date | None) -> list[int]:
        """Indexes of the top-k records by cosine similarity; with ``tau``, filtered to t ≤ τ before ranking."""
        if not subject.records:
            return []
        hits = self._index(subject).search(query, k=min(k, len(subject.records)),
                                           candidate_filter=on_or_before(tau.isoformat()) if tau else None)
        return [int(h.doc_id) for h in hits]

    def manifest(self, k: int = 5) -> dict[str, Any]:
        """Retriever fields for the run manifest."""
        from sitbench.configs._retriever import retriever_manifest

        return retriever_manifest(self.embedder, k=k)
