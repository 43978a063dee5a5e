"""Bad-input classes: output that cannot be written (read-only folders, full disks, a full stdout)."""

from __future__ import annotations
