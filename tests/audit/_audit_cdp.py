"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (standard library only).

Chromium reads NUL-terminated JSON commands from file descriptor 3 and writes NUL-terminated replies
and events to descriptor 4; no port, no websocket and no download of a browser build. Enough for a
test to click, type, read the DOM and watch the network of one page.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any


class Browser:
    """One headless Chromium with one page attached (``flatten`` sessions)."""

    def __init__(self, chromium: str, profile: Path, timeout: float = 60.0) -> None:
        self.timeout = timeout
        cmd_read, self._cmd_write = os.pipe()
        self._reply_read, reply_write = os.pipe()

        def child() -> None:  # runs in the forked child before exec: put the pipes on fds 3 and 4
            a = fcntl.fcntl(cmd_read, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(reply_write, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             "--disable-dev-shm-usage", "--remote-debugging-pipe", f"--user-data-dir={profile}",
             "--window-size=1280,1400", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=child)
        os.close(cmd_read)
        os.close(reply_write)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    # ------------------------------------------------------------------ transport

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply from chromium")
            ready, _, _ = select.select([self._reply_read], [], [], left)
            if ready:
                chunk = os.read(self._reply_read, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the debugging pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False) -> dict[str, Any]:
        """Send one command (to the page session unless ``browser``) and return its result."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if self.session and not browser:
            message["sessionId"] = self.session
        os.write(self._cmd_write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, timeout: float = 30.0, where: Any = None) -> dict[str, Any]:
        """The first event ``method`` (already received or coming) for which ``where(params)`` holds."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event.get("method") == method and (where is None or where(event.get("params", {}))):
                    self.events.remove(event)
                    return event["params"]
            self.events.append(self._read_message(deadline))

    # ------------------------------------------------------------------ page

    def attach(self) -> None:
        """Attach to the page target."""
        targets = self.send("Target.getTargets", browser=True)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                 browser=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.send(f"{domain}.enable")

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def reload(self) -> None:
        self.send("Page.reload")
        self.wait_event("Page.loadEventFired")

    def eval(self, expression: str) -> Any:
        """Value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def key(self, key: str) -> None:
        """Press and release one key, as the keyboard would (keydown with its text, then keyup)."""
        special = {"Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""), "ArrowRight": ("ArrowRight", 39, ""),
                   "ArrowLeft": ("ArrowLeft", 37, ""), "Tab": ("Tab", 9, "")}
        if key in special:
            name, code, text = special[key]
        else:
            name, code, text = key, ord(key.upper()), key
        down: dict[str, Any] = {"type": "keyDown" if text else "rawKeyDown", "key": name,
                                "windowsVirtualKeyCode": code}
        if text:
            down["text"] = text
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": name, "windowsVirtualKeyCode": code})

    def type(self, text: str) -> None:
        """Type text into the focused field."""
        self.send("Input.insertText", {"text": text})

    def click(self, selector: str) -> None:
        """A real mouse click at the centre of the first element matching ``selector``."""
        box = self.eval(f"(function(){{var e=document.querySelector({json.dumps(selector)});e.scrollIntoView({{block:'center'}});"
                        "var r=e.getBoundingClientRect();return [r.left+r.width/2,r.top+r.height/2];})()")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params: dict[str, Any] = {"type": kind, "x": x, "y": y}
            if kind != "mouseMoved":
                params.update(button="left", clickCount=1)
            self.send("Input.dispatchMouseEvent", params)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the browser may already be gone
            self.send("Browser.close", browser=True)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)
        os.close(self._cmd_write)
        os.close(self._reply_read)
