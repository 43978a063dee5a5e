"""The run store through the command line: ``sitbench run``, ``score`` and ``metrics`` on the pilot —
line counts, manifest fields, refusal to overwrite, resume after a torn write, and sharding."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitbench.candidates import CandidateRequest, CandidateResponse, candidate, get_candidate
from sitbench.cli import main
from sitbench.configs import templates_sha256
from sitbench.verify import VERIFIER_VERSION

CONFIGS = list("ABCDEFGHI")
TOTAL = 9 * 22

CALLS: dict[str, int] = {"n": 0}


class CountingOracle:
    """mock/oracle that counts every call it answers."""

    name = "counting/oracle"

    def __init__(self) -> None:
        self.inner = get_candidate("mock/oracle")

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        CALLS["n"] += 1
        return await self.inner.complete(request)

    def describe(self) -> dict[str, Any]:
        return {"provider": "test", "model": self.name}


@candidate("counting")
def _counting(name: str, **options: Any) -> CountingOracle:
    return CountingOracle()


def _cli(*args: str | Path) -> int:
    return main([str(a) for a in args])


def _lines(path: Path) -> list[str]:
    data = path.read_text(encoding="utf-8")
    assert data.endswith("\n"), f"{path.name}: last line is not complete"
    return data.splitlines()


def _trial_ids(path: Path) -> list[str]:
    return [json.loads(line)["trial_id"] for line in _lines(path)]


@pytest.fixture(scope="module")
def cache_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    # Module fixtures run before the function-level cache fixture: keep embeddings in the test tree here too.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SITBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
        yield


@pytest.fixture(scope="module")
def oracle_run(pilot: Path, tmp_path_factory: pytest.TempPathFactory, cache_env: None) -> dict[str, Any]:
    """An uninterrupted mock/oracle run over A–I, scored; with the manifest as it was before scoring."""
    run = tmp_path_factory.mktemp("store") / "oracle"
    assert _cli("run", pilot, "--config", "all", "--model", "mock/oracle", "--out", run) == 0
    before = json.loads((run / "manifest.json").read_text())
    assert _cli("score", run) == 0
    return {"run": run, "manifest_before_score": before}


@pytest.fixture(scope="module")
def counting_run(pilot: Path, tmp_path_factory: pytest.TempPathFactory, cache_env: None) -> Path:
    run = tmp_path_factory.mktemp("store") / "counting"
    CALLS["n"] = 0
    assert _cli("run", pilot, "--model", "counting/oracle", "--out", run) == 0
    # One call per turn: 22 probes + 4 second sessions + 2 more PR-21 turns, in each of nine configurations.
    assert CALLS["n"] == 9 * 28
    assert _cli("score", run) == 0
    return run


def test_every_trial_is_stored_and_scored_once(oracle_run: dict[str, Any]) -> None:
    run = oracle_run["run"]
    responses = _trial_ids(run / "responses.jsonl")
    scores = _trial_ids(run / "scores.jsonl")
    assert len(responses) == len(set(responses)) == TOTAL
    assert len(scores) == len(set(scores)) == TOTAL
    assert set(responses) == set(scores)
    assert {t.split(":")[0] for t in responses} == set(CONFIGS)
    assert all(json.loads(line)["status"] == "completed" for line in _lines(run / "responses.jsonl"))


def test_manifest_traces_the_run(pilot: Path, oracle_run: dict[str, Any]) -> None:
    run = oracle_run["run"]
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["dataset"]["manifest_sha256"] == hashlib.sha256((pilot / "manifest.json").read_bytes()).hexdigest()
    assert manifest["dataset"]["path"] == str(pilot)
    assert manifest["configs"] == CONFIGS
    assert manifest["handler"] == "native"
    assert manifest["candidate"]["spec"] == "mock/oracle"
    assert manifest["candidate"]["provider"] == "mock"
    assert manifest["decoding"] == {"temperature": 0.0, "top_p": 1.0, "max_tokens": 512, "seed": 0}
    assert manifest["seeds"] == {"decoding": 0}
    assert manifest["templates_sha256"] == templates_sha256()
    assert len(manifest["templates_sha256"]) == 64
    retriever = manifest["retriever"]
    assert retriever["model_id"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert (retriever["k"], retriever["dim"], retriever["similarity"]) == (5, 384, "cosine")
    counts = manifest["counts"]
    assert {k: counts[k] for k in ("attempted", "completed", "dropped", "retries")} == \
        {"attempted": TOTAL, "completed": TOTAL, "dropped": 0, "retries": 0}
    assert manifest["finished_at"] is not None
    for config in CONFIGS:
        assert f"{config}: " in manifest["session_reset_policy"]
    # Scoring stamps the verifier version and changes nothing else.
    before = oracle_run["manifest_before_score"]
    assert before["verifier_version"] is None
    assert manifest["verifier_version"] == VERIFIER_VERSION
    assert {k: v for k, v in manifest.items() if k != "verifier_version"} == \
        {k: v for k, v in before.items() if k != "verifier_version"}


def test_runs_without_e_or_f_record_no_retriever(pilot: Path, tmp_path: Path) -> None:
    assert _cli("run", pilot, "--config", "B,I", "--model", "mock/collapse", "--out", tmp_path / "r") == 0
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["retriever"] is None
    assert manifest["configs"] == ["B", "I"]
    assert len(_lines(tmp_path / "r" / "responses.jsonl")) == 44


def test_existing_run_is_not_overwritten(pilot: Path, oracle_run: dict[str, Any], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "copy"
    shutil.copytree(oracle_run["run"], run)
    before = (run / "responses.jsonl").read_bytes()
    capsys.readouterr()
    assert _cli("run", pilot, "--model", "mock/oracle", "--out", run) == 2
    err = capsys.readouterr().err
    assert str(run) in err and "--resume" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert (run / "responses.jsonl").read_bytes() == before


def test_resume_needs_an_existing_run(pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli("run", pilot, "--model", "mock/oracle", "--out", tmp_path / "empty", "--resume") == 2
    assert "nothing to resume" in capsys.readouterr().err


def test_resume_on_a_complete_run_calls_nothing(pilot: Path, counting_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "again"
    shutil.copytree(counting_run, run)
    CALLS["n"] = 0
    assert _cli("run", pilot, "--model", "counting/oracle", "--out", run, "--resume") == 0
    assert CALLS["n"] == 0
    ids = _trial_ids(run / "responses.jsonl")
    assert len(ids) == len(set(ids)) == TOTAL
    assert json.loads((run / "manifest.json").read_text())["counts"]["completed"] == TOTAL


def test_resume_after_a_torn_write_matches_an_uninterrupted_run(pilot: Path, counting_run: Path,
                                                                 tmp_path: Path) -> None:
    run = tmp_path / "torn"
    shutil.copytree(counting_run, run)
    (run / "scores.jsonl").unlink()
    lines = (run / "responses.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    half = lines[50][: len(lines[50]) // 2]
    (run / "responses.jsonl").write_text("".join(lines[:50]) + half, encoding="utf-8")
    kept = [json.loads(line)["trial_id"] for line in lines[:50]]
    torn = json.loads(lines[50])["trial_id"]

    CALLS["n"] = 0
    assert _cli("run", pilot, "--model", "counting/oracle", "--out", run, "--resume") == 0
    ids = _trial_ids(run / "responses.jsonl")
    assert len(ids) == len(set(ids)) == TOTAL
    assert ids[:50] == kept and torn in ids[50:]
    # Every trial not fully written before the tear is run again, each turn once.
    calls_per_trial = {t: len(json.loads(line)["turns"]) for t, line in
                       zip(_trial_ids(counting_run / "responses.jsonl"), _lines(counting_run / "responses.jsonl"), strict=True)}
    assert CALLS["n"] == sum(n for t, n in calls_per_trial.items() if t not in kept)
    for line in _lines(run / "responses.jsonl"):
        json.loads(line)  # every line is whole

    assert _cli("score", run) == 0
    resumed = {json.loads(line)["trial_id"]: json.loads(line) for line in _lines(run / "scores.jsonl")}
    reference = {json.loads(line)["trial_id"]: json.loads(line) for line in _lines(counting_run / "scores.jsonl")}
    assert resumed == reference


def test_shards_partition_the_trials(pilot: Path, oracle_run: dict[str, Any], tmp_path: Path) -> None:
    shards = []
    for i in (1, 2):
        out = tmp_path / f"shard{i}"
        assert _cli("run", pilot, "--model", "mock/collapse", "--out", out, "--shard", f"{i}/2") == 0
        ids = _trial_ids(out / "responses.jsonl")
        assert len(ids) == len(set(ids))
        assert json.loads((out / "manifest.json").read_text())["shard"] == f"{i}/2"
        shards.append(set(ids))
    assert len(shards[0]) == len(shards[1]) == TOTAL // 2
    assert not shards[0] & shards[1]
    assert shards[0] | shards[1] == set(_trial_ids(oracle_run["run"] / "responses.jsonl"))


@pytest.mark.parametrize("shard", ["0/2", "3/2", "x", "1-2"])
def test_bad_shard_exits_2(pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], shard: str) -> None:
    assert _cli("run", pilot, "--model", "mock/oracle", "--out", tmp_path / "r", "--shard", shard) == 2
    assert "--shard" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_metrics_json_has_every_configuration(oracle_run: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert _cli("metrics", oracle_run["run"], "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(data["configs"]) == CONFIGS
    fields = {"A_pos", "A_neg", "A_epi", "A_temp", "A_rel", "A_belief", "A_cf", "A_session", "macro_sit", "LAA",
              "IC_wrong", "IC_none", "FMR", "TL", "UEL", "n_attempted", "n_completed", "laa_outcomes", "counts"}
    for config, row in data["configs"].items():
        assert fields <= set(row), f"{config}: missing {fields - set(row)}"
        assert (row["n_attempted"], row["n_completed"]) == (22, 22)
        assert sum(row["laa_outcomes"].values()) == 10  # theorem-qualified probes
        assert (row["n_FMR"], row["n_TL"], row["n_UEL"]) == (4, 1, 3)
    # The oracle with perfectly selected evidence scores 1.0 everywhere.
    assert data["configs"]["I"]["macro_sit"] == 1.0
    assert data["configs"]["I"]["LAA"] == 1.0
    assert data["configs"]["I"]["IC_wrong"] == 0.0


@pytest.mark.parametrize("value", ["Z", "A,Z", "", "J"])
def test_unknown_configuration_exits_2(pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       value: str) -> None:
    assert _cli("run", pilot, "--config", value, "--model", "mock/oracle", "--out", tmp_path / "r") == 2
    err = capsys.readouterr().err
    assert "--config" in err and "A–I" in err
    assert "Traceback" not in err
    assert not (tmp_path / "r").exists()


def test_score_of_a_non_run_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli("score", tmp_path) == 2
    assert "not a run directory" in capsys.readouterr().err


def test_merged_shards_score_like_the_unsharded_run(pilot: Path, tmp_path: Path) -> None:
    for i in (1, 2):
        assert _cli("run", pilot, "--model", "mock/collapse", "--out", tmp_path / f"s{i}", "--shard", f"{i}/2") == 0
    assert _cli("merge", tmp_path / "s1", tmp_path / "s2", "--out", tmp_path / "merged") == 0
    assert _cli("run", pilot, "--model", "mock/collapse", "--out", tmp_path / "whole") == 0
    for run in ("merged", "whole"):
        assert _cli("score", tmp_path / run) == 0
    merged = {json.loads(x)["trial_id"]: json.loads(x) for x in _lines(tmp_path / "merged" / "scores.jsonl")}
    whole = {json.loads(x)["trial_id"]: json.loads(x) for x in _lines(tmp_path / "whole" / "scores.jsonl")}
    assert len(merged) == TOTAL
    assert merged == whole
