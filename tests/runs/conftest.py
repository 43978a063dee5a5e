"""Fixtures for the run tests: the pilot dataset, a deterministic stub server, caches kept in the test tree."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sitbench.candidates._stub_server import StubChatServer
from sitbench.data import pilot_content, write_dataset


@pytest.fixture(scope="session")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pilot")
    write_dataset(pilot_content(), root)
    return root


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Embedding and response caches stay inside the test's temporary tree.
    monkeypatch.setenv("SITBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture
def stub() -> Iterator[StubChatServer]:
    with StubChatServer() as server:
        yield server
