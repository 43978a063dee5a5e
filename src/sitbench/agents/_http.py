"""The HTTP agent protocol: an agent in any language behind a few JSON endpoints.

Endpoints (bodies are the models in ``sitbench.agents``; ``sitbench schema`` exports them):

- ``GET  /info`` → :class:`AgentInfo` (optional: a 404 means defaults, no fork).
- ``POST /ingest``  :class:`IngestRequest` → :class:`IngestReport` (``{}`` is fine).
- ``POST /respond`` :class:`RespondRequest` → :class:`AgentReply`.
- ``POST /end_session`` :class:`StateRequest` → :class:`Ack`: the conversation ends, memory stays.
- ``POST /fork`` :class:`ForkRequest` → :class:`Ack`: copy ``source`` into ``state``
  (only called when ``/info`` says ``supports_fork``).
- ``POST /reset`` :class:`StateRequest` → :class:`Ack`: the harness is done with ``state``; forget it.
- CHI panel hooks, each only called when ``/info`` lists it in ``hooks``:
  ``POST /tick`` :class:`TickRequest` (one neutral scheduler tick, with the tick's text as
  ``observation`` in the C and A tests) → :class:`TickReply` (its ``text``: what the agent does on
  the tick, or null), ``POST /erase`` :class:`StateRequest` (delete the persistent memory),
  ``POST /fault`` and ``POST /repair`` :class:`FaultRequest` (inject and repair a declared
  memory-index fault), each → :class:`Ack`.

Every state is named by an opaque handle the harness picks, so one server serves concurrent trials.
A non-2xx status is an agent error and a body that does not validate is malformed output: both drop
the trial with the reason, never stop the run.
"""

from __future__ import annotations

import uuid
import zlib
from typing import Any, TypeVar, overload

import httpx
from pydantic import BaseModel, ValidationError

from sitbench._limits import DEFAULT_MAX_RESPONSE_CHARS
from sitbench._urls import redact_text, redact_url
from sitbench.agents._models import (
    AgentInfo,
    AgentReply,
    AgentSubject,
    AgentTurn,
    FaultRequest,
    ForkRequest,
    IngestReport,
    IngestRequest,
    RespondRequest,
    StateRequest,
    TickReply,
    TickRequest,
)
from sitbench.errors import InputError

_Answer = TypeVar("_Answer", bound=BaseModel)


class AgentOutputError(Exception):
    """An agent returned something that is not what the protocol asks for."""


INFO_MAX_BYTES = 1 << 20
"""The largest ``GET /info`` body read (it holds a name, a version and a few flags)."""


def body_limit(max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS) -> int:
    """The largest body read from an agent: an answer at the cap, every character escaped (``\\uXXXX``, six
    bytes), plus a MiB for the rest of the reply (usage, memory operations)."""
    return 6 * max_response_chars + (1 << 20)


# The encodings sitbench asks for, decoded here with a bound (httpx's own decoders inflate a chunk whole).
_ACCEPT_ENCODING = "gzip, deflate"


class _BoundedBody:
    """Collects a body from its raw (still encoded) chunks, never holding more than ``limit`` decoded bytes.

    A body announced longer than ``limit``, or longer when it arrives (chunked, or compressed: a gzip bomb
    is inflated at most ``limit + 1`` bytes), is refused with :class:`AgentOutputError`."""

    def __init__(self, response: httpx.Response, limit: int, what: str) -> None:
        self.limit = limit
        self.what = what
        self.data = bytearray()
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise self._too_long(f"announced {int(length):,} bytes")
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding in ("", "identity"):
            self._inflate = None
        elif encoding in ("gzip", "x-gzip", "deflate"):
            self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS if "gzip" in encoding else zlib.MAX_WBITS)
        else:
            raise AgentOutputError(f"{what}: content-encoding {encoding!r} was not asked for "
                                   f"(sitbench accepts {_ACCEPT_ENCODING} or none)")

    def _too_long(self, how: str) -> AgentOutputError:
        return AgentOutputError(f"{self.what}: the body is larger than {self.limit:,} bytes ({how}), the most "
                                "sitbench reads of one reply (the answer cap plus a margin); it is not read")

    def feed(self, chunk: bytes) -> None:
        if self._inflate is None:
            self.data += chunk
        else:
            try:
                pending = chunk
                while pending:
                    self.data += self._inflate.decompress(pending, self.limit + 1 - len(self.data))
                    pending = self._inflate.unconsumed_tail
                    if len(self.data) > self.limit:
                        break
            except zlib.error as exc:
                raise AgentOutputError(f"{self.what}: the compressed body cannot be decoded ({exc})") from None
        if len(self.data) > self.limit:
            raise self._too_long("as it arrived")

    def body(self) -> bytes:
        return bytes(self.data)


def check_agent_url(spec: str) -> None:
    """Refuse an ``--agent`` URL that is not ``http(s)://HOST[:PORT][/PATH]``, in one line with the fix.

    Raises:
        InputError: the URL does not parse, or names no host.
    """
    fix = "give http://HOST:PORT of the agent server, e.g. --agent http://127.0.0.1:8000"
    try:
        url = httpx.URL(spec)
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        raise InputError(f"--agent {redact_url(spec)!r}: not a valid agent URL ({redact_text(str(exc))}); {fix}") \
            from None
    if not url.host:
        raise InputError(f"--agent {redact_url(spec)!r}: the URL names no host; {fix}")
    if url.port is not None and not 0 < url.port < 65536:
        raise InputError(f"--agent {redact_url(spec)!r}: port {url.port} is not a TCP port (1 … 65535); {fix}")


class HttpAgentClient:
    """One connection pool to an HTTP agent; :meth:`__call__` is the factory of fresh states."""

    def __init__(self, base_url: str, timeout_s: float = 120.0, max_body_bytes: int | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_body_bytes = body_limit() if max_body_bytes is None else max_body_bytes
        """The largest reply body read (:func:`body_limit` of the answer cap); a larger one drops the trial."""
        self.shown_url = redact_url(self.base_url)
        """The URL as messages and records show it: without credentials."""
        self.timeout_s = timeout_s
        self._client: httpx.AsyncClient | None = None
        self._hooks: list[str] | None = None

    def client(self) -> httpx.AsyncClient:
        # Created inside the running event loop, on first use.
        if self._client is None:
            # Past the harness's own per-call limit, so a slow agent reads as a timeout, not a transport error.
            self._client = httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout_s + 5, trust_env=False,
                                             headers={"accept-encoding": _ACCEPT_ENCODING})
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def info(self) -> AgentInfo:
        """``GET /info``, checked before a run starts.

        Raises:
            InputError: the server cannot be reached, or its /info does not validate.
        """
        try:
            with httpx.stream("GET", f"{self.base_url}/info", timeout=min(self.timeout_s, 30.0), trust_env=False,
                              headers={"accept-encoding": _ACCEPT_ENCODING}) as response:
                status = response.status_code
                collected = _BoundedBody(response, INFO_MAX_BYTES, "GET /info")
                for chunk in response.iter_raw():
                    collected.feed(chunk)
        except AgentOutputError as exc:
            raise InputError(f"--agent {self.shown_url}: {exc}; fix the agent server's /info") from None
        except httpx.HTTPError as exc:
            raise InputError(f"--agent {self.shown_url}: cannot reach the agent ({exc}); start the agent server "
                             "first, or check the address") from None
        except (httpx.InvalidURL, ValueError) as exc:
            raise InputError(f"--agent {self.shown_url}: not a valid agent URL ({redact_text(str(exc))}); give http://HOST:PORT of the "
                             "agent server") from None
        if status == 404:
            return AgentInfo(name=self.shown_url)
        try:
            if status >= 400:
                raise ValueError(f"HTTP {status}")
            return AgentInfo.model_validate_json(collected.body())
        except (ValueError, ValidationError) as exc:
            raise InputError(f"--agent {self.shown_url}: GET /info must return an AgentInfo object "
                             f"(`sitbench schema` writes agent_info.schema.json): {str(exc)[:200]}") from None

    @overload
    async def post(self, path: str, body: BaseModel, answer: type[_Answer]) -> _Answer: ...

    @overload
    async def post(self, path: str, body: BaseModel, answer: None = None) -> None: ...

    async def post(self, path: str, body: BaseModel, answer: type[_Answer] | None = None) -> _Answer | None:
        request = self.client().build_request("POST", path, content=body.model_dump_json(),
                                              headers={"content-type": "application/json"})
        response = await self.client().send(request, stream=True)
        try:
            if response.status_code >= 400:
                shown = b""  # the first 200 bytes, for the drop reason; the rest is never read
                async for chunk in response.aiter_raw():
                    shown += chunk
                    if len(shown) >= 200:
                        break
                raise RuntimeError(f"POST {path}: HTTP {response.status_code} "
                                   f"{shown[:200].decode('utf-8', 'replace')!r}")
            collected = _BoundedBody(response, self.max_body_bytes, f"POST {path}")
            async for chunk in response.aiter_raw():
                collected.feed(chunk)
        finally:
            await response.aclose()
        if answer is None:
            return None
        raw = collected.body().strip() or b"{}"
        try:
            return answer.model_validate_json(raw)
        except ValidationError as exc:
            raise AgentOutputError(f"POST {path}: the body is not a valid {answer.__name__}: "
                                   f"{_first_error(exc)}") from None

    def __call__(self) -> HttpAgent:
        return HttpAgent(self, f"st-{uuid.uuid4().hex[:16]}")

    def hooks(self) -> list[str]:
        """The optional hooks ``GET /info`` declares (read once): its CHI panel ``hooks``, and ``fork`` when it
        supports forking."""
        if self._hooks is None:
            info = self.info()
            self._hooks = [*info.hooks, *(["fork"] if info.supports_fork else [])]
        return self._hooks


class HttpAgent:
    """One agent state on an HTTP agent server, driven through the :class:`Agent` protocol."""

    def __init__(self, client: HttpAgentClient, state: str) -> None:
        self._http = client
        self.state = state

    async def ingest(self, subject: AgentSubject) -> IngestReport:
        return await self._http.post("/ingest", IngestRequest(state=self.state, subject=subject), IngestReport)

    async def respond(self, turn: AgentTurn) -> AgentReply:
        return await self._http.post("/respond", RespondRequest(state=self.state, turn=turn), AgentReply)

    async def end_session(self) -> None:
        await self._http.post("/end_session", StateRequest(state=self.state))

    async def fork(self) -> HttpAgent:
        child = self._http()
        await self._http.post("/fork", ForkRequest(state=child.state, source=self.state))
        return child

    async def close(self) -> None:
        await self._http.post("/reset", StateRequest(state=self.state))

    def declared_hooks(self) -> list[str]:
        """The optional hooks the server declares in ``GET /info`` (``fork`` when it supports forking)."""
        return self._http.hooks()

    async def tick(self, budget_ops: int | None = None, observation: str | None = None) -> str | None:
        """``POST /tick``; the reply body's ``text`` is what the agent did on the tick (``None``: nothing)."""
        reply = await self._http.post("/tick", TickRequest(state=self.state, budget_ops=budget_ops,
                                                           observation=observation), TickReply)
        return reply.text

    async def erase(self) -> None:
        await self._http.post("/erase", StateRequest(state=self.state))

    async def inject_fault(self, fault: dict[str, Any]) -> None:
        await self._http.post("/fault", FaultRequest(state=self.state, fault=fault))

    async def repair_fault(self, fault: dict[str, Any]) -> None:
        await self._http.post("/repair", FaultRequest(state=self.state, fault=fault))


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error.get("loc", ())) or "body"
    got = "" if error.get("type") == "json_invalid" else f" (got {repr(error.get('input'))[:80]})"
    return f"{where}: {error.get('msg')}{got}"
