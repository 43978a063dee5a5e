"""A trial the verifier could not read is never scored as a failure.

The LLM extractor reads through a real OpenAI-compatible HTTP server on 127.0.0.1 that answers 500 while it is
"down": `judge`, `score` and `rescore` record such trials as unscored with the reason, leave them out of every
figure, count them apart and exit 4; once the server answers, the same command (or `rescore --resume`) finishes
the job. Torn and missing trial records are attempted and not completed until `run --resume` repairs the run.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sitbench.cli import main
from sitbench.errors import EXIT_INCOMPLETE, ReadingUnavailable
from sitbench.metrics import run_metrics
from sitbench.runs import RunStore
from sitbench.verify import (
    EXTRACTORS,
    Extractor,
    Judge,
    RuleExtractor,
    close_extractor,
    extractor_names,
    load_judge,
)

_READING = {"acts": ["ABSTAIN"], "claims": [], "unmapped": [], "uncertainty": "not_knowing", "withheld": False,
            "engaged": True}


class _Reader:
    """An OpenAI-compatible chat server that answers 500 while ``down`` and a valid reading otherwise."""

    def __init__(self) -> None:
        self.down = True
        self.calls = 0
        reader = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                reader.calls += 1
                if reader.down:
                    body = json.dumps({"error": {"message": "upstream failure", "type": "server_error"}})
                    status = 500
                else:
                    body = json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": "reader",
                                       "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                           "role": "assistant", "content": json.dumps(_READING)}}],
                                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
                    status = 200
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[_Reader]:
    """The server, and ``--extractor flaky`` reading through it (transport retries off, to keep the test short)."""
    from sitbench.verify._llm import LLMExtractor

    server = _Reader()
    server.thread.start()
    monkeypatch.setenv("SITBENCH_CACHE_DIR", str(tmp_path / "cache"))
    EXTRACTORS.register("flaky", lambda _argument: LLMExtractor("openai/reader", base_url=server.base_url,
                                                                 max_retries=0))
    try:
        yield server
    finally:
        EXTRACTORS.unregister("flaky")
        server.server.shutdown()
        server.server.server_close()


@pytest.fixture
def run(pilot: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    assert main(["run", str(pilot), "--config", "B,I", "--model", "mock/oracle", "--out", str(out)]) == 0
    return out


def _statuses(run: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in RunStore(run).iter_scores():
        counts[record.status] = counts.get(record.status, 0) + 1
    return counts


def test_score_with_an_extractor_that_answers_500_leaves_every_trial_unscored(
        run: Path, reader: _Reader, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["score", str(run), "--extractor", "flaky"]) == EXIT_INCOMPLETE
    captured = capsys.readouterr()
    assert "unscored: 44 (extractor unavailable ×44)" in captured.out
    assert len(captured.err.splitlines()) == 1 and "never counted as failures" in captured.err
    assert f"sitbench score {run}" in captured.err and "Traceback" not in captured.err
    assert _statuses(run) == {"unscored": 44}
    record = next(RunStore(run).iter_scores())
    assert record.verdict is None and "llm_call_failed" in (record.unscored_reason or "")
    # Left out of every figure: nothing is completed, so no validity is defined (not 0).
    for config in run_metrics(run).values():
        assert (config.n_completed, config.n_attempted, config.n_unscored) == (0, 22, 22)
        assert config.A_neg is None and config.macro_sit is None and config.FMR is None
        assert config.unscored == {"extractor unavailable": 22}
    capsys.readouterr()
    assert main(["metrics", str(run)]) == 0
    assert "22 of 22 trials unscored (extractor unavailable ×22)" in capsys.readouterr().out
    page = run / "report.html"
    assert main(["report", str(run), "--out", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "22 of 22 trials unscored" in html and f"sitbench score {run}" in html
    assert main(["observe", str(run), "--extractor", "flaky"]) == EXIT_INCOMPLETE
    assert "44 trials not read" in capsys.readouterr().err

    # The server answers again: the same commands finish the job.
    reader.down = False
    assert main(["score", str(run), "--extractor", "flaky"]) == 0
    assert _statuses(run) == {"completed": 44}
    assert main(["observe", str(run), "--extractor", "flaky"]) == 0


def test_a_partial_outage_changes_no_figure_of_what_was_read(run: Path, reader: _Reader) -> None:
    """Unscored trials are left out, never zeroed: a half-read run has exactly the figures it would have if the
    unread trials had been dropped (attempted, not completed; a pair left without a lineage's trials is incomplete,
    never reweighted)."""
    from sitbench.metrics import compute_metrics
    from sitbench.verify._llm import LLMExtractor

    reader.down = False
    assert main(["score", str(run), "--extractor", "flaky"]) == 0
    whole = list(RunStore(run).iter_scores())
    calls = {"n": 0}

    class HalfDown(LLMExtractor):
        def extract(self, response: str, envelope: Any, vocabulary: Any) -> Any:
            calls["n"] += 1
            if calls["n"] % 2:
                raise ReadingUnavailable("extractor unavailable: every other call fails")
            return super().extract(response, envelope, vocabulary)

    EXTRACTORS.unregister("flaky")
    EXTRACTORS.register("flaky", lambda _argument: HalfDown("openai/reader", base_url=reader.base_url, max_retries=0))
    assert main(["score", str(run), "--extractor", "flaky"]) == EXIT_INCOMPLETE
    read = {r.trial_id for r in RunStore(run).iter_scores() if r.status == "completed"}
    assert 0 < len(read) < 44
    unread = {"status": "dropped", "observation": None, "verdict": None, "partner": None}
    expected = compute_metrics(r if r.trial_id in read else r.model_copy(update=unread) for r in whole)
    for config, metrics in run_metrics(run).items():
        assert metrics.n_completed + metrics.n_unscored == metrics.n_attempted == 22
        assert metrics.model_dump(exclude={"n_unscored", "unscored"}) == \
            expected[config].model_dump(exclude={"n_unscored", "unscored"})


def test_judge_and_rescore_leave_unread_responses_unscored_and_resume_finishes(
        run: Path, reader: _Reader, pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(run)]) == 0
    capsys.readouterr()
    assert main(["judge", str(pilot), "--probe", "PR-01", "--response", "No.", "--extractor", "flaky"]) \
        == EXIT_INCOMPLETE
    err = capsys.readouterr().err
    assert err.startswith("error: extractor unavailable") and len(err.splitlines()) == 1
    batch = tmp_path / "batch.jsonl"
    batch.write_text('{"probe": "PR-01", "response": "No."}\n{"probe": "PR-02", "response": "Yes."}\n')
    assert main(["judge", str(pilot), "--batch", str(batch), "--extractor", "flaky", "--json"]) == EXIT_INCOMPLETE
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["valid"] for line in lines] == [None, None] and all(line["unscored"] for line in lines)
    assert captured.err.startswith("2 judged: 0 valid, 0 invalid, 2 unscored;")

    out = tmp_path / "rescored"
    assert main(["rescore", str(run), "--out", str(out), "--extractor", "flaky"]) == EXIT_INCOMPLETE
    err = capsys.readouterr().err
    assert "--resume" in err and "unscored: 44" in err
    assert _statuses(out) == {"unscored": 44}
    assert main(["rescore", str(run), "--out", str(out), "--extractor", "flaky"]) == 2  # OUT holds files
    reader.down = False
    assert main(["rescore", str(run), "--out", str(out), "--extractor", "flaky", "--resume"]) == 0
    assert _statuses(out) == {"completed": 44}
    assert not list(tmp_path.glob(".rescored.rescore-*")), "no staging folder is left behind"
    other = tmp_path / "other"
    shutil.copytree(run, other)
    assert main(["rescore", str(run), "--out", str(other), "--resume"]) == 2  # not a rescore of RUN


def test_a_killed_rescore_leaves_out_as_it_was_and_can_be_run_again(
        run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.runs import _rescore

    assert main(["score", str(run)]) == 0
    out = tmp_path / "rescored"

    def killed(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt  # the process is stopped mid-rescore

    monkeypatch.setattr(_rescore.RunStore, "write_scores", killed)
    with pytest.raises(KeyboardInterrupt):
        _rescore.rescore_run(run, out)
    monkeypatch.undo()
    assert not out.exists(), "a killed rescore never leaves a half-written OUT"
    assert main(["rescore", str(run), "--out", str(out)]) == 0
    assert (out / "scores.jsonl").read_bytes() == (run / "scores.jsonl").read_bytes()


def test_a_torn_trial_is_attempted_and_not_completed_until_the_run_is_resumed(
        run: Path, pilot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    responses = run / "responses.jsonl"
    lines = responses.read_bytes().splitlines(keepends=True)
    last = lines[-1]
    responses.write_bytes(b"".join(lines[:-1]) + last[: len(last) // 2])  # killed mid-write of the last trial
    trial_id = json.loads(last)["trial_id"]
    capsys.readouterr()
    assert main(["score", str(run)]) == EXIT_INCOMPLETE
    captured = capsys.readouterr()
    assert "scored 43 trials, unscored: 1 (torn ×1)" in captured.out
    assert "--resume" in captured.err and len(captured.err.splitlines()) == 1
    torn = [r for r in RunStore(run).iter_scores() if r.status == "unscored"]
    assert [r.trial_id for r in torn] == [trial_id] and (torn[0].unscored_reason or "").startswith("torn")
    config = run_metrics(run)[trial_id.split(":")[0]]
    assert (config.n_completed, config.n_attempted, config.n_unscored) == (21, 22, 1)
    capsys.readouterr()
    assert main(["metrics", str(run)]) == 0
    assert "1 of 22 trials unscored (torn ×1)" in capsys.readouterr().out

    assert main(["run", str(pilot), "--config", "B,I", "--model", "mock/oracle", "--out", str(run), "--resume"]) == 0
    assert main(["score", str(run)]) == 0
    assert _statuses(run) == {"completed": 44}


def test_trials_a_stopped_run_never_reached_are_attempted_and_not_completed(run: Path) -> None:
    responses = run / "responses.jsonl"
    lines = responses.read_bytes().splitlines(keepends=True)
    responses.write_bytes(b"".join(lines[:40]))
    assert main(["score", str(run)]) == EXIT_INCOMPLETE
    reasons = [r.unscored_reason for r in RunStore(run).iter_scores() if r.status == "unscored"]
    assert len(reasons) == 4 and all((r or "").startswith("not run") for r in reasons)
    assert sum(m.n_attempted for m in run_metrics(run).values()) == 44


class _Unavailable:
    """An extractor whose reader is down: what every extractor must do when it cannot read a response."""

    id = "down"
    version = "down/1"

    def extract(self, response: str, envelope: Any, vocabulary: Any) -> Any:
        raise ReadingUnavailable("extractor unavailable: down")


def _failing(name: str, tmp_path: Path, reader_url: str) -> Extractor | None:
    """Each registered extractor, made unable to read; None for one that never depends on anything to read."""
    from sitbench.verify._llm import LLMExtractor

    if name == "llm":
        return LLMExtractor("openai/reader", base_url=reader_url, max_retries=0, cache=False)
    if name == "rules":
        return None
    return _Unavailable()


@pytest.mark.parametrize("name", [n for n in extractor_names() if n != "flaky"])
def test_every_extractor_that_cannot_read_leaves_the_trial_unscored(
        name: str, reader: _Reader, pilot: Path, tmp_path: Path) -> None:
    from sitbench.runs import score_trials
    from sitbench.stores import load_dataset

    ds = load_dataset(pilot)
    out = tmp_path / "r"
    assert main(["run", str(pilot), "--config", "B", "--model", "mock/oracle", "--out", str(out)]) == 0
    trials = RunStore(out).trials()
    extractor = _failing(name, tmp_path, reader.base_url)
    if extractor is None:
        # The rule extractor reads offline and deterministically: it reads anything, so it is never unavailable.
        judge: Judge = load_judge(pilot, extractor=RuleExtractor())
        for text in ["", "\x00" * 50, "é" * 5000, "I " * 20000, "\ud800 broken"]:
            judge.judge("PR-01", text)
        return
    try:
        records = score_trials(ds, trials, extractor)
    finally:
        close_extractor(extractor)
    assert {r.status for r in records} == {"unscored"} and all(r.verdict is None for r in records)
    assert all((r.unscored_reason or "").startswith("extractor unavailable") for r in records)
