"""The rule extractor tries, where a simple form may start, only the forms that can begin with the
character there: it finds exactly the form the alternation of every form finds, whatever the case,
accents or symbols of the text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitbench.stores import load_hidden
from sitbench.verify._extract import Vocabulary


@pytest.fixture(scope="module")
def vocabulary(pilot: Path) -> Vocabulary:
    hidden = load_hidden(pilot)
    return Vocabulary(hidden.registry.propositions, hidden.registry.closed_world)


def _forms(vocabulary: Vocabulary) -> list[str]:
    return sorted({form for prop in vocabulary.universe for form in prop.surface_forms if "+" not in form})


def _variants(form: str) -> list[str]:
    # Case, a plural, and the characters that Unicode case folding reads as ASCII letters.
    return [form, form.upper(), form.title(), form + "s", "\u212a" + form[1:], "\u017f" + form[1:],
            "\u0130" + form[1:], "é" + form, form.replace(" ", "-")]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_alternation_of_a_start_character_finds_what_the_whole_alternation_finds(
        vocabulary: Vocabulary, data: st.DataObject) -> None:
    forms = _forms(vocabulary)
    pieces = data.draw(st.lists(st.one_of(
        st.sampled_from(forms).flatmap(lambda f: st.sampled_from(_variants(f))),
        st.sampled_from([" ", ", ", "-", "(", "'", "ſ", "K", "Ä", "1", "the ", "I lived in "])), max_size=8))
    text = "".join(pieces)
    assert vocabulary._simple is not None
    for start in range(len(text)):
        whole = vocabulary._simple.match(text, start)
        simple = vocabulary._simple_at(text, start)
        bucketed = simple.match(text, start) if simple is not None else None
        assert (whole and (whole.span(), whole.lastgroup)) == (bucketed and (bucketed.span(), bucketed.lastgroup))


def test_every_form_is_found_at_its_start(vocabulary: Vocabulary) -> None:
    for form in _forms(vocabulary):
        for text in _variants(form):
            whole = vocabulary._simple.match(text, 0) if vocabulary._simple is not None else None
            simple = vocabulary._simple_at(text, 0)
            bucketed = simple.match(text, 0) if simple is not None else None
            assert (whole and (whole.span(), whole.lastgroup)) == (bucketed and (bucketed.span(), bucketed.lastgroup))
