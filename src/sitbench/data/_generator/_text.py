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


# ------------------------------------------------------------------ indefinite articles

#: Words spelled with a vowel letter that start with a consonant sound ("a university", "a one-off").
_CONSONANT_SOUND = re.compile(r"^(?:uni(?![nmd])|use|usu|uti|ute|ura|ure|uro|ubiq|uku|eu|ewe|one(?:$|-|self|time)|once)")
#: Words spelled with an "h" that start with a vowel sound ("an hour", "an honest").
_VOWEL_SOUND_H = re.compile(r"^(?:hour|honest|honou?r|heir)")
#: Letters whose spoken name starts with a vowel sound, for initialisms read letter by letter ("an MRI").
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")
#: Acronyms read as words, not letter by letter.
_WORD_ACRONYMS = {"NASA": "a", "NATO": "a", "UNESCO": "a", "UNICEF": "a", "UEFA": "a", "FIFA": "a", "OPEC": "an",
                  "SCUBA": "a", "LASER": "a", "RADAR": "a", "IKEA": "an"}
_FIRST = re.compile(r"[A-Za-z0-9]+")


def indefinite_article(phrase: str) -> str:
    """``a`` or ``an`` for ``phrase``, chosen by the sound of its first word, not its first letter.

    Args:
        phrase: The words the article will precede, e.g. ``"hour"``, ``"university lecturer"``, ``"MRI scan"``.

    Returns:
        ``"an"`` before a vowel sound (``an hour``, ``an MRI``, ``an 8-week course``), else ``"a"``
        (``a university``, ``a one-off``, ``a BSc``).
    """
    m = _FIRST.search(phrase)
    if m is None:
        return "a"
    word = m.group(0)
    if word[0].isdigit():
        # Spoken numbers: eight…, eleven, eighteen (and eleven/eighteen thousand, million …); "18th" too.
        digits = re.match(r"\d+", word).group(0)  # type: ignore[union-attr]
        return "an" if digits[0] == "8" or (digits[:2] in ("11", "18") and len(digits) % 3 == 2) else "a"
    if word.upper() in _WORD_ACRONYMS and word.isupper():
        return _WORD_ACRONYMS[word.upper()]
    initialism = len(word) == 1 or (word.isupper() and len(word) > 1) or (
        any(ch.isupper() for ch in word[1:]) and not word.startswith(("Mc", "Mac")))
    if initialism:
        return "an" if word[0].upper() in _VOWEL_LETTERS else "a"
    low = word.lower()
    if _VOWEL_SOUND_H.match(low):
        return "an"
    if _CONSONANT_SOUND.match(low):
        return "a"
    return "an" if low[0] in "aeiou" else "a"


def with_article(phrase: str) -> str:
    """``phrase`` after its indefinite article: ``with_article("hour")`` is ``"an hour"``."""
    return f"{indefinite_article(phrase)} {phrase}"


_ARTICLE_USE = re.compile(r"(?<![\w'-])([Aa]n?)\s+([A-Za-z0-9][\w'-]*)")


def article_errors(text: str) -> list[str]:
    """Every ``a``/``an`` in ``text`` that :func:`indefinite_article` would choose differently.

    Returns:
        The offending pairs as written, e.g. ``["a optics", "an university"]``.
    """
    out = []
    for m in _ARTICLE_USE.finditer(text):
        if m.group(1).lower() != indefinite_article(m.group(2)):
            out.append(m.group(0))
    return out
