"""A user's agent over the HTTP protocol through the CHI panel: /tick, /erase, /fault and /repair when /info
declares them, and the test missing (not failed) when it does not."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from sitbench.chi._panel_run import PanelSpec, run_panel


class _Handler(BaseHTTPRequestHandler):
    hooks: ClassVar[list[str]] = []
    states: ClassVar[dict[str, dict[str, Any]]] = {}
    calls: ClassVar[Counter[str]] = Counter()
    lock: ClassVar[threading.Lock] = threading.Lock()

    def _send(self, data: Any) -> None:
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        self._send({"name": "http-history", "supports_fork": True, "hooks": self.hooks})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        with self.lock:
            self.calls[self.path] += 1
            st = self.states.setdefault(body["state"], {"lines": [], "saved": None})
            out: dict[str, Any] = {}
            if self.path == "/fork":
                src = self.states[body["source"]]
                self.states[body["state"]] = {"lines": list(src["lines"]), "saved": None}
            elif self.path == "/erase":
                st["lines"] = []
            elif self.path == "/fault":
                st["saved"], st["lines"] = st["lines"], st["lines"][::2]
            elif self.path == "/repair":
                st["lines"] = st["saved"]
            elif self.path == "/reset":
                self.states.pop(body["state"], None)
            elif self.path == "/respond":
                text = body["turn"]["utterance"]
                if text.startswith("RECORD "):
                    st["lines"].append(text)
                    out = {"text": "OK"}
                else:
                    m = re.search(r"What is the (.+?) of (.+?)\?", text)
                    hits = [ln.rsplit(" is ", 1)[1].rstrip(".") for ln in st["lines"]
                            if m and f"The {m.group(1)} of {m.group(2)} is " in ln]
                    out = {"text": json.dumps({"abstain": not hits, "answer": hits[-1] if hits else None})}
        self._send(out)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_agent() -> Iterator[type[_Handler]]:
    _Handler.states.clear()
    _Handler.calls.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    try:
        yield _Handler
    finally:
        server.shutdown()
        server.server_close()


def test_declared_hooks_are_called_over_http(http_agent: type[_Handler]) -> None:
    http_agent.hooks = ["tick", "erase", "inject_fault", "repair_fault"]
    s = run_panel(PanelSpec(tests=["I1", "I5"], agent=http_agent.url, trajectories=1, seed=3))  # type: ignore[attr-defined]
    res = {t.test_id: t for t in s["observations"][0].task_results}
    assert res["I5"].score == 1.0 and res["I1"].score is not None
    assert http_agent.calls["/tick"] == 3 * 20 and http_agent.calls["/erase"] == 2  # I5: 20 ticks per arm; I1: two erasures
    assert http_agent.calls["/fault"] == 1 and http_agent.calls["/repair"] == 1  # the sham arm injects nothing
    assert s["panel"]["tests"]["I5"]["features"][0]["damage"] == 0.5


def test_undeclared_hooks_make_the_test_missing(http_agent: type[_Handler]) -> None:
    http_agent.hooks = []
    s = run_panel(PanelSpec(tests=["I5", "I1", "R4"], agent=http_agent.url, trajectories=1, seed=3))  # type: ignore[attr-defined]
    res = {t.test_id: t for t in s["observations"][0].task_results}
    assert res["I5"].score is None and "inject_fault" in (res["I5"].missing_reason or "")
    assert res["I1"].score is None and "erase" in (res["I1"].missing_reason or "")
    assert res["R4"].score == 0.0  # run: its replies are no valid probability, a task failure
    assert http_agent.calls["/tick"] == 0 and http_agent.calls["/erase"] == 0
