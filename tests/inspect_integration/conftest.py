"""Fixtures of the Inspect integration's tests: the pilot, caches inside the test tree, and a guard
that fails any test whose process resolves or contacts a host other than this machine's loopback.

The guard covers this process (threads included); `test_inspect_netns.py` runs the same tests, and the
README's commands, inside a network namespace with only loopback, which covers subprocesses too.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from netguard import is_loopback


class OutsideContact(AssertionError):
    """A test tried to reach a host outside the machine."""


@pytest.fixture(scope="module", autouse=True)
def _loopback_only() -> Iterator[list[str]]:
    # Module scope, and autouse: set up before any module fixture (an eval run once per module).
    attempts: list[str] = []
    real_getaddrinfo = socket.getaddrinfo
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not is_loopback(host):
            attempts.append(f"resolve {host!r}")
            raise socket.gaierror(socket.EAI_NONAME, f"test guard: {host!r} is not this machine")
        return real_getaddrinfo(host, *args, **kwargs)

    def check(sock: socket.socket, address: object) -> None:
        inet = sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple)
        if inet and not is_loopback(address[0]):  # type: ignore[index]
            attempts.append(f"connect {address!r}")
            raise OSError(101, f"test guard: {address!r} is not this machine")

    def connect(self, address):  # type: ignore[no-untyped-def]
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self, address):  # type: ignore[no-untyped-def]
        check(self, address)
        return real_connect_ex(self, address)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", getaddrinfo)
        patch.setattr(socket.socket, "connect", connect)
        patch.setattr(socket.socket, "connect_ex", connect_ex)
        yield attempts
    if attempts:
        raise OutsideContact(f"the test tried to reach outside hosts: {attempts[:5]}")


@pytest.fixture(scope="module", autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    # Embedding caches and generated datasets stay inside the test's temporary tree, and so do logs
    # of an eval not given a log directory.
    base = tmp_path_factory.getbasetemp()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SITBENCH_CACHE_DIR", str(base / "cache"))
        patch.setenv("INSPECT_LOG_DIR", str(base / "inspect-logs"))
        yield
