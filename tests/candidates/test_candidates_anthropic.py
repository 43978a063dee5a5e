"""anthropic/ candidate, tested at the SDK's HTTP transport layer.

There is no local Anthropic server: these tests pass an httpx ``MockTransport``
to the official ``AsyncAnthropic`` client, which returns Messages-API-shaped JSON,
429s with ``retry-after``, 5xx/529 errors and malformed bodies. So they test our
code and the SDK down to the HTTP transport — not the real API's behaviour.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from sitbench.candidates import CandidateRequest, DecodingConfig, Message, get_candidate
from sitbench.candidates.anthropic_api import AnthropicCandidate, split_system
from sitbench.errors import InputError

try:  # the SDK generation installed here ships its HTTP client as httpx2
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs use httpx
    import httpx  # type: ignore[no-redef]

KEY_ENV = "SITBENCH_TEST_ANTHROPIC_KEY"


def message_json(
    blocks: list[dict[str, Any]] | None = None, *, stop_reason: str = "end_turn"
) -> dict[str, Any]:
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-20260101",
        "content": blocks if blocks is not None else [{"type": "text", "text": "I was never cleared."}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 31,
            "output_tokens": 7,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def error_json(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


class Recorder:
    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.bodies: list[dict[str, Any]] = []
        self.requests: list[Any] = []

    def __call__(self, request: Any) -> Any:
        self.requests.append(request)
        self.bodies.append(json.loads(request.content))
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, Exception):
            raise step
        return step


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-ant-test-0123456789")


def make(rec: Recorder, sleeps: list[float] | None = None, **options: Any) -> AnthropicCandidate:
    async def record_sleep(delay: float) -> None:
        if sleeps is not None:
            sleeps.append(delay)

    options.setdefault("timeout_s", 5)
    return get_candidate(  # type: ignore[return-value]
        "anthropic/claude-test",
        api_key_env=KEY_ENV,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(rec)),
        sleep=record_sleep,
        **options,
    )


def ask(cand: Any, messages: list[Message] | None = None, **decoding: Any) -> Any:
    request = CandidateRequest(
        trial_id="trial-a",
        messages=messages
        or [
            Message(role="system", content="You are agent P-17."),
            Message(role="system", content="Answer from your record."),
            Message(role="user", content="Were you cleared for site B?"),
        ],
        decoding=DecodingConfig(**decoding),
    )
    return asyncio.run(cand.complete(request))


def test_success_maps_system_and_records_metadata() -> None:
    rec = Recorder([httpx.Response(200, json=message_json())])
    response = ask(make(rec), max_tokens=96, temperature=0.7)
    assert response.status == "ok"
    assert response.text == "I was never cleared."
    assert response.provider == "anthropic"
    assert response.model_sent == "claude-test"
    assert response.returned_model == "claude-test-20260101"
    assert response.usage == {
        "input_tokens": 31,
        "output_tokens": 7,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    body = rec.bodies[0]
    assert body["system"] == "You are agent P-17.\n\nAnswer from your record."
    assert body["messages"] == [{"role": "user", "content": "Were you cleared for site B?"}]
    assert body["max_tokens"] == 96 and body["model"] == "claude-test"
    # This API version rejects temperature, so by default it is not sent.
    assert "temperature" not in body and "top_p" not in body
    assert rec.requests[0].url.path == "/v1/messages"
    assert rec.requests[0].headers["x-stainless-retry-count"] == "0"


def test_send_sampling_adds_temperature_and_top_p() -> None:
    rec = Recorder([httpx.Response(200, json=message_json())])
    cand = make(rec, send_sampling=True)
    ask(cand, temperature=0.2, top_p=0.8)
    assert (rec.bodies[0]["temperature"], rec.bodies[0]["top_p"]) == (0.2, 0.8)
    assert cand.describe()["sends"] == ["max_tokens", "temperature", "top_p"]


def test_text_blocks_are_joined_and_other_blocks_ignored() -> None:
    blocks = [
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "text", "text": "Part one. "},
        {"type": "text", "text": "Part two."},
    ]
    rec = Recorder([httpx.Response(200, json=message_json(blocks))])
    assert ask(make(rec)).text == "Part one. Part two."


def test_429_with_retry_after_then_success() -> None:
    rec = Recorder(
        [
            httpx.Response(429, headers={"retry-after": "3"}, json=error_json("rate_limit_error", "slow down")),
            httpx.Response(200, json=message_json()),
        ]
    )
    sleeps: list[float] = []
    response = ask(make(rec, sleeps))
    assert response.status == "ok" and response.retries == 1
    assert sleeps == [3.0]


def test_overloaded_529_and_500_are_retried_then_dropped() -> None:
    rec = Recorder(
        [
            httpx.Response(529, json=error_json("overloaded_error", "Overloaded")),
            httpx.Response(500, json=error_json("api_error", "Internal")),
        ]
    )
    sleeps: list[float] = []
    response = ask(make(rec, sleeps, max_retries=2))
    assert response.status == "drop" and response.text is None
    assert response.drop_reason == "server_error 500"  # the last failure names the drop
    assert response.retries == 2 and len(rec.bodies) == 3 and len(sleeps) == 2


@pytest.mark.parametrize(
    "reply",
    [
        httpx.Response(200, headers={"content-type": "application/json"}, content=b'{"id": "msg_01", "content": [{"ty'),
        httpx.Response(200, json={"id": "msg_01", "type": "message"}),
    ],
)
def test_malformed_bodies_are_retried_then_dropped(reply: Any) -> None:
    rec = Recorder([reply])
    response = ask(make(rec, max_retries=1))
    assert (response.status, response.drop_reason, response.retries) == ("drop", "malformed_response", 1)


@pytest.mark.parametrize(
    ("stop_reason", "blocks", "status", "reason"),
    [
        ("max_tokens", None, "ok", None),
        ("stop_sequence", None, "ok", None),
        ("refusal", [], "drop", "content_filter"),
        ("model_context_window_exceeded", [], "drop", "context_overflow"),
        ("tool_use", [{"type": "tool_use", "id": "t1", "name": "lookup", "input": {}}], "drop", "no_text (stop_reason tool_use)"),
        ("end_turn", [], "drop", "no_text (stop_reason end_turn)"),
    ],
)
def test_stop_reason_mapping(stop_reason: str, blocks: Any, status: str, reason: str | None) -> None:
    rec = Recorder([httpx.Response(200, json=message_json(blocks, stop_reason=stop_reason))])
    response = ask(make(rec))
    assert (response.status, response.drop_reason) == (status, reason)
    assert response.retries == 0


def test_timeout_and_connection_errors() -> None:
    rec = Recorder([httpx.ReadTimeout("slow")])
    assert ask(make(rec, max_retries=1)).drop_reason == "timeout after 5s"
    rec = Recorder([httpx.RemoteProtocolError("Server disconnected without sending a response.")])
    assert ask(make(rec, max_retries=0)).drop_reason == "connection_reset"


def test_auth_error_is_an_input_error_without_the_key() -> None:
    rec = Recorder([httpx.Response(401, json=error_json("authentication_error", "invalid x-api-key"))])
    with pytest.raises(InputError, match=f"HTTP 401.*{KEY_ENV}") as info:
        ask(make(rec))
    assert "sk-ant-test-0123456789" not in str(info.value)


def test_context_error_400_is_context_overflow() -> None:
    rec = Recorder([httpx.Response(400, json=error_json("invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum"))])
    assert ask(make(rec)).drop_reason == "context_overflow"


def test_system_after_a_turn_is_rejected_with_the_position() -> None:
    messages = [
        Message(role="user", content="hi"),
        Message(role="system", content="late rule"),
    ]
    with pytest.raises(InputError, match=r"messages\[1\] is a system message after a user/assistant turn"):
        split_system("anthropic/x", "t", messages)
    with pytest.raises(InputError, match="no user message"):
        split_system("anthropic/x", "t", [Message(role="system", content="only")])
    system, turns = split_system("anthropic/x", "t", [Message(role="user", content="q")])
    assert system is None and turns == [{"role": "user", "content": "q"}]


def test_missing_key_variable_is_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(InputError, match=f"environment variable {KEY_ENV} is not set"):
        get_candidate("anthropic/claude-test", api_key_env=KEY_ENV)


def test_describe_records_api_version_and_what_is_sent() -> None:
    cand = get_candidate("anthropic/claude-test", api_key_env=KEY_ENV)
    info = cand.describe()
    assert info["provider"] == "anthropic"
    assert info["model"] == "claude-test"
    assert info["base_url"].startswith("https://")
    assert info["api_version"]
    assert info["sends"] == ["max_tokens"]
    assert info["sdk"].startswith("anthropic ")
