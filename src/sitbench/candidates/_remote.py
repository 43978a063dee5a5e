"""Shared machinery of the HTTP candidates: options, retry policy, failure classification.

The OpenAI and Anthropic SDKs are generated from the same template and raise the
same family of exceptions (``APIStatusError``, ``APIConnectionError``,
``APITimeoutError``), so one classifier serves both. The SDKs' own retries are
switched off; this module owns the policy so that every retry is counted, every
backoff delay comes from a seeded generator, and every give-up ends in a drop
with a stable reason instead of an exception.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

from sitbench.errors import InputError

logger = logging.getLogger("sitbench.candidates")

T = TypeVar("T")

Sleep = Callable[[float], Awaitable[None]]

_REDACTED = "[redacted]"


class RetryPolicy(BaseModel):
    """How a remote candidate retries transient failures; recorded in ``describe()``."""

    model_config = ConfigDict(frozen=True)

    max_retries: int = 4
    """Retries after the first attempt before the trial is dropped."""
    base_delay_s: float = 0.5
    """Backoff before retry ``n`` (0-based) is ``base_delay_s * 2**n`` before jitter."""
    max_delay_s: float = 20.0
    """Upper bound of one backoff delay before jitter."""
    max_retry_after_s: float = 60.0
    """A ``Retry-After`` longer than this ends the call as a drop instead of waiting."""
    refused_min_delay_s: float = 2.5
    """Least nominal backoff after a refused connection: a server that refuses is usually
    starting or restarting (``sitbench serve`` restarts a dead one), which takes seconds."""
    seed: int = 0
    """Seed of the jitter generator; combined with the trial id, so delays are reproducible."""

    def backoff_s(self, retry_index: int, rng: random.Random, *, floor_s: float = 0.0) -> float:
        """Jittered exponential delay before retry ``retry_index`` (0-based).

        The delay is ``d * (0.5 + 0.5 * u)`` with ``d = min(max_delay_s, max(floor_s,
        base_delay_s * 2**n))`` and ``u`` uniform in ``[0, 1)``: never less than half the
        nominal delay, so a burst of failing trials spreads out without collapsing to zero
        wait.
        """
        nominal = min(self.max_delay_s, max(floor_s, self.base_delay_s * (2.0**retry_index)))
        return nominal * (0.5 + 0.5 * rng.random())

    def rng_for(self, trial_id: str) -> random.Random:
        """The jitter generator of one trial: independent of scheduling order."""
        return random.Random(f"{self.seed}/{trial_id}")


@dataclass(frozen=True)
class Failure:
    """One failed attempt, classified."""

    reason: str
    """Stable drop reason, e.g. ``rate_limited`` or ``server_error 500``."""
    retryable: bool
    """Whether another attempt may succeed."""
    retry_after_s: float | None = None
    """Delay the server asked for (``Retry-After``), when it asked."""


class MalformedResponse(Exception):
    """The provider answered 2xx but the body is not the documented shape."""


#: The shortest run of a secret's characters that counts as an echo of it (a server that repeats a key
#: minus its last characters still leaks the rest).
PARTIAL_ECHO = 12


class Redactor:
    """Removes a secret, and any run of at least :data:`PARTIAL_ECHO` of its characters, from any text
    before it reaches a log line, a reason, an error or a stored response."""

    def __init__(self, secret: str | None) -> None:
        self._secret = secret if secret and len(secret) >= 4 else None
        self._window = min(PARTIAL_ECHO, len(self._secret)) if self._secret else 0
        self._pieces = frozenset(self._secret[i:i + self._window]
                                 for i in range(len(self._secret) - self._window + 1)) if self._secret else frozenset()

    def __call__(self, text: str) -> str:
        """Return ``text`` with every occurrence of the secret, whole or in part, replaced."""
        if self._secret is None or len(text) < self._window:
            return text
        text = text.replace(self._secret, _REDACTED)
        k = self._window
        covered_to = -1
        spans: list[list[int]] = []
        for i in range(len(text) - k + 1):
            if text[i:i + k] in self._pieces:
                if spans and i <= covered_to:
                    spans[-1][1] = i + k
                else:
                    spans.append([i, i + k])
                covered_to = i + k
        if not spans:
            return text
        out, pos = [], 0
        for start, end in spans:
            out += [text[pos:start], _REDACTED]
            pos = end
        out.append(text[pos:])
        return "".join(out)


def check_base_url(label: str, base_url: str | None) -> None:
    """Refuse a base URL that is not an ``http(s)://host…`` URL before any call is made.

    Raises:
        InputError: naming ``--base-url`` and an example of a valid value.
    """
    if base_url is None:
        return
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"{label}: --base-url {base_url!r} is not an http:// or https:// URL with a host; "
                         "give the server's API root, e.g. http://127.0.0.1:8080/v1")


def missing_key_message(label: str, api_key_env: str, *, keyless_server: bool) -> str:
    """What to do when the environment variable holding the API key is not set (names the CLI options)."""
    alternatives = "export it, or name another variable with --api-key-env NAME"
    if keyless_server:
        alternatives += ", or give --base-url for a server that needs no key"
    return (f"{label}: environment variable {api_key_env} is not set; {alternatives} (for an llm: extractor, "
            "SITBENCH_EXTRACTOR_API_KEY_ENV and SITBENCH_EXTRACTOR_BASE_URL)")


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asked the client to wait, from ``retry-after-ms`` or ``retry-after``.

    ``retry-after`` may be seconds (integer or, non-standard, decimal) or an HTTP date.
    Returns None when no usable header is present.
    """
    raw_ms = headers.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    parsed = email.utils.parsedate_to_datetime(raw) if raw.strip() else None
    if parsed is None:
        return None
    return max(0.0, parsed.timestamp() - time.time())


def _cause_chain(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _connection_reason(exc: BaseException) -> str:
    names = {type(e).__name__ for e in _cause_chain(exc)}
    if names & {"ConnectError", "ConnectionRefusedError"}:
        return "connection_refused"
    if names & {"ReadError", "WriteError", "RemoteProtocolError", "ConnectionResetError"}:
        return "connection_reset"
    return "connection_error"


def _error_message(body: object) -> str:
    """The human message inside a provider error body (OpenAI or Anthropic shape)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(message := inner.get("message"), str):
            return message
        if isinstance(inner, str):
            return inner
    if isinstance(body, str):
        return body
    return ""


def _error_code(body: object) -> str:
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            for key in ("code", "type"):
                if isinstance(code := inner.get(key), str):
                    return code
    return ""


_CONTEXT_MARKERS = ("context_length_exceeded", "context length", "context window", "too long")


class FailureClassifier:
    """Maps an exception raised by one SDK call to a :class:`Failure` (or re-raises).

    Authentication and not-found errors are configuration mistakes that every later
    call would repeat, so they become :class:`InputError` naming the option to fix;
    everything caused by the network or the server becomes a retryable or final drop.
    """

    def __init__(
        self,
        sdk: ModuleType,
        *,
        label: str,
        key_hint: str,
        timeout_s: float,
        redact: Redactor,
    ) -> None:
        self._sdk = sdk
        self._label = label
        self._key_hint = key_hint
        self._timeout_s = timeout_s
        self._redact = redact

    def classify(self, exc: BaseException) -> Failure:
        """Classify ``exc``; raises InputError for configuration errors.

        Raises:
            InputError: the provider rejected the credentials or does not know the model.
        """
        sdk = self._sdk
        if isinstance(exc, (TimeoutError, sdk.APITimeoutError)):
            return Failure(f"timeout after {self._timeout_s:g}s", retryable=True)
        if isinstance(exc, sdk.APIConnectionError):
            return Failure(_connection_reason(exc), retryable=True)
        if isinstance(exc, sdk.APIStatusError):
            return self._status_failure(exc)
        if isinstance(exc, (MalformedResponse, ValueError, sdk.APIResponseValidationError)):
            # json.JSONDecodeError is a ValueError: a truncated or garbled 2xx body.
            return Failure("malformed_response", retryable=True)
        raise exc

    def _status_failure(self, exc: Any) -> Failure:
        status: int = exc.status_code
        body = getattr(exc, "body", None)
        headers: Mapping[str, str] = exc.response.headers
        if status in (401, 403):
            raise InputError(
                f"{self._label}: the provider refused the credentials (HTTP {status}); "
                f"{self._key_hint}"
            ) from None
        if status == 404:
            message = self._redact(_error_message(body))[:200]
            raise InputError(
                f"{self._label}: HTTP 404 ({message or 'not found'}); check the model name "
                "and the base_url option (an OpenAI-compatible base URL usually ends in /v1)"
            ) from None
        if status == 429:
            return Failure("rate_limited", retryable=True, retry_after_s=parse_retry_after(headers))
        if status == 408:
            return Failure(f"timeout after {self._timeout_s:g}s", retryable=True)
        if status >= 500:
            retry_after = parse_retry_after(headers) if status == 503 else None
            return Failure(f"server_error {status}", retryable=True, retry_after_s=retry_after)
        message = _error_message(body)
        marker_text = f"{_error_code(body)} {message}".lower()
        if any(marker in marker_text for marker in _CONTEXT_MARKERS):
            return Failure("context_overflow", retryable=False)
        detail = self._redact(" ".join(message.split()))[:200]
        return Failure(f"bad_request {status}: {detail}".rstrip(": "), retryable=False)


@dataclass
class CallOutcome:
    """Result of :func:`call_with_retries`: a value, or the failure that ended the call."""

    value: Any
    failure: Failure | None
    retries: int
    latency_s: float

    def response_fields(self, model: str, provider: str) -> dict[str, Any]:
        """Fields every :class:`CandidateResponse` of this call carries, whatever came back."""
        return {"model_sent": model, "provider": provider, "retries": self.retries, "latency_s": self.latency_s}


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    classify: Callable[[BaseException], Failure],
    policy: RetryPolicy,
    attempt_timeout_s: float,
    trial_id: str,
    log_label: str,
    redact: Redactor,
    sleep: Sleep = asyncio.sleep,
) -> CallOutcome:
    """Run ``attempt`` until it succeeds, fails for good, or the retry budget is spent.

    Each attempt is bounded by ``attempt_timeout_s`` of wall time, on top of the SDK's
    own timeout, so a server that trickles bytes cannot hold a trial forever.

    Returns:
        The value of the first successful attempt, or the last failure; the number
        of retries spent and the wall time of the whole call.
    """
    rng = policy.rng_for(trial_id)
    start = time.perf_counter()
    retries = 0
    while True:
        try:
            async with asyncio.timeout(attempt_timeout_s):
                value = await attempt()
            return CallOutcome(value, None, retries, time.perf_counter() - start)
        except Exception as exc:  # noqa: BLE001 - classify() re-raises what it does not know
            failure = classify(exc)
        if not failure.retryable or retries >= policy.max_retries:
            return CallOutcome(None, failure, retries, time.perf_counter() - start)
        if failure.retry_after_s is not None:
            if failure.retry_after_s > policy.max_retry_after_s:
                reason = (
                    f"{failure.reason} (retry-after {failure.retry_after_s:g}s exceeds "
                    f"max_retry_after_s={policy.max_retry_after_s:g})"
                )
                return CallOutcome(
                    None, Failure(reason, retryable=False), retries, time.perf_counter() - start
                )
            delay = failure.retry_after_s
        else:
            floor = policy.refused_min_delay_s if failure.reason == "connection_refused" else 0.0
            delay = policy.backoff_s(retries, rng, floor_s=floor)
        retries += 1
        logger.info(
            redact(
                f"{log_label} trial {trial_id}: {failure.reason}; "
                f"retry {retries}/{policy.max_retries} in {delay:.3f}s"
            )
        )
        await sleep(delay)


def _coerce_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"not a boolean: {value!r}")


def coerce_options(
    label: str, options: Mapping[str, Any], schema: Mapping[str, type]
) -> dict[str, Any]:
    """Validate candidate options (they may arrive as strings from the command line).

    Args:
        label: The model spec, for error messages.
        options: The options the user gave.
        schema: Allowed option names and their types (``str``, ``int``, ``float``,
            ``bool``, or ``object`` for anything passed through unchanged).

    Raises:
        InputError: an unknown option or a value of the wrong type.
    """
    unknown = sorted(set(options) - set(schema))
    if unknown:
        raise InputError(
            f"--model {label}: unknown option(s) {', '.join(unknown)}; "
            f"known options are {', '.join(sorted(schema))}"
        )
    result: dict[str, Any] = {}
    for name, value in options.items():
        kind = schema[name]
        if value is None or kind is object:
            result[name] = value
            continue
        try:
            if kind is bool:
                result[name] = _coerce_bool(value)
            elif kind is int and isinstance(value, float) and not value.is_integer():
                raise ValueError(f"not an integer: {value!r}")
            else:
                result[name] = kind(value)
        except (TypeError, ValueError):
            raise InputError(
                f"--model {label}: option {name}={value!r} is not a valid {kind.__name__}; "
                f"give a {kind.__name__}"
            ) from None
    return result


def retry_policy_from(label: str, options: dict[str, Any]) -> RetryPolicy:
    """Pop the retry options (``max_retries``, ``retry_base_delay_s``, ``retry_seed``…)."""
    fields = {
        "max_retries": "max_retries",
        "retry_base_delay_s": "base_delay_s",
        "retry_max_delay_s": "max_delay_s",
        "max_retry_after_s": "max_retry_after_s",
        "retry_refused_min_delay_s": "refused_min_delay_s",
        "retry_seed": "seed",
    }
    values = {target: options.pop(src) for src, target in fields.items() if src in options}
    if values.get("max_retries", 0) < 0:
        raise InputError(f"--model {label}: option max_retries must be >= 0")
    return RetryPolicy(**values)


RETRY_OPTION_TYPES: dict[str, type] = {
    "max_retries": int,
    "retry_base_delay_s": float,
    "retry_max_delay_s": float,
    "max_retry_after_s": float,
    "retry_refused_min_delay_s": float,
    "retry_seed": int,
}


def usage_ints(usage: object) -> dict[str, int]:
    """Integer token counts of an SDK usage object (nested details are left out)."""
    if usage is None:
        return {}
    raw = usage.model_dump() if hasattr(usage, "model_dump") else dict(usage)  # type: ignore[call-overload]
    return {k: int(v) for k, v in raw.items() if isinstance(v, int) and not isinstance(v, bool)}
