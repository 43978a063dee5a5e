"""Fixtures for the agent tests: the pilot dataset and the example agents shipped in examples/."""

from __future__ import annotations

import pytest
from agents_support import load_example


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
    monkeypatch.setenv("CI", "true")


@pytest.fixture
def http_agent() -> str:
    """The example HTTP agent server on 127.0.0.1 (an ephemeral port); its base URL."""
    server = load_example("http_agent_server").serve(0)
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
