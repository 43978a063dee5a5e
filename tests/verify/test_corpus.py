"""The annotated verifier corpus (``corpus/raw/*.jsonl``, see ``corpus/GUIDE.md``).

Responses written the way chat models answer, over the pilot and generated development suites of
several seeds, annotated at the observation level. A fixed ~20 % of ids (by hash, decided before
any tuning; ``corpus_tool.is_heldout``) is the held-out slice: it is measured, never inspected to
diagnose the extractor. ``python tests/verify/corpus/corpus_tool.py measure --split heldout``
prints its figures overall and per phenomenon.

The floors below are the measured figures of ``sitbench-rules/2.1`` less a small margin (held-out
slice: verdict agreement 0.919, false-reject 0.129, false-accept 0.043; dev split 0.961 / 0.066 /
0.018). The held-out slice was first measured at 0.896 / 0.170 / 0.050 (2.0, before its last round
of tuning on the dev split) and at 0.917 / 0.133 / 0.043 (2.0 final): tuning on the dev split now
moves it little, so the gap between the two splits is the rules' fit to the dev phrasings, not a
reading the held-out slice would confirm. A change that makes the rule extractor read worse fails here.

Under scorer v3 with ``sitbench-rules/3.0`` (engagement, stated dates, change-of-mind denials) and the nine
relabels of ``corpus/RELABELS.md``, the same slices read 0.922 / 0.132 / 0.034 (held-out) and 0.963 / 0.065 /
0.015 (dev): a reply must now engage the question before it adopts its premise; the held-out false-accept
ceiling is 0.045.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "corpus"))
import corpus_tool

from sitbench.verify import AgreementFigures, compare

#: (split, figure) -> floor for the rule extractor.
FLOORS: dict[tuple[str, str], float] = {
    ("dev", "verdict_agreement"): 0.95,
    ("dev", "act_accuracy"): 0.92,
    ("dev", "claim_f1"): 0.835,
    ("heldout", "verdict_agreement"): 0.905,
    ("heldout", "act_accuracy"): 0.91,
    ("heldout", "claim_f1"): 0.79,
}
#: (split, figure) -> ceiling.
CEILINGS: dict[tuple[str, str], float] = {
    ("dev", "false_reject_rate"): 0.08,
    ("dev", "false_accept_rate"): 0.025,
    ("heldout", "false_reject_rate"): 0.14,
    ("heldout", "false_accept_rate"): 0.045,
}


@pytest.fixture(scope="module", autouse=True)
def dataset_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Generate the corpus datasets once, in a temporary directory."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SITBENCH_CORPUS_CACHE", str(tmp_path_factory.mktemp("corpus-datasets")))
    corpus_tool.judge_for.cache_clear()
    yield
    corpus_tool.judge_for.cache_clear()
    mp.undo()


@pytest.fixture(scope="module")
def figures() -> dict[str, AgreementFigures]:
    return {split: compare(r for _, _, r in corpus_tool.readings(corpus_tool.load_corpus(split))).overall
            for split in ("dev", "heldout")}


def test_corpus_shape() -> None:
    cases = corpus_tool.load_corpus("all")
    heldout = corpus_tool.load_corpus("heldout")
    assert len(cases) >= 1500
    assert len(heldout) >= 300
    assert len({c["id"] for c in cases}) == len(cases), "ids are unique"
    assert len({(c["dataset"], c["probe_id"], c["response"]) for c in cases}) == len(cases), "no duplicates"
    datasets = Counter(c["dataset"] for c in cases)
    assert "pilot" in datasets and sum(1 for d in datasets if d.startswith("dev-s")) >= 3
    styles = Counter(c["style"] for c in cases)
    assert styles["chat"] / len(cases) >= 0.45, "most responses are written as chat models answer"
    for split in (cases, heldout):
        categories = {corpus_tool.judge_for(c["dataset"]).hidden.probes[c["probe_id"]].category.value for c in split}
        assert categories == set("ABCDEFGH")
        verdicts = Counter(c["valid"] for c in split)
        assert min(verdicts.values()) / len(split) >= 0.3, "both verdicts are well represented"


def test_every_annotated_dataset_is_frozen() -> None:
    """Annotations name probes of a frozen dataset copy, so a generator change cannot re-target them."""
    used: dict[str, set[str]] = {}
    for raw in corpus_tool.load_corpus("all"):
        used.setdefault(raw["dataset"], set()).add(raw["probe_id"])
    for name, probe_ids in used.items():
        assert (corpus_tool.FROZEN_DIR / f"{name}.json.gz").exists(), f"run: corpus_tool.py freeze {name}"
        root = corpus_tool.dataset_dir(name)
        assert root.name.startswith("frozen-"), root
        missing = probe_ids - set(corpus_tool.judge_for(name).hidden.probes)
        assert not missing, f"{name}: annotated probes missing from the frozen copy: {sorted(missing)[:5]}"


def test_every_annotation_agrees_with_its_own_verdict() -> None:
    """The gold observation of each line, scored by the contract scorer, gives the stated verdicts."""
    problems = []
    for raw in corpus_tool.load_corpus("all"):
        problems += [f"{raw['id']}: {p}" for p in corpus_tool.check_line(raw)]
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize(("split", "figure"), sorted(FLOORS))
def test_rule_extractor_floor(figures: dict[str, AgreementFigures], split: str, figure: str) -> None:
    value = getattr(figures[split], figure)
    assert value >= FLOORS[(split, figure)], f"{split} {figure} = {value:.3f} < {FLOORS[(split, figure)]}"


@pytest.mark.parametrize(("split", "figure"), sorted(CEILINGS))
def test_rule_extractor_ceiling(figures: dict[str, AgreementFigures], split: str, figure: str) -> None:
    value = getattr(figures[split], figure)
    assert value is not None and value <= CEILINGS[(split, figure)], \
        f"{split} {figure} = {value} > {CEILINGS[(split, figure)]}"


def test_summary(figures: dict[str, AgreementFigures]) -> None:
    from sitbench.verify import format_figures

    for split, f in figures.items():
        print(format_figures(f"CORPUS {split}", f))
    assert figures["dev"].responses + figures["heldout"].responses == len(corpus_tool.load_corpus("all"))
