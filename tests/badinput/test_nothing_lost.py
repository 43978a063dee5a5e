"""Nothing lost: no command deletes, replaces or writes through a link a file sitbench did not write.

Each test snapshots (lists and hashes, links not followed) every folder around the command before and
after it, and finds nothing changed that the user did not ask for.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ._harness import Invocation, Outcome, Templates, Workspace, execute
from .test_paths import listing


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(tmp_path_factory.mktemp("nothing-lost-templates")).build()


def _one_line(outcome: Outcome, *names: str) -> None:
    assert outcome.code == 2, outcome.err
    assert outcome.out == ""
    lines = outcome.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), outcome.err
    assert "Traceback" not in outcome.err
    for name in names:
        assert name in lines[0], lines[0]


def _unchanged(root: Path, argv: list[str], *names: str) -> None:
    before = listing(root)
    outcome = execute(Invocation(argv))
    _one_line(outcome, *names)
    assert listing(root) == before


def _elsewhere(root: Path) -> Path:
    """A folder of the user's own files, outside every output."""
    other = root / "elsewhere"
    (other / "deep").mkdir(parents=True)
    (other / "thesis.tex").write_text("years of work\n", encoding="utf-8")
    (other / "deep" / "data.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    return other


def _generate(out: Path) -> list[str]:
    return ["generate", "--suite", "pilot", "--out", str(out)]


def test_generate_never_deletes_through_a_linked_store_folder(tmp_path: Path) -> None:
    other = _elsewhere(tmp_path)
    out = tmp_path / "D"
    out.mkdir()
    (out / "hidden").symlink_to(other, target_is_directory=True)
    _unchanged(tmp_path, _generate(out), f"{out / 'hidden'}", "symbolic link")


def test_generate_never_deletes_through_a_linked_store_file(tmp_path: Path) -> None:
    other = _elsewhere(tmp_path)
    out = tmp_path / "D"
    assert execute(Invocation(_generate(out))).code == 0
    probes = out / "hidden" / "probes.jsonl"
    probes.unlink()
    probes.symlink_to(other / "thesis.tex")
    _unchanged(tmp_path, _generate(out), str(probes), "symbolic link")


def test_generate_over_a_dataset_keeps_a_users_own_file(tmp_path: Path) -> None:
    out = tmp_path / "D"
    assert execute(Invocation(_generate(out))).code == 0
    mine = out / "hidden" / "my-notes.txt"
    mine.write_text("my own notes\n", encoding="utf-8")
    _unchanged(tmp_path, _generate(out), str(mine), "not a file sitbench wrote")


def test_generate_into_a_folder_of_foreign_store_files_refuses(tmp_path: Path) -> None:
    out = tmp_path / "D"
    (out / "visible").mkdir(parents=True)
    (out / "visible" / "essay.md").write_text("mine\n", encoding="utf-8")
    _unchanged(tmp_path, _generate(out), "essay.md")


def test_generate_never_replaces_a_foreign_manifest(tmp_path: Path) -> None:
    out = tmp_path / "D"
    out.mkdir()
    (out / "manifest.json").write_text('{"mine": true}\n', encoding="utf-8")
    _unchanged(tmp_path, _generate(out), str(out / "manifest.json"), "not a file sitbench wrote")


def test_generate_again_replaces_its_own_dataset(tmp_path: Path) -> None:
    out = tmp_path / "D"
    assert execute(Invocation(_generate(out))).code == 0
    before = listing(tmp_path)
    (out / "hidden" / "probes.jsonl").write_text("stale\n", encoding="utf-8")
    outcome = execute(Invocation(["generate", "--suite", "dev", "--seed", "2", "--out", str(out)]))
    assert outcome.code == 0, outcome.err
    assert (out / "DATASHEET.md").is_file()
    outcome = execute(Invocation(_generate(out)))
    assert outcome.code == 0, outcome.err
    after = listing(tmp_path)
    # The dev suite's DATASHEET.md is sitbench's and stays; every store file is the pilot's again.
    assert {k: v for k, v in after.items() if k != "D/DATASHEET.md"} == before


def test_report_never_replaces_a_users_metrics_or_trials(templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    run = ws.run()
    out = ws.directory("site")
    for name in ("metrics.json", "trials.csv"):
        mine = out / name
        mine.write_text("my own file\n", encoding="utf-8")
        _unchanged(tmp_path, ["report", str(run), "--out", str(out / "report.html")], str(mine),
                   "not a file sitbench wrote")
        mine.unlink()


def test_report_again_replaces_its_own_exports(templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    argv = ["report", str(ws.run()), "--out", str(ws.root / "site" / "report.html")]
    assert execute(Invocation(argv)).code == 0
    outcome = execute(Invocation(argv))
    assert outcome.code == 0, outcome.err


def test_report_never_writes_through_a_linked_export(templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    other = _elsewhere(tmp_path)
    out = ws.directory("site")
    (out / "trials.csv").symlink_to(other / "deep" / "data.csv")
    _unchanged(tmp_path, ["report", str(ws.run()), "--out", str(out / "report.html")], "symbolic link")


@pytest.mark.parametrize("name", ["responses.jsonl", "manifest.json", ".lock"])
def test_resume_never_writes_through_a_linked_run_file(name: str, templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    run = ws.run()
    other = tmp_path / "elsewhere"
    other.mkdir()
    source = run / name
    kept = other / name
    if source.exists():
        shutil.move(source, kept)
    source.symlink_to(kept)
    argv = ["run", str(ws.dataset()), "--config", "B,I", "--model", "mock/oracle", "--out", str(run), "--resume"]
    _unchanged(tmp_path, argv, str(source), "symbolic link")


def test_demo_again_never_deletes_a_users_file_in_a_run_folder(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    assert execute(Invocation(["demo", "--out", str(out)])).code == 0
    mine = out / "run-oracle" / "my-analysis.ipynb"
    mine.write_text("{}\n", encoding="utf-8")
    _unchanged(tmp_path, ["demo", "--out", str(out)], str(mine), "not a file sitbench wrote")


def test_demo_never_deletes_through_a_linked_run_folder(tmp_path: Path) -> None:
    other = _elsewhere(tmp_path)
    out = tmp_path / "demo"
    out.mkdir()
    (out / "run-collapse").symlink_to(other, target_is_directory=True)
    _unchanged(tmp_path, ["demo", "--out", str(out)], "symbolic link")


def test_a_rescore_resumed_never_deletes_a_users_file(templates: Templates, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", templates)
    again = ws.root / "again"
    assert execute(Invocation(["rescore", str(ws.run()), "--out", str(again)])).code == 0
    mine = again / "notes.md"
    mine.write_text("mine\n", encoding="utf-8")
    _unchanged(tmp_path, ["rescore", str(ws.run()), "--out", str(again), "--resume"], str(mine),
               "not a file sitbench wrote")
