"""`sitbench score --workers N`: scoring split over forked processes writes the same scores.jsonl,
byte for byte, and reports a damaged line as one process does."""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path
from typing import Any

import pytest

from sitbench.cli import main
from sitbench.errors import InputError
from sitbench.runs import PARALLEL_MIN_TRIALS, _scoring, score_workers
from sitbench.verify import get_extractor

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="scoring workers are forked")


@pytest.fixture(scope="module")
def oracle_run(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("workers") / "run"
    assert main(["run", str(pilot), "--config", "all", "--model", "mock/oracle", "--out", str(run)]) == 0
    return run


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Tasks of 7 trials (the pilot's ~200 trials become ~30 tasks); records how many pools were started."""
    monkeypatch.setattr(_scoring, "_CHUNK", 7)
    pools: list[int] = []
    real = multiprocessing.get_context

    def spying(method: str | None = None) -> Any:
        context = real(method)
        if method == "fork":
            pools.append(1)
        return context

    monkeypatch.setattr(_scoring.multiprocessing, "get_context", spying)
    return pools


def _scores(run: Path, tmp_path: Path, workers: int, name: str) -> bytes:
    copy = tmp_path / name
    shutil.copytree(run, copy)
    assert main(["score", str(copy), "--workers", str(workers)]) == 0
    return (copy / "scores.jsonl").read_bytes()


def test_workers_write_the_same_scores(oracle_run: Path, tmp_path: Path, small_chunks: list[int]) -> None:
    one = _scores(oracle_run, tmp_path, 1, "one")
    assert not small_chunks  # one worker scores in this process
    three = _scores(oracle_run, tmp_path, 3, "three")
    assert small_chunks == [1]  # the workers really were forked
    assert one.count(b"\n") >= 198
    assert three == one


def test_a_damaged_line_is_reported_the_same_way(oracle_run: Path, tmp_path: Path,
                                                 small_chunks: list[int]) -> None:
    messages = []
    for workers in (1, 3):
        copy = tmp_path / f"damaged-{workers}"
        shutil.copytree(oracle_run, copy)
        lines = (copy / "responses.jsonl").read_bytes().splitlines(keepends=True)
        lines[150] = b'{"trial_id":"' + lines[150][len(b'{"trial_id":"'):60] + b"\n"  # cut short: malformed
        (copy / "responses.jsonl").write_bytes(b"".join(lines))
        from sitbench.cli._runs import score_run

        with pytest.raises(InputError) as raised:
            score_run(copy, workers=workers)
        messages.append(str(raised.value).replace(str(copy), "RUN"))
        assert not (copy / "scores.jsonl").exists()  # nothing half-written replaces the scores
    assert "line 151" in messages[0]
    assert messages[1] == messages[0]


def test_how_many_workers() -> None:
    with pytest.raises(InputError, match="--workers 0"):
        score_workers(0, 10_000)
    assert score_workers(None, PARALLEL_MIN_TRIALS - 1) == 1
    assert score_workers(None, PARALLEL_MIN_TRIALS) == max(1, min(8, multiprocessing.cpu_count()))
    assert score_workers(3, 10) == 3  # asked for: honoured even for a small run
    llm = get_extractor("llm:mock/oracle")
    assert score_workers(None, 100_000, llm) == 1  # a model-calling extractor is not split unasked
