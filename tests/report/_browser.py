"""Headless Chromium for the browser tests: Debian's ``chromium`` on PATH (``.ci/run`` installs it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium not on PATH (install Debian's package: apt-get install -y chromium)"
)
"""Mark for a test (or ``pytestmark`` for a module) that runs Chromium."""


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium with ``args``, its profile under ``tmp``; a failure raises."""
    assert CHROMIUM is not None
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
        # /dev/shm is small in containers; Chromium then stalls instead of failing.
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp / 'chromium-profile'}", *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=420, check=True)
