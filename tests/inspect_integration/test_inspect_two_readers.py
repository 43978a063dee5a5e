"""The scorer with two readers (``-T extractor=FIRST+SECOND``): the value stays the first reader's verdict, the
metadata says whether the second agreed (and on which checks it did not), and a second reader that cannot read
leaves the trial unscored exactly as a single reader that cannot does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from readers_support import Blank, Down

pytest.importorskip("inspect_ai", reason='needs Inspect: pip install -e ".[inspect]" (or ".[dev]")')

from inspect_ai.log import EvalLog
from inspect_support import run_sit, score_records_of

from sitbench.cli import main
from sitbench.verify import EXTRACTORS

CONFIG = "C"
MODEL = "sitbench/mock/oracle"




@pytest.fixture(scope="module", autouse=True)
def _readers() -> Iterator[None]:
    EXTRACTORS.register("inspect-blank", lambda _argument: Blank())
    EXTRACTORS.register("inspect-down", lambda _argument: Down())
    yield
    EXTRACTORS.unregister("inspect-blank")
    EXTRACTORS.unregister("inspect-down")


def _scores(log: EvalLog) -> dict[str, Any]:
    """The scorer's Score of each sample, by trial id."""
    assert log.samples is not None
    return {s.scores["sit_verifier"].metadata["trial_id"]: s.scores["sit_verifier"]  # type: ignore[index]
            for s in log.samples}


@pytest.fixture(scope="module")
def logs(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """Configuration C under one reader, two readers, a failing second reader and a failing single reader."""
    out = tmp_path_factory.mktemp("two-reader-logs")
    specs = {"one": "rules", "two": "rules+inspect-blank", "second-down": "rules+inspect-down",
             "down": "inspect-down"}
    return {name: run_sit(pilot, CONFIG, MODEL, out / name, extractor=spec) for name, spec in specs.items()}


def test_the_value_stays_the_first_readers_verdict(logs: dict[str, EvalLog]) -> None:
    one, two = _scores(logs["one"]), _scores(logs["two"])
    assert one.keys() == two.keys() and len(one) == 22
    assert {t: s.value for t, s in two.items()} == {t: s.value for t, s in one.items()}
    for trial_id, score in two.items():
        assert score.metadata["verdict"] == one[trial_id].metadata["verdict"]
        assert score.metadata["verifier"].endswith("+blank@1")


def test_the_metadata_carries_agreement_contested_checks_and_the_second_verdict(logs: dict[str, EvalLog]) -> None:
    scores = _scores(logs["two"])
    for score in scores.values():
        meta = score.metadata
        second = meta["second"]
        assert second["extractor"] == "blank@1" and second["observation"]["extractor"] == "blank"
        differs = meta["verdict"]["valid"] != second["verdict"]["valid"] or (
            meta["partner"] is not None and meta["partner"]["valid"] != second["partner"]["valid"])
        assert meta["agreement"] == ("contested" if differs else "agreed")
        assert bool(meta["contested_checks"]) == differs
        if differs:
            assert "readers contested on " + ", ".join(meta["contested_checks"]) in score.explanation
            assert "second reader blank@1: invalid" in score.explanation
        else:
            assert score.explanation.endswith(" | readers agreed")
    agreements = [s.metadata["agreement"] for s in scores.values()]
    assert "contested" in agreements, "the oracle's valid answers are contested by a reader that reads nothing"
    assert all("readers" not in s.explanation for s in _scores(logs["one"]).values())


def test_the_records_inside_inspect_are_what_sitbench_score_writes(logs: dict[str, EvalLog], pilot: Path,
                                                                   tmp_path: Path) -> None:
    log = logs["two"]
    out = tmp_path / "run"
    assert main(["import-inspect", log.location, "--dataset", str(pilot), "--out", str(out)]) == 0
    assert main(["score", str(out), "--extractor", "rules+inspect-blank"]) == 0
    scored = [json.loads(line) for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    inside = {k: v.model_dump(mode="json") for k, v in score_records_of(log).items()}
    assert {r["trial_id"]: r for r in scored} == inside


def test_a_failing_second_reader_is_a_failing_single_reader(logs: dict[str, EvalLog]) -> None:
    second_down, down = _scores(logs["second-down"]), _scores(logs["down"])
    assert second_down.keys() == down.keys()
    for trial_id, score in second_down.items():
        alone = down[trial_id]
        assert score.value == alone.value == "N"
        assert score.explanation == alone.explanation
        assert score.explanation.startswith("unscored (extractor unavailable: down")
        assert {k: v for k, v in score.metadata.items() if k != "verifier"} == \
            {k: v for k, v in alone.metadata.items() if k != "verifier"}
        assert score.metadata["status"] == "unscored" and score.metadata["second"] is None
    for name in ("second-down", "down"):
        assert logs[name].results is not None and logs[name].status == "success"
