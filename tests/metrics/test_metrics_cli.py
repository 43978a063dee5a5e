"""``sitbench metrics``: JSON shape, several runs, the table, one-line errors with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _metrics_builders import rec

from sitbench.cli import main
from sitbench.metrics import compute_metrics, load_scores, render_table

METRIC_KEYS = {
    "A_pos", "A_neg", "A_epi", "A_temp", "A_rel", "A_belief", "A_cf", "A_session",
    "macro_sit", "LAA", "IC_wrong", "IC_none", "FMR", "TL", "UEL", "n_attempted", "n_completed",
}


def write_run(directory: Path, records: list) -> Path:
    directory.mkdir(parents=True)
    (directory / "scores.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return directory


def sample_records() -> list:
    return [
        # Config B: A_pos = ((1 + 0)/2 + 1)/2 = 3/4; LAA over P1 = (1 + 0)/2.
        rec("L-1A", "A", True, partner=False), rec("L-1B", "A", False, partner=True),
        rec("L-2A", "A", True), rec("L-2B", "A", None),
        rec("L-1A", "B", False, false_memory=True), rec("L-2B", "B", True),
        # Config D: only category C, every trial valid.
        rec("L-1A", "C", True, config="D"), rec("L-1B", "C", True, config="D", unauthorized_epistemic=False),
    ]


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["metrics", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_single_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "r1", sample_records())
    code, out, _ = run_cli(capsys, str(run), "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["configs", "verifier_cards"]
    assert list(data["configs"]) == ["B", "D"]
    b = data["configs"]["B"]
    assert set(b) >= METRIC_KEYS
    # B: A: P1 (1 + 0)/2 = 1/2, P2 only L-2A completed... L-2B has a dropped A trial → P2 incomplete.
    assert b["A_pos"] == pytest.approx(0.5)
    assert b["counts"]["A"]["incomplete_pairs"].keys() == {"P2"}
    # B category: P1 L-1A 0, P2 L-2B 1 → 1/2.
    assert b["A_neg"] == pytest.approx(0.5)
    assert b["macro_sit"] is None
    assert b["LAA"] == pytest.approx(0.5)
    assert b["IC_wrong"] == pytest.approx(0.5)
    assert b["IC_none"] == 0.0
    assert b["FMR"] == pytest.approx(0.5)
    assert b["TL"] is None
    assert b["UEL"] is None
    assert (b["n_attempted"], b["n_completed"]) == (6, 5)
    d = data["configs"]["D"]
    assert d["A_epi"] == 1.0
    assert d["UEL"] == 0.0
    assert d["LAA"] is None


def test_json_several_runs_keyed_by_directory_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = write_run(tmp_path / "alpha", sample_records())
    second = write_run(tmp_path / "beta", [rec("L-1A", "A", False, config="G"), rec("L-1B", "A", True, config="G")])
    code, out, _ = run_cli(capsys, str(first), str(second), "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["runs"]
    assert list(data["runs"]) == ["alpha", "beta"]
    assert list(data["runs"]["alpha"]["configs"]) == ["B", "D"]
    assert data["runs"]["beta"]["configs"]["G"]["A_pos"] == pytest.approx(0.5)


def test_same_directory_names_fall_back_to_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = write_run(tmp_path / "a" / "run", sample_records())
    second = write_run(tmp_path / "b" / "run", sample_records())
    code, out, _ = run_cli(capsys, str(first), str(second), "--json")
    assert code == 0
    assert list(json.loads(out)["runs"]) == [str(first), str(second)]


def test_table_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "r1", sample_records())
    code, out, _ = run_cli(capsys, str(run))
    assert code == 0
    assert "Macro SIT" in out
    assert "completed/attempted" in out
    assert "50.0" in out  # B's A_pos
    assert "100.0" in out  # D's A_epi
    assert "—" in out
    assert "5/6" in out and "2/2" in out


def test_render_table_rows_and_cells(tmp_path: Path) -> None:
    metrics = compute_metrics(sample_records())
    table = render_table(metrics, title="r1")
    assert table.row_count == 2
    headers = [str(column.header) for column in table.columns]
    assert headers[0] == "Config" and headers[9] == "Macro SIT" and headers[-1] == "completed/attempted"
    cells = {str(column.header): list(column.cells) for column in table.columns}
    assert cells["Config"] == ["B", "D"]
    assert cells["A_pos"] == ["50.0", "—"]
    assert cells["LAA"] == ["50.0", "—"]
    assert cells["UEL"] == ["—", "0.0"]
    assert cells["completed/attempted"] == ["5/6", "2/2"]


def test_load_scores_round_trip(tmp_path: Path) -> None:
    records = sample_records()
    run = write_run(tmp_path / "r1", records)
    assert load_scores(run) == records


def test_malformed_json_line_exits_2_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "r1", sample_records()[:2])
    with (run / "scores.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    code, out, err = run_cli(capsys, str(run), "--json")
    assert code == 2
    assert out == ""
    assert "scores.jsonl line 3: malformed JSON" in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_invalid_record_exits_2_naming_line_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "r1", sample_records()[:1])
    bad = json.loads(sample_records()[0].model_dump_json())
    bad["status"] = "finished"
    with (run / "scores.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("\n" + json.dumps(bad) + "\n")
    code, _, err = run_cli(capsys, str(run))
    assert code == 2
    assert "scores.jsonl line 3: status" in err
    assert "'finished'" in err


def test_missing_scores_tells_the_user_to_score_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "r1").mkdir()
    code, _, err = run_cli(capsys, str(tmp_path / "r1"))
    assert code == 2
    assert "scores.jsonl: file not found" in err
    assert "sitbench score" in err


def test_missing_run_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, str(tmp_path / "nope"), "--json")
    assert code == 2
    assert "no such run directory" in err


def test_inconsistent_records_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = rec("L-1A", "A", True, trial="PR-99")
    run = write_run(tmp_path / "r1", [record, record])
    code, _, err = run_cli(capsys, str(run), "--json")
    assert code == 2
    assert "scores.jsonl line 2: field 'trial_id': 'B:PR-99' already on line 1" in err


def test_completed_trial_without_partner_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = sample_records()
    records[1] = records[1].model_copy(update={"partner": None})
    run = write_run(tmp_path / "r1", records)
    code, _, err = run_cli(capsys, str(run), "--json")
    assert code == 2
    assert "scores.jsonl line 2: field 'partner' is null" in err
    assert "sitbench rescore" in err


def test_cross_record_error_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moved = rec("L-1A", "A", True, trial="PR-98").model_copy(update={"pair_id": "P2"})
    run = write_run(tmp_path / "r1", [rec("L-1A", "B", True), moved])
    code, _, err = run_cli(capsys, str(run), "--json")
    assert code == 2
    assert "r1/scores.jsonl: trial 'B:PR-98': field 'pair_id'" in err
