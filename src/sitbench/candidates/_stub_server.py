"""A deterministic OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks.

It answers ``POST …/chat/completions`` from the request content alone (same
messages and decoding → same answer), optionally after a fixed delay, and
``GET …/models`` with the one model id it serves. Standard library only.

In a thread::

    with StubChatServer(delay_s=0.05) as server:
        candidate = get_candidate("openai/stub", base_url=server.base_url)

In its own process (no GIL shared with the client, as a benchmark wants)::

    with stub_server_process() as base_url:
        ...
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

STUB_MODEL = "stub-chat"
STUB_FINGERPRINT = "fp_stub_1"


def stub_answer(body: dict[str, Any]) -> str:
    """The answer to one request body: a function of its messages and decoding only."""
    canonical = json.dumps(
        {k: body.get(k) for k in ("messages", "temperature", "top_p", "max_tokens", "seed")},
        sort_keys=True,
        separators=(",", ":"),
    )
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:12]
    last = str(body.get("messages", [{}])[-1].get("content", ""))
    first_line = " ".join(last.split())[:80]
    return f"I do not recall that ({digest}). You asked: {first_line}"


class StubChatServer:
    """A threaded HTTP server answering chat completions deterministically.

    Attributes:
        calls: Number of chat-completion requests answered so far.
    """

    def __init__(self, *, delay_s: float = 0.0, port: int = 0) -> None:
        """Bind to 127.0.0.1 (``port`` 0 picks a free one); nothing is served until started.

        Args:
            delay_s: Seconds to wait before answering each chat completion.
            port: TCP port; 0 for a free one.
        """
        self.delay_s = delay_s
        self.calls = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes; with Nagle on, the client's delayed
            # ACK would add ~40 ms to every answer.
            disable_nagle_algorithm = True

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": STUB_MODEL, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                if stub.delay_s > 0:
                    time.sleep(stub.delay_s)
                with stub._lock:
                    stub.calls += 1
                text = stub_answer(body)
                self._send(200, {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion",
                    "created": 1_700_000_000,
                    "model": str(body.get("model", STUB_MODEL)),
                    "system_fingerprint": STUB_FINGERPRINT,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": len(text.split()),
                              "total_tokens": 1 + len(text.split())},
                })

            def log_message(self, format: str, *args: Any) -> None:
                return

        class Server(ThreadingHTTPServer):
            # The default backlog of 5 drops connections under a burst of parallel clients.
            request_queue_size = 256
            daemon_threads = True

        self._server = Server(("127.0.0.1", port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def port(self) -> int:
        """The bound TCP port."""
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted."""
        self._server.serve_forever(poll_interval=0.05)


@contextlib.contextmanager
def stub_server_process(*, delay_s: float = 0.0, startup_timeout_s: float = 30.0) -> Iterator[str]:
    """Run :class:`StubChatServer` in a child process; yields its base URL.

    Raises:
        RuntimeError: the child did not report its port in time.
    """
    process = subprocess.Popen([sys.executable, "-m", "sitbench.candidates._stub_server", "--delay", str(delay_s)],
                               stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + startup_timeout_s
        line = process.stdout.readline()
        if not line.startswith("http://") or time.monotonic() > deadline:
            raise RuntimeError(f"stub server did not start (exit code {process.poll()}, said {line!r})")
        yield line.strip()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _main(argv: list[str]) -> None:
    delay = float(argv[argv.index("--delay") + 1]) if "--delay" in argv else 0.0
    port = int(argv[argv.index("--port") + 1]) if "--port" in argv else 0
    server = StubChatServer(delay_s=delay, port=port)
    print(server.base_url, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    _main(sys.argv[1:])
