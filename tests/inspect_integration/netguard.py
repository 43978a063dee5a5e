"""Which hosts the Inspect integration's tests may reach: this machine's loopback, nothing else."""

from __future__ import annotations

import ipaddress

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def is_loopback(host: object) -> bool:
    """Whether a host name or address is this machine's loopback (the only place tests may reach)."""
    if host in (None, ""):
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    text = str(host).strip("[]").lower()
    if text in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(text.split("%")[0]).is_loopback
    except ValueError:
        return False
