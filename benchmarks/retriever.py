"""Speed of the offline MiniLM retriever used by configurations E and F.

Prints embeddings per second at batch sizes 1 and 32 over ~500 event sentences
like those of a lineage chronicle, then the latency of a top-5 search over 500
indexed records, unfiltered (E) and filtered to t <= tau (F), with and without
the query vector already cached, and the time to re-index from the disk cache.
Last, a run's query path: distinct queries embedded one at a time as each trial
searches (batch 1) against embedded ahead in batches of 32 (what ``sitbench run``
does before the first E/F trial), in queries per second including the searches.

    python benchmarks/retriever.py [--threads 1] [--docs 500] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from sitbench.configs._embedder import MiniLMEmbedder
from sitbench.configs._retriever import DenseRetriever, RetrievalDoc, on_or_before

_PEOPLE = ["my sister Jo", "Sam", "an old classmate", "my manager Priya", "Grandma", "a neighbour", "Tomás"]
_PLACES = ["Kyoto", "Lisbon", "Reykjavik", "a village near Porto", "Berlin", "the hospital", "the lab",
           "the harbour", "Naxos", "a conference in Montréal"]
_TEMPLATES = [
    "Had dinner with {person} in {place}; we talked about {topic} until late.",
    "Started a course on {topic} and finished the first two modules.",
    "Moved to {place} after accepting a job offer.",
    "{Person} told me about {topic}; I wasn't sure I believed it.",
    "Spent the weekend in {place} practising {skill}.",
    "Argued with {person} about {topic}, then apologised the next day.",
    "Read a long book on {topic} on the train to {place}.",
    "Got a message from {person} asking whether I still do {skill}.",
    "Presented my work on {topic} at {place}.",
    "Caught a cold in {place} and cancelled plans with {person}.",
]
_TOPICS = ["glaciology", "timber joinery", "sourdough baking", "linear algebra", "Portuguese grammar",
           "sailing knots", "the history of public libraries", "marathon training", "robot calibration",
           "family finances"]
_SKILLS = ["pottery", "climbing", "the cello", "sailing", "watercolour", "chess", "Rust programming"]


def event_sentences(count: int, seed: int) -> list[RetrievalDoc]:
    """``count`` dated chronicle records drawn with ``seed``."""
    rng = random.Random(seed)
    start = date(2012, 1, 1)
    docs = []
    for i in range(count):
        person = rng.choice(_PEOPLE)
        text = rng.choice(_TEMPLATES).format(
            person=person, Person=person[0].upper() + person[1:], place=rng.choice(_PLACES),
            topic=rng.choice(_TOPICS), skill=rng.choice(_SKILLS),
        )
        day = start + timedelta(days=rng.randrange(0, 12 * 365))
        docs.append(RetrievalDoc(doc_id=f"ev{i:04d}", text=f"{text} (entry {i})", t=day.isoformat()))
    return docs


def rate(embedder: MiniLMEmbedder, texts: list[str], batch_size: int) -> float:
    began = time.perf_counter()
    embedder.embed(texts, batch_size=batch_size)
    return len(texts) / (time.perf_counter() - began)


def latency_ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    mean, p50 = 1000 * statistics.fmean(samples), 1000 * statistics.median(samples)
    return f"mean {mean:7.3f} ms  p50 {p50:7.3f} ms  p95 {1000 * p95:7.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads")
    parser.add_argument("--docs", type=int, default=500, help="records to embed and index")
    parser.add_argument("--queries", type=int, default=200, help="search queries to time")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic records")
    args = parser.parse_args()

    docs = event_sentences(args.docs, args.seed)
    texts = [d.text for d in docs]
    embedder = MiniLMEmbedder(intra_op_threads=args.threads)
    began = time.perf_counter()
    embedder.embed(["warm-up"])
    print(f"model load + first call: {time.perf_counter() - began:.2f} s  ({embedder.version})")
    print(f"records: {len(docs)} (seed {args.seed}), threads: {args.threads}")
    for batch_size in (1, 32):
        print(f"embed batch_size={batch_size:<3d} {rate(embedder, texts, batch_size):8.1f} embeddings/s")

    queries = [f"Have you ever been to {place}?" for place in _PLACES]
    queries += [f"What do you know about {topic}?" for topic in _TOPICS]
    queries += [f"Do you still do {skill}?" for skill in _SKILLS]
    with tempfile.TemporaryDirectory() as cache:
        retriever = DenseRetriever(embedder, Path(cache))
        began = time.perf_counter()
        retriever.index(docs)
        print(f"index {len(docs)} records, cold cache: {time.perf_counter() - began:.2f} s")
        began = time.perf_counter()
        DenseRetriever(embedder, Path(cache)).index(docs)
        print(f"index {len(docs)} records, warm cache: {1000 * (time.perf_counter() - began):.1f} ms")

        tau = on_or_before("2018-01-01")
        for label, flt in (("E (all records)", None), ("F (t <= tau)", tau)):
            cold, warm = [], []
            for q in range(args.queries):
                query = f"{queries[q % len(queries)]} #{q} {label[0]}"
                began = time.perf_counter()
                retriever.search(query, k=5, candidate_filter=flt)
                cold.append(time.perf_counter() - began)
                began = time.perf_counter()
                retriever.search(query, k=5, candidate_filter=flt)
                warm.append(time.perf_counter() - began)
            print(f"top-5 search {label:<16s} new query:    {latency_ms(cold)}")
            print(f"top-5 search {label:<16s} cached query: {latency_ms(warm)}")

        run_queries = [f"{queries[q % len(queries)]} (trial {q})" for q in range(args.queries)]
        one_at_a_time = DenseRetriever(embedder, Path(cache), query_cache_size=0)
        one_at_a_time.index(docs)
        began = time.perf_counter()
        for query in run_queries:
            one_at_a_time.search(query, k=5)
        alone = len(run_queries) / (time.perf_counter() - began)
        began = time.perf_counter()
        vectors = retriever.query_vectors(run_queries)
        for query, vector in zip(run_queries, vectors, strict=True):
            retriever.search(query, k=5, query_vector=vector)
        ahead = len(run_queries) / (time.perf_counter() - began)
        print(f"run queries, batch 1 as each trial searches: {alone:8.1f} queries/s")
        print(f"run queries, embedded ahead in batches of 32: {ahead:8.1f} queries/s  ({ahead / alone:.1f}x)")


if __name__ == "__main__":
    main()
