"""``sitbench stats``: JSON output, readable tables, one-line input errors."""

from __future__ import annotations

import json

import pytest

from sitbench.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["stats", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_signflip_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "signflip", "--diffs", "-0.1,0.2,0.3,0.25", "--json")
    assert code == 0
    data = json.loads(out)
    # Signed sums of (0.1, 0.2, 0.3, 0.25) reaching |0.65|: ±0.85 and ±0.65 → 4 of 16.
    assert data["p"] == 0.25
    assert data["n_assignments"] == 16
    assert data["method"] == "exact"
    assert data["statistic"] == pytest.approx(0.1625)


def test_signflip_monte_carlo_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "signflip", "--diffs", "1,1,1", "--max-exact", "0", "--draws", "999", "--seed", "4", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["method"] == "monte_carlo"
    assert data["seed"] == 4
    assert data["n_assignments"] == 999


def test_holm_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "holm", "--p", "0.01,0.04,0.03,0.2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["adjusted"] == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert data["reject"] == [True, False, False, False]
    code, out, _ = run(capsys, "holm", "--p", "0.01,0.04", "--alpha", "0.1")
    assert code == 0
    assert "adjusted" in out and "yes" in out


def test_bootstrap_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bootstrap", "--diffs", "0.2,0.1,0.5,-0.1", "--seed", "3", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["seed"] == 3 and data["n_resamples"] == 1000
    assert data["estimate"] == pytest.approx(0.175)
    assert data["lower"] <= data["estimate"] <= data["upper"]
    code, out, _ = run(capsys, "bootstrap", "--diffs", "0.3,0.3,0.3", "--seed", "3")
    assert code == 0
    assert "degenerate" in out and "YES" in out


def test_experiments_listing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "experiments", "--json")
    assert code == 0
    assert [e["id"] for e in json.loads(out)] == [f"E{i}" for i in range(1, 9)]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["signflip", "--diffs", "0.1,abc"], "--diffs '0.1,abc': 'abc' is not a number"),
        (["signflip", "--diffs", ""], "--diffs"),
        (["signflip", "--diffs", "0.1,,0.2"], "empty value"),
        (["signflip", "--diffs", "0.1,nan"], "not finite"),
        (["holm", "--p", "0.01,1.4"], "--p '0.01,1.4': 1.4 is outside [0, 1]"),
        (["holm", "--p", "0.01", "--alpha", "2"], "--alpha"),
        (["bootstrap", "--diffs", "x", "--seed", "1"], "--diffs 'x'"),
        (["bootstrap", "--diffs", "0.1,0.2", "--seed", "1", "--ci", "1.5"], "--ci"),
    ],
)
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], args: list[str], fragment: str) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert fragment in err
    assert err.count("\n") == 1 and "Traceback" not in err

