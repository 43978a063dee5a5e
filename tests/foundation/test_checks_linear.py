"""The linear-time integrity checks find exactly what the whole-text scans found.

inv11 reads the words of a record's JSON as pydantic serialises it (not through json.dumps of its
dict), inv11 and inv12 share one split of every evidence file, and the token lookup cuts a text by
translating its bytes and tests the whole word list against the set at once. Each test pins one of
these against the direct scan it replaces.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from sitbench.lineage import run_checks
from sitbench.lineage._checks import TokenSet
from sitbench.stores import load_dataset

from ._pilot_dir import PilotDir

_WORD = re.compile(r"[\w-]+")
_TOKENS = ["L-1A", "P-16", "PR-01", "q-001", "required_claims", "v_T", "1", "-1", "true", "null", "tau", "u0001"]
_UNICODE_TOKENS = [*_TOKENS, "Zoë", "é", "x漢"]


def _reference_find(tokens: set[str], text: str) -> str | None:
    """The whole-text scan: the first ``[\\w-]+`` word of ``text`` that is a token."""
    for m in _WORD.finditer(text):
        if m.group(0) in tokens:
            return m.group(0)
    return None


_pieces = st.sampled_from([*_UNICODE_TOKENS, " ", "\n", '"', "\\", "\t", "é", "ë", "漢", "-", "_", "x", "Zo", "\u2019",
                          "\u2028", "\x01", "\x7f", "\u00a0", "?", "\U0001f600"])
_strings = st.lists(_pieces, max_size=12).map("".join)
_scalars = st.one_of(_strings, st.integers(-3, 3), st.booleans(), st.none())


class _Record(BaseModel):
    text: str
    items: list[str]
    table: dict[str, int | bool | str | None]
    nested: list[dict[str, str]]


@settings(max_examples=400, deadline=None)
@given(_strings, st.lists(_strings, max_size=4), st.dictionaries(_strings, _scalars, max_size=4),
       st.lists(st.dictionaries(_strings, _strings, max_size=3), max_size=3))
def test_pydantic_json_has_the_words_of_json_dumps(text: str, items: list[str], table: dict[str, Any],
                                                    nested: list[dict[str, str]]) -> None:
    record = _Record(text=text, items=items, table=table, nested=nested)
    reference = json.dumps(record.model_dump(mode="json"), ensure_ascii=False)
    assert _WORD.findall(record.model_dump_json()) == _WORD.findall(reference)


@settings(max_examples=600, deadline=None)
@given(_strings)
def test_split_lookup_matches_the_token_by_token_scan(text: str) -> None:
    for vocabulary in (_TOKENS, _UNICODE_TOKENS):
        tokens = TokenSet(vocabulary)
        expected = _reference_find(set(vocabulary), text)
        assert tokens.find(text) == expected
        assert tokens.find_in(TokenSet.split(text)) == expected
    split = TokenSet.split(text)
    if split.exact:
        assert split.words == _WORD.findall(text)


def test_an_escaped_newline_hides_an_id_exactly_as_the_serialised_text_does(pilot_dir: PilotDir) -> None:
    # json.dumps writes "\n" as backslash-n, so "\nL-1A" reads as the word "nL-1A": not an identifier.
    # The state write is in the query's JSON but not in its scored turn (which a partner query must share).
    def hide(query: dict[str, Any]) -> None:
        query["state_write"] = "Noted.\nL-1A"

    pilot_dir.edit_query(_first_query_key(pilot_dir), hide)
    assert _failing(pilot_dir) == set()

    def show(query: dict[str, Any]) -> None:
        query["state_write"] = "Noted. L-1A"

    pilot_dir.edit_query(_first_query_key(pilot_dir), show)
    rows = {r.id: r for r in run_checks(load_dataset(pilot_dir.root))}
    assert not rows["inv11"].passed
    assert "internal identifier 'L-1A'" in rows["inv11"].problems[0]


def test_a_changed_evidence_file_is_scanned_again(pilot_dir: PilotDir) -> None:
    # The split evidence is reused between inv11 and inv12 only while the records are the same objects.
    assert _failing(pilot_dir) == set()
    subject = sorted(p.name.removesuffix(".json") for p in (pilot_dir.root / "visible/subjects").iterdir())[0]

    def leak(evidence: dict[str, Any]) -> None:
        evidence["records"][0]["text"] += " required_claims"

    pilot_dir.edit_subject(subject, leak)
    rows = {r.id: r for r in run_checks(load_dataset(pilot_dir.root))}
    assert not rows["inv12"].passed
    assert rows["inv12"].problems == [f"visible/subjects/{subject}.json: evidence contains the verifier field "
                                      "'required_claims'"]


def _first_query_key(pilot_dir: PilotDir) -> str:
    return str(pilot_dir.read_jsonl("visible/queries.jsonl")[0]["query_key"])


def _failing(pilot_dir: PilotDir) -> set[str]:
    return {r.id for r in run_checks(load_dataset(pilot_dir.root)) if not r.passed}
