"""Where the identity lives on a date, and the tense in which a question speaks of a city.

The residence record is read from the symbolic lineage, never from the realizations:

* an event that asserts a ``lived_in`` proposition moves the identity to its city;
* the birth event's ``grew_up_in`` proposition places the identity in its hometown until
  the first move;
* an event that retracts the current ``lived_in`` proposition ends the residence (unknown);
* an event placed (``Event.place``) in a city the identity lived or grew up in before, other
  than a trip, records a return there ("moved back to Zurich").

The tense reader recognises the phrasings that presuppose a residence: past ("when you
lived in X", "back when you were in X", "after you left X", "used to live in X", "what was
it like living in X") and present ("you live in X", "you're living in X", "how's living in
X"). Yes/no questions about the residence itself ("do you still live in X?") presuppose
nothing and are left alone.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from sitbench.schema import Lineage, Predicate, Proposition, Provenance


@dataclass(frozen=True)
class Residence:
    """The identity's city from a date on, and the event that records it."""

    t: dt.date
    """When the residence starts."""
    city: str | None
    """The city, or None when the record ends a residence without naming the next one."""
    event_id: str
    """The event that records it."""


def residence_timeline(lineage: Lineage, props: dict[str, Proposition]) -> list[Residence]:
    """The lineage's residences in date order (see the module docstring for the rules)."""
    order = sorted(range(len(lineage.events)), key=lambda i: (lineage.events[i].t, i))
    timeline: list[Residence] = []
    current: str | None = None
    current_prop: str | None = None
    known: set[str] = set()
    for index in order:
        event = lineage.events[index]
        moved_to: str | None = None
        moved_prop: str | None = None
        ended = False
        for signed in event.asserts:
            prop = props.get(signed.prop_id)
            if prop is None or not signed.polarity:
                continue
            if prop.predicate is Predicate.LIVED_IN:
                moved_to, moved_prop = prop.value, prop.prop_id
            elif prop.predicate is Predicate.GREW_UP_IN:
                known.add(prop.value)
                if current is None and not timeline:
                    moved_to = prop.value
        if moved_to is None and current_prop is not None and current_prop in event.retracts:
            ended = True
        if (moved_to is None and not ended and event.place in known and event.place != current
                and event.provenance is not Provenance.TRAVEL):
            moved_to = event.place
        if moved_to is not None and moved_to != current:
            timeline.append(Residence(event.t, moved_to, event.event_id))
            current, current_prop = moved_to, moved_prop
        elif moved_to is not None:
            current_prop = moved_prop or current_prop
        elif ended:
            timeline.append(Residence(event.t, None, event.event_id))
            current, current_prop = None, None
        if moved_to is not None:
            known.add(moved_to)
    return timeline


def residence_at(timeline: list[Residence], on: dt.date) -> Residence | None:
    """The residence in force on ``on`` (the last one starting on or before it), or None."""
    found = None
    for residence in timeline:
        if residence.t <= on:
            found = residence
        else:
            break
    return found


class Tense(str, Enum):
    """How a question places the identity's residence in a city."""

    PAST = "past"
    """The identity lived there and has left."""
    PRESENT = "present"
    """The identity lives there now."""


@dataclass(frozen=True)
class CityMention:
    """A phrase that presupposes living (or having lived) in a city."""

    city: str
    """The city as the registry names it."""
    tense: Tense
    """Past or present residence."""
    phrase: str
    """The matched words."""


_BEFORE_YOU = r"(?<!have )(?<!has )(?<!had )(?<!did )(?<!do )(?<!to )"
_PAST = (
    r"\b(?:when|while|back when|as|since|after|before|once)\s+you\s+(?:were\s+in|were\s+living\s+in|"
    r"were\s+based\s+in|were\s+staying\s+in|lived\s+in)\s+{x}",
    _BEFORE_YOU + r"\byou\s+(?:once\s+|previously\s+|formerly\s+)?(?:lived|were\s+living|were\s+based)\s+in\s+{x}",
    r"\bwhen\s+did\s+you\s+live\s+in\s+{x}",
    r"\bused\s+to\s+live\s+in\s+{x}",
    # "you" is required: "since your sister left X" says nothing of the identity.
    r"\byou(?:'d|’d|'ve|’ve|\s+had|\s+have)?\s+(?:left|moved\s+away\s+from|moved\s+out\s+of|moved\s+back\s+from)\s+{x}",
    r"\b(?:after|since)\s+leaving\s+{x}",
    # An inverted yes/no question ("were you living in X?") asks and presupposes nothing.
    r"\b(?:did|was|were|had)\b(?!\s+you\s+(?:ever\s+|really\s+)?living\b)"
    r"[^.?!;]*?\bliving\s+in\s+{x}",
    r"\byour\s+(?:old|former|previous)\s+\w+\s+in\s+{x}",
    r"\bin\s+your\s+{x}\s+(?:days|years)",
    r"{x}[^.?!;]*?\b(?:when|while|back when)\s+you\s+(?:lived|were\s+living|were)\s+there\b",
    r"{x}[^.?!;]*?\bwhere\s+you\s+(?:lived|used\s+to\s+live)\b",
    r"{x}[^.?!;]*?" + _BEFORE_YOU + r"\byou\s+(?:lived|were\s+living|used\s+to\s+live)\s+there\b",
)
_PRESENT = (
    _BEFORE_YOU + r"\byou\s+(?:still\s+|now\s+|currently\s+)?live\s+in\s+{x}",
    r"\byou(?:'re|’re|\s+are)\s+(?:still\s+|now\s+|currently\s+)?(?:living|based)\s+in\s+{x}",
    r"\byou(?:'ve|’ve|\s+have)\s+been\s+living\s+in\s+{x}",
    r"\bnow\s+that\s+you(?:'ve|’ve|\s+have)\s+(?:moved|settled)\s+(?:in)?to\s+{x}",
    r"\b(?:how's|how’s|how\s+is|what's\s+it\s+like|what’s\s+it\s+like|what\s+is\s+it\s+like|do\s+you\s+(?:enjoy|like|love)|"
    r"are\s+you\s+enjoying)\s+(?:\w+\s+){0,2}?living\s+in\s+{x}",
)


_TEMPLATES = tuple((p, Tense.PAST) for p in _PAST) + tuple((p, Tense.PRESENT) for p in _PRESENT)


def _city_regex(city: str) -> str:
    return r"(?<![\w-])" + re.escape(city) + r"(?![\w-])"


@lru_cache(maxsize=65536)
def _pattern(city: str, template: int) -> re.Pattern[str]:
    """Phrasing ``template`` of :data:`_TEMPLATES` about ``city``."""
    return re.compile(_TEMPLATES[template][0].replace("{x}", _city_regex(city)), re.IGNORECASE)


@dataclass(frozen=True)
class _AnyCity:
    lowered: tuple[str, ...]
    """Each city in lower case (a city is looked for only in texts that hold it)."""
    patterns: tuple[re.Pattern[str] | None, ...]
    """Each phrasing about any of the cities (city ``i`` is group ``c<i>``); None for a phrasing that
    starts with the city, which is searched for one city at a time (an alternation of every city at
    every position of a text costs more than it saves)."""


@lru_cache(maxsize=64)
def _any_city(cities: tuple[str, ...]) -> _AnyCity:
    alternation = "(?:" + "|".join(f"(?P<c{i}>{_city_regex(city)})" for i, city in enumerate(cities)) + ")"
    return _AnyCity(tuple(city.lower() for city in cities), tuple(
        None if template.startswith("{x}") else re.compile(template.replace("{x}", alternation), re.IGNORECASE)
        for template, _ in _TEMPLATES))


def city_mentions(text: str, cities: list[str]) -> list[CityMention]:
    """Phrases of ``text`` that speak of living in one of ``cities`` in the past or present tense.

    Args:
        text: An utterance.
        cities: City names (matched as whole words, case-insensitively).

    Returns:
        At most one mention per city and tense (the first matching phrase), in the order of ``cities``.
    """
    unique = tuple(dict.fromkeys(cities))
    any_city = _any_city(unique)
    lowered = text.lower()
    present = [(i, city) for i, (city, low) in enumerate(zip(unique, any_city.lowered, strict=True)) if low in lowered]
    if not present:
        return []
    # A phrasing about any city is searched for once; where its first match is about this city, it is
    # the first match of the phrasing about this city alone (a match about this city is a match about
    # any, and the alternation tries the same paths in the same order); where it finds none, there is
    # none about this city; where it is about another city, this city's own pattern is searched for.
    found: dict[int, re.Match[str] | None] = {}
    out = []
    for index, city in present:
        seen: set[Tense] = set()
        for template, (_, tense) in enumerate(_TEMPLATES):
            if tense in seen:
                continue
            pattern = any_city.patterns[template]
            if pattern is None:
                m = _pattern(city, template).search(text)
            else:
                if template not in found:
                    found[template] = pattern.search(text)
                m = found[template]
                if m is not None and m.group(f"c{index}") is None:
                    m = _pattern(city, template).search(text)
            if m is not None:
                seen.add(tense)
                out.append(CityMention(city=city, tense=tense, phrase=m.group(0)))
    return out
