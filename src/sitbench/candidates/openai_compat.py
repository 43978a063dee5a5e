"""``openai/MODEL``: any OpenAI-compatible chat-completions server through the official SDK.

Covers the OpenAI API itself and every server that speaks its protocol (vLLM,
the llama.cpp server, Ollama, gateways) via the ``base_url`` option.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from sitbench._urls import redact_url
from sitbench.candidates._protocol import (
    CandidateRequest,
    CandidateResponse,
    response_schema,
)
from sitbench.candidates._remote import (
    RETRY_OPTION_TYPES,
    CallOutcome,
    FailureClassifier,
    MalformedResponse,
    Redactor,
    RetryPolicy,
    Sleep,
    call_with_retries,
    check_base_url,
    coerce_options,
    missing_key_message,
    retry_policy_from,
    usage_ints,
)
from sitbench.errors import InputError

PROVIDER = "openai-compatible"

# Sent when the server needs no key (a local llama.cpp or vLLM server): the SDK
# insists on a non-empty key. It is a constant, never recorded anywhere.
_NO_KEY_PLACEHOLDER = "sitbench-no-key"

RESPONSE_FORMAT_STYLES = ("auto", "json_schema", "json_object")
"""How ``openai/`` sends a request's ``response_format`` (its ``response_format_style`` option)."""

_OPTION_TYPES: dict[str, type] = {
    "base_url": str,
    "api_key_env": str,
    "timeout_s": float,
    "max_tokens_param": str,
    "send_top_p": bool,
    "send_seed": bool,
    "response_format_style": str,
    "http_client": object,
    "sleep": object,
    **RETRY_OPTION_TYPES,
}


class OpenAICompatCandidate:
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    The SDK's own retries are disabled (``max_retries=0``); retries, backoff and
    drops follow :class:`~sitbench.candidates._remote.RetryPolicy`.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        max_tokens_param: str = "max_tokens",
        send_top_p: bool = True,
        send_seed: bool = True,
        response_format_style: str = "auto",
        http_client: Any = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        """Create the candidate; no network traffic happens here.

        Args:
            model: Model id sent to the server.
            base_url: Server root including ``/v1``; the SDK default (OpenAI) when None.
            api_key_env: Name of the environment variable holding the key. When it is
                unset and ``base_url`` is given, the server is assumed to need no key.
            timeout_s: Wall-time limit of one attempt.
            retry: Retry policy; defaults to :class:`RetryPolicy()`.
            max_tokens_param: ``max_tokens`` (most servers) or ``max_completion_tokens``
                (newer OpenAI models reject ``max_tokens``).
            send_top_p: Send ``top_p`` (some reasoning models reject it).
            send_seed: Send ``seed`` when the decoding config has one.
            response_format_style: How a request's ``response_format`` is sent (requests
                without one are unaffected): ``json_schema`` as given (OpenAI, vLLM, the C++
                llama.cpp server), ``json_object`` as ``{"type": "json_object", "schema": ...}``
                (llama-cpp-python's server, which rejects ``json_schema``), or ``auto``: the
                given form first and, when the server refuses it (a 4xx bad request, or the
                HTTP 500 llama-cpp-python answers, after the usual retries), the
                ``json_object`` form, which is then kept for this candidate.
            http_client: An ``httpx`` async client for the SDK (tests use a mock transport).
            sleep: Awaitable sleep used between retries (tests record the delays).

        Raises:
            InputError: no key is available for the official endpoint, or an option is invalid.
        """
        if not model:
            raise InputError("--model openai/: the model name is empty; use openai/MODEL")
        if timeout_s <= 0:
            raise InputError(f"--model openai/{model}: option timeout_s must be > 0")
        if max_tokens_param not in ("max_tokens", "max_completion_tokens"):
            raise InputError(
                f"--model openai/{model}: option max_tokens_param={max_tokens_param!r}; "
                "use max_tokens or max_completion_tokens"
            )
        self.name = f"openai/{model}"
        check_base_url(f"--model {self.name}", base_url)
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.timeout_s = float(timeout_s)
        self.retry = retry or RetryPolicy()
        self.max_tokens_param = max_tokens_param
        self.send_top_p = send_top_p
        self.send_seed = send_seed
        if response_format_style not in RESPONSE_FORMAT_STYLES:
            raise InputError(
                f"--model {self.name}: option response_format_style={response_format_style!r}; "
                f"use one of {', '.join(RESPONSE_FORMAT_STYLES)}"
            )
        self.response_format_style = response_format_style
        self.format_style = response_format_style
        """The form requests with a ``response_format`` are sent in; ``auto`` until one settles it."""
        self._sleep = sleep
        self._http_client = http_client
        key = os.environ.get(api_key_env)
        if not key:
            if base_url is None:
                raise InputError(missing_key_message(f"--model {self.name}", api_key_env, keyless_server=True))
            key = _NO_KEY_PLACEHOLDER
        self._api_key = key
        self._redact = Redactor(key)
        import openai

        self._sdk = openai
        self._classifier = FailureClassifier(
            openai,
            label=f"--model {self.name}",
            key_hint=f"check the key in environment variable {api_key_env}",
            timeout_s=self.timeout_s,
            redact=self._redact,
        )
        self._clients: dict[int, Any] = {}

    def _client(self) -> Any:
        # httpx connection pools belong to the event loop that opened them; keep one
        # SDK client per loop so a candidate survives several asyncio.run() calls.
        if self._http_client is not None:
            key = 0
        else:
            key = id(asyncio.get_running_loop())
        client = self._clients.get(key)
        if client is None:
            kwargs: dict[str, Any] = {
                "api_key": self._api_key,
                "timeout": self.timeout_s,
                "max_retries": 0,
            }
            if self.base_url is not None:
                kwargs["base_url"] = self.base_url
            if self._http_client is not None:
                kwargs["http_client"] = self._http_client
            client = self._sdk.AsyncOpenAI(**kwargs)
            self._clients[key] = client
        return client

    def _body(self, request: CandidateRequest, format_style: str | None = None) -> dict[str, Any]:
        decoding = request.decoding
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": decoding.temperature,
            self.max_tokens_param: decoding.max_tokens,
        }
        if self.send_top_p:
            body["top_p"] = decoding.top_p
        if self.send_seed and decoding.seed is not None:
            body["seed"] = decoding.seed
        if request.response_format is not None:
            if (format_style or self.format_style) == "json_object":
                schema = response_schema(request.response_format)
                body["response_format"] = {"type": "json_object"} | ({"schema": schema} if schema else {})
            else:
                body["response_format"] = request.response_format
        return body

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        """Answer one request; infrastructure failures come back as ``status="drop"``.

        Raises:
            InputError: the server rejected the key (401/403) or does not know the
                model or path (404): every further call would fail the same way.
        """
        probing = (self.format_style == "auto" and request.response_format is not None
                   and request.response_format.get("type") == "json_schema")
        outcome = await self._call(self._body(request, "json_schema" if probing else None), request.trial_id)
        if probing:
            failure = outcome.failure
            refused = failure is not None and (failure.reason.startswith("bad_request")
                                               or failure.reason == "server_error 500")
            if refused:
                # llama-cpp-python's server takes a schema only as {"type": "json_object", "schema": ...}
                # and answers the OpenAI form with HTTP 500 (its request validation error).
                fallback = await self._call(self._body(request, "json_object"), request.trial_id)
                if fallback.failure is None:
                    self.format_style = "json_object"
                    outcome = CallOutcome(fallback.value, None, outcome.retries + 1 + fallback.retries,
                                          outcome.latency_s + fallback.latency_s)
            elif failure is None:
                self.format_style = "json_schema"
        base = outcome.response_fields(self.model, PROVIDER)
        if outcome.failure is not None:
            return CandidateResponse(text=None, status="drop", drop_reason=outcome.failure.reason, **base)
        completion = outcome.value
        choice = completion.choices[0]
        meta = {
            "returned_model": completion.model,
            "system_fingerprint": getattr(completion, "system_fingerprint", None),
            "usage": usage_ints(completion.usage),
        }
        if choice.finish_reason == "content_filter":
            return CandidateResponse(
                text=None, status="drop", drop_reason="content_filter", **base, **meta
            )
        content = choice.message.content
        if content is None:
            reason = f"no_text (finish_reason {choice.finish_reason})"
            return CandidateResponse(text=None, status="drop", drop_reason=reason, **base, **meta)
        return CandidateResponse(text=self._redact(content), **base, **meta)

    async def _call(self, body: dict[str, Any], trial_id: str) -> CallOutcome:
        client = self._client()

        async def attempt() -> Any:
            completion = await client.chat.completions.create(**body)
            _check_shape(completion)
            return completion

        return await call_with_retries(
            attempt,
            classify=self._classifier.classify,
            policy=self.retry,
            attempt_timeout_s=self.timeout_s,
            trial_id=trial_id,
            log_label=self.name,
            redact=self._redact,
            sleep=self._sleep,
        )

    def describe(self) -> dict[str, Any]:
        """Provider, model id, base URL, timeouts and retry policy; never the key."""
        base_url = self.base_url
        if base_url is None:
            base_url = str(self._sdk.AsyncOpenAI(api_key=_NO_KEY_PLACEHOLDER).base_url)
        return {
            "provider": PROVIDER,
            "model": self.model,
            "base_url": redact_url(base_url),
            "api_key_env": self.api_key_env,
            "timeout_s": self.timeout_s,
            "retry": self.retry.model_dump(),
            "max_tokens_param": self.max_tokens_param,
            "sends": ["temperature", self.max_tokens_param]
            + (["top_p"] if self.send_top_p else [])
            + (["seed"] if self.send_seed else []),
            "sdk": f"openai {self._sdk.__version__}",
        }

    async def aclose(self) -> None:
        """Close the SDK clients this candidate opened."""
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.close()


def _check_shape(completion: Any) -> None:
    # A 2xx whose body is not JSON comes back from the SDK as a plain string, and a
    # JSON object of the wrong shape as a ChatCompletion full of None.
    choices = getattr(completion, "choices", None)
    if not choices or getattr(choices[0], "message", None) is None:
        raise MalformedResponse("response has no choices[0].message")


def openai_candidate(name: str, **options: Any) -> OpenAICompatCandidate:
    """Factory for ``openai/MODEL``.

    Options: ``base_url``, ``api_key_env`` (default ``OPENAI_API_KEY``), ``timeout_s``
    (default 60), ``max_retries`` (default 4), ``retry_base_delay_s``, ``retry_max_delay_s``,
    ``max_retry_after_s``, ``retry_seed``, ``max_tokens_param``, ``send_top_p``, ``send_seed``,
    ``response_format_style`` (``auto``, ``json_schema`` or ``json_object``; default ``auto``).

    Raises:
        InputError: unknown option, bad value, or no key for the official endpoint.
    """
    label = f"openai/{name}"
    values = coerce_options(label, options, _OPTION_TYPES)
    retry = retry_policy_from(label, values)
    return OpenAICompatCandidate(name, retry=retry, **values)
