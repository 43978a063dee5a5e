"""Token parsing: a response names exactly one of the two action tokens, or it is invalid.

Rules (fixed before any output was seen):

* Matching is case-sensitive: tokens are upper-case identifiers and the prompt
  asks for them verbatim, so ``open_pr_as_draft`` does not count.
* Matching is whole-token: the token may not touch a letter, digit or ``_`` on
  either side. ``XOPEN_PR_READY`` and ``OPEN_PR_READY_NOW`` do not contain
  ``OPEN_PR_READY``; quotes, backticks, ``**`` and punctuation around it are fine.
* The rule counts distinct tokens: the same token repeated is still one token
  and parses; both tokens present (in any order, even one negated or quoted)
  is ``invalid``; neither present is ``invalid``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

ParseStatus = Literal["ok", "invalid"]


class ParsedAction(BaseModel):
    """Outcome of parsing one response against its two action tokens."""

    model_config = ConfigDict(frozen=True)

    status: ParseStatus
    """``ok`` when exactly one of the two tokens is present, else ``invalid``."""
    action: str | None
    """The token found; ``None`` when invalid."""
    reason: str | None = None
    """Why the response is invalid: ``no action token`` or ``both action tokens``."""


@lru_cache(maxsize=256)
def _token_regex(token: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(token)}(?![A-Za-z0-9_])")


def tokens_present(text: str, tokens: Sequence[str]) -> list[str]:
    """The distinct tokens of ``tokens`` that occur in ``text`` as whole tokens, in given order."""
    return [token for token in dict.fromkeys(tokens) if _token_regex(token).search(text)]


def parse_action(text: str | None, tokens: Sequence[str]) -> ParsedAction:
    """Parse a response against the scenario's two action tokens.

    Args:
        text: The response text (``None`` is treated as empty).
        tokens: The two action tokens of the scenario.

    Returns:
        ``ok`` with the token when exactly one of them occurs, otherwise ``invalid``.
    """
    found = tokens_present(text or "", tokens)
    if len(found) == 1:
        return ParsedAction(status="ok", action=found[0])
    reason = "no action token" if not found else "both action tokens"
    return ParsedAction(status="invalid", action=None, reason=reason)
