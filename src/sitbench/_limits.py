"""Limits the harness's stages share, in a module of their own so a command's ``--help`` can show them without
importing the stage that enforces them."""

from __future__ import annotations

DEFAULT_MAX_RESPONSE_CHARS = 100_000
"""The cap on one answer, in characters (about 25,000 tokens): a longer one is invalid, never read on a prefix."""
