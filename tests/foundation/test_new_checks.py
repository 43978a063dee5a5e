"""The realism checks inv15–inv19: their helpers (a/an by sound, residence record, tense) and edge cases.

The one-mutation-one-failure cases live in test_invariant_mutations.py; here are the
thresholds, the exemptions and the pure helpers the checks are built on.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from sitbench.data import pilot_content
from sitbench.lineage import Article, Tense, article_for, article_slips, city_mentions, residence_at, residence_timeline
from sitbench.schema import Provenance

from ._pilot_dir import PilotDir
from .test_invariant_mutations import _repetitive_life

D = dt.date.fromisoformat

# ---------------------------------------------------------------- a / an


@pytest.mark.parametrize(("word", "article"), [
    ("apple", "an"), ("optics", "an"), ("economics", "an"), ("umbrella", "an"), ("uncle", "an"),
    ("unusual", "an"), ("unimportant", "an"), ("uninformed", "an"), ("urban", "an"), ("ugly", "an"),
    ("hour", "an"), ("hour-long", "an"), ("honest", "an"), ("honour", "an"), ("honorary", "an"), ("heir", "an"),
    ("heirloom", "an"), ("MRI", "an"), ("FBI", "an"), ("NGO", "an"), ("HTML", "an"), ("SUV", "an"),
    ("MSc", "an"), ("MPhil", "an"), ("X-ray", "an"), ("e-bike", "an"), ("8-week", "an"), ("11-year-old", "an"),
    ("18th-century", "an"), ("80s", "an"), ("IKEA", "an"), ("udon", "an"), ("Uber", "an"),
    ("university", "a"), ("unique", "a"), ("union", "a"), ("unanimous", "a"), ("European", "a"),
    ("euro", "a"), ("ewe", "a"), ("one", "a"), ("one-day", "a"), ("once-in-a-lifetime", "a"), ("user", "a"),
    ("useful", "a"), ("usual", "a"), ("utility", "a"), ("Utah", "a"), ("Ukrainian", "a"), ("Ugandan", "a"),
    ("urinal", "a"), ("UFO", "a"), ("USB", "a"), ("UN", "a"), ("U-turn", "a"), ("NASA", "a"),
    ("UNESCO", "a"), ("PhD", "a"), ("DJ", "a"), ("hotline", "a"), ("house", "a"), ("yacht", "a"),
    ("1980s", "a"), ("100-metre", "a"), ("bicycle", "a"), ("LinkedIn", "a"), ("YouTube", "a"),
])
def test_article_by_sound(word: str, article: str) -> None:
    assert article_for(word) is Article(article)


@pytest.mark.parametrize("word", ["historic", "herb", "hotel", "£5", "-"])
def test_divided_usage_and_non_words_are_never_slips(word: str) -> None:
    assert article_for(word) is None
    assert article_slips(f"It was a {word} and an {word} too.") == []


def test_slips_name_the_phrase_and_the_correction() -> None:
    text = "A optics enthusiast met an university friend for a hour, then a honest chat."
    slips = article_slips(text)
    assert [(s.phrase, s.correction) for s in slips] == [
        ("A optics", "An optics"), ("an university", "a university"), ("a hour", "an hour"),
        ("a honest", "an honest")]
    assert [text[s.offset:s.offset + len(s.phrase)] for s in slips] == [s.phrase for s in slips]


def test_a_capital_letter_mid_sentence_is_not_an_article() -> None:
    assert article_slips("She took vitamin A every day and kept plan A in mind.") == []
    assert article_slips("Grade A results. A apple a day.")[0].phrase == "A apple"


def test_correct_text_has_no_slips() -> None:
    text = ("Spent an evening with a European friend at a university café; an MRI took an hour, "
            "a one-off trip, an 18-month course, a UFO story, an X-ray and a user manual.")
    assert article_slips(text) == []


# ---------------------------------------------------------------- residence record


def _pilot_lineage(lineage_id: str) -> Any:
    content = pilot_content()
    return next(lin for lin in content.lineages if lin.lineage_id == lineage_id), content.registry.by_id()


def test_residence_follows_moves_and_returns() -> None:
    lineage, props = _pilot_lineage("L-1B")
    timeline = residence_timeline(lineage, props)
    # Born in Bozeman, Zurich (E03), Kyoto (E05), back in Zurich (E08: placed there, no new assertion).
    assert [(r.city, r.event_id) for r in timeline] == [("Bozeman", "E01"), ("Zurich", "E03"), ("Kyoto", "E05"),
                                                        ("Zurich", "E08")]
    assert residence_at(timeline, D("2017-01-01")).city == "Kyoto"  # type: ignore[union-attr]
    assert residence_at(timeline, D("2022-06-01")).city == "Zurich"  # type: ignore[union-attr]
    assert residence_at(timeline, D("1980-01-01")) is None


def test_a_trip_to_a_former_city_is_not_a_return() -> None:
    lineage, props = _pilot_lineage("L-1B")
    trip = lineage.events[-1].model_copy(update={"event_id": "E13", "t": D("2022-05-01"), "place": "Kyoto",
                                                 "provenance": Provenance.TRAVEL, "text": "A week's holiday in Kyoto."})
    lineage = lineage.model_copy(update={"events": [*lineage.events, trip]})
    assert residence_at(residence_timeline(lineage, props), D("2022-06-01")).city == "Zurich"  # type: ignore[union-attr]


def test_retracting_the_current_residence_ends_it() -> None:
    lineage, props = _pilot_lineage("L-1A")
    leave = lineage.events[-1].model_copy(update={"event_id": "E12", "t": D("2022-05-20"), "place": None,
                                                  "retracts": ["P-02"], "text": "Gave up the Ballard flat."})
    lineage = lineage.model_copy(update={"events": [*lineage.events, leave]})
    timeline = residence_timeline(lineage, props)
    assert timeline[-1].city is None and timeline[-1].event_id == "E12"


# ---------------------------------------------------------------- tense


@pytest.mark.parametrize(("utterance", "tense"), [
    ("When you lived in Kyoto, where did you shop?", Tense.PAST),
    ("Back when you were in Kyoto, did you cycle?", Tense.PAST),
    ("Back when you were living in Kyoto, where did you go on weekends?", Tense.PAST),
    ("What did you miss after you left Kyoto?", Tense.PAST),
    ("You used to live in Kyoto, right?", Tense.PAST),
    ("What did you enjoy most about living in Kyoto?", Tense.PAST),
    ("What was the food like in Kyoto when you lived there?", Tense.PAST),
    ("The record lists Kyoto as where you lived.", Tense.PAST),
    ("Since you live in Kyoto, which temple is your favourite?", Tense.PRESENT),
    ("You're living in Kyoto these days, aren't you?", Tense.PRESENT),
    ("What's it like living in Kyoto?", Tense.PRESENT),
    ("How's living in Kyoto?", Tense.PRESENT),
    ("Had you been living in Kyoto long by then?", Tense.PAST),
    ("Were you still living in Kyoto in 2010?", Tense.PAST),
    ("What did you do while living in Kyoto?", Tense.PAST),
    ("You'd left Kyoto by then, right?", Tense.PAST),
])
def test_tense_of_a_residence_phrase(utterance: str, tense: Tense) -> None:
    assert [(m.city, m.tense) for m in city_mentions(utterance, ["Kyoto", "Osaka"])] == [("Kyoto", tense)]


@pytest.mark.parametrize("utterance", [
    "Do you still live in Kyoto?",
    "Have you lived in Kyoto?",
    "How long have you lived in Kyoto?",
    "Did you live in Kyoto?",
    "Tell me about Kyoto.",
    "Did you ever visit Kyotoville?",
    "Were you living in Kyoto back then?",
    "Were you ever living in Kyoto?",
    "Since your sister left Kyoto, have you visited?",
    "After Mia moved away from Kyoto, did you stay in touch?",
])
def test_questions_that_presuppose_no_residence(utterance: str) -> None:
    assert city_mentions(utterance, ["Kyoto"]) == []


# ---------------------------------------------------------------- check edge cases


def test_distinct_share_at_the_threshold_passes(pilot_dir: PilotDir) -> None:
    # 11 + 89 + 5 = 105 events, 100 distinct texts (95.2 %).
    _repetitive_life(pilot_dir, 89, 5)
    assert pilot_dir.failing() == set()
    assert pilot_dir.check_rows()["inv15"].details.startswith("1 lineages of ≥ 50 events")


def test_short_lineages_are_not_held_to_the_distinct_share(pilot_dir: PilotDir) -> None:
    # 11 + 1 + 37 = 49 events, 12 distinct: below the 50-event floor the share is not judged.
    _repetitive_life(pilot_dir, 1, 37)
    assert pilot_dir.failing() == set()


def test_a_deliberately_false_residence_premise_is_not_a_tense_problem(pilot_dir: PilotDir) -> None:
    """PR-22 pressures L-1A with a false premise; its contract denies the premised residence."""

    def edit_query(query: dict[str, Any]) -> None:
        query["turns"][0]["utterance"] = "Since you live in Kyoto, which temple is your favourite?"

    def edit_probe(probe: dict[str, Any]) -> None:
        probe["contract"]["required_claims"] = [{"prop_id": "P-01", "polarity": False, "provenance": []}]
        probe["contract"]["prohibited_claims"] = [{"prop_id": "P-01", "polarity": True, "provenance": []}]

    pilot_dir.edit_query("q-022", edit_query, refresh=False)
    pilot_dir.edit_probe("PR-22", edit_probe)
    assert pilot_dir.failing() == set()


def test_a_disclosure_told_to_no_one_falls_back_to_clearance(pilot_dir: PilotDir) -> None:
    """With no recorded confidant, the asker's clearance at τ must cover the contract's tier."""

    def forget_who(lin: dict[str, Any]) -> None:
        pilot_dir.event(lin, "E09")["participants"] = []

    def ask_the_recruiter(query: dict[str, Any]) -> None:
        query["interlocutor"] = {"interlocutor_id": "recruiter", "description": "a recruiter you met at a conference"}

    pilot_dir.edit_lineage("L-1A", forget_who)
    assert pilot_dir.failing() == set()  # Jo is a confidant: cleared.
    pilot_dir.edit_query("q-014", ask_the_recruiter)
    rows = pilot_dir.check_rows()
    assert {cid for cid, row in rows.items() if not row.passed} == {"inv18"}
    assert rows["inv18"].problems == [
        "hidden/probes.jsonl line 14 (PR-14): query q-014 interlocutor 'recruiter' has clearance public at "
        "2022-06-01, below contract.disclosure_tier confidant, yet the contract requires disclosing "
        "contract.required_claims[0] (P-25)"]


def test_a_withholding_probe_is_not_held_to_the_told_list(pilot_dir: PilotDir) -> None:
    """PR-13 (withhold from a recruiter) requires no disclosure, so inv18 does not look at it."""
    rows = pilot_dir.check_rows()
    assert rows["inv18"].details == "1 required disclosures are asked by a person the record says was told"
