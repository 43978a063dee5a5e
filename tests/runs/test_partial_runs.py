"""`run --limit N` and `run --probes ID,…`: the same probes for every configuration, theorem-qualified pairs
whole, a seeded draw stratified by category, recorded in the manifest, scored like any run, refused by merge
beside a full run."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.runs import RunStore, select_probes
from sitbench.stores import load_dataset


def _probes_by_config(run: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for trial in RunStore(run).iter_trials():
        found[trial.config].add(trial.probe_id)
    return found


def test_limit_gives_every_configuration_the_same_whole_pairs(pilot: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["run", str(pilot), "--config", "B,D,G", "--model", "mock/oracle", "--limit", "8",
                 "--out", str(out)]) == 0
    assert "(partial: " in capsys.readouterr().out
    by_config = _probes_by_config(out)
    assert set(by_config) == {"B", "D", "G"}
    [probes] = {frozenset(p) for p in by_config.values()}  # one probe set for all three
    assert 1 <= len(probes) <= 8
    ds = load_dataset(pilot)
    for probe_id in probes:
        probe = ds.hidden.probes[probe_id]
        if probe.theorem_qualified:
            assert probe.partner_probe_id in probes, f"{probe_id} drawn without its partner"
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["probes"]["probe_ids"]) == sorted(probes)
    assert manifest["probes"]["limit"] == 8 and manifest["probes"]["seed"] == 0
    assert main(["score", str(out)]) == 0  # no planned trial is missing: the plan is the selection
    assert f"scored {3 * len(probes)} trials" in capsys.readouterr().out


def test_the_draw_is_seeded_and_stratified(pilot: Path) -> None:
    ds = load_dataset(pilot)
    first = select_probes(ds, limit=8, seed=0)
    assert first is not None and first == select_probes(ds, limit=8, seed=0)
    categories = {ds.hidden.probes[p].category for p in first.probe_ids}
    assert len(categories) >= 5, "a small draw covers the categories before any gets a second probe"
    draws = {tuple(s.probe_ids) for seed in range(6) if (s := select_probes(ds, limit=8, seed=seed)) is not None}
    assert len(draws) > 1, "another seed draws other probes"
    everything = select_probes(ds, limit=1000, seed=3)
    assert everything is not None and everything.probe_ids == list(ds.hidden.probes)


def test_probes_adds_the_partner_of_a_theorem_qualified_probe(pilot: Path) -> None:
    ds = load_dataset(pilot)
    qualified = next(p for p in ds.hidden.probes.values() if p.theorem_qualified)
    selection = select_probes(ds, probes=qualified.probe_id)
    assert selection is not None
    assert set(selection.probe_ids) == {qualified.probe_id, qualified.partner_probe_id}
    assert "(1 added)" in selection.rule


@pytest.mark.parametrize(("args", "said"), [
    (["--probes", "PR-01,NOPE"], "--probes: NOPE not in the dataset"),
    (["--probes", "PR-01", "--limit", "3"], "--probes and --limit: give one"),
])
def test_bad_selections_are_one_line_exit_2(pilot: Path, tmp_path: Path, args: list[str], said: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(pilot), "--config", "B", "--model", "mock/oracle", *args,
                 "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0]


def test_merge_refuses_a_partial_run_beside_a_full_one(pilot: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    partial, full = tmp_path / "partial", tmp_path / "full"
    assert main(["run", str(pilot), "--config", "B", "--model", "mock/oracle", "--limit", "4",
                 "--out", str(partial)]) == 0
    assert main(["run", str(pilot), "--config", "B", "--model", "mock/oracle", "--out", str(full)]) == 0
    capsys.readouterr()
    assert main(["merge", str(partial), str(full), "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "a partial run (--probes or --limit) cannot be merged with a run of other probes" in err
    assert not (tmp_path / "m").exists()


def test_resume_keeps_the_selection(pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    argv = ["run", str(pilot), "--config", "B", "--model", "mock/oracle", "--out", str(out)]
    assert main([*argv, "--limit", "4"]) == 0
    capsys.readouterr()
    assert main([*argv, "--resume"]) == 2
    assert "the probes (--limit 4" in capsys.readouterr().err
    assert main([*argv, "--limit", "4", "--resume"]) == 0
