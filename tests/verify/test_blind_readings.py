"""Blind readings: the contract scorer measured apart from any extractor (``corpus/blind/README.md``).

640 annotated responses (the whole held-out slice and 270 development cases), each read by a reader who was
given only the LLM extractor's prompt, frozen with the prompt version and replayed as the model's answers
through ``--extractor llm:replay/FILE``. A faithful reading must get the annotated verdict, whoever made it.
``python benchmarks/blind_readings.py score`` prints the same figures per category and dataset.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "corpus"))
import corpus_tool

from sitbench.verify import AgreementFigures, compare
from sitbench.verify._llm import PROMPT_VERSION

READINGS = Path(__file__).parent / "corpus" / "blind" / f"{PROMPT_VERSION.replace('/', '-')}.jsonl"


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, AgreementFigures]:
    mp = pytest.MonkeyPatch()
    mp.setenv("SITBENCH_CORPUS_CACHE", str(tmp_path_factory.mktemp("blind-datasets")))
    corpus_tool.judge_for.cache_clear()
    try:
        import json

        wanted = {json.loads(line)["case"] for line in READINGS.read_text(encoding="utf-8").splitlines() if line}
        cases = [c for c in corpus_tool.load_corpus("all") if c["id"] in wanted]
        got = corpus_tool.readings(cases, f"llm:replay/{READINGS}")
    finally:
        corpus_tool.judge_for.cache_clear()
        mp.undo()
    assert len(got) == len(wanted) >= 600
    heldout = [r for raw, _, r in got if corpus_tool.is_heldout(raw["id"])]
    assert len(heldout) >= 300
    return {"heldout": compare(heldout).overall, "whole": compare(r for _, _, r in got).overall}


@pytest.mark.parametrize("split", ["heldout", "whole"])
def test_a_blind_reading_gets_the_annotated_verdict(figures: dict[str, AgreementFigures], split: str) -> None:
    f = figures[split]
    assert f.verdict_agreement >= 0.97, f
    assert f.false_reject_rate is not None and f.false_reject_rate <= 0.03, f
    assert f.false_accept_rate is not None and f.false_accept_rate <= 0.03, f
