"""`sitbench merge`: shards of one run become the unsharded run; mismatched shards are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.errors import InputError
from sitbench.runs import RunManifest, merge_runs, trial_ids
from sitbench.stores import load_dataset


def _run(pilot: Path, out: Path, *extra: str) -> Path:
    assert main(["run", str(pilot), "--config", "B,C,I", "--model", "mock/oracle", "--out", str(out), *extra]) == 0
    return out


@pytest.fixture(scope="module")
def shards(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("merge")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SITBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
        runs = {f"{i}/3": _run(pilot, root / f"shard{i}", "--shard", f"{i}/3") for i in (1, 2, 3)}
        for path in runs.values():
            assert main(["score", str(path)]) == 0
        runs["full"] = _run(pilot, root / "full")
        assert main(["score", str(runs["full"])]) == 0
    return runs


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["trial_id"] for line in path.read_text().splitlines()]


def test_three_shards_merge_into_the_full_run(shards: dict[str, Path], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    sizes = [len(_ids(shards[f"{i}/3"] / "responses.jsonl")) for i in (1, 2, 3)]
    assert sizes == [22, 22, 22]  # 66 trials dealt round-robin
    out = tmp_path / "merged"
    assert main(["merge", *(str(shards[f"{i}/3"]) for i in (3, 1, 2)), "--out", str(out)]) == 0
    assert "merged 3 runs, 66 trials (0 duplicates dropped); scores merged" in capsys.readouterr().out
    assert _ids(out / "responses.jsonl") == _ids(shards["full"] / "responses.jsonl")
    assert (out / "scores.jsonl").read_bytes() == (shards["full"] / "scores.jsonl").read_bytes()
    manifest = RunManifest.model_validate_json((out / "manifest.json").read_text())
    full = RunManifest.model_validate_json((shards["full"] / "manifest.json").read_text())
    assert manifest.shard is None and manifest.configs == ["B", "C", "I"]
    assert manifest.counts == {**full.counts, "missing": 0}
    merge = manifest.extra["merge"]
    assert [s["shard"] for s in merge["shards"]] == ["3/3", "1/3", "2/3"]
    assert merge["missing"] == [] and merge["trials"] == 66


def test_missing_shard_is_reported_and_resume_fills_it(shards: dict[str, Path], pilot: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "partial"
    report = merge_runs([shards["1/3"], shards["3/3"]], out)
    every = [f"{c}:{p}" for c, p in trial_ids(load_dataset(pilot), ["B", "C", "I"], None)]
    assert report.missing == every[1::3]  # shard 2/3 holds trials 1, 4, 7, …
    assert report.trials == 44 and len(report.missing) == 22
    # The merged run is a normal run: resume it without --shard to fill the gap.
    assert main(["run", str(pilot), "--config", "B,C,I", "--model", "mock/oracle", "--out", str(out),
                 "--resume"]) == 0
    assert _ids(out / "responses.jsonl") == every


def test_duplicates_identical_are_kept_once_different_are_refused(shards: dict[str, Path], tmp_path: Path) -> None:
    report = merge_runs([shards["1/3"], shards["full"]], tmp_path / "dup")
    assert (report.duplicates, report.trials, report.missing) == (22, 66, [])
    tampered = tmp_path / "tampered"
    shutil.copytree(shards["1/3"], tampered)
    lines = (tampered / "responses.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["turns"][-1]["response"]["text"] = "a different answer"
    (tampered / "responses.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(InputError, match=f"trial {first['trial_id']} differs from the copy in"):
        merge_runs([shards["full"], tampered], tmp_path / "bad")


def test_shards_of_different_runs_are_refused(shards: dict[str, Path], pilot: Path, tmp_path: Path) -> None:
    other = _run(pilot, tmp_path / "other", "--shard", "2/3", "--max-tokens", "64")
    with pytest.raises(InputError, match="field 'decoding' differs"):
        merge_runs([shards["1/3"], other], tmp_path / "m1")
    perfect = _run(pilot, tmp_path / "perfect", "--shard", "2/3", "--handler", "perfect")
    with pytest.raises(InputError, match="field 'handler' differs"):
        merge_runs([shards["1/3"], perfect], tmp_path / "m2")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    with pytest.raises(InputError, match="already holds files"):
        merge_runs([shards["1/3"]], tmp_path / "full")
    assert main(["merge", str(shards["1/3"]), str(tmp_path / "nope"), "--out", str(tmp_path / "m3")]) == 2
