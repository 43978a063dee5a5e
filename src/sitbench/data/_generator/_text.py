"""Word-overlap relevance, as the reference evidence-overlap rule computes it.

The generator uses it to guarantee that every probe can be answered from the evidence an
oracle selection shows, and by nothing else: a probe's utterance must share a word with the
record that answers it and with no record (or belief) that would mislead an overlap-based
reader. Words are runs of four or more letters; two words match when one contains the other.
"""

from __future__ import annotations

import re

from sitbench.lineage import Article, article_for, article_slips

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


# ------------------------------------------------------------------ indefinite articles
# One rule chooses and checks articles: the one ``validate`` (inv19) applies.


def indefinite_article(phrase: str) -> str:
    """``a`` or ``an`` for ``phrase``, chosen by the sound of its first word, not its first letter.

    Args:
        phrase: The words the article will precede, e.g. ``"hour"``, ``"university lecturer"``, ``"MRI scan"``.

    Returns:
        ``"an"`` before a vowel sound (``an hour``, ``an MRI``, ``an 8-week course``), else ``"a"``
        (``a university``, ``a one-off``, ``a BSc``); ``"a"`` where usage is divided.
    """
    first = phrase.split(maxsplit=1)[0] if phrase.strip() else ""
    return (article_for(first) or Article.A).value


def with_article(phrase: str) -> str:
    """``phrase`` after its indefinite article: ``with_article("hour")`` is ``"an hour"``."""
    return f"{indefinite_article(phrase)} {phrase}"


def article_errors(text: str) -> list[str]:
    """Every ``a``/``an`` in ``text`` whose choice does not match the next word's sound.

    Returns:
        The offending pairs as written, e.g. ``["a optics", "an university"]``.
    """
    return [f"{slip.found} {slip.word}" for slip in article_slips(text)]
