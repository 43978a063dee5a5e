"""An HTTP agent that answers 500, hangs or sends malformed JSON on a fifth of its calls: every failure
is a drop with its reason, nothing is lost or duplicated, and --resume completes the run."""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from agents_support import load_example

from sitbench.lineage import CONTRACT_FIELD_TOKENS, isolation_tokens
from sitbench.runs import RunStore, run_agent
from sitbench.schema import Act
from sitbench.stores import load_dataset


class _FaultyHandler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, Any]] = {}
    attempts: ClassVar[Counter[str]] = Counter()
    faults: ClassVar[Counter[str]] = Counter()
    received: ClassVar[list[str]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()

    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(200, json.dumps({"name": "faulty", "supports_fork": True}).encode())

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers["content-length"]))
        with self.lock:
            self.received.append(raw.decode())
        body = json.loads(raw)
        fault = None
        if self.path in ("/ingest", "/respond"):
            content = json.dumps({k: v for k, v in body.items() if k != "state"}, sort_keys=True)
            with self.lock:
                key = f"{self.path}:{content}"
                self.attempts[key] += 1
                draw = hashlib.sha256(f"seed-3:{key}:{self.attempts[key]}".encode()).digest()
                if draw[0] < 256 * 0.2:
                    fault = ("500", "hang", "malformed")[draw[1] % 3]
                    self.faults[fault] += 1
        if fault == "500":
            return self._send(500, b'{"error": "memory store unavailable"}')
        if fault == "hang":
            time.sleep(1.0)
        with self.lock:
            result = self.routes[self.path](body) or {}
        self._send(200, b'{"text": "unterminated' if fault == "malformed" else json.dumps(result).encode())

    def log_message(self, *args: object) -> None:
        pass


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:  # the client gave up on a hung call
        pass


@pytest.fixture
def faulty_http_agent() -> Iterator[str]:
    _FaultyHandler.routes = load_example("http_agent_server").ROUTES
    _FaultyHandler.attempts.clear()
    _FaultyHandler.faults.clear()
    _FaultyHandler.received.clear()
    server = _QuietServer(("127.0.0.1", 0), _FaultyHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_http_faults_are_drops_with_reasons_and_resume_completes(pilot: Path, tmp_path: Path, http_agent: str,
                                                                 faulty_http_agent: str) -> None:
    clean, faulty = tmp_path / "clean", tmp_path / "faulty"
    run_agent(pilot, http_agent, clean)
    run_agent(pilot, faulty_http_agent, faulty, timeout_s=0.3, state="reingest")
    first = RunStore(faulty).trials()
    assert len(first) == 22 and len({t.trial_id for t in first}) == 22
    reasons = {t.drop_reason for t in first if t.status == "dropped"}
    assert reasons
    assert any(r.startswith("agent error: ") and "HTTP 500" in r for r in reasons)
    assert any(r.startswith("agent timeout: ") for r in reasons)
    assert any(r.startswith("agent malformed output: POST /") for r in reasons)
    for _ in range(10):
        if all(t.status == "completed" for t in RunStore(faulty).trials()):
            break
        run_agent(pilot, faulty_http_agent, faulty, timeout_s=0.3, state="reingest", resume=True)
    final = RunStore(faulty).trials()
    assert all(t.status == "completed" for t in final)
    # Everything that went over the wire carries no hidden id, contract field or act label.
    ds = load_dataset(pilot)
    tokens = set(re.findall(r"[\w-]+", "\n".join(_FaultyHandler.received)))
    assert any('"subject_key"' in body for body in _FaultyHandler.received)
    assert not tokens & (set(isolation_tokens(ds)) | set(CONTRACT_FIELD_TOKENS) | {a.value for a in Act})
    assert len((faulty / "responses.jsonl").read_text().splitlines()) == 22
    assert {t.trial_id: t.response_text for t in final} == {t.trial_id: t.response_text
                                                            for t in RunStore(clean).trials()}
