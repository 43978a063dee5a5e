"""``sitbench chi`` commands: outputs and one-line errors with exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sitbench.cli import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def write(tmp_path: Path, name: str, data: Any) -> str:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(p)


def flat(q: float) -> dict[str, float]:
    return {"r": q, "t": q, "s": q, "u": q, "i": q, "f": round(1 - q, 10)}


def test_eimc_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    curve = {"grid": [100, 300, 1000], "points": {"100": flat(0.95), "300": flat(0.85), "1000": flat(0.75)}, "tau": 0.8}
    code, out, _ = run(["chi", "eimc", write(tmp_path, "c.json", curve), "--json"], capsys)
    assert code == 0
    res = json.loads(out)
    assert res["q_m"] == pytest.approx({"100": 0.95, "300": 0.85, "1000": 0.75})
    assert res["eimc"] == 300 and res["status"] == "observed"
    assert res["nonmonotone"] is False and res["sustained_prefix_eimc"] == 300
    assert res["sensitivity"] == {"0.7": 1000, "0.8": 300, "0.9": 100}


def test_eimc_accepts_counts_and_f_parts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    point = {"r": {"correct": 36, "total": 40}, "t": 0.9, "s": 0.9, "u": 0.9, "i": 0.9, "f": {"unsupported": 3, "invalid": 1, "total": 40}}
    curve = {"grid": [1, 2], "points": {"1": point, "2": {**flat(0.5), "t": None}}}
    code, out, _ = run(["chi", "eimc", write(tmp_path, "c.json", curve), "--json"], capsys)
    assert code == 0
    res = json.loads(out)
    assert res["q_m"]["1"] == pytest.approx(0.9) and res["q_m"]["2"] is None
    assert res["factors"]["1"]["f_raw"] == pytest.approx(0.075) and res["factors"]["1"]["invalid_lure_rate"] == pytest.approx(0.025)
    assert res["factors"]["1"]["counts"]["r"] == {"correct": 36, "total": 40}
    assert res["eimc"] == 1 and res["status"] == "lower_bound/right_censored" and res["untested"] == [2]


def test_eimc_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    curve = {"grid": [1], "points": {"1": flat(0.5)}}
    code, out, _ = run(["chi", "eimc", write(tmp_path, "c.json", curve)], capsys)
    assert code == 0 and "no_passing_tested_load" in out and "EIMC(tau=0.8): None" in out


@pytest.mark.parametrize(
    "curve, needle",
    [
        ('{"grid": [1], "points": {"1": {"r": NaN, "t": 1, "s": 1, "u": 1, "i": 1, "f": 0}}}', "nonfinite"),
        ({"grid": [1], "points": {"1": {**flat(0.9), "r": 1.5}}}, "field 'points.1.r'"),
        ({"grid": [1], "points": {"1": {k: v for k, v in flat(0.9).items() if k != "s"}}}, "field 'points.1.s': required"),
        ({"grid": [2, 1], "points": {}}, "field 'grid'"),
        ({"grid": [1], "points": {"1": flat(0.9)}, "tau": 0}, "field 'tau'"),
        ({"grid": [1], "points": {"1": flat(0.9)}, "alpha": {"r": 1}}, "field 'alpha'"),
        ({"grid": [1], "points": {"1": {**flat(0.9), "f": {"unsupported": 30, "invalid": 20, "total": 40}}}}, "mutually exclusive"),
        ({"points": {}}, "field 'grid': required"),
    ],
)
def test_eimc_invalid_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], curve: Any, needle: str) -> None:
    path = write(tmp_path, "c.json", curve)
    code, _, err = run(["chi", "eimc", path, "--json"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and needle in err and "c.json" in err


def test_similarity_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    axes = {
        "R": {"h": 1.0}, "M": {"z": [1.0, 2.0], "mu": [0.0, 0.0], "s": [1.0, 2.0]},
        "C": {"h": 1.0}, "A": {"h": 1.0}, "I": {"h": 1.0}, "scale_floor": 0.5,
    }
    code, out, _ = run(["chi", "similarity", write(tmp_path, "a.json", axes), "--json"], capsys)
    assert code == 0
    res = json.loads(out)
    assert res["h"]["M"] == pytest.approx(0.6065306597126334)
    # 100 * exp(-0.5)^(1/5) = 100 * exp(-0.1)
    assert res["chi"] == pytest.approx(90.48374180359595)


def test_similarity_missing_axis_gives_null_and_zero_axis_gives_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["chi", "similarity", write(tmp_path, "a.json", {"axes": {"R": {"h": 0.5}, "M": {"h": 0.5}}}), "--json"], capsys)
    assert code == 0 and json.loads(out)["chi"] is None
    zero = {a: {"h": 1.0} for a in "RMCA"} | {"I": {"h": 0.0}}
    code, out, _ = run(["chi", "similarity", write(tmp_path, "b.json", zero), "--json"], capsys)
    assert code == 0 and json.loads(out)["chi"] == 0.0
    code, out, _ = run(["chi", "similarity", write(tmp_path, "c.json", zero | {"weights": {"R": 0.1, "M": 0.1, "C": 0.1, "A": 0.1, "I": 0.6}}), "--json"], capsys)
    assert code == 0 and json.loads(out)["chi"] == 0.0


@pytest.mark.parametrize(
    "axes, needle",
    [
        ({"R": {"z": [0.1], "mu": [0.1], "s": [0.2]}}, "scale floor must be declared"),
        ({"R": {"z": [0.1], "mu": [0.1], "s": [0.0]}, "scale_floor": 0.01}, "field 'R.s[0]'"),
        ({"R": {"h": 1.3}}, "field 'h.R'"),
        ({"X": {"h": 1.0}}, "unknown axis"),
        ({"R": {"h": 1.0}, "weights": {"R": 1.0}}, "field 'weights'"),
    ],
)
def test_similarity_invalid_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], axes: Any, needle: str) -> None:
    code, _, err = run(["chi", "similarity", write(tmp_path, "a.json", axes), "--json"], capsys)
    assert code == 2 and err.count("\n") == 1 and needle in err


def test_demo_then_score_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["chi", "demo", "--out", str(tmp_path / "d")], capsys)
    assert code == 0 and out.startswith("== SYNTHETIC DEMONSTRATION")
    # Synthetic records carry generated wall times: none is printed as a duration; the command's own time is measured.
    assert not re.search(r"wall \d", out) and out.count("wall time: none (synthetic records") == 5
    took = re.search(r"demo took (\d+\.\d) s \(measured wall time of this command", out)
    assert took is not None and float(took.group(1)) < 60
    obs, man = tmp_path / "d" / "observations.jsonl", tmp_path / "d" / "manifest.json"
    code, out, _ = run(["chi", "score", str(obs), "--manifest", str(man), "--json"], capsys)
    assert code == 0
    rep = json.loads(out)
    assert rep["evidence_class"] == "synthetic-demonstration" and rep["n_clusters"] == 8
    assert len(rep["checkpoints"]) == 5
    # the same data relabelled as capacity-only is refused
    data = json.loads(man.read_text(encoding="utf-8")) | {"evidence_class": "capacity-only"}
    man.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run(["chi", "score", str(obs), "--manifest", str(man)], capsys)
    assert code == 2 and "synthetic data cannot be reported as capacity-only" in err and err.count("\n") == 1


def test_score_missing_field_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(["chi", "demo", "--out", str(tmp_path / "d")], capsys)
    obs = tmp_path / "d" / "observations.jsonl"
    lines = obs.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[1])
    del rec["state_hash"]
    lines[1] = json.dumps(rec)
    obs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(["chi", "score", str(obs), "--manifest", str(tmp_path / "d" / "manifest.json")], capsys)
    assert code == 2 and "line 2: field 'state_hash': required field is missing" in err


def test_help_texts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["chi", "--help"], capsys)
    assert code == 0 and "eimc" in out and "similarity" in out and "score" in out and "demo" in out


def test_cross_record_errors_name_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(["chi", "demo", "--out", str(tmp_path / "d")], capsys)
    obs = tmp_path / "d" / "observations.jsonl"
    lines = obs.read_text(encoding="utf-8").splitlines()
    lines.insert(1, "")
    lines.append(lines[0])  # duplicate (run, step) on line 42
    obs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(["chi", "score", str(obs), "--manifest", str(tmp_path / "d" / "manifest.json")], capsys)
    assert code == 2 and "observations.jsonl line 42: field 'step': duplicate" in err
