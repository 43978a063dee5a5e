"""The rule extractor's linear-time helpers give what the simple code they replaced gave, on random texts.

Each optimisation (a search of the rest of a line answered once per line, regexes that do not retry a run of
white space from each of its characters) is compared with the plain version it replaced, kept here as the
reference: helper by helper, and for whole extractions with every reference swapped back in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitbench.verify import Judge, _extract, _text
from sitbench.verify._text import SliceSearch

# The patterns as they were before they were made linear.
_OLD_TAG_QUESTION = re.compile(
    r"(?:,|\s)\s*(?:right|wasn't it|was it not|isn't it|is it not|didn't we|did we not|don't we|didn't i|"
    r"haven't i|hadn't we|weren't we|wasn't i|aren't i|yeah|yes|no|correct|wasn't that it|if i remember|"
    r"i think|i believe|remember|no\?)\s*(\?)", re.IGNORECASE)
_OLD_CLAUSE_BREAK = re.compile(
    r"\s*(?:;|—|–|\s-\s|:(?=\s)|,\s*(?:but|however|although|though|whereas|yet|while|so|and)\b|,\s*(?=which\b)|"
    r"\b(?:but|however|although|though|whereas|except that)\b|"
    r",\s*(?=(?:and\s+)?(?:i|we|i'm|i've|i'd|we've|we're)\b)|\band\s+(?=(?:i|we)\b)|,\s*(?=(?:never|not|but not|and never|and not)\b))\s*",
    re.IGNORECASE,
)


class _NaiveSliceSearch:
    """The reference: slice, then search."""

    def __init__(self, pattern: re.Pattern[str], text: str) -> None:
        self._pattern, self._text = pattern, text

    def found(self, start: int, end: int) -> bool:
        return self._pattern.search(self._text[start:end]) is not None


@contextmanager
def _reference() -> Iterator[None]:
    """The extractor with every replaced helper swapped back to its reference."""
    saved = _extract._TAG_QUESTION, _text._CLAUSE_BREAK, _extract._RECORD_LINE, _extract.SliceSearch
    _extract._TAG_QUESTION, _text._CLAUSE_BREAK = _OLD_TAG_QUESTION, _OLD_CLAUSE_BREAK
    _extract._RECORD_LINE = _OLD_RECORD_LINE
    _extract.SliceSearch = _NaiveSliceSearch  # type: ignore[misc, assignment]
    try:
        yield
    finally:
        _extract._TAG_QUESTION, _text._CLAUSE_BREAK, _extract._RECORD_LINE, _extract.SliceSearch = saved


_TOKENS = ["I", "we", "i'm", "lived", "live", "home", "moved", "visit", "visited", "once", "a week", "trip", "been to",
           "born", "Kyoto", "Paris", "right", "no", "yes", "wasn't it", "i think", "remember", "but", "and", "which",
           "never", "not", "however", "so", "x", "don't", "'", "’", "\"", "“", "”", ",", ";", ":", "—", "–", "-", " - ",
           "?", ".", "!", "…", ")", "(", " ", "  ", "   ", "\t", "\n", "\n\n", " \n ", "1.", "- ", "•", "é", "_"]
_texts = st.lists(st.sampled_from(_TOKENS), max_size=80).map("".join) | st.text(max_size=120)
_GUARDED = [_extract._PLACE_PREDICATE_WORDS, _extract._VISIT_WORDS, _extract._LIVING_WORDS]


@settings(max_examples=400, deadline=None)
@given(_texts, st.lists(st.integers(min_value=0, max_value=130), max_size=12), st.sampled_from(_GUARDED))
def test_slice_search_is_search_of_the_slice(text: str, cuts: list[int], pattern: re.Pattern[str]) -> None:
    """Starts that never decrease, each read to the end of its line (as the extractor asks), or to a cut."""
    search = SliceSearch(pattern, text)
    for i, start in enumerate(sorted(min(c, len(text)) for c in cuts)):
        newline = text.find("\n", start)
        end = (newline if newline >= 0 else len(text)) if i % 3 else min(len(text), start + cuts[i] // 2 + 1)
        assert search.found(start, end) == (pattern.search(text[start:end]) is not None), (start, end)


def test_slice_search_refuses_patterns_it_cannot_answer_exactly() -> None:
    for source in (r"lived", r"(?<![\w'])\blived", r"(?<![\w'])(?<=x)lived", r"(?<![\w'])^lived"):
        try:
            SliceSearch(re.compile(source), "")
        except ValueError:
            continue
        raise AssertionError(source)


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_tag_question_matches_as_before(text: str) -> None:
    new = [(m.span(), m.span(1)) for m in _extract._TAG_QUESTION.finditer(text)]
    assert new == [(m.span(), m.span(1)) for m in _OLD_TAG_QUESTION.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_clauses_as_before(text: str) -> None:
    new = _text.clauses(text)
    with _reference():
        assert new == _text.clauses(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_texts, st.sampled_from(["PR-01", "PR-05", "PR-12", "PR-21"]))
def test_extraction_as_before(judge: Judge, text: str, probe_id: str) -> None:
    new = judge.extract(probe_id, text)
    with _reference():
        assert new == judge.extract(probe_id, text)


_OLD_RECORD_LINE = re.compile(
    r"^[ \t]*(?:\d+\.[ \t]*)?(?:.*\b\d{4}-\d{2}-\d{2}\b|.*\{\s*\"|.*\[[A-Z][A-Z ]+(?: AT [^\]]*)?:|"
    r"[A-Z][A-Z ]{3,}:)", re.MULTILINE)
_record_texts = st.lists(st.sampled_from(["1.", "12.", "2024-01-31", "2024-1-3", "{", "\"", "[", "]", "AT", "A", "NAME",
                                          "MEMORIES", ":", " ", "  ", "\t", "\n", "x", "word", "9"]),
                         max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(_record_texts | _texts)
def test_record_lines_as_before(text: str) -> None:
    assert [m.span() for m in _extract._RECORD_LINE.finditer(text)] == \
        [m.span() for m in _OLD_RECORD_LINE.finditer(text)]
