"""The memoised token count and the chunk-cached isolation audit give exactly what a whole-text pass gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitbench.candidates import Message
from sitbench.configs import WordPieceCounter, _budget
from sitbench.lineage import IsolationAudit, IsolationError, TokenSet
from sitbench.stores import load_dataset

# Spaces and line breaks of every kind, controls BERT deletes (U+001C is whitespace to Python),
# accents and combining marks, CJK, emoji, punctuation and words the tokenizer splits.
ALPHABET = (" \n\t\r\x0b\x0c\x1c\x1d\u00a0\u2028\u3000" "abcXYZ019-_'’.,;:!?()[]{}\"/"
            "éñüß\u0301\u0308日本語한국😀🙂")
TEXTS = st.lists(st.one_of(st.text(alphabet=ALPHABET, max_size=12),
                           st.sampled_from(["unbelievably", "Zurich", "co-op", "PR-01", "don't", "[3]"])),
                 max_size=30).map(" ".join)

# A long field of a prompt: long fields' counts and clean long segments are remembered.
LONG_FIELD = "CHRONICLE: " + "; ".join(f"[{n}] 1990-01-0{n % 9 + 1} an ordinary day at the market" for n in range(100))


@pytest.fixture(scope="module")
def counter() -> WordPieceCounter:
    counter = WordPieceCounter()
    counter.count("warm up")
    assert counter._additive, "the shipped tokenizer is BERT's: counts must add up over chunks"
    return counter


def _whole(counter: WordPieceCounter, text: str) -> int:
    return len(counter._tokenizer.encode(text, add_special_tokens=False).ids)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(TEXTS, min_size=1, max_size=4))
def test_counts_equal_encoding_the_whole_text(counter: WordPieceCounter, texts: list[str]) -> None:
    assert [counter.count(t) for t in texts] == [_whole(counter, t) for t in texts]
    assert counter.count_many(texts) == [_whole(counter, t) for t in texts]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fields=st.lists(st.one_of(TEXTS, st.just(LONG_FIELD), TEXTS.map(lambda t: LONG_FIELD + t)), max_size=6),
       joiner=st.sampled_from(["] [", "]] [[", " ] [ ", "]\n[", "] [] ["]))
def test_counts_of_prompts_cut_into_fields_equal_encoding_the_whole_text(
        counter: WordPieceCounter, fields: list[str], joiner: str) -> None:
    text = "[" + joiner.join(fields) + "]"
    # Twice: the second count reads the long fields the first one remembered.
    assert counter.count(text) == counter.count(text) == _whole(counter, text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(st.one_of(TEXTS, st.sampled_from(["[12] 1990-01-02 an ordinary day", "", " ", ";"])),
                      min_size=1, max_size=30),
       joiner=st.sampled_from(["; ", ";; ", " ; ", ";  ", ";\n", "; ;"]))
def test_counts_of_long_fields_cut_into_items_equal_encoding_the_whole_text(
        counter: WordPieceCounter, items: list[str], joiner: str) -> None:
    # A long field's items (between "; ") are counted once each and remembered.
    text = f"[MEMORIES: {joiner.join(items)}{joiner}{LONG_FIELD}] [MESSAGE: {joiner.join(items[:3])}]"
    assert counter.count(text) == counter.count(text) == _whole(counter, text)


def test_counts_stay_exact_when_the_memo_starts_again(counter: WordPieceCounter,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_budget, "_MEMO_CHUNKS", 3)
    monkeypatch.setattr(_budget, "_ITEM_CHARS", 200)
    monkeypatch.setattr(_budget, "_FIELDS", 2)
    text = "one two three four five six seven eight nine ten, and eleven"
    fields = f"[{LONG_FIELD}] [{LONG_FIELD} more] [{LONG_FIELD} again]"
    for _ in range(3):
        assert counter.count(text) == _whole(counter, text)
        assert len(counter._memo) <= 12
        assert counter.count(fields) == _whole(counter, fields)
        assert counter._item_chars <= 200
        assert len(counter._fields) <= 2


@pytest.fixture(scope="module")
def audit_setup(pilot: Path) -> tuple[IsolationAudit, str, list[str], list[str]]:
    ds = load_dataset(pilot)
    audit = IsolationAudit.for_dataset(ds)
    subject = next(s for s, records in audit.partner_only.items() if records)
    ids = sorted(audit.ids.tokens)[:20]
    return audit, subject, ids, audit.partner_only[subject][:3]


def _verdict(check: object, *args: object) -> str | None:
    try:
        check(*args)  # type: ignore[operator]
    except IsolationError as error:
        return str(error)
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_cached_audit_stops_exactly_the_prompts_a_whole_text_scan_stops(
        audit_setup: tuple[IsolationAudit, str, list[str], list[str]], data: st.DataObject) -> None:
    audit, subject, ids, records = audit_setup
    pieces = data.draw(st.lists(st.one_of(TEXTS, st.sampled_from(ids), st.sampled_from(records),
                                          st.sampled_from(["required_acts", "ANSWER", "SValid-ish", "gold"])),
                                max_size=8))
    if data.draw(st.booleans()):
        # A long clean field: long segments are remembered per subject once found clean.
        pieces.insert(data.draw(st.integers(0, len(pieces))), LONG_FIELD)
    joiner = data.draw(st.sampled_from([" ", "\n", "", "; ", "-", "] [", "]", "["]))
    text = joiner.join(pieces)
    expected = _verdict(audit._check_text, "T", subject, 0, text)
    # Twice: the second pass reads chunks the first one (or an earlier example) found clean.
    for _ in range(2):
        assert _verdict(audit.check, "T", subject, [Message(role="user", content=text)]) == expected


_ODD_RECORDS = [
    "Lisbon",  # one word: no inner chunk
    "moved away",  # two words: no inner chunk
    "wrote a letter\nand sent it",  # a line break
    "kept a diary] [and burned it",  # a bracket: may straddle a separator
    "she moved to Lisbon in 1990",
    "he moved to Lisbon in 1991",  # the same longest inner chunk as the one before
    " leading and trailing spaces ",
    "argued all night; then laughed",  # a semicolon: may straddle a "; " separator
    "she moved to Lisbon;",
]


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_indexed_audit_finds_every_kind_of_partner_record(data: st.DataObject) -> None:
    audit = IsolationAudit(TokenSet(["L0001"]), TokenSet(["required_acts"]), {"s": list(_ODD_RECORDS)})
    words = st.sampled_from(["she", "moved", "to", "Lisbon", "in", "1990", "away", "a", "diary", "and", "it"])
    pieces = data.draw(st.lists(st.one_of(st.sampled_from(_ODD_RECORDS), words, TEXTS), max_size=8))
    if data.draw(st.booleans()):
        pieces.insert(data.draw(st.integers(0, len(pieces))), LONG_FIELD)
    joiner = data.draw(st.sampled_from([" ", "\n", "", "] [", "; ", ";", ";; "]))
    text = joiner.join(pieces)
    expected = _verdict(audit._check_text, "T", "s", 0, text)
    for _ in range(2):
        assert _verdict(audit.check, "T", "s", [Message(role="user", content=text)]) == expected


def test_a_remembered_segment_is_clean_only_for_its_subject_and_brackets_cannot_hide_a_record() -> None:
    partner = "she moved to Lisbon in the spring of 1990 and never looked back"
    bracketed = "she kept a diary] [and burned it"
    audit = IsolationAudit(TokenSet(["L0001"]), TokenSet(["required_acts"]),
                           {"s1": [], "s2": [partner, bracketed]})
    field = f"[CHRONICLE: {LONG_FIELD}; {partner}] [MESSAGE: hello]"
    audit.check("T", "s1", [Message(role="user", content=field)])  # clean for s1: s1 has no partner records
    with pytest.raises(IsolationError, match="partner record"):
        audit.check("T", "s2", [Message(role="user", content=field)])
    clean = f"[CHRONICLE: {LONG_FIELD}] [MESSAGE: hello]"
    audit.check("T", "s2", [Message(role="user", content=clean)])
    # The remembered chronicle segment does not excuse a record or an id in another segment.
    with pytest.raises(IsolationError, match="partner record"):
        audit.check("T", "s2", [Message(role="user", content=f"{clean} [NOTE: {partner}]")])
    with pytest.raises(IsolationError, match="L0001"):
        audit.check("T", "s2", [Message(role="user", content=f"[CHRONICLE: {LONG_FIELD}] [MESSAGE: L0001]")])
    # A record holding the separator spans two segments and is still found.
    with pytest.raises(IsolationError, match="partner record"):
        audit.check("T", "s2", [Message(role="user", content=f"[CHRONICLE: {LONG_FIELD}; {bracketed}]")])
