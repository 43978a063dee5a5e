"""Fixtures for the run tests: the pilot dataset, a deterministic stub server, caches kept in the test tree."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sitbench.candidates._stub_server import StubChatServer


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Embedding and response caches stay inside the test's temporary tree.
    monkeypatch.setenv("SITBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture
def stub() -> Iterator[StubChatServer]:
    with StubChatServer() as server:
        yield server
