"""Fault injection over real localhost HTTP: stub upstream <- FaultProxy <- openai/ candidate.

The upstream here is a stdlib stub that echoes the question (fast, no model); the
same run against the real llama.cpp server is in ``test_candidates_local.py``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from sitbench.candidates import CandidateRequest, CandidateResponse, DecodingConfig, Message, get_candidate
from sitbench.candidates._fault_proxy import FAULT_KINDS, FaultProxy

TIMEOUT_S = 1.0

# What the candidate reports when every attempt meets the same fault.
EXPECTED_REASON = {
    "rate_limit": "rate_limited",
    "server_error": "server_error 500",
    "reset": "connection_reset",
    "hang": f"timeout after {TIMEOUT_S:g}s",
    "truncated": "malformed_response",
}


def run_requests(base_url: str, n: int, *, max_retries: int, concurrency: int = 4) -> list[CandidateResponse]:
    candidate = get_candidate(
        "openai/stub",
        base_url=base_url,
        timeout_s=TIMEOUT_S,
        max_retries=max_retries,
        retry_base_delay_s=0.01,
        retry_seed=0,
    )

    async def main() -> list[CandidateResponse]:
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> CandidateResponse:
            async with gate:
                request = CandidateRequest(
                    trial_id=f"trial-{i}",
                    messages=[Message(role="user", content=f"question {i}")],
                    decoding=DecodingConfig(max_tokens=16),
                )
                return await candidate.complete(request)

        return await asyncio.gather(*(one(i) for i in range(n)))

    return asyncio.run(main())


def test_thirty_requests_at_twenty_percent_faults(stub_server: Any) -> None:
    with FaultProxy(stub_server.base_url, fault_rate=0.2, seed=11, hang_s=3 * TIMEOUT_S) as proxy:
        responses = run_requests(proxy.base_url, 30, max_retries=3)
        records = list(proxy.records)
    assert len(responses) == 30
    for i, response in enumerate(responses):
        assert response.status in ("ok", "drop")
        if response.status == "ok":
            assert response.text == f"echo: question {i}"
        else:
            assert response.drop_reason in EXPECTED_REASON.values()
    faults = sum(1 for r in records if r.fault is not None)
    drops = sum(1 for r in responses if r.status == "drop")
    retries = sum(r.retries for r in responses)
    assert faults >= 3  # the seed gives a real mix, not a lucky clean run
    assert len({r.fault for r in records if r.fault}) >= 3
    # Every failed attempt is a fault the proxy injected, and each one was either
    # retried or ended its trial: nothing was lost, nothing was invented.
    assert retries + drops == faults
    assert len(records) == 30 + retries
    assert retries > 0


def test_fault_draws_are_reproducible_from_the_seed(stub_server: Any) -> None:
    def faults(seed: int) -> list[str | None]:
        with FaultProxy(stub_server.base_url, fault_rate=0.5, faults=("rate_limit", "server_error"), seed=seed) as proxy:
            run_requests(proxy.base_url, 12, max_retries=0, concurrency=1)
            return [r.fault for r in proxy.records]

    assert faults(5) == faults(5)
    assert faults(5) != faults(6)


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_each_fault_kind_ends_in_its_drop_reason(stub_server: Any, kind: str) -> None:
    with FaultProxy(stub_server.base_url, fault_rate=1.0, faults=(kind,), seed=0, hang_s=3 * TIMEOUT_S) as proxy:
        start = time.perf_counter()
        (response,) = run_requests(proxy.base_url, 1, max_retries=2)
        elapsed = time.perf_counter() - start
        counts = proxy.counts()
    assert response.status == "drop"
    assert response.drop_reason == EXPECTED_REASON[kind]
    assert response.retries == 2
    assert counts == {kind: 3}
    if kind == "hang":
        assert elapsed >= 3 * TIMEOUT_S * 0.9  # three attempts, each cut at the timeout
    assert response.latency_s <= elapsed


def test_clean_proxy_forwards_unchanged(stub_server: Any) -> None:
    with FaultProxy(stub_server.base_url, fault_rate=0.0) as proxy:
        (response,) = run_requests(proxy.base_url, 1, max_retries=0)
        assert proxy.counts() == {"forwarded": 1}
        assert proxy.base_url.endswith("/v1")
    assert response.text == "echo: question 0"
    assert stub_server.requests[0]["max_tokens"] == 16


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="fault_rate"):
        FaultProxy("http://127.0.0.1:1/v1", fault_rate=1.5)
    with pytest.raises(ValueError, match="subset"):
        FaultProxy("http://127.0.0.1:1/v1", faults=("explode",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="http://"):
        FaultProxy("https://api.example/v1")
