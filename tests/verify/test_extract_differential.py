"""Restructuring the rule extractor changes no observation: every hash of ``data/extract_hashes.json.gz``
(10,458 inputs: corpus responses against their own and other probes, and rewritten) is reproduced, the reading's
and the confidence's apart.

Regenerate the fixture (``python tests/verify/make_extract_fixture.py``) together with a RULES_VERSION bump, or
when only the confidence model changed (every reading hash unchanged: confidence is no part of a verdict).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import make_extract_fixture as fixture

from sitbench.verify import RULES_VERSION

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def dataset_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    mp = pytest.MonkeyPatch()
    mp.setenv("SITBENCH_CORPUS_CACHE", str(tmp_path_factory.mktemp("corpus-datasets")))
    fixture.corpus_tool.judge_for.cache_clear()
    yield
    fixture.corpus_tool.judge_for.cache_clear()
    mp.undo()


def test_every_observation_hash_is_reproduced() -> None:
    document = json.loads(gzip.decompress(fixture.FIXTURE.read_bytes()))
    assert document["format"] == fixture.FORMAT
    if document["rules_version"] != RULES_VERSION:
        pytest.skip("rules version changed: regenerate with python tests/verify/make_extract_fixture.py")
    expected: dict[str, dict[str, str]] = document["hashes"]
    got = fixture.compute()
    assert got["reading"].keys() == expected["reading"].keys() == expected["confidence"].keys()
    for part in ("reading", "confidence"):
        changed = [label for label, h in expected[part].items() if got[part][label] != h]
        assert not changed, f"{len(changed)} {part}s changed, e.g. {changed[:10]}"
