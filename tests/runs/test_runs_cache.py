"""The SQLite response cache: keys, storage rules, concurrent writers, and its use by runs."""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from sitbench.candidates import (
    CachedCandidate,
    CandidateRequest,
    CandidateResponse,
    DecodingConfig,
    Message,
    ResponseCache,
    get_candidate,
    request_key,
)
from sitbench.cli import main
from sitbench.runs import Runner, RunOptions, RunStore

MESSAGES = [Message(role="system", content="be brief"), Message(role="user", content="where did you sail?")]
DESCRIBE = {"provider": "openai-compatible", "model": "m1", "base_url": "http://127.0.0.1:9/v1",
            "timeout_s": 60.0, "retry": {"max_retries": 4}, "api_key_env": "OPENAI_API_KEY"}


def _ok(text: str, model: str = "m1") -> CandidateResponse:
    return CandidateResponse(text=text, model_sent=model, provider="openai-compatible", retries=2, latency_s=1.5)


def test_key_is_sha256_of_the_canonical_request() -> None:
    decoding = DecodingConfig()
    expected_payload = {
        "candidate": {"provider": "openai-compatible", "model": "m1", "base_url": "http://127.0.0.1:9/v1"},
        "model": "m1", "base_url": "http://127.0.0.1:9/v1",
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "where did you sail?"}],
        "decoding": {"temperature": 0.0, "top_p": 1.0, "max_tokens": 512, "seed": 0}, "epoch": 0,
    }
    canonical = json.dumps(expected_payload, sort_keys=True, separators=(",", ":"))
    assert request_key(DESCRIBE, MESSAGES, decoding) == hashlib.sha256(canonical.encode()).hexdigest()


def test_key_changes_with_what_decides_the_answer_only() -> None:
    base = request_key(DESCRIBE, MESSAGES, DecodingConfig())
    changed = [
        request_key({**DESCRIBE, "model": "m2"}, MESSAGES, DecodingConfig()),
        request_key({**DESCRIBE, "base_url": "http://127.0.0.1:10/v1"}, MESSAGES, DecodingConfig()),
        request_key(DESCRIBE, MESSAGES[:1], DecodingConfig()),
        request_key(DESCRIBE, MESSAGES, DecodingConfig(seed=1)),
        request_key(DESCRIBE, MESSAGES, DecodingConfig(max_tokens=48)),
        request_key(DESCRIBE, MESSAGES, DecodingConfig(), epoch=1),
    ]
    assert len({base, *changed}) == 7
    # Timeouts, retry policy and the key's variable name do not change what is asked.
    assert request_key({**DESCRIBE, "timeout_s": 5.0, "retry": {}, "api_key_env": "K"}, MESSAGES,
                       DecodingConfig()) == base
    # Greedy: the trial id is not part of the key; sampling: it is.
    assert request_key(DESCRIBE, MESSAGES, DecodingConfig(), trial_id="B:PR-1#0") == base
    hot = DecodingConfig(temperature=0.7)
    assert request_key(DESCRIBE, MESSAGES, hot, trial_id="B:PR-1#0") != request_key(
        DESCRIBE, MESSAGES, hot, trial_id="C:PR-1#0")


def test_store_rules(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        assert cache.get("k1") is None
        assert cache.put("k1", _ok("first"))
        assert not cache.put("k1", _ok("second"))  # the first answer stays
        assert not cache.put("k2", CandidateResponse(text=None, status="drop", drop_reason="timeout after 60s"))
        assert not cache.put("k3", CandidateResponse(text=None, status="ok"))
        hit = cache.get("k1")
        assert hit is not None and hit.text == "first" and hit.cached
        assert (hit.retries, hit.latency_s, hit.model_sent) == (0, 0.0, "m1")
        assert cache.get("k2") is None
        cache.put("k4", _ok("other", model="m2"))
        stats = cache.stats()
        assert (stats.entries, stats.by_model) == (2, {"m1": 1, "m2": 1})
        assert cache.clear("m2") == 1
        assert cache.clear() == 1
        assert cache.stats().entries == 0


def _writer(path: str, worker: int) -> None:
    with ResponseCache(Path(path)) as cache:
        for i in range(60):
            # Keys 0–29 are shared by every worker, 30–59 are the worker's own.
            key = f"shared-{i}" if i < 30 else f"w{worker}-{i}"
            cache.put(key, _ok(f"{worker}:{i}"))
            assert cache.get(key) is not None


def test_concurrent_writer_processes(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    ResponseCache(path).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(path), w)) for w in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    with ResponseCache(path) as cache:
        assert cache.stats().entries == 30 + 4 * 30
        assert cache.get("w3-59").text == "3:59"  # type: ignore[union-attr]


class Counting:
    """Answers like a remote model would (non-mock provider), dropping one chosen trial."""

    name = "test/counting"

    def __init__(self, drop: str | None = None) -> None:
        self.calls = 0
        self.drop = drop

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        self.calls += 1
        if self.drop and request.trial_id.startswith(self.drop):
            return CandidateResponse(text=None, status="drop", drop_reason="timeout after 1s", provider="test")
        return CandidateResponse(text=f"answer to {len(request.messages[-1].content)} chars", provider="test",
                                 model_sent="counting")

    def describe(self) -> dict[str, Any]:
        return {"provider": "test", "model": "counting"}


def _run(pilot: Path, out: Path, candidate: Any, cache: ResponseCache | None) -> Any:
    options = RunOptions(configs=["B", "I"], response_cache=cache)
    return asyncio.run(Runner(pilot, candidate, "test/counting", out, options).run())


def test_second_run_is_served_from_the_cache_and_drops_are_retried(pilot: Path, tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        first = Counting(drop="I:PR-01#")
        m1 = _run(pilot, tmp_path / "r1", first, cache)
        assert m1.counts["attempted"] == 44 and m1.counts["dropped"] == 1
        # Every call is either a miss (sent to the candidate) or a hit on an identical earlier request.
        assert m1.counts["calls"] == first.calls + m1.counts["cache_hits"]
        entries = cache.stats().entries

        second = Counting()
        m2 = _run(pilot, tmp_path / "r2", second, cache)
        by_id = {t.trial_id: t for t in RunStore(tmp_path / "r2").trials()}
        # Only the dropped trial's calls go out again; everything else is a hit.
        # 28 calls per configuration: 22 probes, 4 second sessions, 2 more PR-21 turns.
        retried = len(by_id["I:PR-01"].turns)
        assert second.calls == retried
        assert m2.counts == {"attempted": 44, "completed": 44, "dropped": 0, "retries": 0, "calls": 56,
                             "cache_hits": 56 - retried}
        assert m2.cache == {"enabled": True, "epoch": 0}
        assert cache.stats().entries == entries + retried
        assert not by_id["I:PR-01"].turns[0].response.cached
        assert by_id["I:PR-02"].turns[0].response.cached
        old = {t.trial_id: t.response_text for t in RunStore(tmp_path / "r1").trials()}
        assert all(old[k] == t.response_text for k, t in by_id.items() if k != "I:PR-01")


def test_mock_candidates_bypass_the_cache(pilot: Path, tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        manifest = _run(pilot, tmp_path / "r", get_candidate("mock/oracle"), cache)
        assert cache.stats().entries == 0
    assert manifest.cache["enabled"] is False and "mock" in manifest.cache["bypassed"]
    assert manifest.counts["cache_hits"] == 0


def test_cached_candidate_passes_other_attributes_through(tmp_path: Path) -> None:
    inner = Counting()
    inner.extra_option = "kept"  # type: ignore[attr-defined]
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        wrapped = CachedCandidate(inner, cache)
        assert wrapped.name == "test/counting" and wrapped.extra_option == "kept"
        request = CandidateRequest(trial_id="x#0", messages=MESSAGES)
        a = asyncio.run(wrapped.complete(request))
        b = asyncio.run(wrapped.complete(request))
    assert (inner.calls, wrapped.hits, wrapped.misses) == (1, 1, 1)
    assert a.text == b.text and not a.cached and b.cached


def test_cache_cli(stub: Any, pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cli.sqlite"
    # One call at a time: two concurrent trials with the same prompt would both miss the cache or not,
    # by timing, and the call counts below would vary from run to run.
    args = [str(pilot), "--config", "B", "--model", "openai/stub", "--base-url", stub.base_url, "--cache",
            "--cache-path", str(path), "--max-connections", "1"]
    def retries(run: str) -> int:
        # A busy machine can time a call out; its retry reaches the stub too, and the manifest counts it.
        return int(RunStore(tmp_path / run).manifest().counts["retries"])

    assert main(["run", *args, "--out", str(tmp_path / "a")]) == 0
    calls = stub.calls
    requests = calls - retries("a")
    with ResponseCache(path) as cache:
        # Colliding pair members send identical B prompts: the second is served by the first's entry.
        distinct = cache.stats().entries
    assert 0 < distinct == requests
    assert main(["run", *args, "--out", str(tmp_path / "b")]) == 0
    assert stub.calls == calls  # the second run called nothing
    assert retries("b") == 0
    assert main(["run", *args, "--out", str(tmp_path / "c"), "--epoch", "1"]) == 0
    assert stub.calls == calls + requests + retries("c")  # a new epoch samples afresh
    capsys.readouterr()
    assert main(["cache", "stats", "--cache-path", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{2 * distinct} responses" in out and f"stub: {2 * distinct}" in out
    assert main(["cache", "clear", "--cache-path", str(path)]) == 0
    assert f"deleted {2 * distinct} responses" in capsys.readouterr().out
    assert main(["run", *args, "--out", str(tmp_path / "d"), "--no-cache"]) == 0
    with ResponseCache(path) as cache:
        assert cache.stats().entries == 0
