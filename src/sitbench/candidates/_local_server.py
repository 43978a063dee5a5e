"""Start and stop a local ``llama_cpp.server`` for tests, benchmarks and demos.

``serve_local_model(path)`` yields the ``base_url`` of an OpenAI-compatible server
on a free 127.0.0.1 port; use it with ``openai/<alias>`` and ``base_url=...``.

Run as a module, this file is the server's entry point: it starts
``llama_cpp.server`` with the same CPU buffer guard as the in-process candidate
(see :func:`sitbench.candidates.llamacpp.without_extra_buffers`).
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel

from sitbench.errors import SitbenchError

_STDERR_TAIL_LINES = 15
_PARENT_ENV = "SITBENCH_SERVER_PARENT_PID"


class LocalServerError(SitbenchError):
    """The local model server could not be started."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free on ``host`` a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _tail(path: Path, lines: int = _STDERR_TAIL_LINES) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(kept)


def _models_ready(base_url: str) -> list[str] | None:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as reply:
            if reply.status != 200:
                return None
            payload = json.loads(reply.read())
    except (urllib.error.URLError, OSError, ValueError):
        return None
    return [str(item.get("id")) for item in payload.get("data", [])]


def _loop_answers(base_url: str) -> bool:
    """Whether the server's HTTP event loop answers (``/openapi.json``, served without the model).

    Every ``/v1`` route of llama_cpp.server waits for the model's lock, so a server busy with
    a long prompt does not answer ``/v1/models`` for as long as its queue lasts; that is
    work, not a hang, and must not be restarted.
    """
    root = base_url.removesuffix("/v1")
    try:
        with urllib.request.urlopen(f"{root}/openapi.json", timeout=5) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def server_command(
    gguf_path: Path,
    *,
    host: str,
    port: int,
    n_ctx: int,
    alias: str,
    extra_buffers: bool,
    extra_args: Sequence[str] = (),
) -> list[str]:
    """The argv that starts the server for one GGUF file."""
    command = [
        sys.executable,
        "-m",
        "sitbench.candidates._local_server",
        "--model",
        str(gguf_path),
        "--model_alias",
        alias,
        "--host",
        host,
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
    ]
    if extra_buffers:
        command.insert(3, "--sitbench-extra-buffers")
    return command + list(extra_args)


def process_rss_bytes(pid: int) -> int | None:
    """Resident memory of process ``pid`` in bytes, or None where ``/proc`` cannot tell."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return None


class ServerEventKind(StrEnum):
    """What the supervisor of a local server saw or did."""

    STARTED = "started"
    EXITED = "exited"
    UNHEALTHY = "unhealthy"
    OVER_MEMORY = "over_memory"
    RESTARTED = "restarted"
    STOPPED = "stopped"


class ServerEvent(BaseModel):
    """One thing the supervisor of a local server did or saw."""

    kind: ServerEventKind
    """Which event."""
    detail: str = ""
    """What happened, in words (exit code, RSS, how long it stopped answering)."""
    pid: int | None = None
    """Process id of the server the event is about."""


class LocalServer:
    """One supervised ``llama_cpp.server`` process on 127.0.0.1 (or another host).

    Start it with :meth:`start`, check it with :meth:`check` (which restarts a dead,
    unresponsive or over-memory server), stop it with :meth:`stop`. The prompt cache is
    off unless asked for: llama.cpp's RAM cache of prompt states grew past 20 GB over
    the 198 pilot trials, while without it the server stays under 1 GB (consecutive
    requests still share their common prefix in the one context).
    """

    def __init__(
        self,
        gguf_path: str | Path,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        alias: str | None = None,
        prompt_cache: bool = False,
        max_rss_bytes: int | None = None,
        unhealthy_after_s: float = 60.0,
        startup_timeout_s: float = 120.0,
        extra_buffers: bool = False,
        extra_args: Sequence[str] = (),
        log_path: Path | None = None,
    ) -> None:
        """Describe the server; nothing starts until :meth:`start`.

        Args:
            gguf_path: The model file.
            host: Interface to listen on.
            port: TCP port; a free one when None.
            n_ctx: Context window of the served model.
            n_threads: llama.cpp threads; its default (half the cores) when None.
            alias: Model id the server reports; the file name by default.
            prompt_cache: Keep llama.cpp's RAM cache of prompt states (unbounded growth).
            max_rss_bytes: Restart the server when its resident memory passes this.
            unhealthy_after_s: Restart a live server whose HTTP loop has not answered for
                this long (a queue of long prompts is not a hang: see :func:`_loop_answers`).
            startup_timeout_s: Longest wait for ``/v1/models`` to answer after a start.
            extra_buffers: Allow llama.cpp's extra CPU buffer types.
            extra_args: More ``llama_cpp.server`` arguments.
            log_path: File that receives the server's output; a temporary file when None.
        """
        self.path = Path(gguf_path)
        self.host = host
        self.port = port if port is not None else free_port(host)
        self.alias = alias or self.path.name
        self.max_rss_bytes = max_rss_bytes
        self.unhealthy_after_s = unhealthy_after_s
        self.startup_timeout_s = startup_timeout_s
        args = list(extra_args)
        if n_threads is not None:
            args += ["--n_threads", str(n_threads)]
        if prompt_cache:
            args += ["--cache", "true"]
        self.command = server_command(
            self.path, host=host, port=self.port, n_ctx=n_ctx, alias=self.alias,
            extra_buffers=extra_buffers, extra_args=args,
        )
        self._own_log = log_path is None
        if log_path is None:
            handle, name = tempfile.mkstemp(prefix="sitbench-server-", suffix=".log")
            os.close(handle)
            log_path = Path(name)
        self.log_path = log_path
        self.restarts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._last_healthy = time.monotonic()

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """Process id of the running server, None before :meth:`start`."""
        return None if self._process is None else self._process.pid

    def rss_bytes(self) -> int | None:
        """The server's resident memory now (None where the platform cannot tell)."""
        return None if self._process is None else process_rss_bytes(self._process.pid)

    def start(self) -> ServerEvent:
        """Start the server and wait until it answers ``/v1/models``.

        Raises:
            LocalServerError: the server extra is missing, the file is missing, or the
                server exited or did not answer in time (with the tail of its output).
        """
        if not self.path.is_file():
            raise LocalServerError(f"local server: model file {self.path} does not exist; give a .gguf path")
        try:
            import llama_cpp.server  # noqa: F401
            import uvicorn  # noqa: F401
        except ImportError:
            raise LocalServerError(
                'local server: llama-cpp-python\'s server extra is not installed; run pip install -e ".[local]"'
            ) from None
        # A file, not a pipe: nobody reads the server's output while it runs, and a full
        # pipe would block it.
        with self.log_path.open("ab") as log:
            process = subprocess.Popen(
                self.command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1", _PARENT_ENV: str(os.getpid())},
            )
        self._process = process
        deadline = time.monotonic() + self.startup_timeout_s
        while _models_ready(self.base_url) is None:
            if process.poll() is not None:
                raise LocalServerError(
                    f"local server for {self.path.name} exited with code {process.returncode} "
                    f"before answering; its output ends: {_tail(self.log_path)}"
                )
            if time.monotonic() > deadline:
                _stop(process)
                raise LocalServerError(
                    f"local server for {self.path.name} did not answer {self.base_url}/models within "
                    f"{self.startup_timeout_s:g}s; raise the startup timeout or check its output: "
                    f"{_tail(self.log_path)}"
                )
            time.sleep(0.2)
        self._last_healthy = time.monotonic()
        return ServerEvent(kind=ServerEventKind.STARTED, detail=self.base_url, pid=process.pid)

    def check(self) -> list[ServerEvent]:
        """Look at the server once; restart it if it died, stopped answering or grew too big.

        Returns:
            What was seen and done (empty when all is well).
        """
        process = self._process
        if process is None:
            return []
        events: list[ServerEvent] = []
        if process.poll() is not None:
            events.append(ServerEvent(kind=ServerEventKind.EXITED, pid=process.pid,
                                      detail=f"exit code {process.returncode}; output ends: {_tail(self.log_path, 3)}"))
        else:
            rss = process_rss_bytes(process.pid)
            if self.max_rss_bytes is not None and rss is not None and rss > self.max_rss_bytes:
                events.append(ServerEvent(kind=ServerEventKind.OVER_MEMORY, pid=process.pid,
                                          detail=f"RSS {rss / 2**20:,.0f} MiB > limit {self.max_rss_bytes / 2**20:,.0f} MiB"))
            elif _loop_answers(self.base_url):
                self._last_healthy = time.monotonic()
            elif time.monotonic() - self._last_healthy > self.unhealthy_after_s:
                events.append(ServerEvent(kind=ServerEventKind.UNHEALTHY, pid=process.pid,
                                          detail=f"its HTTP loop has not answered for {self.unhealthy_after_s:g}s"))
        if events:
            _stop(process)
            self.restarts += 1
            started = self.start()
            events.append(ServerEvent(kind=ServerEventKind.RESTARTED, pid=started.pid, detail=f"restart {self.restarts}"))
        return events

    def stop(self) -> ServerEvent | None:
        """Stop the server (terminate, then kill after 10 s) and drop a temporary log."""
        process, self._process = self._process, None
        if process is not None:
            _stop(process)
        if self._own_log:
            self.log_path.unlink(missing_ok=True)
        if process is None:
            return None
        return ServerEvent(kind=ServerEventKind.STOPPED, pid=process.pid, detail=f"exit code {process.returncode}")


@contextlib.contextmanager
def serve_local_model(
    gguf_path: str | Path,
    *,
    port: int | None = None,
    n_ctx: int = 8192,
    alias: str | None = None,
    startup_timeout_s: float = 120.0,
    extra_buffers: bool = False,
    extra_args: Sequence[str] = (),
) -> Iterator[str]:
    """Run ``llama_cpp.server`` on 127.0.0.1 for the duration of a ``with`` block.

    Args:
        gguf_path: The model file.
        port: TCP port; a free one when None.
        n_ctx: Context window of the served model.
        alias: Model id the server reports; the file name by default.
        startup_timeout_s: Longest wait for ``/v1/models`` to answer.
        extra_buffers: Allow llama.cpp's extra CPU buffer types (off: see the
            in-process candidate for why).
        extra_args: More ``llama_cpp.server`` arguments.

    Yields:
        The base URL, e.g. ``http://127.0.0.1:PORT/v1``.

    Raises:
        LocalServerError: llama-cpp-python's server extra is missing, the file is
            missing, or the server exited or did not answer in time (the message
            carries the tail of its stderr).
    """
    server = LocalServer(gguf_path, port=port, n_ctx=n_ctx, alias=alias, startup_timeout_s=startup_timeout_s,
                         extra_buffers=extra_buffers, extra_args=extra_args)
    try:
        server.start()
        yield server.base_url
    finally:
        server.stop()


def _die_with_parent() -> None:
    """End this server when the process (thread) that started it dies, even by SIGKILL (Linux).

    A test runner killed on a timeout would otherwise leave a model server holding memory and a
    port, unowned. The parent's pid comes in the environment, so a parent that died before the
    request was made is noticed too.
    """
    parent = os.environ.get(_PARENT_ENV)
    if sys.platform != "linux" or not parent:
        return
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    if str(os.getppid()) != parent:
        sys.exit(0)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _main(argv: list[str]) -> None:
    from sitbench.candidates.llamacpp import import_llama_cpp, without_extra_buffers

    _die_with_parent()
    extra_buffers = "--sitbench-extra-buffers" in argv
    server_argv = [arg for arg in argv if arg != "--sitbench-extra-buffers"]
    llama_cpp = import_llama_cpp("local server")
    guard = contextlib.nullcontext() if extra_buffers else without_extra_buffers(llama_cpp)
    sys.argv = ["llama_cpp.server", *server_argv]
    with guard:
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    _main(sys.argv[1:])
