"""One set of numbers: Inspect's metrics are `sitbench metrics` for the same responses, and a log
imported with `sitbench import-inspect` scores to the verdicts the scorer gave inside Inspect."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason='needs Inspect: pip install -e ".[inspect]" (or ".[dev]")')

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_support import (
    comparable,
    inspect_metrics,
    read_jsonl,
    run_sit,
    score_records_of,
    sitbench_metric_values,
    trials_of,
)

from sitbench.cli import main
from sitbench.cli._runs import execute_run, score_run
from sitbench.integrations.inspect_ai import mock_outputs
from sitbench.metrics import compute_metrics, load_scores
from sitbench.runs import RunManifest, RunStore, reporting_gaps

# Profile only (B), retrieval (E), sessions (H) and oracle evidence (I); all nine: benchmarks/inspect_eval.py.
CONFIGS = "B,E,H,I"


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("logs")


@pytest.fixture(scope="module")
def oracle_log(pilot: Path, log_dir: Path) -> EvalLog:
    # The pilot under four configurations, answered by sitbench's mock oracle as an Inspect model.
    return run_sit(pilot, CONFIGS, "sitbench/mock/oracle", log_dir)


@pytest.fixture(scope="module")
def oracle_run(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "oracle"
    execute_run(pilot, "mock/oracle", out, CONFIGS)
    score_run(out)
    return out


@pytest.fixture(scope="module")
def imported(oracle_log: EvalLog, pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("imported") / "run"
    assert main(["import-inspect", oracle_log.location, "--dataset", str(pilot), "--out", str(out)]) == 0
    assert main(["score", str(out)]) == 0
    return out


def test_inspect_metrics_equal_sitbench_metrics_on_the_same_responses(oracle_log: EvalLog, oracle_run: Path) -> None:
    ours = inspect_metrics(oracle_log)
    # (1) The metrics recomputed by sitbench from the very score records the scorer wrote.
    from_log = sitbench_metric_values(compute_metrics(score_records_of(oracle_log).values()))
    assert ours == pytest.approx(from_log, abs=1e-12) and ours.keys() == from_log.keys()
    # (2) `sitbench run` + `score` + `metrics` with the same mock candidate: the same answers, the same numbers.
    assert comparable_trials(oracle_log, oracle_run)
    capsys_free = sitbench_metric_values(compute_metrics(load_scores(oracle_run)))
    assert ours == pytest.approx(capsys_free, abs=1e-12) and ours.keys() == capsys_free.keys()
    assert {key.split(":")[0] for key in ours} == set(CONFIGS.split(","))
    assert ours["I:macro_sit"] > ours["B:macro_sit"]  # the numbers say something


def comparable_trials(log: EvalLog, run: Path) -> bool:
    ours = trials_of(log)
    theirs = {t.trial_id: t for t in RunStore(run).trials()}
    return ours.keys() == theirs.keys() and all(comparable(ours[k]) == comparable(theirs[k]) for k in theirs)


def test_metrics_cli_on_the_imported_run_prints_inspect_numbers(imported: Path, oracle_log: EvalLog,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["metrics", str(imported), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["configs"]
    assert sitbench_metric_values(printed) == pytest.approx(inspect_metrics(oracle_log), abs=1e-12)


def test_import_then_score_gives_the_verdicts_of_the_scorer_inside_inspect(imported: Path,
                                                                           oracle_log: EvalLog) -> None:
    inside = score_records_of(oracle_log)
    scored = {r["trial_id"]: r for r in read_jsonl(imported / "scores.jsonl")}
    assert scored.keys() == inside.keys()
    for trial_id, record in inside.items():
        # The whole record: observation, the seven checks with reasons, partner verdict, flags.
        assert scored[trial_id] == record.model_dump(mode="json"), trial_id


def test_imported_run_is_a_complete_sitbench_run(imported: Path, oracle_log: EvalLog, oracle_run: Path) -> None:
    manifest = RunManifest.model_validate_json((imported / "manifest.json").read_text())
    assert reporting_gaps(manifest) == []
    assert manifest.configs == CONFIGS.split(",") and manifest.handler == "native"
    assert manifest.provider == "inspect/sitbench" and manifest.models_sent == ["sitbench/mock/oracle"]
    assert manifest.decoding.temperature == 0.0 and manifest.decoding.max_tokens == 512
    assert manifest.counts["attempted"] == manifest.counts["completed"] == 22 * 4
    assert manifest.extra["inspect"]["log"] == str(Path(oracle_log.location).resolve())
    assert manifest.retriever and manifest.retriever.get("model_id")  # E/F ran natively
    # responses.jsonl in sitbench's canonical order, each trial the one `sitbench run` wrote.
    imported_ids = [r["trial_id"] for r in read_jsonl(imported / "responses.jsonl")]
    assert imported_ids == [t.trial_id for t in RunStore(oracle_run).trials()]


def test_report_rescore_and_analyze_work_on_the_imported_run(imported: Path, tmp_path: Path) -> None:
    assert main(["rescore", str(imported), "--out", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "scores.jsonl").read_text() == (imported / "scores.jsonl").read_text()
    assert main(["report", str(imported), "--out", str(tmp_path / "report.html")]) == 0
    assert "sitbench/mock/oracle" in (tmp_path / "report.html").read_text()
    assert main(["analyze", str(imported), "--json", "--resamples", "200"]) == 0


def test_import_refuses_what_is_not_a_sitbench_log_of_this_dataset(oracle_log: EvalLog, pilot: Path,
                                                                   tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from inspect_ai import Task
    from inspect_ai.dataset import Sample

    [other] = inspect_eval(Task(dataset=[Sample(input="hi")]), display="none", log_dir=str(tmp_path / "logs"),
                           model=get_model("mockllm/model", custom_outputs=mock_outputs()))
    capsys.readouterr()
    assert main(["import-inspect", other.location, "--dataset", str(pilot), "--out", str(tmp_path / "a")]) == 2
    assert "not a log of the sitbench/sit task" in capsys.readouterr().err
    assert main(["import-inspect", str(tmp_path / "absent.eval"), "--dataset", str(pilot),
                 "--out", str(tmp_path / "b")]) == 2
    assert "no such log file" in capsys.readouterr().err
    (tmp_path / "junk.eval").write_text("not a log")
    assert main(["import-inspect", str(tmp_path / "junk.eval"), "--dataset", str(pilot),
                 "--out", str(tmp_path / "c")]) == 2
    assert "not a readable Inspect log" in capsys.readouterr().err
    # Another dataset (the same files, one edited and its manifest rewritten) is refused by hash.
    from sitbench.data import pilot_content, write_dataset

    content = pilot_content()
    elsewhere = tmp_path / "other-pilot"
    write_dataset(content, elsewhere)
    manifest = json.loads((elsewhere / "manifest.json").read_text())
    manifest["generator_version"] = str(manifest.get("generator_version")) + "-edited"
    (elsewhere / "manifest.json").write_text(json.dumps(manifest))
    assert main(["import-inspect", oracle_log.location, "--dataset", str(elsewhere),
                 "--out", str(tmp_path / "d")]) == 2
    assert "pass that dataset" in capsys.readouterr().err
    # An existing run is never overwritten.
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "manifest.json").write_text("{}")
    assert main(["import-inspect", oracle_log.location, "--dataset", str(pilot), "--out", str(tmp_path / "e")]) == 2
    assert "already holds a run" in capsys.readouterr().err


def test_samples_inspect_could_not_finish_are_dropped_trials(pilot: Path, tmp_path: Path) -> None:
    oracle = mock_outputs("mock/oracle")

    def flaky(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        if len(input) > 2:  # a schedule's third call
            raise RuntimeError("the provider is down")
        return oracle(input, tools, tool_choice, config)

    [log] = inspect_eval("sitbench/sit", task_args={"dataset": str(pilot), "config": "G"}, display="none",
                         model=get_model("mockllm/model", custom_outputs=flaky), log_dir=str(tmp_path / "logs"),
                         fail_on_error=False, retry_on_error=0)
    assert log.samples is not None
    errored = {s.metadata["sitbench"]["trial_id"] for s in log.samples if s.error is not None}
    assert "G:PR-21" in errored  # its third call (five messages) raised
    out = tmp_path / "run"
    assert main(["import-inspect", log.location, "--dataset", str(pilot), "--out", str(out)]) == 0
    assert main(["score", str(out)]) == 0
    trials = {r["trial_id"]: r for r in read_jsonl(out / "responses.jsonl")}
    assert len(trials) == 22
    assert {k for k, r in trials.items() if r["status"] == "dropped"} == errored
    assert all(trials[k]["drop_reason"].startswith("inspect error: RuntimeError") for k in errored)
    metrics = compute_metrics(load_scores(out))["G"]
    assert metrics.n_attempted == 22 and metrics.n_completed == 22 - len(errored)


def test_the_guard_is_in_place_and_tells_loopback_from_the_rest(_loopback_only: list[str]) -> None:
    # Checked without calling out: if the guard were missing, a call would leave the machine.
    from netguard import is_loopback as _is_loopback

    assert "_loopback_only" in socket.getaddrinfo.__qualname__
    assert "_loopback_only" in socket.socket.connect.__qualname__
    assert all(_is_loopback(h) for h in ("localhost", "127.0.0.1", "127.3.2.1", "::1", "[::1]", "", None, b"localhost"))
    assert not any(_is_loopback(h) for h in ("example.org", "10.0.0.1", "192.168.1.1", "8.8.8.8", "2001:db8::1",
                                             "openaipublic.blob.core.windows.net"))
    assert _loopback_only == []
    socket.getaddrinfo("localhost", 80)  # loopback resolves as usual
