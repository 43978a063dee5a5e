"""The tense reader searches each phrasing once for any city and falls back to one city's own pattern
only where the first match is about another city: it finds exactly the mentions that searching every
phrasing about every city, one at a time, finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from sitbench.lineage import city_mentions
from sitbench.lineage._residence import _TEMPLATES, CityMention

CITIES = ["York", "New York", "Paris", "St. Louis", "Cork", "cork", "São Paulo", "Accra", "Winston-Salem"]


def _reference(text: str, cities: list[str]) -> list[CityMention]:
    """Every phrasing compiled for every city, searched one city at a time."""
    out = []
    for city in dict.fromkeys(cities):
        if city.lower() not in text.lower():
            continue
        x = r"(?<![\w-])" + re.escape(city) + r"(?![\w-])"
        seen = set()
        for template, tense in _TEMPLATES:
            if tense not in seen and (m := re.search(template.replace("{x}", x), text, re.IGNORECASE)):
                seen.add(tense)
                out.append(CityMention(city=city, tense=tense, phrase=m.group(0)))
    return out


_PHRASES = ["when you lived in {c}", "you used to live in {c}", "you live in {c}", "you're living in {c}",
            "after leaving {c}", "{c}, back when you were living there", "{c} where you lived",
            "your old flat in {c}", "in your {c} days", "were you living in {c}", "did you say living in {c}",
            "how's living in {c}", "since you moved away from {c}", "now that you've moved to {c}"]

_pieces = st.one_of(
    st.tuples(st.sampled_from(_PHRASES), st.sampled_from([*CITIES, "NEW YORK", "paris", "Yorkshire"])).map(
        lambda pc: pc[0].replace("{c}", pc[1])),
    st.sampled_from([" ", ". ", "; ", "? ", " and ", ", ", "-", "\n", "ſ", "K"]))


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(_pieces, max_size=7), cities=st.lists(st.sampled_from(CITIES), min_size=1, max_size=6))
def test_searching_for_any_city_finds_what_each_city_alone_finds(pieces: list[str], cities: list[str]) -> None:
    text = "".join(pieces)
    assert city_mentions(text, cities) == _reference(text, cities)
