"""A sentinel API key is sent to the server and never shows up anywhere else.

Checked places: ``describe()``, response fields (drop reasons, answers that echo the key whole or any
12 characters of it), exception messages
and tracebacks, and every log record at DEBUG level (ours and the SDKs').
"""

from __future__ import annotations

import asyncio
import json
import logging
import traceback
from typing import Any

import pytest

from sitbench.candidates import CandidateRequest, Message, get_candidate
from sitbench.errors import InputError

try:  # the SDK generation installed here ships its HTTP client as httpx2
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

SENTINEL = "sk-sentinel-7f3a9c1e5b2d4068a1b3c5d7e9f10234"
ENV = "SITBENCH_TEST_KEY"


@pytest.fixture(autouse=True)
def _sentinel(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv(ENV, SENTINEL)
    caplog.set_level(logging.DEBUG)


def _echo_key_error(status: int) -> Any:
    # A hostile or careless server that echoes the key back in its error body.
    def reply(request: Any) -> Any:
        return httpx.Response(status, json={"error": {"message": f"bad credential {SENTINEL}", "type": "x"}})

    return reply


def _candidate(provider: str, handler: Any) -> Any:
    async def no_sleep(delay: float) -> None:
        return None

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    options: dict[str, Any] = {"api_key_env": ENV, "http_client": client, "sleep": no_sleep, "max_retries": 2}
    if provider == "openai":
        options["base_url"] = "https://gateway.example/v1"
    return get_candidate(f"{provider}/model-x", **options)


def _ask(cand: Any) -> Any:
    request = CandidateRequest(trial_id="s1", messages=[Message(role="user", content="hello")])
    return asyncio.run(cand.complete(request))


def _assert_clean(caplog: pytest.LogCaptureFixture, *texts: str) -> None:
    for text in texts:
        assert SENTINEL not in text
    for record in caplog.records:
        assert SENTINEL not in record.getMessage()
        assert SENTINEL not in repr(record.args)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_key_is_sent_but_not_described(provider: str, caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return httpx.Response(500, json={"error": {"message": "down"}})

    cand = _candidate(provider, handler)
    response = _ask(cand)
    assert response.status == "drop" and response.retries == 2
    # Proof that api_key_env is honoured: the server did receive the sentinel.
    assert any(SENTINEL in r.headers.get("authorization", "") for r in seen)
    described = json.dumps(cand.describe())
    assert described.count(ENV) == 1  # the variable's name is recorded, its value is not
    assert any("retry 1/2" in r.getMessage() for r in caplog.records)  # retries were logged
    _assert_clean(caplog, described, repr(cand), response.model_dump_json())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_echoed_key_is_redacted_from_drop_reasons(provider: str, caplog: pytest.LogCaptureFixture) -> None:
    response = _ask(_candidate(provider, _echo_key_error(400)))
    assert response.status == "drop"
    assert response.drop_reason == "bad_request 400: bad credential [redacted]"
    _assert_clean(caplog, response.model_dump_json())


@pytest.mark.parametrize(("provider", "status"), [("openai", 401), ("openai", 404), ("anthropic", 403), ("anthropic", 404)])
def test_errors_and_tracebacks_never_carry_the_key(
    provider: str, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(InputError) as info:
        _ask(_candidate(provider, _echo_key_error(status)))
    printed = "".join(traceback.format_exception(info.value))
    assert f"HTTP {status}" in str(info.value)
    _assert_clean(caplog, str(info.value), printed)


def _echo_key_answer(provider: str, text: str) -> Any:
    # A server that answers normally but repeats (part of) the key in the completion itself.
    def reply(request: Any) -> Any:
        if provider == "openai":
            return httpx.Response(200, json={
                "id": "c1", "object": "chat.completion", "created": 0, "model": "model-x",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})
        return httpx.Response(200, json={
            "id": "m1", "type": "message", "role": "assistant", "model": "model-x",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1}})

    return reply


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("echo", [SENTINEL, SENTINEL[:-3], SENTINEL[5:], SENTINEL[10:22]])
def test_a_key_echoed_whole_or_in_part_in_an_answer_is_redacted(provider: str, echo: str,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    response = _ask(_candidate(provider, _echo_key_answer(provider, f"Your key is {echo}, right?")))
    assert response.status != "drop" and response.text == "Your key is [redacted], right?"
    stored = response.model_dump_json()
    for i in range(len(SENTINEL) - 11):
        assert SENTINEL[i:i + 12] not in stored
    _assert_clean(caplog, stored)


def test_redactor_keeps_text_that_shares_less_than_twelve_characters() -> None:
    from sitbench.candidates._remote import Redactor

    redact = Redactor(SENTINEL)
    eleven = SENTINEL[:11]
    assert redact(f"{eleven} shares eleven characters") == f"{eleven} shares eleven characters"
    assert redact(f"a{SENTINEL[:12]}b and {SENTINEL[-12:]}") == "a[redacted]b and [redacted]"
    assert Redactor(None)("anything") == "anything" and Redactor("abcd")("xabcdx") == "x[redacted]x"
