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
from pathlib import Path

from sitbench.errors import SitbenchError

_STDERR_TAIL_LINES = 15


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
    path = Path(gguf_path)
    if not path.is_file():
        raise LocalServerError(f"local server: model file {path} does not exist; give a .gguf path")
    try:
        import llama_cpp.server  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise LocalServerError(
            'local server: llama-cpp-python\'s server extra is not installed; run pip install -e ".[local]"'
        ) from None
    host = "127.0.0.1"
    chosen_port = port if port is not None else free_port(host)
    base_url = f"http://{host}:{chosen_port}/v1"
    command = server_command(
        path,
        host=host,
        port=chosen_port,
        n_ctx=n_ctx,
        alias=alias or path.name,
        extra_buffers=extra_buffers,
        extra_args=extra_args,
    )
    with tempfile.TemporaryDirectory(prefix="sitbench-server-") as workdir:
        log_path = Path(workdir) / "server.log"
        # A file, not a pipe: nobody reads the server's output while it runs, and a
        # full pipe would block it.
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        try:
            deadline = time.monotonic() + startup_timeout_s
            while _models_ready(base_url) is None:
                if process.poll() is not None:
                    raise LocalServerError(
                        f"local server for {path.name} exited with code {process.returncode} "
                        f"before answering; its output ends: {_tail(log_path)}"
                    )
                if time.monotonic() > deadline:
                    raise LocalServerError(
                        f"local server for {path.name} did not answer {base_url}/models within "
                        f"{startup_timeout_s:g}s; raise startup_timeout_s or check its output: "
                        f"{_tail(log_path)}"
                    )
                time.sleep(0.2)
            yield base_url
        finally:
            _stop(process)


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

    extra_buffers = "--sitbench-extra-buffers" in argv
    server_argv = [arg for arg in argv if arg != "--sitbench-extra-buffers"]
    llama_cpp = import_llama_cpp("local server")
    guard = contextlib.nullcontext() if extra_buffers else without_extra_buffers(llama_cpp)
    sys.argv = ["llama_cpp.server", *server_argv]
    with guard:
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    _main(sys.argv[1:])
