"""``anthropic/MODEL``: Claude models through the official Anthropic SDK (Messages API)."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from sitbench._urls import redact_url
from sitbench.candidates._protocol import CandidateRequest, CandidateResponse, Message
from sitbench.candidates._remote import (
    RETRY_OPTION_TYPES,
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

PROVIDER = "anthropic"

# stop_reason values that mean the model did not produce an answer we may score.
_DROP_STOP_REASONS: dict[str, str] = {
    "refusal": "content_filter",
    "model_context_window_exceeded": "context_overflow",
    "tool_use": "no_text (stop_reason tool_use)",
    "pause_turn": "no_text (stop_reason pause_turn)",
}

_OPTION_TYPES: dict[str, type] = {
    "base_url": str,
    "api_key_env": str,
    "timeout_s": float,
    "send_sampling": bool,
    "http_client": object,
    "sleep": object,
    **RETRY_OPTION_TYPES,
}


def split_system(label: str, trial_id: str, messages: list[Message]) -> tuple[str | None, list[dict[str, str]]]:
    """Map chat messages to the Messages API: leading system turns become ``system``.

    Several leading system messages are joined with a blank line, in order.

    Raises:
        InputError: a system message follows a user/assistant turn (the Messages API
            takes system text only at the start), or no user/assistant turn remains.
    """
    system_parts: list[str] = []
    turns: list[dict[str, str]] = []
    for position, message in enumerate(messages):
        if message.role == "system":
            if turns:
                raise InputError(
                    f"{label} trial {trial_id}: messages[{position}] is a system message after a "
                    "user/assistant turn; the Anthropic Messages API takes system text only at "
                    "the start; move it to the front or make it a user turn"
                )
            system_parts.append(message.content)
        else:
            turns.append({"role": message.role, "content": message.content})
    if not turns:
        raise InputError(
            f"{label} trial {trial_id}: the request has no user message; "
            "the Anthropic Messages API needs at least one"
        )
    return ("\n\n".join(system_parts) if system_parts else None), turns


class AnthropicCandidate:
    """A Claude model behind the Anthropic Messages API.

    Sampling parameters: the API version this SDK speaks rejects ``temperature``
    (and ``top_p``) for current Claude models and has no ``seed``, so by default only
    ``max_tokens`` of the decoding config is sent; ``describe()`` records which
    decoding fields were sent. ``send_sampling=True`` adds temperature and top_p
    for gateways or older model versions that still take them.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "ANTHROPIC_API_KEY",
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        send_sampling: bool = False,
        http_client: Any = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        """Create the candidate; no network traffic happens here.

        Args:
            model: Model id sent to the API.
            base_url: API root; the SDK default when None.
            api_key_env: Name of the environment variable holding the key.
            timeout_s: Wall-time limit of one attempt.
            retry: Retry policy; defaults to :class:`RetryPolicy()`.
            send_sampling: Also send ``temperature`` and ``top_p``.
            http_client: An ``httpx`` async client for the SDK (tests use a mock transport).
            sleep: Awaitable sleep used between retries.

        Raises:
            InputError: the key variable is unset, or an option is invalid.
        """
        if not model:
            raise InputError("--model anthropic/: the model name is empty; use anthropic/MODEL")
        if timeout_s <= 0:
            raise InputError(f"--model anthropic/{model}: option timeout_s must be > 0")
        self.name = f"anthropic/{model}"
        check_base_url(f"--model {self.name}", base_url)
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.timeout_s = float(timeout_s)
        self.retry = retry or RetryPolicy()
        self.send_sampling = send_sampling
        self._http_client = http_client
        self._sleep = sleep
        key = os.environ.get(api_key_env)
        if not key:
            raise InputError(missing_key_message(f"--model {self.name}", api_key_env, keyless_server=False))
        self._api_key = key
        self._redact = Redactor(key)
        import anthropic

        self._sdk = anthropic
        self._classifier = FailureClassifier(
            anthropic,
            label=f"--model {self.name}",
            key_hint=f"check the key in environment variable {api_key_env}",
            timeout_s=self.timeout_s,
            redact=self._redact,
        )
        self._clients: dict[int, Any] = {}

    def _client(self) -> Any:
        # One SDK client per event loop: httpx pools are bound to the loop that opened them.
        key = 0 if self._http_client is not None else id(asyncio.get_running_loop())
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
            client = self._sdk.AsyncAnthropic(**kwargs)
            self._clients[key] = client
        return client

    def _body(self, request: CandidateRequest) -> dict[str, Any]:
        system, turns = split_system(self.name, request.trial_id, request.messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.decoding.max_tokens,
            "messages": turns,
        }
        if system is not None:
            body["system"] = system
        if self.send_sampling:
            body["extra_body"] = {
                "temperature": request.decoding.temperature,
                "top_p": request.decoding.top_p,
            }
        return body

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        """Answer one request; infrastructure failures come back as ``status="drop"``.

        Raises:
            InputError: bad key (401/403), unknown model (404), or messages the
                Messages API cannot take (see :func:`split_system`).
        """
        body = self._body(request)
        client = self._client()

        async def attempt() -> Any:
            message = await client.messages.create(**body)
            if not isinstance(getattr(message, "content", None), list):
                raise MalformedResponse("response has no content list")
            return message

        outcome = await call_with_retries(
            attempt,
            classify=self._classifier.classify,
            policy=self.retry,
            attempt_timeout_s=self.timeout_s,
            trial_id=request.trial_id,
            log_label=self.name,
            redact=self._redact,
            sleep=self._sleep,
        )
        base = outcome.response_fields(self.model, PROVIDER)
        if outcome.failure is not None:
            return CandidateResponse(text=None, status="drop", drop_reason=outcome.failure.reason, **base)
        message = outcome.value
        meta = {"returned_model": message.model, "usage": usage_ints(message.usage)}
        stop = message.stop_reason
        texts = [block.text for block in message.content if getattr(block, "type", None) == "text"]
        if stop in _DROP_STOP_REASONS and not (stop in ("tool_use", "pause_turn") and texts):
            return CandidateResponse(
                text=None, status="drop", drop_reason=_DROP_STOP_REASONS[stop], **base, **meta
            )
        if not texts:
            return CandidateResponse(
                text=None, status="drop", drop_reason=f"no_text (stop_reason {stop})", **base, **meta
            )
        # end_turn, stop_sequence and max_tokens all leave an answer to score; a
        # max_tokens cut is the model's answer under the configured budget.
        return CandidateResponse(text=self._redact("".join(texts)), **base, **meta)

    def describe(self) -> dict[str, Any]:
        """Provider, model id, base URL, API version, decoding fields sent; never the key."""
        # Older SDKs do not expose the API version they send; record None there.
        constants = getattr(self._sdk, "_constants", None)
        api_version = getattr(constants, "ANTHROPIC_API_VERSION", None)
        base_url = self.base_url
        if base_url is None:
            base_url = str(self._sdk.AsyncAnthropic(api_key="unused").base_url)
        return {
            "provider": PROVIDER,
            "model": self.model,
            "base_url": redact_url(base_url),
            "api_version": api_version,
            "api_key_env": self.api_key_env,
            "timeout_s": self.timeout_s,
            "retry": self.retry.model_dump(),
            "sends": ["max_tokens"] + (["temperature", "top_p"] if self.send_sampling else []),
            "sdk": f"anthropic {self._sdk.__version__}",
        }

    async def aclose(self) -> None:
        """Close the SDK clients this candidate opened."""
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.close()


def anthropic_candidate(name: str, **options: Any) -> AnthropicCandidate:
    """Factory for ``anthropic/MODEL``.

    Options: ``base_url``, ``api_key_env`` (default ``ANTHROPIC_API_KEY``), ``timeout_s``
    (default 120), ``max_retries`` (default 4), ``retry_base_delay_s``,
    ``retry_max_delay_s``, ``max_retry_after_s``, ``retry_seed``, ``send_sampling``.

    Raises:
        InputError: unknown option, bad value, or the key variable is unset.
    """
    label = f"anthropic/{name}"
    values = coerce_options(label, options, _OPTION_TYPES)
    retry = retry_policy_from(label, values)
    return AnthropicCandidate(name, retry=retry, **values)
