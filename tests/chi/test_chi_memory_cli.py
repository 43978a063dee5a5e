"""``sitbench chi memory``: generate, run (into the kit's files), sweep, report, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitbench.cli import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_generate_writes_items_probes_and_the_generator_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["chi", "memory", "generate", "--panel", "m3,m8", "--grid", "100", "--seed", "2",
                        "--no-tokens", "--out", str(tmp_path)], capsys)
    assert code == 0 and "M3" in out and "N=100" in out
    probes = [json.loads(x) for x in (tmp_path / "m8" / "probes.jsonl").read_text().splitlines()]
    assert len([p for p in probes if p["arm"] == "N=100"]) == 240
    rep = json.loads((tmp_path / "m8" / "generator.json").read_text())
    assert rep["arms"]["N=100"]["stored_objects"] == 240 and len(rep["generator_sha256"]) == 64


def test_run_writes_kit_files_that_chi_score_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "run"
    code, out, _ = run(["chi", "memory", "run", "--panel", "m8", "--agent", "versioned", "--model", "mock/memory-reader",
                        "--seed", "4", "--trajectories", "2", "--grid", "100,300", "--out", str(out_dir)], capsys)
    assert code == 0
    assert "MACHINE BASELINE, no human calibration" in out and "lower_bound/right_censored" in out
    for name in ("manifest.json", "observations.jsonl", "probes.jsonl", "generator.json", "report.json",
                 "memory.json", "report.txt"):
        assert (out_dir / name).is_file(), name
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert manifest["evidence_class"] == "capacity-only" and manifest["calibration_id"] is None
    assert manifest["load_grid"] == [100, 300] and manifest["memory_mechanism"] == "persistent"
    assert manifest["system"]["budgets_fixed_before_run"]["condition"] == "equal-budget"
    code, out, _ = run(["chi", "score", str(out_dir / "observations.jsonl"), "--manifest", str(out_dir / "manifest.json"),
                        "--json"], capsys)
    assert code == 0
    rep = json.loads(out)
    mem = rep["checkpoints"][0]["memory"]
    assert mem["status"] == "lower_bound/right_censored" and mem["eimc"] == 300
    assert mem["sustained_prefix_eimc"] == 300 and set(mem["sensitivity"]) == {"0.7", "0.8", "0.9"}
    assert rep["checkpoints"][0]["chi_of_mean_h"]["estimate"] is None  # no calibration: CHI null
    probes = [json.loads(x) for x in (out_dir / "probes.jsonl").read_text().splitlines()]
    assert {p["phase"] for p in probes} == {"probe", "pre_exposure"}
    assert all(p["reply"] is not None for p in probes)


def test_sweep_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["chi", "memory", "sweep", "--panel", "m8", "--agents", "rag,versioned", "--conditions",
                          "equal-budget", "--model", "mock/memory-reader", "--trajectories", "2", "--grid", "100,300",
                          "--no-clean-pair", "--out", str(tmp_path / "sw")], capsys)
    assert code == 0 and "versioned" in out and "rag" in out
    lines = err.splitlines()
    # The plan comes first, before any run: 2 runs x 2 trajectories of (240 + 720) turns and 480 + 20 probes.
    assert lines[0].startswith("plan: 2 runs x 2 trajectories, 960 history turns and 500 probes per trajectory: "
                               "5,840 agent calls; at the reference rate")
    assert any("1/2 runs done in" in x and "left (measured:" in x for x in lines)
    assert any("2/2 runs done in" in x and "about 0 s left" in x for x in lines)
    html = (tmp_path / "sw" / "report.html").read_text()
    assert "<svg" in html and "no human calibration" in html and "Q_M (equal-budget)" in html
    code, out, _ = run(["chi", "memory", "report", str(tmp_path / "sw" / "rag-equal-budget"),
                        str(tmp_path / "sw" / "versioned-equal-budget"), "--out", str(tmp_path / "r.html")], capsys)
    assert code == 0 and (tmp_path / "r.html").is_file()


@pytest.mark.parametrize("args,needle", [
    (["run", "--panel", "m9", "--agent", "rag", "--model", "mock/memory-reader"], "--panel"),
    (["run", "--panel", "m8", "--agent", "nosuch", "--model", "mock/memory-reader"], "--agent"),
    (["run", "--panel", "m8", "--agent", "rag"], "--model"),
    (["run", "--panel", "m8", "--agent", "rag", "--model", "mock/memory-reader", "--grid", "50,100"], "--grid"),
    (["run", "--panel", "m8", "--agent", "rag", "--model", "mock/memory-reader", "--grid", "300,100"], "--grid"),
    (["generate", "--panel", "all,m1"], "--panel"),
    (["sweep", "--agents", "rag,nope", "--model", "mock/memory-reader", "--out", "x"], "--agents"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["chi", "memory", *args], capsys)
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0]
