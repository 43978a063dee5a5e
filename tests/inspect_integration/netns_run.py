"""Run a command in a fresh network namespace that has only loopback, up: ``unshare -rn`` puts this
script there; it brings ``lo`` up (an ioctl, so no ``ip`` binary is needed), checks that no other
interface exists, and runs the command.

    unshare -rn python netns_run.py COMMAND [ARG…]
"""

from __future__ import annotations

import fcntl
import os
import socket
import struct
import sys

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def interfaces() -> list[str]:
    """Interfaces of this process's network namespace (/proc/self/net/dev is per namespace)."""
    with open("/proc/self/net/dev") as handle:
        return [line.split(":", 1)[0].strip() for line in handle.readlines()[2:]]


def bring_up_loopback() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def loopback_works() -> bool:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=5):
            return True


def main(argv: list[str]) -> int:
    found = interfaces()
    if found != ["lo"]:
        print(f"netns_run: this namespace has interfaces {found}, not only lo", file=sys.stderr)
        return 97
    bring_up_loopback()
    if not loopback_works():
        print("netns_run: loopback does not accept connections", file=sys.stderr)
        return 98
    print("netns_run: only lo, up", file=sys.stderr, flush=True)
    os.execvp(argv[0], argv)
    return 99  # pragma: no cover - execvp does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
