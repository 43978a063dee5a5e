"""The rule confidence's weights are the fit on the development slice, and its AUROC against wrong verdicts stays
above floors (the measured figures of ``sitbench-rules/3.0`` with the committed weights, less a margin: 0.773
in-sample on the development slice, 0.674 on the held-out slice, which the fit never reads).

``python tests/verify/corpus/fit_confidence.py`` re-runs the fit; ``python benchmarks/verifier.py`` prints the
AUROC with its bootstrap interval.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "corpus"))
import corpus_tool
import fit_confidence

from sitbench.verify import CONFIDENCE_BIAS, CONFIDENCE_WEIGHTS, error_auroc

pytestmark = pytest.mark.slow

#: split -> floor of the confidence score's AUROC against wrong verdicts.
FLOORS = {"dev": 0.74, "heldout": 0.62}


@pytest.fixture(scope="module", autouse=True)
def dataset_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    mp = pytest.MonkeyPatch()
    mp.setenv("SITBENCH_CORPUS_CACHE", str(tmp_path_factory.mktemp("corpus-datasets")))
    corpus_tool.judge_for.cache_clear()
    yield
    corpus_tool.judge_for.cache_clear()
    mp.undo()


def test_committed_weights_are_the_development_fit() -> None:
    signals, wrong = fit_confidence.development_signals()
    names = sorted({s for case in signals for s in case})
    features = np.array([[float(n in case) for n in names] for case in signals])
    w = fit_confidence.fit(features, wrong, penalty=1.0)
    fitted = {n: round(float(v), 2) for n, v in zip(names, w[1:], strict=True) if round(float(v), 2) > 0}
    assert fitted == dict(CONFIDENCE_WEIGHTS), "re-run tests/verify/corpus/fit_confidence.py and paste its table"
    assert round(float(w[0]), 2) == CONFIDENCE_BIAS


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_confidence_ranks_wrong_verdicts_above_chance(split: str) -> None:
    scores, wrong = [], []
    for _, got, reading in corpus_tool.readings(corpus_tool.load_corpus(split), "rules"):
        scores.append(got.observation.confidence.score)
        wrong.append(any(gold != read for gold, read in reading.verdicts))
    assert error_auroc(scores, wrong) >= FLOORS[split]
