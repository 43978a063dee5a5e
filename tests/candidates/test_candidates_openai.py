"""openai/ candidate against the SDK's HTTP transport layer (no server, no network).

A mock transport returns real-shaped chat.completion JSON and failures; the
official SDK parses them, our retry policy handles them.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from sitbench.candidates import CandidateRequest, DecodingConfig, Message, get_candidate
from sitbench.candidates.openai_compat import OpenAICompatCandidate
from sitbench.errors import InputError

try:  # the SDK generation installed here ships its HTTP client as httpx2
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs use httpx
    import httpx  # type: ignore[no-redef]

Handler = Callable[[Any], Any]


def completion(text: str | None, *, finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test-2026-01-01",
        "system_fingerprint": "fp_abc123",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": 21,
            "completion_tokens": 4,
            "total_tokens": 25,
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
    }


class Recorder:
    """A scripted transport: each request gets the next scripted reply."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []

    def __call__(self, request: Any) -> Any:
        self.bodies.append(json.loads(request.content))
        self.headers.append(dict(request.headers))
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, Exception):
            raise step
        if callable(step):
            return step(request)
        return step


def make(recorder: Recorder, sleeps: list[float] | None = None, **options: Any) -> OpenAICompatCandidate:
    async def record_sleep(delay: float) -> None:
        if sleeps is not None:
            sleeps.append(delay)

    options.setdefault("base_url", "http://upstream.test/v1")
    options.setdefault("timeout_s", 5)
    return get_candidate(  # type: ignore[return-value]
        "openai/gpt-test",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(recorder)),
        sleep=record_sleep,
        **options,
    )


def ask(candidate: Any, trial_id: str = "trial-1", **decoding: Any) -> Any:
    request = CandidateRequest(
        trial_id=trial_id,
        messages=[
            Message(role="system", content="You are the agent."),
            Message(role="user", content="Who cleared you?"),
        ],
        decoding=DecodingConfig(**decoding),
    )
    return asyncio.run(candidate.complete(request))


def ok_response(text: str = "Nobody did.", **kw: Any) -> Any:
    return httpx.Response(200, json=completion(text, **kw))


def test_success_records_text_usage_and_metadata() -> None:
    rec = Recorder([ok_response()])
    response = ask(make(rec), temperature=0.3, top_p=0.9, max_tokens=64, seed=11)
    assert response.status == "ok"
    assert response.text == "Nobody did."
    assert response.provider == "openai-compatible"
    assert response.model_sent == "gpt-test"
    assert response.returned_model == "gpt-test-2026-01-01"
    assert response.system_fingerprint == "fp_abc123"
    assert response.usage == {"prompt_tokens": 21, "completion_tokens": 4, "total_tokens": 25}
    assert response.retries == 0
    assert response.latency_s > 0
    body = rec.bodies[0]
    assert body["model"] == "gpt-test"
    assert body["messages"] == [
        {"role": "system", "content": "You are the agent."},
        {"role": "user", "content": "Who cleared you?"},
    ]
    assert (body["temperature"], body["top_p"], body["max_tokens"], body["seed"]) == (0.3, 0.9, 64, 11)
    # The SDK's own retry loop is off: it reports zero retries in its header.
    assert rec.headers[0].get("x-stainless-retry-count") == "0"


def test_max_completion_tokens_and_omitted_params() -> None:
    rec = Recorder([ok_response()])
    cand = make(rec, max_tokens_param="max_completion_tokens", send_top_p=False, send_seed="false")
    ask(cand, max_tokens=40, seed=5)
    body = rec.bodies[0]
    assert body["max_completion_tokens"] == 40
    assert "max_tokens" not in body and "top_p" not in body and "seed" not in body
    assert cand.describe()["sends"] == ["temperature", "max_completion_tokens"]


def test_server_errors_are_retried_with_seeded_backoff() -> None:
    rec = Recorder(
        [
            httpx.Response(500, json={"error": {"message": "boom"}}),
            httpx.Response(502, text="bad gateway"),
            ok_response("late answer"),
        ]
    )
    sleeps: list[float] = []
    response = ask(make(rec, sleeps, retry_seed=42, retry_base_delay_s=0.5), trial_id="t-7")
    assert response.status == "ok" and response.text == "late answer"
    assert response.retries == 2
    # Documented formula: min(max_delay, base * 2**n) * (0.5 + 0.5 * u), u from Random("seed/trial").
    rng = random.Random("42/t-7")
    expected = [0.5 * (0.5 + 0.5 * rng.random()), 1.0 * (0.5 + 0.5 * rng.random())]
    assert sleeps == pytest.approx(expected)
    assert 0.25 <= sleeps[0] < 0.5 and 0.5 <= sleeps[1] < 1.0


def test_same_seed_same_delays_other_seed_other_delays() -> None:
    def delays(seed: int) -> list[float]:
        rec = Recorder([httpx.Response(503), httpx.Response(503), ok_response()])
        sleeps: list[float] = []
        ask(make(rec, sleeps, retry_seed=seed))
        return sleeps

    assert delays(1) == delays(1)
    assert delays(1) != delays(2)


def test_retry_after_is_honoured_on_429_and_503() -> None:
    rec = Recorder(
        [
            httpx.Response(429, headers={"retry-after": "7"}, json={"error": {"message": "slow"}}),
            httpx.Response(503, headers={"retry-after-ms": "1500"}, text="busy"),
            ok_response(),
        ]
    )
    sleeps: list[float] = []
    response = ask(make(rec, sleeps), trial_id="x")
    assert response.status == "ok" and response.retries == 2
    assert sleeps == [7.0, 1.5]


def test_retry_after_beyond_cap_drops_without_waiting() -> None:
    rec = Recorder([httpx.Response(429, headers={"retry-after": "3600"})])
    sleeps: list[float] = []
    response = ask(make(rec, sleeps, max_retry_after_s=60))
    assert response.status == "drop" and response.text is None
    assert response.drop_reason == "rate_limited (retry-after 3600s exceeds max_retry_after_s=60)"
    assert sleeps == [] and response.retries == 0 and len(rec.bodies) == 1


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (httpx.Response(429, headers={"retry-after": "0"}), "rate_limited"),
        (httpx.Response(500, json={"error": {"message": "x"}}), "server_error 500"),
        (httpx.Response(503), "server_error 503"),
        (httpx.ReadTimeout("slow"), "timeout after 5s"),
        (httpx.ReadError("connection reset by peer"), "connection_reset"),
        (httpx.RemoteProtocolError("Server disconnected"), "connection_reset"),
        (httpx.ConnectError("refused"), "connection_refused"),
        (
            httpx.Response(200, headers={"content-type": "application/json"}, content=b'{"id": "x", "cho'),
            "malformed_response",
        ),
        (httpx.Response(200, headers={"content-type": "text/html"}, content=b"<html>gateway</html>"), "malformed_response"),
        (httpx.Response(200, json={"id": "x", "object": "chat.completion"}), "malformed_response"),
    ],
)
def test_budget_exhausted_gives_drop_with_reason(reply: Any, reason: str) -> None:
    rec = Recorder([reply])
    sleeps: list[float] = []
    response = ask(make(rec, sleeps, max_retries=3))
    assert response.status == "drop"
    assert response.text is None
    assert response.drop_reason == reason
    assert response.retries == 3
    assert len(rec.bodies) == 4  # first attempt + 3 retries
    assert len(sleeps) == 3


def test_content_filter_is_a_drop_without_retry() -> None:
    rec = Recorder([ok_response("", finish_reason="content_filter")])
    response = ask(make(rec))
    assert (response.status, response.drop_reason, response.retries) == ("drop", "content_filter", 0)
    assert response.returned_model == "gpt-test-2026-01-01"  # metadata kept on drops with a body
    assert response.usage["total_tokens"] == 25


def test_length_cut_is_still_an_answer() -> None:
    rec = Recorder([ok_response("Partial ans", finish_reason="length")])
    response = ask(make(rec))
    assert (response.status, response.text) == ("ok", "Partial ans")


def test_null_content_is_a_drop() -> None:
    rec = Recorder([httpx.Response(200, json=completion(None, finish_reason="tool_calls"))])
    response = ask(make(rec))
    assert (response.status, response.drop_reason) == ("drop", "no_text (finish_reason tool_calls)")


def test_context_length_400_is_context_overflow_without_retry() -> None:
    body = {"error": {"message": "This model's maximum context length is 8192 tokens", "code": "context_length_exceeded"}}
    rec = Recorder([httpx.Response(400, json=body)])
    response = ask(make(rec))
    assert (response.status, response.drop_reason, response.retries) == ("drop", "context_overflow", 0)


def test_other_400_is_bad_request_without_retry() -> None:
    rec = Recorder([httpx.Response(400, json={"error": {"message": "Unsupported value: 'top_p'"}})])
    response = ask(make(rec))
    assert response.drop_reason == "bad_request 400: Unsupported value: 'top_p'"
    assert response.retries == 0 and len(rec.bodies) == 1


def test_auth_failure_raises_input_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_GATEWAY_KEY", "k-123456789")
    rec = Recorder([httpx.Response(401, json={"error": {"message": "Incorrect API key k-123456789"}})])
    with pytest.raises(InputError, match=r"HTTP 401.*MY_GATEWAY_KEY") as info:
        ask(make(rec, api_key_env="MY_GATEWAY_KEY"))
    assert "k-123456789" not in str(info.value)
    assert len(rec.bodies) == 1


def test_not_found_raises_input_error_about_model_and_base_url() -> None:
    rec = Recorder([httpx.Response(404, json={"error": {"message": "model 'gpt-test' not found"}})])
    with pytest.raises(InputError, match=r"404.*model 'gpt-test' not found.*base_url"):
        ask(make(rec))


def test_missing_key_for_official_endpoint_is_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(InputError, match="environment variable NO_SUCH_KEY_VAR is not set"):
        get_candidate("openai/gpt-test", api_key_env="NO_SUCH_KEY_VAR")


def test_keyless_local_server_uses_a_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    rec = Recorder([ok_response()])
    cand = make(rec, api_key_env="NO_SUCH_KEY_VAR")
    assert ask(cand).status == "ok"
    assert rec.headers[0]["authorization"].startswith("Bearer ")
    assert "no-key" not in json.dumps(cand.describe())


def test_options_are_validated_and_coerced() -> None:
    with pytest.raises(InputError, match=r"unknown option\(s\) temprature; known options are"):
        get_candidate("openai/m", base_url="http://x/v1", temprature=1)
    with pytest.raises(InputError, match="option timeout_s='soon' is not a valid float"):
        get_candidate("openai/m", base_url="http://x/v1", timeout_s="soon")
    with pytest.raises(InputError, match="max_tokens_param"):
        get_candidate("openai/m", base_url="http://x/v1", max_tokens_param="tokens")
    cand = get_candidate("openai/m", base_url="http://x/v1", timeout_s="12.5", max_retries="2", retry_seed="9")
    info = cand.describe()
    assert info["timeout_s"] == 12.5
    assert info["retry"]["max_retries"] == 2 and info["retry"]["seed"] == 9


def test_describe_names_provider_model_and_url() -> None:
    cand = get_candidate("openai/gpt-test", base_url="http://127.0.0.1:9/v1")
    info = cand.describe()
    assert info["provider"] == "openai-compatible"
    assert info["model"] == "gpt-test"
    assert info["base_url"] == "http://127.0.0.1:9/v1"
    assert info["sdk"].startswith("openai ")
    assert cand.name == "openai/gpt-test"


def test_candidate_survives_several_event_loops(stub_server: Any) -> None:
    cand = get_candidate("openai/stub", base_url=stub_server.base_url, timeout_s=5)
    first = ask(cand, trial_id="a")
    second = ask(cand, trial_id="b")  # a new asyncio.run(): a new loop, a new pool
    assert first.text == second.text == "echo: Who cleared you?"


# --- response_format (schema-constrained decoding) ---------------------------------

_SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
           "additionalProperties": False}
_JSON_SCHEMA = {"type": "json_schema", "json_schema": {"name": "t", "schema": _SCHEMA, "strict": True}}


def ask_format(candidate: Any, response_format: dict[str, Any] | None) -> Any:
    request = CandidateRequest(trial_id="trial-rf", messages=[Message(role="user", content="Give a.")],
                               response_format=response_format)
    return asyncio.run(candidate.complete(request))


def test_no_response_format_sends_none() -> None:
    rec = Recorder([ok_response()])
    ask(make(rec))
    assert "response_format" not in rec.bodies[0]


def test_json_schema_style_sends_the_format_as_given() -> None:
    rec = Recorder([ok_response('{"a": 1}')])
    cand = make(rec, response_format_style="json_schema")
    assert ask_format(cand, _JSON_SCHEMA).text == '{"a": 1}'
    assert rec.bodies[0]["response_format"] == _JSON_SCHEMA


def test_json_object_style_sends_the_schema_in_llama_cpp_python_form() -> None:
    rec = Recorder([ok_response('{"a": 1}')])
    ask_format(make(rec, response_format_style="json_object"), _JSON_SCHEMA)
    assert rec.bodies[0]["response_format"] == {"type": "json_object", "schema": _SCHEMA}


def test_auto_style_falls_back_to_json_object_and_keeps_it() -> None:
    # llama-cpp-python's server answers the json_schema form with HTTP 500 (its validation error).
    refusal = httpx.Response(500, json={"error": {"message": "Input should be 'text' or 'json_object'"}})
    rec = Recorder([refusal, ok_response('{"a": 1}'), ok_response('{"a": 2}')])
    cand = make(rec, max_retries=0)
    assert cand.format_style == "auto"
    assert ask_format(cand, _JSON_SCHEMA).text == '{"a": 1}'
    assert [b["response_format"]["type"] for b in rec.bodies] == ["json_schema", "json_object"]
    assert cand.format_style == "json_object"
    ask_format(cand, _JSON_SCHEMA)
    assert rec.bodies[2]["response_format"] == {"type": "json_object", "schema": _SCHEMA}


def test_auto_style_keeps_json_schema_when_the_server_takes_it() -> None:
    rec = Recorder([ok_response('{"a": 1}')])
    cand = make(rec)
    ask_format(cand, _JSON_SCHEMA)
    assert cand.format_style == "json_schema" and len(rec.bodies) == 1


def test_unknown_response_format_style_is_an_input_error() -> None:
    with pytest.raises(InputError, match="response_format_style='xml'; use one of auto, json_schema, json_object"):
        make(Recorder([ok_response()]), response_format_style="xml")
