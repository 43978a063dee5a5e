"""Word-overlap relevance, as the reference evidence-overlap rule computes it.

The generator uses it to guarantee that every probe can be answered from the evidence an
oracle selection shows, and by nothing else: a probe's utterance must share a word with the
record that answers it and with no record (or belief) that would mislead an overlap-based
reader. Words are runs of four or more letters; two words match when one contains the other.
"""

from __future__ import annotations

import re

_STOP = frozenset({"agreed", "and", "are", "but", "can", "come", "did", "do", "everyone", "for", "has", "have", "how",
                   "i", "is", "just", "let's", "no", "okay", "quick", "remind", "since", "so", "sure", "tell", "the",
                   "what", "when", "where", "which", "word", "year", "yes", "you", "your"})
_WORD = re.compile(r"[a-z][a-z'-]{3,}")


def tokens(text: str) -> set[str]:
    """Content words of ``text`` (four letters or more, lower case, without question words)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def overlap(a: set[str], b: set[str]) -> int:
    """Number of words of ``a`` that contain, or are contained in, a word of ``b``."""
    if not a or not b:
        return 0
    # Words never contain a newline, so "x in joined" is "x is inside some word of b".
    joined = "\n".join(b)
    return sum(1 for x in a if x in joined or any(y in x for y in b if len(y) <= len(x)))
