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


def test_a_record_without_format_version_reads_and_a_newer_one_names_what_to_install(tmp_path: Path) -> None:
    assert FORMAT_VERSION == 3
    assert ScoreRecord.model_validate(_SCORE | {"format_version": 1}).format_version == 1
    assert ScoreRecord.model_validate(_SCORE | {"format_version": 2}).second is None
    assert ScoreRecord.model_validate(_SCORE).status == "completed"
    _write(tmp_path / SCORES_FILE, [_score(), _score(trial_id="B:P2", probe_id="P2", format_version=4)])
    with pytest.raises(InputError) as caught:
        list(RunStore(tmp_path).iter_scores())
    message = str(caught.value)
    assert f"{tmp_path / SCORES_FILE} line 2" in message
    assert "format_version 4 is newer" in message and "pip install --upgrade sitbench" in message


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


def test_summary_reads_the_second_readers_verdicts(tmp_path: Path) -> None:
    second = {"extractor": "llm@x", "verdict": {"valid": False, "checks": {"act": {"passed": False, "reason": "r"}},
                                                "verifier_version": "v", "extractor": "llm@x"},
              "partner": None, "false_memory": True}
    _write(tmp_path / SCORES_FILE, [_score(agreement="contested", contested_checks=["act"], second=second)])
    store = RunStore(tmp_path)
    (full,), (summary,) = list(store.iter_scores()), list(store.iter_scores(summary=True))
    assert summary.second is not None and full.second is not None
    assert (summary.second.verdict.valid, summary.second.false_memory) == (False, True)
    assert summary.second.verdict.checks == {} and summary.second.observation is None
    assert compute_metrics([summary]) == compute_metrics([full])


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


def _naive_index(data: bytes) -> tuple[list[tuple[int, int, int]], int]:
    """The index as a line-by-line reading finds it: standing line of each trial id, and the torn tail."""
    latest: dict[str, tuple[int, int, int]] = {}
    offset = 0
    for number, raw in enumerate(data.splitlines(keepends=True), start=1):
        here, offset = offset, offset + len(raw)
        if not raw.endswith(b"\n"):
            return list(latest.values()), len(raw)
        if raw.strip():
            key = json.loads(raw)["trial_id"] if raw.startswith(b"{") else f"bad {number}"
            latest[key] = (number, here, len(raw))
    return list(latest.values()), 0


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 22])
def test_the_block_reading_index_matches_a_line_by_line_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  block: int) -> None:
    # Lines shorter and longer than a block, blank lines, a trial written twice (the later line stands),
    # lines ending exactly at a block's end, and a torn last line.
    from sitbench.runs import _store

    monkeypatch.setattr(_store, "_SCAN_BLOCK", block)
    def line(n: int, model: str, separators: tuple[str, str] = (",", ":")) -> bytes:
        record = {"trial_id": f"B:P{n}", "config": "B", "probe_id": f"P{n}", "model": model, "status": "completed"}
        return json.dumps(record, separators=separators).encode() + b"\n"

    lines = [line(n, "m" * (n * 13 % 150)) for n in range(40)]
    lines.insert(5, b"\n")
    lines.insert(9, b"  \t\n")
    lines.insert(12, line(77, "spaced", (", ", ": ")))  # no compact prefix: the id is read from the JSON
    lines.append(line(3, "again"))
    for torn in (b"", b'{"trial_id":"B:P99","cut'):
        data = b"".join(lines) + torn
        (tmp_path / "responses.jsonl").write_bytes(data)
        store = RunStore(tmp_path)
        index, torn_bytes = _naive_index(data)
        assert store._trial_index(False) == index
        assert store.torn_bytes == torn_bytes == len(torn)
        assert store.superseded == 1
