"""Sentence and clause segmentation with character offsets (no external NLP)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Markup that carries no content: HTML tags, code fences, markdown emphasis and headers.
_MARKUP = re.compile(r"<[^>\n]{0,200}>|```|\*\*|__|^[ \t]{0,3}#{1,6}[ \t]|^[ \t]*>[ \t]?", re.MULTILINE)
# A full stop ends a sentence unless it ends a title or abbreviation ("St. Finbarr's", "Dr. Okafor").
_SENTENCE_END = re.compile(r"(?<!\bSt\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMt\.)(?<!\bvs\.)(?<!\bMrs\.)"
                           r"(?<=[.!?…])[\"'”’)\]]*\s+|\n+|^[ \t]*(?:[-*•·]|\d+[.)])[ \t]+", re.MULTILINE)
# The leading white space of a break is taken from the first character of its run only: from there "\s+" reaches
# every later split of the run, so the leftmost match is the same, and a long run is not tried again from each
# of its characters (quadratic in its length).
_CLAUSE_BREAK = re.compile(
    r"(?:(?<!\s)\s+)?(?:;|—|–|\s-\s|:(?=\s)|,\s*(?:but|however|although|though|whereas|yet|while|so|and)\b|,\s*(?=which\b)|"
    r"\b(?:but|however|although|though|whereas|except that)\b|"
    r",\s*(?=(?:and\s+)?(?:i|we|i'm|i've|i'd|we've|we're)\b)|\band\s+(?=(?:i|we)\b)|,\s*(?=(?:never|not|but not|and never|and not)\b))\s*",
    re.IGNORECASE,
)

_INTERJECTION = re.compile(
    r"\s*((?:no|nope|nah|yes|yeah|yep|not really|not quite|not exactly|actually no|sorry|correct|right|true|"
    r"that's right|that's not right|that's not true|not true|that's wrong))\s*[,!.:]+\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    """A clause with its position in the original response."""

    text: str
    start: int
    end: int
    sentence: int
    """Index of the sentence the clause belongs to."""
    question: bool
    """The clause ends its sentence and the sentence ends with a question mark."""
    label: bool = False
    """The clause ends with a colon: a label or lead-in for what follows ("Then (2018):")."""


def _fold(char: str) -> str:
    """One character without its diacritics ("á" → "a"), so "Bogotá" meets "bogota"; never changes length."""
    if char.isascii():
        return char
    base = unicodedata.normalize("NFKD", char)[:1]
    return base if base and base.isascii() and base.isalpha() == char.isalpha() else char


_FOLD_TABLE = {code: _fold(chr(code)) for code in range(0x80, 0x250) if _fold(chr(code)) != chr(code)}


def clean(text: str) -> str:
    """Replace markup with spaces of equal length and fold diacritics, so offsets stay valid."""
    folded = text if text.isascii() else text.translate(_FOLD_TABLE)
    return _MARKUP.sub(lambda m: " " * len(m.group(0)), folded)


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text``."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def clauses(text: str) -> list[Clause]:
    """Clauses of every sentence, split at contrastive connectives, ", and", relative "which", semicolons,
    dashes and colons (a colon ends a label or lead-in)."""
    out: list[Clause] = []
    for index, (s, e) in enumerate(sentences(text)):
        sentence = text[s:e]
        question = sentence.rstrip().rstrip("\"'”’)").endswith("?")
        pos = 0
        lead = _INTERJECTION.match(sentence)
        if lead:
            out.append(_clause(text, s, s + lead.end(1), index, question))
            pos = lead.end()
        for m in _CLAUSE_BREAK.finditer(sentence, pos):
            if m.start() > pos:
                out.append(_clause(text, s + pos, s + m.start(), index, False, ":" in m.group(0)))
            pos = m.end()
        if pos < len(sentence):
            out.append(_clause(text, s + pos, e, index, question))
        elif out and out[-1].sentence == index and question:
            # Only the clause that carries the question mark is the question ("I don't remember — did we?").
            last = out[-1]
            out[-1] = Clause(last.text, last.start, last.end, index, True, last.label)
    return [c for c in out if c.text.strip()]


def _clause(text: str, start: int, end: int, sentence: int, question: bool, label: bool = False) -> Clause:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Clause(text=text[start:end], start=start, end=end, sentence=sentence, question=question, label=label)


WORD_GUARD = r"(?<![\w'])"
"""The look-behind that opens a word pattern: the match does not start inside a word."""


class SliceSearch:
    """Whether ``pattern`` occurs in ``text[start:end]``, asked for many slices of one text whose starts never
    decrease and whose ends are shared by runs of them (the rest of a line from each sentence on).

    Slicing and searching each slice costs the slice's length every time: quadratic in a long line of many
    sentences. Here one search from a start answers every later start up to the match it found, so a line is
    searched about once. Exact for a pattern that is :data:`WORD_GUARD` followed by a body that never looks
    before its own start (no look-behind, ``\\b``, ``\\B`` or anchor): a match past ``start`` sees the same
    characters in the slice as in the text, and one at ``start`` itself, whose guard sees nothing in the slice,
    is the body matching there.
    """

    def __init__(self, pattern: re.Pattern[str], text: str) -> None:
        source = pattern.pattern
        body = source[len(WORD_GUARD):]
        if not source.startswith(WORD_GUARD) or any(s in body for s in ("(?<", "\\b", "\\B", "^", "\\A")):
            raise ValueError(f"not a guarded word pattern: {source[:80]!r}")
        self._pattern = pattern
        self._body = re.compile(body, pattern.flags)
        self._text = text
        self._start = -1
        self._end = -1
        self._next: re.Match[str] | None = None

    def found(self, start: int, end: int) -> bool:
        """``pattern.search(text[start:end]) is not None``."""
        if not (end == self._end and self._start <= start
                and (self._next is None or self._next.start() >= start)):
            # The first match at or after ``start`` (its guard sees the text before it); cached for later starts.
            self._start, self._end = start, end
            self._next = self._pattern.search(self._text, start, end)
        return self._next is not None or (start < end and self._body.match(self._text, start, end) is not None)
