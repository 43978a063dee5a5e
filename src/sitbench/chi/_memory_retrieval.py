"""Retrieval for the memory baselines: an append-only BM25 index, or the project's MiniLM embedder.

BM25 (Okapi, k1 = 1.2, b = 0.75, Lucene's idf ``log(1 + (n - df + 0.5) / (df + 0.5))``) over
lower-cased alphanumeric tokens with a short stop list. It is the default for the N = 10,000
sweep: indexing 24,000 record lines costs about a second of one core and a query a millisecond,
with no model and no embedding call. ``minilm`` is the dense retriever of configurations E/F
(all-MiniLM-L6-v2, int8 ONNX, cosine): every stored line is embedded once (about 140 lines a
second on this 2-core machine, so roughly 4 minutes per trajectory of the full grid, 69,120
lines with the clean twins) and every query once; each embedding is counted.

Ties are broken by insertion order (the earlier line first), as the project's dense retriever
breaks them by ``doc_id``.
"""

from __future__ import annotations

import math
import re
from typing import Any, Protocol

import numpy as np

_TOKEN = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset("a an and are as at be by did do does for from had has have in is it of on or the to was "
                      "were what which who with as reply object json fields".split())

RETRIEVERS = ("bm25", "minilm")


def tokens(text: str) -> list[str]:
    """BM25 terms of a text."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


class Retriever(Protocol):
    """An append-only index of lines."""

    name: str

    def add(self, text: str) -> int: ...

    def search(self, query: str, k: int) -> list[tuple[int, float]]: ...

    def __len__(self) -> int: ...


class BM25Index:
    """Append-only Okapi BM25 over lines; ``search`` returns ``(position, score)`` best first."""

    name = "bm25"

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._vocab: dict[str, int] = {}
        self._post_docs: list[list[int]] = []
        self._post_tf: list[list[int]] = []
        self._lens: list[int] = []
        self._arrays: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._len_arr: np.ndarray | None = None
        self.adds = 0
        self.searches = 0

    def __len__(self) -> int:
        return len(self._lens)

    def add(self, text: str) -> int:
        doc = len(self._lens)
        counts: dict[int, int] = {}
        toks = tokens(text)
        for t in toks:
            tid = self._vocab.get(t)
            if tid is None:
                tid = self._vocab[t] = len(self._post_docs)
                self._post_docs.append([])
                self._post_tf.append([])
            counts[tid] = counts.get(tid, 0) + 1
        for tid, c in counts.items():
            self._post_docs[tid].append(doc)
            self._post_tf[tid].append(c)
            self._arrays.pop(tid, None)
        self._lens.append(len(toks))
        self._len_arr = None
        self.adds += 1
        return doc

    def _postings(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        got = self._arrays.get(tid)
        if got is None:
            got = (np.asarray(self._post_docs[tid], dtype=np.int64), np.asarray(self._post_tf[tid], dtype=np.float64))
            self._arrays[tid] = got
        return got

    def search(self, query: str, k: int, limit: int | None = None) -> list[tuple[int, float]]:
        """Top ``k`` lines among the first ``limit`` (all when ``None``) by BM25; ties: earlier first."""
        self.searches += 1
        n = len(self._lens) if limit is None else min(limit, len(self._lens))
        if n == 0 or k <= 0:
            return []
        if self._len_arr is None:
            self._len_arr = np.asarray(self._lens, dtype=np.float64)
        lens = self._len_arr[:n]
        avg = float(lens.mean()) or 1.0
        scores = np.zeros(n)
        seen = set()
        for t in tokens(query):
            tid = self._vocab.get(t)
            if tid is None or tid in seen:
                continue
            seen.add(tid)
            docs, tf = self._postings(tid)
            if limit is not None:
                keep = docs < n
                docs, tf = docs[keep], tf[keep]
            df = len(docs)
            if df == 0:
                continue
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            scores[docs] += idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * lens[docs] / avg))
        hit = np.flatnonzero(scores > 0)
        if hit.size == 0:
            return []
        if hit.size > k:
            part = np.argpartition(-scores[hit], k - 1)[:k]
            cut = scores[hit][part].min()
            hit = hit[scores[hit] >= cut]
        order = np.lexsort((hit, -scores[hit]))[:k]
        return [(int(hit[i]), float(scores[hit[i]])) for i in order]

    def copy(self) -> BM25Index:
        other = BM25Index(self.k1, self.b)
        other._vocab = dict(self._vocab)
        other._post_docs = [list(x) for x in self._post_docs]
        other._post_tf = [list(x) for x in self._post_tf]
        other._lens = list(self._lens)
        other.adds, other.searches = self.adds, self.searches
        return other


class DenseIndex:
    """Append-only cosine index over MiniLM embeddings (configurations E/F's embedder); lines embedded lazily."""

    name = "minilm"

    def __init__(self, embedder: Any | None = None, batch_size: int = 64) -> None:
        self._embedder = _shared_embedder() if embedder is None else embedder
        self._texts: list[str] = []
        self._matrix = np.zeros((0, self._embedder.dim), dtype=np.float32)
        self._batch = batch_size
        self.embeddings = 0
        self.adds = 0
        self.searches = 0

    def __len__(self) -> int:
        return len(self._texts)

    def add(self, text: str) -> int:
        self._texts.append(text)
        self.adds += 1
        return len(self._texts) - 1

    def _sync(self) -> None:
        done = self._matrix.shape[0]
        if done < len(self._texts):
            new = np.asarray(self._embedder.embed(self._texts[done:], batch_size=self._batch), dtype=np.float32)
            norms = np.linalg.norm(new, axis=1, keepdims=True)
            new = np.asarray(new / np.where(norms > 0, norms, 1.0), dtype=np.float32)
            self.embeddings += new.shape[0]
            self._matrix = np.vstack([self._matrix, new])

    def search(self, query: str, k: int, limit: int | None = None) -> list[tuple[int, float]]:
        self.searches += 1
        self._sync()
        n = len(self._texts) if limit is None else min(limit, len(self._texts))
        if n == 0 or k <= 0:
            return []
        q = np.asarray(self._embedder.embed([query], batch_size=1), dtype=np.float32)[0]
        self.embeddings += 1
        q = q / (np.linalg.norm(q) or 1.0)
        scores = self._matrix[:n] @ q
        order = np.lexsort((np.arange(n), -scores))[:k]
        return [(int(i), float(scores[i])) for i in order]

    def copy(self) -> DenseIndex:
        other = DenseIndex(self._embedder, self._batch)
        other._texts = list(self._texts)
        other._matrix = self._matrix.copy()
        other.embeddings, other.adds, other.searches = self.embeddings, self.adds, self.searches
        return other


_EMBEDDER: list[Any] = []


def _shared_embedder() -> Any:
    if not _EMBEDDER:
        from sitbench.configs import MiniLMEmbedder

        _EMBEDDER.append(MiniLMEmbedder())
    return _EMBEDDER[0]


def make_index(kind: str) -> BM25Index | DenseIndex:
    """A fresh index of ``kind`` (``bm25`` or ``minilm``)."""
    if kind == "bm25":
        return BM25Index()
    if kind == "minilm":
        return DenseIndex()
    raise ValueError(f"unknown retriever {kind!r}; use one of {', '.join(RETRIEVERS)}")


def describe_index(kind: str) -> dict[str, Any]:
    """Manifest fields of a retriever."""
    if kind == "bm25":
        return {"retriever": "bm25", "k1": 1.2, "b": 0.75, "idf": "log(1 + (n - df + 0.5) / (df + 0.5))",
                "tokens": "lower-cased [a-z0-9]+ minus a fixed stop list", "tie_break": "earlier line first",
                "embedding_calls": 0}
    from sitbench.configs import retriever_manifest

    return {"retriever": "minilm", **retriever_manifest(_shared_embedder()), "tie_break": "earlier line first"}


def edit_distance_at_most_one(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by at most one substitution, insertion or deletion."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la > lb:
        a, b, la, lb = b, a, lb, la
    i = 0
    while i < la and a[i] == b[i]:
        i += 1
    if la == lb:
        return a[i + 1:] == b[i + 1:]
    return a[i:] == b[i + 1:]


_TOKEN_MEMO: dict[str, int] = {}
TOKEN_COUNTER = "bert-base-uncased WordPiece (all-MiniLM-L6-v2 tokenizer.json), no special tokens"


def count_tokens(text: str) -> int:
    """WordPiece tokens of one line (the project's prompt-token counter), memoized per text."""
    got = _TOKEN_MEMO.get(text)
    if got is None:
        from sitbench.configs import wordpiece_counter

        if len(_TOKEN_MEMO) > 400_000:
            _TOKEN_MEMO.clear()
        got = _TOKEN_MEMO[text] = wordpiece_counter().count(text)
    return got


def count_many(texts: list[str]) -> list[int]:
    """Token counts of several lines, tokenizing the unseen ones in one batch."""
    missing = list(dict.fromkeys(t for t in texts if t not in _TOKEN_MEMO))
    if missing:
        from sitbench.configs import wordpiece_counter

        if len(_TOKEN_MEMO) > 400_000:
            _TOKEN_MEMO.clear()
        for t, n in zip(missing, wordpiece_counter().count_many(missing), strict=True):
            _TOKEN_MEMO[t] = n
    return [_TOKEN_MEMO[t] if t in _TOKEN_MEMO else count_tokens(t) for t in texts]

