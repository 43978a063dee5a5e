from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.data import pilot_content, write_dataset


@pytest.fixture(scope="session")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pilot")
    write_dataset(pilot_content(), root)
    return root


@pytest.fixture(autouse=True)
def _embedding_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Keep retrieval caches inside the test's temporary tree.
    monkeypatch.setenv("SITBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
