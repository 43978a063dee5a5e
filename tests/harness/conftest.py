from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _embedding_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Keep retrieval caches inside the test's temporary tree.
    monkeypatch.setenv("SITBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
