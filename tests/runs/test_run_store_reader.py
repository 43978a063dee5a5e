"""RunStore is the one reader of a run directory: streaming reads, format versions, atomic score writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitbench.errors import InputError
from sitbench.metrics import compute_metrics, pair_balanced, run_metrics
from sitbench.runs import FORMAT_VERSION, SCORES_FILE, RunStore, ScoreRecord, TrialRecord

_SCORE = {"trial_id": "B:P1", "config": "B", "probe_id": "P1", "lineage_id": "L1", "pair_id": "K1",
          "category": "A", "capability": "generation", "status": "completed",
          "verdict": {"valid": True, "checks": {}, "verifier_version": "v"}}


def _score(**fields: object) -> dict[str, object]:
    return {**_SCORE, **fields}


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def test_a_record_without_format_version_is_version_1_and_a_newer_one_names_what_to_install(tmp_path: Path) -> None:
    assert FORMAT_VERSION == 1
    assert ScoreRecord.model_validate(_SCORE).format_version == 1
    _write(tmp_path / SCORES_FILE, [_score(), _score(trial_id="B:P2", probe_id="P2", format_version=2)])
    with pytest.raises(InputError) as caught:
        list(RunStore(tmp_path).iter_scores())
    message = str(caught.value)
    assert f"{tmp_path / SCORES_FILE} line 2" in message
    assert "format_version 2 is newer" in message and "pip install --upgrade sitbench" in message


def test_a_newer_manifest_names_the_sitbench_that_wrote_it(tmp_path: Path) -> None:
    from sitbench.runs import RunManifest

    with pytest.raises(ValueError, match=r"install sitbench 9\.1\.0, which wrote it"):
        RunManifest.model_validate({"run_id": "r", "created_at": "t", "package_version": "9.1.0", "dataset": {},
                                    "configs": ["B"], "candidate": {}, "decoding": {}, "templates_sha256": "x",
                                    "format_version": 7})


def test_summary_reads_the_same_labels_and_validity_as_the_full_record(tmp_path: Path) -> None:
    rows = [_score(), _score(trial_id="B:P2", probe_id="P2", lineage_id="L2",
                             verdict={"valid": False, "checks": {}, "verifier_version": "v"})]
    _write(tmp_path / SCORES_FILE, rows)
    store = RunStore(tmp_path)
    full, summary = list(store.iter_scores()), list(store.iter_scores(summary=True))
    assert [r.verdict.valid for r in summary if r.verdict] == [True, False]
    assert [r.model_dump(exclude={"observation", "verdict"}) for r in summary] == \
        [r.model_dump(exclude={"observation", "verdict"}) for r in full]
    assert compute_metrics(iter(summary)) == compute_metrics(full) == run_metrics(tmp_path)


def test_iter_scores_names_the_line_of_a_duplicate(tmp_path: Path) -> None:
    _write(tmp_path / SCORES_FILE, [_score(), _score(), _score()])
    with pytest.raises(InputError, match=r"line 2: field 'trial_id': 'B:P1' already on line 1"):
        list(RunStore(tmp_path).iter_scores())


def test_write_scores_takes_an_iterator_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    records = (ScoreRecord.model_validate(_score(trial_id=f"B:P{i}", probe_id=f"P{i}")) for i in range(5))
    assert store.write_scores(records) == 5
    assert [p.name for p in tmp_path.iterdir()] == [SCORES_FILE]
    assert [r.trial_id for r in store.iter_scores()] == [f"B:P{i}" for i in range(5)]


def _trial(trial_id: str, status: str = "completed") -> TrialRecord:
    return TrialRecord(trial_id=trial_id, config="B", probe_id=trial_id[2:], model="m", status=status)  # type: ignore[arg-type]


def test_iter_trials_keeps_the_later_line_of_a_trial_in_first_order_and_reports_a_torn_line(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    for record in (_trial("B:P1", "dropped"), _trial("B:P2"), _trial("B:P1")):
        store.append_trial(record)
    with store.responses_path.open("ab") as handle:
        handle.write(b'{"trial_id":"B:P3","con')
    trials = store.iter_trials()
    assert (store.superseded, store.torn_bytes) == (1, 23)  # known before the first record is read
    assert [(t.trial_id, t.status) for t in trials] == [("B:P1", "completed"), ("B:P2", "completed")]
    assert store.rewrite_trials({"B:P2": 0, "B:P1": 1}.__getitem__)
    assert [t.trial_id for t in store.iter_trials()] == ["B:P2", "B:P1"] and store.superseded == 0


def test_pair_balanced_mean_is_the_exact_mean_of_non_integral_values() -> None:
    values = [0.1] * 10 + [0.7, 1e-17]
    result = pair_balanced([("k", "a", None, v) for v in values] + [("k", "b", None, 0.3)])
    import math

    assert result.per_lineage["k"]["a"] == math.fsum(values) / len(values)


def test_a_damaged_line_is_reported_even_when_a_later_line_replaces_its_trial(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.append_trial(_trial("B:P1", "dropped"))
    with store.responses_path.open("ab") as handle:
        handle.write(b'{"trial_id":"B:P1","config":"B",oops}\n')
    store.append_trial(_trial("B:P1"))
    with pytest.raises(InputError, match=r"responses\.jsonl line 2: malformed JSON"):
        store.iter_trials()
