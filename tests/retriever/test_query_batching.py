"""Query vectors embedded ahead in batches (ChronicleRetriever.prepare) retrieve exactly what one-at-a-time
embedding retrieves: the same E and F prompts on the pilot and the dev suite (seed 1)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from sitbench.configs import BuildContext, ChronicleRetriever, DenseRetriever, MiniLMEmbedder, build_prompt
from sitbench.data import generate_content, write_dataset
from sitbench.schema import Query
from sitbench.stores import LoadedDataset, load_dataset


class CountingEmbedder:
    """MiniLM, recording the size of every embed call."""

    def __init__(self) -> None:
        self.inner = MiniLMEmbedder()
        self.calls: list[int] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def version(self) -> str:
        return self.inner.version

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        self.calls.append(len(texts))
        return self.inner.embed(texts, batch_size=batch_size)


def _openings(ds: LoadedDataset) -> list[tuple[Query, int]]:
    """Every turn that opens a session: E and F build a prompt (and retrieve) there."""
    out = []
    for probe in ds.hidden.probes.values():
        query = ds.visible.queries[probe.query_key]
        out += [(query, i) for i, turn in enumerate(query.turns)
                if i == 0 or turn.session != query.turns[i - 1].session]
    return out


def _differences(ds: LoadedDataset, cache: Path) -> tuple[int, list[str]]:
    """Build every E/F opening prompt with and without prepared query vectors; name those that differ."""
    # Separate caches: the records' vectors are embedded independently on each side too.
    alone, ahead = ChronicleRetriever(cache_dir=cache / "alone"), ChronicleRetriever(cache_dir=cache / "ahead")
    openings = _openings(ds)
    subjects = {query.subject: ds.visible.subjects[query.subject] for query, _ in openings}
    assert ahead.prepare((query.turns[i].utterance for query, i in openings), subjects.values()) > 0
    differ = []
    for config in "EF":
        for query, i in openings:
            subject = ds.visible.subjects[query.subject]
            one = build_prompt(config, subject, query, i, BuildContext(retriever=alone))
            batched = build_prompt(config, subject, query, i, BuildContext(retriever=ahead))
            if (one.messages, one.view) != (batched.messages, batched.view):
                differ.append(f"{config}:{query.key}#{i}")
    return 2 * len(openings), differ


def test_prepare_embeds_each_distinct_query_once_in_batches() -> None:
    embedder = CountingEmbedder()
    retriever = ChronicleRetriever(embedder=embedder)
    queries = [f"Have you ever been to place number {n}?" for n in range(40)]
    assert retriever.prepare(queries + queries[:5]) == 40
    assert retriever.prepare(queries) == 0
    assert embedder.calls == [40]  # one call; the embedder cuts it into batches of 32
    batched = DenseRetriever(embedder).query_vectors(queries[:3])
    one = np.stack([DenseRetriever(embedder).query_vectors([q])[0] for q in queries[:3]])
    assert batched.shape == (3, embedder.dim)
    np.testing.assert_allclose(batched, one, atol=1e-5)


def test_query_vectors_of_an_earlier_run_come_from_the_disk_cache_bit_for_bit(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    queries = [f"Did you ever sail to island number {n}?" for n in range(40)]
    first = ChronicleRetriever(embedder=embedder, cache_dir=tmp_path)
    assert first.prepare(queries) == 40
    later = ChronicleRetriever(embedder=embedder, cache_dir=tmp_path)
    assert later.prepare([*queries, "and one question never asked before?"]) == 1
    assert embedder.calls == [40, 1]
    for query in queries:
        assert later._queries[query].tobytes() == first._queries[query].tobytes()
    # Without a cache every run embeds its queries.
    assert ChronicleRetriever(embedder=embedder).prepare(queries) == 40


def test_a_prepared_query_is_not_embedded_again_when_searched(pilot: Path, tmp_path: Path) -> None:
    ds = load_dataset(pilot)
    embedder = CountingEmbedder()
    retriever = ChronicleRetriever(embedder=embedder, cache_dir=tmp_path)
    query, i = _openings(ds)[0]
    subject = ds.visible.subjects[query.subject]
    retriever.prepare([query.turns[i].utterance])
    retriever.top_records(subject, "warm up the index", 5, None)
    before = list(embedder.calls)
    retriever.top_records(subject, query.turns[i].utterance, 5, None)
    assert embedder.calls == before
    retriever.top_records(subject, "a query nobody prepared", 5, None)
    assert embedder.calls == [*before, 1]


def test_pilot_e_and_f_prompts_are_the_same_with_batched_query_vectors(pilot: Path, tmp_path: Path) -> None:
    compared, differ = _differences(load_dataset(pilot), tmp_path)
    assert compared > 0
    assert differ == []


def test_pilot_prompts_are_the_same_when_a_separate_process_embeds(pilot: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.configs import _embedder

    monkeypatch.setattr(_embedder, "SEPARATE_PROCESS_TEXTS", 1)  # the pilot's few texts take that path too
    spawned: list[int] = []
    real = _embedder.subprocess.run

    def counting(*args: object, **kwargs: object) -> object:
        spawned.append(1)
        return real(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(_embedder.subprocess, "run", counting)
    compared, differ = _differences(load_dataset(pilot), tmp_path)
    assert spawned == [1]  # queries and records in one process
    assert compared > 0
    assert differ == []


def test_a_failing_embedding_process_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.configs import _embedder

    monkeypatch.setattr(_embedder, "SEPARATE_PROCESS_TEXTS", 1)
    monkeypatch.setattr(_embedder.sys, "executable", "/bin/false")
    with pytest.raises(RuntimeError, match="the embedding process exited with code 1"):
        _embedder.embed_groups(MiniLMEmbedder(), [["a text"], []])


@pytest.mark.slow  # ~30 s: 4,400 E/F prompts, 636 queries embedded one at a time
def test_dev_suite_e_and_f_prompts_are_the_same_with_batched_query_vectors(tmp_path: Path) -> None:
    write_dataset(generate_content("dev", 1), tmp_path / "dev")
    compared, differ = _differences(load_dataset(tmp_path / "dev"), tmp_path / "embeddings")
    assert compared > 1000
    assert differ == []
