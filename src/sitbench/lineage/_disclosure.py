"""Who the lineage record says was told a private item."""

from __future__ import annotations

import datetime as dt

from sitbench.schema import Lineage


def told_to(lineage: Lineage, prop_id: str, tau: dt.date) -> tuple[list[str], list[str]]:
    """The people the record says were told ``prop_id`` by ``tau``.

    The participants of every event dated on or before ``tau`` that asserts the proposition
    ("Told her sister Jo, and no one else, that…" lists ``jo``).

    Args:
        lineage: The lineage.
        prop_id: The private item's proposition.
        tau: The date the question is asked.

    Returns:
        (participant ids in first-seen order, ids of the events that establish the item).
    """
    people: list[str] = []
    events: list[str] = []
    for event in lineage.events:
        if event.t <= tau and any(s.prop_id == prop_id and s.polarity for s in event.asserts):
            events.append(event.event_id)
            people.extend(x for x in event.participants if x not in people)
    return people, events
