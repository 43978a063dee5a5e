"""An HTTP agent's hostile reply body is never read whole: one announced as 1 GB, one streamed chunked without
end, and a 1 MB gzip bomb that inflates to 1 GB each drop their trial with the reason, in a process whose
address space is limited to 1 GiB (the bodies were once read whole: 2.1–2.6 GB for one trial)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

GIB = 1 << 30


@cache
def _gzip_bomb() -> bytes:
    """1 GiB of zeros, gzip-compressed (about 1 MB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    return b"".join(packer.compress(block) for _ in range(1024)) + packer.flush()


class _HostileHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode: ClassVar[str] = "length"
    sent: ClassVar[list[int]] = []

    def do_GET(self) -> None:
        self._reply(404, b"{}")

    def _reply(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path != "/respond":
            return self._reply(200, b"{}")
        self.send_response(200)
        self.send_header("content-type", "application/json")
        sent = 0
        try:
            if self.mode == "length":
                self.send_header("content-length", str(GIB))
                self.end_headers()
                block = b'{"text": "' + b"a" * ((1 << 20) - 10)
                while sent < GIB:
                    self.wfile.write(block)
                    sent += len(block)
            elif self.mode == "chunked":
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                block = b"a" * (1 << 20)
                self.wfile.write(b'a\r\n{"text": "\r\n')
                while sent < GIB:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
                    sent += len(block)
                self.wfile.write(b"0\r\n\r\n")
            else:
                bomb = _gzip_bomb()
                self.send_header("content-encoding", "gzip")
                self.send_header("content-length", str(len(bomb)))
                self.end_headers()
                self.wfile.write(bomb)
                sent = len(bomb)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what it should do
        finally:
            self.sent.append(sent)
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        pass


@pytest.fixture
def hostile_agent() -> Iterator[str]:
    server = _Server(("127.0.0.1", 0), _HostileHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


@pytest.mark.parametrize("mode", ["length", "chunked", "gzip"])
def test_a_hostile_body_drops_its_trial_within_1_gib(mode: str, pilot: Path, tmp_path: Path,
                                                     hostile_agent: str) -> None:
    _HostileHandler.mode = mode
    _HostileHandler.sent = []
    if mode == "gzip":
        _gzip_bomb()
    out = tmp_path / "out"
    env = {**os.environ, "SITBENCH_CACHE_DIR": str(tmp_path / "cache"), "OPENBLAS_NUM_THREADS": "1"}
    result = subprocess.run([sys.executable, "-m", "sitbench", "run", str(pilot), "--agent", hostile_agent, "--out",
                             str(out), "--max-connections", "4"], capture_output=True, text=True, env=env,
                            timeout=600, check=False, preexec_fn=_limited)
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 4, result.stderr  # every trial dropped: above the drop rate
    records = [json.loads(line) for line in (out / "responses.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 22
    assert all(r["status"] == "dropped" and "the body is larger than" in r["drop_reason"] for r in records), \
        records[0]["drop_reason"]
    # The client stopped reading at the bound: far less than the body was ever sent.
    assert max(_HostileHandler.sent) < 256 << 20
