"""A fault-injecting HTTP proxy on 127.0.0.1, for testing the remote candidates' retry policy.

Put it in front of any OpenAI- or Anthropic-style server::

    with FaultProxy("http://127.0.0.1:8080/v1", fault_rate=0.2, seed=7) as proxy:
        candidate = get_candidate("openai/m", base_url=proxy.base_url, timeout_s=2)

Each request is forwarded unchanged or, with probability ``fault_rate`` drawn from
a seeded generator, answered with one fault: ``rate_limit`` (429, ``Retry-After: 0``),
``server_error`` (500), ``reset`` (TCP reset, no answer), ``hang`` (no answer for
``hang_s`` seconds, longer than the client timeout) or ``truncated`` (the real
answer cut in half). ``records`` lists what was done to every request, in arrival order.
Standard library only: asyncio streams in a background thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import struct
import threading
import time
from collections import Counter
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

FaultKind = Literal["rate_limit", "server_error", "reset", "hang", "truncated"]
FAULT_KINDS: tuple[FaultKind, ...] = ("rate_limit", "server_error", "reset", "hang", "truncated")

_REASONS = {200: "OK", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway"}


class FaultRecord(BaseModel):
    """What the proxy did with one request."""

    model_config = ConfigDict(frozen=True)

    index: int
    """Arrival order, from 0."""
    path: str
    """Request path, e.g. ``/v1/chat/completions``."""
    fault: FaultKind | None
    """Injected fault, or None when the request was forwarded unchanged."""
    upstream_s: float | None = None
    """Seconds the upstream server took to answer a forwarded request (None when nothing was forwarded).

    A forwarded request slower than the client's timeout is retried by the client although no
    fault was injected; this is how a test tells such a retry from one a fault caused."""


class _Response(BaseModel):
    status: int
    headers: list[tuple[str, str]]
    body: bytes


def _render(status: int, headers: list[tuple[str, str]], body: bytes) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
    skip = {"content-length", "transfer-encoding", "connection"}
    lines += [f"{name}: {value}" for name, value in headers if name.lower() not in skip]
    lines += [f"Content-Length: {len(body)}", "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _json_error(status: int, message: str, extra: list[tuple[str, str]] | None = None) -> bytes:
    body = json.dumps({"error": {"message": message, "type": "injected_fault"}}).encode()
    return _render(status, [("Content-Type", "application/json"), *(extra or [])], body)


def _dechunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2 :]
    return bytes(out)


def _parse_response(raw: bytes) -> _Response:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:] if ":" in line]
    pairs: list[tuple[str, str]] = [(h[0], h[1]) for h in headers]
    if any(n.lower() == "transfer-encoding" and "chunked" in v.lower() for n, v in pairs):
        body = _dechunk(body)
    return _Response(status=status, headers=pairs, body=body)


class FaultProxy:
    """Seeded fault injection between a client and an upstream HTTP server.

    Use as a context manager; ``base_url`` is the upstream base URL with the proxy's
    host and port, so a client only swaps the URL.
    """

    def __init__(
        self,
        upstream_base_url: str,
        *,
        fault_rate: float = 0.2,
        faults: tuple[FaultKind, ...] = FAULT_KINDS,
        seed: int = 0,
        hang_s: float = 30.0,
    ) -> None:
        """Configure the proxy; nothing listens until ``start()`` or ``with``.

        Args:
            upstream_base_url: e.g. ``http://127.0.0.1:8080/v1``.
            fault_rate: Probability that one request gets a fault.
            faults: Fault kinds to draw from (uniformly).
            seed: Seed of the fault generator (recorded by the caller's manifest).
            hang_s: How long a ``hang`` holds the connection before closing it.

        Raises:
            ValueError: rate outside [0, 1], unknown or no fault kinds, or a non-http URL.
        """
        if not 0.0 <= fault_rate <= 1.0:
            raise ValueError(f"fault_rate={fault_rate} is outside [0, 1]")
        unknown = set(faults) - set(FAULT_KINDS)
        if unknown or not faults:
            raise ValueError(f"faults must be a non-empty subset of {FAULT_KINDS}; got {faults}")
        parts = urlsplit(upstream_base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"upstream {upstream_base_url!r} must be a plain http:// URL")
        self.upstream_host = parts.hostname
        self.upstream_port = parts.port or 80
        self.path_prefix = parts.path.rstrip("/")
        self.fault_rate = fault_rate
        self.faults = tuple(faults)
        self.seed = seed
        self.hang_s = hang_s
        self.records: list[FaultRecord] = []
        self._rng = random.Random(seed)
        self._port: int | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def base_url(self) -> str:
        """The URL clients use instead of the upstream one."""
        if self._port is None:
            raise RuntimeError("FaultProxy is not started")
        return f"http://127.0.0.1:{self._port}{self.path_prefix}"

    @property
    def fault_count(self) -> int:
        """Requests that received a fault."""
        return sum(1 for r in self.records if r.fault is not None)

    def counts(self) -> dict[str, int]:
        """Requests per outcome: each fault kind and ``forwarded``."""
        return dict(Counter(r.fault or "forwarded" for r in self.records))

    def start(self) -> FaultProxy:
        """Listen on a free 127.0.0.1 port in a background thread."""
        self._thread = threading.Thread(target=self._run, name="fault-proxy", daemon=True)
        self._thread.start()
        self._ready.wait(timeout=10)
        if self._error is not None:
            raise RuntimeError(f"fault proxy failed to start: {self._error}")
        return self

    def stop(self) -> None:
        """Close the listener, cancel held connections and join the thread."""
        if self._loop is not None and self._stop_event is not None:
            self._loop.call_soon_threadsafe(self._stop_event.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._thread = None

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # noqa: BLE001 - reported to start()
            self._error = exc
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop_event = asyncio.Event()
        tasks: set[asyncio.Task[None]] = set()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            tasks.add(task)
            try:
                await self._handle(reader, writer)
            except asyncio.CancelledError:
                # Cancelled only at shutdown; ending normally keeps Python 3.11's
                # stream callback from logging the cancellation as an error.
                pass
            finally:
                tasks.discard(task)

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        self._port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop_event.wait()
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _draw(self) -> FaultKind | None:
        if self._rng.random() < self.fault_rate:
            return self._rng.choice(self.faults)
        return None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            body = await reader.readexactly(length) if length else b""
            path = head.split(b" ", 2)[1].decode("latin-1")
            fault = self._draw()
            record = FaultRecord(index=len(self.records), path=path, fault=fault)
            self.records.append(record)
            if fault == "reset":
                sock = writer.get_extra_info("socket")
                if sock is not None:
                    # SO_LINGER 0: close() sends RST instead of FIN.
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
                return
            if fault == "hang":
                await asyncio.sleep(self.hang_s)
                return
            if fault == "rate_limit":
                writer.write(_json_error(429, "injected rate limit", [("Retry-After", "0")]))
            elif fault == "server_error":
                writer.write(_json_error(500, "injected server error"))
            else:
                started = time.monotonic()
                upstream = await self._forward(head, body)
                self.records[record.index] = record.model_copy(update={"upstream_s": time.monotonic() - started})
                if fault == "truncated":
                    upstream = _Response(
                        status=upstream.status,
                        headers=upstream.headers,
                        body=upstream.body[: len(upstream.body) // 2],
                    )
                writer.write(_render(upstream.status, upstream.headers, upstream.body))
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
            pass
        finally:
            if not writer.transport.is_closing():
                writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def _forward(self, head: bytes, body: bytes) -> _Response:
        lines = head.decode("latin-1").split("\r\n")
        kept = [
            line
            for line in lines[1:]
            if line and line.split(":", 1)[0].strip().lower() not in ("host", "connection")
        ]
        request_head = "\r\n".join(
            [lines[0], f"Host: {self.upstream_host}:{self.upstream_port}", *kept, "Connection: close"]
        )
        try:
            up_reader, up_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        except OSError as exc:
            return _Response(status=502, headers=[], body=f"upstream unreachable: {exc}".encode())
        try:
            up_writer.write(request_head.encode("latin-1") + b"\r\n\r\n" + body)
            await up_writer.drain()
            raw = await up_reader.read()
        finally:
            up_writer.close()
            with contextlib.suppress(OSError):
                await up_writer.wait_closed()
        return _parse_response(raw)

