"""The linear-time integrity checks find exactly what the whole-text scans found.

inv11 reads a query's JSON key by key and scalar by scalar (each string split once), inv11 and
inv12 share one split of every evidence file, and the token lookup tests a whole word list
against the set at once. Each test pins one of these against the direct scan it replaces.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sitbench.lineage import run_checks
from sitbench.lineage._checks import TokenSet, _first_token_in_json
from sitbench.stores import load_dataset

from ._pilot_dir import PilotDir

_WORD = re.compile(r"[\w-]+")
_TOKENS = ["L-1A", "P-16", "PR-01", "q-001", "required_claims", "v_T", "1", "-1", "true", "null", "tau"]


def _reference_find(tokens: set[str], text: str) -> str | None:
    """The whole-text scan: the first ``[\\w-]+`` word of ``text`` that is a token."""
    for m in _WORD.finditer(text):
        if m.group(0) in tokens:
            return m.group(0)
    return None


_pieces = st.sampled_from([*_TOKENS, " ", "\n", '"', "\\", "\t", "é", "漢", "-", "_", "x", "\u2019", "\u2028", "\x01"])
_strings = st.lists(_pieces, max_size=12).map("".join)
_scalars = st.one_of(_strings, st.integers(-3, 3), st.booleans(), st.none())
_json = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(_strings, inner, max_size=4)), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(_json)
def test_key_by_key_scan_finds_the_same_first_token_as_the_serialised_text(value: Any) -> None:
    tokens = TokenSet(_TOKENS)
    memo: dict[str, str | None] = {}
    expected = _reference_find(set(_TOKENS), json.dumps(value, ensure_ascii=False))
    assert _first_token_in_json(value, tokens, memo) == expected
    assert _first_token_in_json(value, tokens, memo) == expected  # and again from the memo


@settings(max_examples=300, deadline=None)
@given(_strings)
def test_word_list_lookup_matches_the_token_by_token_scan(text: str) -> None:
    tokens = TokenSet(_TOKENS)
    assert tokens.find(text) == _reference_find(set(_TOKENS), text)
    assert tokens.find_in_words(TokenSet.words(text)) == _reference_find(set(_TOKENS), text)


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
