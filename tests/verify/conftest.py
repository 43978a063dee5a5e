from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.data import pilot_content, write_dataset
from sitbench.verify import Judge, load_judge


@pytest.fixture(scope="session")
def pilot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pilot")
    write_dataset(pilot_content(), root)
    return root


@pytest.fixture(scope="session")
def judge(pilot_dir: Path) -> Judge:
    return load_judge(pilot_dir)
