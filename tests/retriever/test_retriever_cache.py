"""The on-disk embedding cache: hits skip the model, keys follow version + text,
writes are atomic, damaged files are rebuilt."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from sitbench.configs import DenseRetriever, Embedder, MiniLMEmbedder, RetrievalDoc
from sitbench.errors import InputError


class CountingEmbedder:
    """Passes calls through to another embedder and records every text embedded."""

    def __init__(self, inner: Embedder, version: str | None = None) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.version = version if version is not None else inner.version
        self.dim = inner.dim
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        self.embedded.extend(texts)
        return self.inner.embed(texts, batch_size=batch_size)


EVENTS = [
    "Moved to Kyoto to start a master's degree in architecture.",
    "Joined a pottery class near Kiyomizu temple every Saturday.",
    "Adopted a grey cat named Mochi from a shelter.",
    "Finished my thesis on timber joinery and moved back to Lisbon.",
    "Started working at a small studio designing public libraries.",
    "Learned to bake sourdough bread during the lockdown.",
    "My sister Jo got married in Porto; I gave a speech.",
    "Flew to Reykjavik for a glaciology workshop.",
]
DOCS = [
    RetrievalDoc(doc_id=f"ev{i:02d}", text=text, t=f"20{10 + i}-01-01") for i, text in enumerate(EVENTS)
] + [RetrievalDoc(doc_id="ev99", text=EVENTS[2], t="2020-06-01")]  # same text as ev02


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def cache_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.npy"))


def expected_path(root: Path, version: str, text: str) -> Path:
    key = hashlib.sha256(version.encode() + b"\x00" + text.encode()).hexdigest()
    return root / key[:2] / f"{key}.npy"


def test_second_run_over_same_dataset_embeds_nothing(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    first = CountingEmbedder(minilm)
    retriever = DenseRetriever(first, tmp_path)
    retriever.index(DOCS)
    # 9 records, 8 distinct texts: the repeated text is embedded once.
    assert sorted(first.embedded) == sorted(EVENTS)
    assert (retriever.cache_hits, retriever.cache_misses) == (0, 8)
    assert len(cache_files(tmp_path)) == 8
    before = retriever.search("Do you have any pets?", k=3)

    second = CountingEmbedder(minilm)
    rerun = DenseRetriever(second, tmp_path)
    rerun.index(DOCS)
    assert second.embedded == []
    assert (rerun.cache_hits, rerun.cache_misses) == (8, 0)
    after = rerun.search("Do you have any pets?", k=3)
    assert after == before
    assert {h.doc_id for h in after[:2]} == {"ev02", "ev99"}
    assert after[0].score == after[1].score  # same text, exact tie
    assert [h.doc_id for h in after[:2]] == ["ev02", "ev99"]
    # The query went through the model once per retriever, never through the disk cache.
    assert second.embedded == ["Do you have any pets?"]


def test_cache_files_are_named_by_version_and_text(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    retriever = DenseRetriever(minilm, tmp_path)
    retriever.index(DOCS[:3])
    expected = sorted(expected_path(tmp_path, minilm.version, text) for text in EVENTS[:3])
    assert cache_files(tmp_path) == expected
    stored = np.load(expected_path(tmp_path, minilm.version, EVENTS[0]))
    assert stored.dtype == np.float32 and stored.shape == (384,)
    np.testing.assert_allclose(stored, minilm.embed([EVENTS[0]])[0], atol=1e-6)


def test_new_model_version_does_not_reuse_old_vectors(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    DenseRetriever(minilm, tmp_path).index(DOCS[:3])
    other = CountingEmbedder(minilm, version=minilm.version + ";rebuilt")
    DenseRetriever(other, tmp_path).index(DOCS[:3])
    assert sorted(other.embedded) == sorted(EVENTS[:3])
    assert len(cache_files(tmp_path)) == 6


def test_damaged_cache_files_are_ignored_and_rebuilt(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    retriever = DenseRetriever(minilm, tmp_path)
    retriever.index(DOCS)
    reference = retriever.search("Where did you study?", k=9)
    version = minilm.version
    garbage, truncated, wrong_shape, not_finite, wrong_dtype = (
        expected_path(tmp_path, version, text) for text in EVENTS[:5]
    )
    garbage.write_bytes(b"this is not a numpy file")
    truncated.write_bytes(truncated.read_bytes()[:100])
    np.save(wrong_shape, np.ones(10, dtype=np.float32))
    np.save(not_finite, np.full(384, np.nan, dtype=np.float32))
    np.save(wrong_dtype, np.ones(384, dtype=np.float64))

    counting = CountingEmbedder(minilm)
    rebuilt = DenseRetriever(counting, tmp_path)
    rebuilt.index(DOCS)
    assert sorted(counting.embedded[:5]) == sorted(EVENTS[:5])
    assert (rebuilt.cache_hits, rebuilt.cache_misses) == (3, 5)
    assert rebuilt.search("Where did you study?", k=9) == reference
    for path in (garbage, truncated, wrong_shape, not_finite, wrong_dtype):
        repaired = np.load(path)
        assert repaired.dtype == np.float32 and repaired.shape == (384,)
        assert abs(float(np.linalg.norm(repaired)) - 1.0) < 1e-5

    # The repaired cache now serves everything.
    third = CountingEmbedder(minilm)
    DenseRetriever(third, tmp_path).index(DOCS)
    assert third.embedded == []


def test_a_failed_write_leaves_no_partial_file(
    tmp_path: Path, minilm: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_save = np.save

    def broken_save(file: object, arr: object, **kwargs: object) -> None:
        real_save(file, np.zeros(3, dtype=np.float32))  # a partial, wrong write...
        raise OSError(28, "No space left on device")  # ...then the disk fills up

    monkeypatch.setattr(np, "save", broken_save)
    with pytest.raises(InputError, match=r"cannot write .*No space left on device"):
        DenseRetriever(minilm, tmp_path).index(DOCS[:1])
    monkeypatch.setattr(np, "save", real_save)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []

    counting = CountingEmbedder(minilm)
    DenseRetriever(counting, tmp_path).index(DOCS[:2])
    assert sorted(counting.embedded) == sorted(EVENTS[:2])
    assert [p.name for p in tmp_path.rglob(".tmp-*")] == []


def test_unwritable_cache_folder_is_an_input_error(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    with pytest.raises(InputError, match=r"embedding cache .*not-a-folder.*writable folder"):
        DenseRetriever(minilm, blocker).index(DOCS[:1])


def test_without_cache_dir_nothing_is_written(
    tmp_path: Path, minilm: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    counting = CountingEmbedder(minilm)
    retriever = DenseRetriever(counting)
    retriever.index(DOCS)
    assert sorted(counting.embedded) == sorted(EVENTS)
    assert list(tmp_path.iterdir()) == []
    assert retriever.search("pets", k=1)[0].doc_id in {"ev02", "ev99"}
