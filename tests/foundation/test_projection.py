"""Projection Π_τ, situated state I_τ and public profile S_τ, hand-checked on the pilot's four lives."""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import pytest

from sitbench.data import pilot_content
from sitbench.lineage import profile_at, profile_sha256, project, serialize_profile, situated_state
from sitbench.schema import Event, EventKind, Lineage, Provenance, SignedProp, Tier
from sitbench.stores import load_hidden, load_pairs

from ._pilot_dir import PilotDir

D = dt.date.fromisoformat
T4 = D("2022-06-01")


@pytest.fixture(scope="module")
def lineages() -> dict[str, Lineage]:
    return {lin.lineage_id: lin for lin in pilot_content().lineages}


# ---------------------------------------------------------------- acquired knowledge K_τ


def test_lattice_is_unknown_before_the_course_and_known_after(lineages: dict[str, Lineage]) -> None:
    crypto_mara = lineages["L-1B"]
    before = situated_state(crypto_mara, D("2018-06-01"))
    assert not before.supports("P-16")
    assert "P-16" not in before.truths
    assert [edge.prop_id for edge in before.knowledge] == ["P-34"]  # Japanese (JLPT N3, 2017-03-20)
    after = situated_state(crypto_mara, T4)
    assert after.supports("P-16")
    assert [(edge.prop_id, edge.t) for edge in after.knowledge] == [("P-34", D("2017-03-20")),
                                                                    ("P-16", D("2021-03-15"))]


def test_projection_includes_the_acquisition_day_itself(lineages: dict[str, Lineage]) -> None:
    crypto_mara = lineages["L-1B"]
    assert not situated_state(crypto_mara, D("2021-03-14")).supports("P-16")
    assert situated_state(crypto_mara, D("2021-03-15")).supports("P-16")


def test_projection_keeps_exactly_the_events_up_to_tau(lineages: dict[str, Lineage]) -> None:
    crypto_mara = lineages["L-1B"]
    past = project(crypto_mara, D("2018-06-01"))
    assert [e.event_id for e in past.events] == ["E01", "E02", "E03", "E04", "E05", "E06", "E07"]
    assert [a.prop_id for a in past.acquisitions] == ["P-34"]
    assert len(crypto_mara.events) == 12  # the lineage itself is untouched
    assert project(crypto_mara, D("1992-04-09")).events == []
    # Every event, relationship and belief of the pilot lives is on or before t4: Π_t4(H) = H.
    for lin in lineages.values():
        assert project(lin, T4) == lin


def test_relationship_versions_and_beliefs_are_projected(lineages: dict[str, Lineage]) -> None:
    robotics_mara = project(lineages["L-1A"], D("2014-06-01"))
    assert [r.interlocutor_id for r in robotics_mara.relationships] == ["jo"]  # Priya only from 2016-03-01
    lisbon_aoife = lineages["L-2A"]
    assert project(lisbon_aoife, D("2018-09-02")).beliefs == []
    assert [v.prop_id for v in project(lisbon_aoife, D("2019-06-01")).beliefs[0].versions] == ["P-31"]


# ---------------------------------------------------------------- beliefs with history


def test_phone_stance_changes_with_its_history(lineages: dict[str, Lineage]) -> None:
    lisbon_aoife = lineages["L-2A"]
    t3 = situated_state(lisbon_aoife, D("2019-06-01"))
    assert t3.beliefs == {"B-phones": ["P-31"]}
    assert t3.supports("P-31") and not t3.supports("P-32") and not t3.supports("P-33")
    t4 = situated_state(lisbon_aoife, T4)
    assert t4.beliefs == {"B-phones": ["P-31", "P-32"]}  # the current stance is last; history kept
    assert t4.supports("P-32") and t4.supports("P-33")
    assert "P-31" not in t4.truths  # retracted by the transition event E09
    assert "P-31" in t4.ever_true
    assert situated_state(lisbon_aoife, D("2018-09-02")).beliefs == {}


# ---------------------------------------------------------------- profile S_τ


def test_ages_follow_the_birthday(lineages: dict[str, Lineage]) -> None:
    mara = lineages["L-1A"]  # born 1992-04-10
    assert profile_at(mara, D("2014-06-01")).age == 22
    assert profile_at(mara, T4).age == 30
    assert profile_at(mara, D("2022-04-09")).age == 29
    assert profile_at(mara, D("2022-04-10")).age == 30
    aoife = lineages["L-2B"]  # born 1981-02-14
    assert [profile_at(aoife, t).age for t in aoife.checkpoints] == [29, 32, 35, 38, 41]


def test_occupation_follows_its_dated_versions(lineages: dict[str, Lineage]) -> None:
    mara = lineages["L-1B"]
    assert [profile_at(mara, t).occupation for t in mara.checkpoints] == [
        "computer science student", "software engineer", "software engineer", "software engineer",
        "software engineer"]
    assert profile_at(mara, D("2014-06-30")).occupation == "computer science student"
    assert profile_at(mara, D("2014-07-01")).occupation == "software engineer"


def test_serialized_profile_is_the_hand_written_canonical_json(lineages: dict[str, Lineage]) -> None:
    expected = ('{"age":22,"alias":"Mara Quinn","education":"BS in Computer Science, Montana State University '
                '(2014)","hobbies":["bouldering","bicycle repair","trail running"],"hometown":"Bozeman, Montana",'
                '"occupation":"computer science student","traits":["precise","warm","stubborn"]}')
    profile = profile_at(lineages["L-1A"], D("2014-06-01"))
    assert serialize_profile(profile) == expected
    assert profile_sha256(profile) == hashlib.sha256(expected.encode("utf-8")).hexdigest()
    assert set(json.loads(expected)) == {"age", "alias", "education", "hobbies", "hometown", "occupation", "traits"}


@pytest.mark.parametrize(("a", "b"), [("L-1A", "L-1B"), ("L-2A", "L-2B")])
def test_pair_members_have_byte_identical_profiles_at_every_checkpoint(
        lineages: dict[str, Lineage], pilot_dir: PilotDir, a: str, b: str) -> None:
    la, lb = lineages[a], lineages[b]
    assert la.checkpoints == lb.checkpoints and len(la.checkpoints) == 5
    certified = {p.members: p.profile_sha256 for p in load_pairs(pilot_dir.root).values()}[(a, b)]
    for i, tau in enumerate(la.checkpoints):
        sa = serialize_profile(profile_at(la, tau)).encode("utf-8")
        sb = serialize_profile(profile_at(lb, tau)).encode("utf-8")
        assert sa == sb
        assert hashlib.sha256(sa).hexdigest() == certified[i]
    # ... while the private histories differ.
    assert [e.text for e in la.events] != [e.text for e in lb.events]


# ---------------------------------------------------------------- relationships and disclosure


def test_clearances(lineages: dict[str, Lineage]) -> None:
    robotics_mara = situated_state(lineages["L-1A"], T4)
    assert robotics_mara.clearance_of("jo") is Tier.CONFIDANT
    assert robotics_mara.clearance_of("priya") is Tier.COLLEAGUE
    assert robotics_mara.clearance_of("recruiter") is Tier.PUBLIC
    assert robotics_mara.clearance_of("someone-never-met") is Tier.PUBLIC
    assert situated_state(lineages["L-1A"], D("2014-06-01")).clearance_of("priya") is Tier.PUBLIC
    nairobi_aoife = lineages["L-2B"]  # partner Sam from 2016-02-01
    assert situated_state(nairobi_aoife, D("2013-06-01")).clearance_of("sam") is Tier.PUBLIC
    assert situated_state(nairobi_aoife, D("2016-06-01")).clearance_of("sam") is Tier.CONFIDANT


def test_disclosure_tiers_of_what_is_held(lineages: dict[str, Lineage]) -> None:
    state = situated_state(lineages["L-1A"], T4)
    assert state.tiers["P-25"] is Tier.CONFIDANT  # the startup plan, told only to Jo
    assert state.tiers["P-27"] is Tier.COLLEAGUE  # the 'Bluefin' nickname agreed with Priya
    assert state.tiers["P-08"] is Tier.PUBLIC
    assert Tier.CONFIDANT.covers(state.tiers["P-25"]) and not Tier.COLLEAGUE.covers(state.tiers["P-25"])


def test_memories_are_episodic_and_session_events_only(lineages: dict[str, Lineage]) -> None:
    state = situated_state(lineages["L-1A"], T4)
    # E06 (acquisition) and E09 (relationship) are not memories.
    assert [e.event_id for e in state.memories] == ["E01", "E02", "E03", "E04", "E05", "E07", "E08", "E10", "E11"]
    assert {e.kind for e in state.memories} == {EventKind.EPISODIC, EventKind.SESSION}


# ---------------------------------------------------------------- I_τ = F(H_≤τ)


def test_state_depends_only_on_the_projection(lineages: dict[str, Lineage]) -> None:
    for lin in lineages.values():
        previous: set[str] = set()
        for tau in lin.checkpoints:
            assert situated_state(lin, tau) == situated_state(project(lin, tau), tau)
            seen = {e.event_id for e in project(lin, tau).events}
            assert previous <= seen
            previous = seen


def test_negative_assertion_and_retraction(lineages: dict[str, Lineage]) -> None:
    mara = lineages["L-1A"]
    denial = Event(event_id="E90", t=D("2020-01-01"), kind=EventKind.EPISODIC, provenance=Provenance.EXPERIENCED,
                   asserts=[SignedProp(prop_id="P-09", polarity=False)], text="Has never lived in Paris.")
    moved = Event(event_id="E91", t=D("2020-02-01"), kind=EventKind.EPISODIC, provenance=Provenance.EXPERIENCED,
                  retracts=["P-02"], text="Gave up the Ballard apartment.")
    events = sorted([*mara.events, denial, moved], key=lambda e: e.t)
    edited = mara.model_copy(update={"events": events})
    state = situated_state(edited, T4)
    assert state.supports("P-09", False) and not state.supports("P-09")
    assert state.truths["P-09"] is False
    assert "P-02" not in state.truths and "P-02" in state.ever_true
    assert situated_state(edited, D("2019-12-31")).supports("P-02")


def test_lineages_round_trip_through_the_hidden_store(lineages: dict[str, Lineage], pilot_dir: PilotDir) -> None:
    hidden = load_hidden(pilot_dir.root)
    assert hidden.lineages == lineages
