"""Dense top-k search: scores, tie-breaking, filter-before-top-k (E vs F), manifest."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Sequence
from datetime import date, timedelta

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from sitbench.configs import (
    DEFAULT_K,
    DenseRetriever,
    Hit,
    MiniLMEmbedder,
    RetrievalDoc,
    on_or_before,
    retriever_manifest,
)
from sitbench.errors import InputError


class TableEmbedder:
    """Returns the vector listed for each text; counts the texts it embeds."""

    model_id = "test/table"
    version = "table-v1"

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = table
        self.dim = len(next(iter(table.values())))
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        self.embedded.extend(texts)
        return np.array([self.table[t] for t in texts], dtype=np.float32).reshape(len(texts), self.dim)


TABLE = {
    "a": [1.0, 0.0, 0.0],
    "b": [0.6, 0.8, 0.0],
    "c": [0.0, 0.0, 1.0],
    "d": [-1.0, 0.0, 0.0],
    "e": [3.0, 4.0, 0.0],  # not unit norm: cosine with "q" is still 0.6
    "q": [2.0, 0.0, 0.0],
    "q2": [0.0, 1.0, 0.0],
}


def doc(doc_id: str, text: str, t: str = "2020-01-01") -> RetrievalDoc:
    return RetrievalDoc(doc_id=doc_id, text=text, t=t)


def test_scores_are_cosine_similarities_in_rank_order() -> None:
    retriever = DenseRetriever(TableEmbedder(TABLE))
    retriever.index([doc("D", "d"), doc("C", "c"), doc("A", "a"), doc("B", "b")])
    hits = retriever.search("q", k=10)
    assert [(h.doc_id, h.rank) for h in hits] == [("A", 1), ("B", 2), ("C", 3), ("D", 4)]
    np.testing.assert_allclose([h.score for h in hits], [1.0, 0.6, 0.0, -1.0], atol=1e-6)
    # Against q2 = e2: A and D score 0, B 0.8, C 0.
    hits2 = retriever.search("q2", k=2)
    assert [h.doc_id for h in hits2] == ["B", "A"]  # A and C and D tie at 0: doc_id order
    np.testing.assert_allclose([h.score for h in hits2], [0.8, 0.0], atol=1e-6)


def test_unnormalised_vectors_are_normalised() -> None:
    retriever = DenseRetriever(TableEmbedder(TABLE))
    retriever.index([doc("E", "e")])
    (hit,) = retriever.search("q")
    assert isinstance(hit, Hit)
    assert (hit.doc_id, hit.rank) == ("E", 1)
    assert hit.score == pytest.approx(0.6, abs=1e-6)


def test_ties_break_by_doc_id_whatever_the_index_order() -> None:
    docs = [doc("z9", "b"), doc("m1", "b"), doc("a5", "c"), doc("k2", "b")]
    orders = []
    for permutation in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]):
        retriever = DenseRetriever(TableEmbedder(TABLE))
        retriever.index([docs[i] for i in permutation])
        orders.append([h.doc_id for h in retriever.search("q", k=4)])
    assert orders == [["k2", "m1", "z9", "a5"]] * 3


def test_filter_is_applied_before_top_k() -> None:
    retriever = DenseRetriever(TableEmbedder(TABLE))
    retriever.index([doc("A", "a"), doc("B", "b"), doc("C", "c"), doc("D", "d")])
    hits = retriever.search("q", k=2, candidate_filter=lambda d: d.doc_id in {"C", "D"})
    # Filtering after the cut would leave nothing; filtering first gives two hits.
    assert [(h.doc_id, h.rank) for h in hits] == [("C", 1), ("D", 2)]
    assert retriever.search("q", k=2, candidate_filter=lambda d: False) == []


def test_default_k_is_five_and_fewer_docs_give_fewer_hits() -> None:
    table = {f"t{i}": [float(i + 1), 1.0] for i in range(8)} | {"q": [1.0, 0.0]}
    retriever = DenseRetriever(TableEmbedder(table))
    retriever.index([doc(f"d{i}", f"t{i}") for i in range(8)])
    assert DEFAULT_K == 5
    # cos(angle) grows with i: the five largest i win.
    assert [h.doc_id for h in retriever.search("q")] == ["d7", "d6", "d5", "d4", "d3"]
    retriever.index([doc("d0", "t0"), doc("d1", "t1")])
    assert [h.doc_id for h in retriever.search("q")] == ["d1", "d0"]


def test_empty_index_and_bad_k() -> None:
    retriever = DenseRetriever(TableEmbedder(TABLE))
    assert retriever.search("q") == []
    with pytest.raises(InputError, match="'k' is 0"):
        retriever.search("q", k=0)


def test_duplicate_doc_id_is_an_input_error() -> None:
    retriever = DenseRetriever(TableEmbedder(TABLE))
    with pytest.raises(InputError, match=r"record 2: field 'doc_id' 'A' occurs twice"):
        retriever.index([doc("A", "a"), doc("B", "b"), doc("A", "c")])


def test_retrieval_doc_validates_iso_time() -> None:
    assert doc("x", "a", "2021-03-04T10:30:00").t == "2021-03-04T10:30:00"
    with pytest.raises(ValidationError, match="not an ISO date"):
        doc("x", "a", "March 4th")
    with pytest.raises(ValidationError):
        RetrievalDoc(doc_id="", text="a", t="2021-03-04")


def test_on_or_before_semantics() -> None:
    keep = on_or_before("2021-03-04")
    assert keep(doc("x", "a", "2021-03-04"))
    assert keep(doc("x", "a", "2021-03-04T23:59:00"))
    assert keep(doc("x", "a", "2019-12-31"))
    assert not keep(doc("x", "a", "2021-03-05"))
    exact = on_or_before("2021-03-04T12:00:00")
    assert exact(doc("x", "a", "2021-03-04T12:00:00"))
    assert not exact(doc("x", "a", "2021-03-04T12:00:01"))
    assert exact(doc("x", "a", "2021-03-04"))
    aware = on_or_before("2021-03-04T12:00:00+00:00")
    with pytest.raises(InputError, match="time zone"):
        aware(doc("x", "a", "2021-03-04T12:00:00"))
    with pytest.raises(InputError, match="field 'tau'"):
        on_or_before("yesterday")


def test_query_vectors_are_cached_lru() -> None:
    embedder = TableEmbedder(TABLE)
    retriever = DenseRetriever(embedder, query_cache_size=1)
    retriever.index([doc("A", "a")])
    embedder.embedded.clear()
    retriever.search("q")
    retriever.search("q", k=1)
    assert embedder.embedded == ["q"]
    retriever.search("q2")  # evicts "q"
    retriever.search("q")
    assert embedder.embedded == ["q", "q2", "q"]


_EPOCH = date(2020, 1, 1)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    na, nb = np.linalg.norm(va), np.linalg.norm(vb)
    return 0.0 if na == 0 or nb == 0 else float(va @ vb / (na * nb))


@st.composite
def chronicles(draw: st.DrawFn) -> tuple[list[RetrievalDoc], dict[str, list[float]], str, int]:
    n = draw(st.integers(min_value=0, max_value=25))
    component = st.integers(min_value=-20, max_value=20).map(lambda v: v / 4)
    table: dict[str, list[float]] = {"query": [draw(component), draw(component), 1.0]}
    docs = []
    for i in range(n):
        text = f"text{i % 7}"  # repeated texts must tie exactly and fall back to doc_id
        table.setdefault(text, [draw(component), draw(component), draw(component) + 0.125])
        day = _EPOCH + timedelta(days=draw(st.integers(min_value=0, max_value=60)))
        docs.append(doc(f"e{draw(st.integers(0, 10**6)):07d}-{i}", text, day.isoformat()))
    # Distinct texts whose cosines agree only up to rounding have no defined order.
    texts = sorted({d.text for d in docs})
    cosines = [_cosine(table[t], table["query"]) for t in texts]
    assume(all(abs(a - b) > 1e-4 for i, a in enumerate(cosines) for b in cosines[i + 1 :]))
    tau = (_EPOCH + timedelta(days=draw(st.integers(min_value=-5, max_value=65)))).isoformat()
    return docs, table, tau, draw(st.integers(min_value=1, max_value=8))


@settings(max_examples=150, deadline=None)
@given(chronicles())
def test_filtered_search_equals_brute_force_over_admissible_records(
    case: tuple[list[RetrievalDoc], dict[str, list[float]], str, int],
) -> None:
    docs, table, tau, k = case
    retriever = DenseRetriever(TableEmbedder(table))
    retriever.index(docs)
    hits = retriever.search("query", k=k, candidate_filter=on_or_before(tau))

    admissible = [d for d in docs if d.t <= tau]  # plain ISO dates sort as strings
    scored = sorted(
        ((_cosine(table[d.text], table["query"]), d.doc_id) for d in admissible),
        key=lambda pair: (-pair[0], pair[1]),
    )[:k]
    assert [h.rank for h in hits] == list(range(1, len(scored) + 1))
    assert [h.doc_id for h in hits] == [doc_id for _, doc_id in scored]
    np.testing.assert_allclose([h.score for h in hits], [s for s, _ in scored], atol=1e-5)
    assert all(next(d for d in docs if d.doc_id == h.doc_id).t <= tau for h in hits)


CHRONICLE = [
    ("ev01", "2015-09-01", "Moved to Kyoto to start a master's degree in architecture."),
    ("ev02", "2016-04-10", "Joined a pottery class near Kiyomizu temple every Saturday."),
    ("ev03", "2017-02-14", "Adopted a grey cat named Mochi from a shelter."),
    ("ev04", "2018-07-20", "Finished my thesis on timber joinery and moved back to Lisbon."),
    ("ev05", "2019-03-03", "Started working at a small studio designing public libraries."),
    ("ev06", "2020-05-12", "Learned to bake sourdough bread during the lockdown."),
    ("ev07", "2021-08-30", "My sister Jo got married in Porto; I gave a speech."),
    # Evaluation epoch τ = 2022-01-01: everything below happens after it.
    ("ev08", "2022-06-02", "Flew to Reykjavik in Iceland for a glaciology workshop and saw the glaciers."),
    ("ev09", "2023-01-15", "Bought a second-hand sailing boat and named it Atlantica."),
    ("ev10", "2023-09-09", "Ran my first marathon in Berlin in under four hours."),
]
TAU = "2022-01-01"


@pytest.fixture(scope="module")
def minilm_retriever() -> DenseRetriever:
    retriever = DenseRetriever(MiniLMEmbedder())
    retriever.index([RetrievalDoc(doc_id=i, t=t, text=text) for i, t, text in CHRONICLE])
    return retriever


@pytest.mark.parametrize(
    ("query", "post_tau_doc"),
    [
        ("Have you ever been to Iceland?", "ev08"),
        ("Do you know how to sail a boat?", "ev09"),
        ("Have you ever run a marathon?", "ev10"),
    ],
)
def test_configuration_e_sees_post_tau_records_and_f_never_does(
    minilm_retriever: DenseRetriever, query: str, post_tau_doc: str
) -> None:
    dated = {doc_id: t for doc_id, t, _ in CHRONICLE}
    e_hits = minilm_retriever.search(query, k=5)
    assert e_hits[0].doc_id == post_tau_doc
    assert dated[post_tau_doc] > TAU
    f_hits = minilm_retriever.search(query, k=5, candidate_filter=on_or_before(TAU))
    assert len(f_hits) == 5
    assert all(dated[h.doc_id] <= TAU for h in f_hits)
    assert post_tau_doc not in {h.doc_id for h in f_hits}
    # F's hits are exactly E's ranking over all docs with the post-τ ones removed.
    full = minilm_retriever.search(query, k=len(CHRONICLE))
    assert [h.doc_id for h in f_hits] == [h.doc_id for h in full if dated[h.doc_id] <= TAU][:5]


def test_minilm_semantic_hit_before_tau(minilm_retriever: DenseRetriever) -> None:
    hits = minilm_retriever.search("Do you have any pets?", k=1, candidate_filter=on_or_before(TAU))
    assert hits[0].doc_id == "ev03"


def test_manifest_describes_the_paper_retriever() -> None:
    manifest = retriever_manifest()
    assert manifest["model_id"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert manifest["dim"] == 384
    assert manifest["similarity"] == "cosine"
    assert manifest["k"] == 5
    assert manifest["max_seq_length"] == 256
    assert manifest["onnxruntime_version"] == importlib.metadata.version("onnxruntime")
    assert manifest["tokenizers_version"] == importlib.metadata.version("tokenizers")
    assert manifest["version"] == MiniLMEmbedder().version
    assert manifest["retriever_id"]
    json.dumps(manifest)
    custom = DenseRetriever(TableEmbedder(TABLE)).manifest(k=3)
    described = (custom["model_id"], custom["version"], custom["dim"], custom["k"])
    assert described == ("test/table", "table-v1", 3, 3)
    assert custom["max_seq_length"] is None
