from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.data import generate_content, write_dataset


@pytest.fixture(scope="session")
def dev_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dev") / "dev-seed1"
    write_dataset(generate_content("dev", 1), root)
    return root


@pytest.fixture(autouse=True)
def _embedding_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
