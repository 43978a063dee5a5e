"""Bad-input classes: names that become paths (nothing is written outside the folder the user named)."""

from __future__ import annotations
