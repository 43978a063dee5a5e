"""The reference pilot's four lives: two profile-collision pairs.

Pair 1 ("Mara Quinn"): two 30-year-old software engineers from Bozeman, Montana with the
same public resume. One built warehouse robots in Seattle and never went to Asia; the other
built cryptographic protocols in Zurich and lived in Kyoto for three years.

Pair 2 ("Aoife Byrne"): two 41-year-old chemistry teachers from Cork. One taught in Lisbon,
learned Portuguese and sailing, and changed her mind about phones in class; the other
volunteered at a clinic school in Nairobi, kept bees, and is quietly applying for a
deputy principal post.
"""

from __future__ import annotations

import datetime as dt

from sitbench.schema import (
    AcquisitionEdge,
    Belief,
    BeliefVersion,
    Event,
    EventKind,
    Invariants,
    Lineage,
    ProfileVersion,
    Provenance,
    Relationship,
    RelationshipVersion,
    SignedProp,
    Tier,
)

D = dt.date.fromisoformat

MARA = Invariants(
    alias="Mara Quinn",
    birth_date=D("1992-04-10"),
    hometown="Bozeman, Montana",
    education="BS in Computer Science, Montana State University (2014)",
    hobbies=["bouldering", "bicycle repair", "trail running"],
    traits=["precise", "warm", "stubborn"],
)
MARA_OCCUPATIONS = [ProfileVersion(t=D("2010-09-01"), occupation="computer science student"),
                    ProfileVersion(t=D("2014-07-01"), occupation="software engineer")]
MARA_CHECKPOINTS = [D("2014-06-01"), D("2016-09-01"), D("2018-06-01"), D("2020-09-01"), D("2022-06-01")]

AOIFE = Invariants(
    alias="Aoife Byrne",
    birth_date=D("1981-02-14"),
    hometown="Cork, Ireland",
    education="BSc Chemistry, University College Cork (2003); PGCE (2004)",
    hobbies=["sea swimming", "choral singing"],
    traits=["patient", "dry humour", "organised"],
)
AOIFE_OCCUPATIONS = [ProfileVersion(t=D("2004-09-01"), occupation="secondary-school chemistry teacher")]
AOIFE_CHECKPOINTS = [D("2010-06-01"), D("2013-06-01"), D("2016-06-01"), D("2019-06-01"), D("2022-06-01")]


def _e(eid: str, t: str, kind: EventKind, text: str, *, asserts: list[str] | None = None,
       denies: list[str] | None = None, retracts: list[str] | None = None,
       prov: Provenance = Provenance.EXPERIENCED, tier: Tier = Tier.PUBLIC,
       who: list[str] | None = None, place: str | None = None, source: str | None = None,
       session: str | None = None) -> Event:
    signed = [SignedProp(prop_id=p) for p in asserts or []]
    signed += [SignedProp(prop_id=p, polarity=False) for p in denies or []]
    return Event(event_id=eid, t=D(t), kind=kind, asserts=signed, retracts=retracts or [],
                 participants=who or [], place=place, provenance=prov, disclosure=tier,
                 source_event=source, session_id=session, text=text)


EP, AQ, REL, BEL, SK, SES = (EventKind.EPISODIC, EventKind.ACQUISITION, EventKind.RELATIONSHIP,
                             EventKind.BELIEF, EventKind.SKILL, EventKind.SESSION)


def _rel(iid: str, name: str, t: str, relation: str, clearance: Tier, shared: list[str] | None = None) -> Relationship:
    return Relationship(interlocutor_id=iid, name=name,
                        versions=[RelationshipVersion(t=D(t), relation=relation, clearance=clearance)],
                        shared_events=shared or [])


def mara_robotics() -> Lineage:
    """Mara A: robotics in Seattle; never in Asia."""
    events = [
        _e("E01", "1992-04-10", EP, "Born in Bozeman, Montana; grew up fixing bicycle chains in her father's barn.",
           asserts=["P-08"], place="Bozeman"),
        _e("E02", "2014-05-10", EP, "Graduated from Montana State University with a BS in Computer Science.",
           place="Bozeman"),
        _e("E03", "2014-07-14", EP, "Moved to Seattle, into a small apartment in Ballard.", asserts=["P-02"],
           place="Seattle"),
        _e("E04", "2014-07-21", EP, "Joined Cascadia Robotics as a software engineer on warehouse robot arms.",
           asserts=["P-13", "P-11"], place="Seattle"),
        _e("E05", "2015-02-02", EP, "Enrolled in an evening course on robot kinematics at the University of Washington.",
           place="Seattle"),
        _e("E06", "2015-05-20", AQ, "Finished the kinematics course; can now derive joint angles for a six-axis arm "
           "from a target pose (inverse kinematics).", asserts=["P-17"], prov=Provenance.COURSE, source="E05"),
        _e("E07", "2017-08-12", EP, "Drove up to Vancouver, Canada, for a long weekend of climbing in Squamish.",
           prov=Provenance.TRAVEL, place="Squamish"),
        _e("E08", "2019-03-05", EP, "Built a calibration fixture for the arm's force sensors with her colleague Priya.",
           who=["priya"], tier=Tier.COLLEAGUE, place="Seattle"),
        _e("E09", "2021-10-02", REL, "Told her sister Jo, and no one else, that she plans to leave Cascadia Robotics "
           "and start her own company building robots for small farms.", asserts=["P-25"], who=["jo"],
           tier=Tier.CONFIDANT, prov=Provenance.EXPERIENCED),
        _e("E10", "2022-02-15", SES, "In a chat before a demo, she and Priya agreed to call the new test rig 'Bluefin'.",
           asserts=["P-27"], who=["priya"], prov=Provenance.CONVERSATION, tier=Tier.COLLEAGUE, session="S1"),
        _e("E11", "2022-05-01", EP, "Led a bouldering trip to Leavenworth with friends from the climbing gym.",
           place="Leavenworth"),
    ]
    return Lineage(
        lineage_id="L-1A", subject="subj-7c2e", invariants=MARA, occupations=MARA_OCCUPATIONS,
        checkpoints=MARA_CHECKPOINTS, events=events,
        acquisitions=[AcquisitionEdge(prop_id="P-17", t=D("2015-05-20"), source_event="E05",
                                      provenance=Provenance.COURSE)],
        relationships=[_rel("jo", "Jo", "1995-06-01", "sister", Tier.CONFIDANT, ["E09"]),
                       _rel("priya", "Priya", "2016-03-01", "colleague", Tier.COLLEAGUE, ["E08", "E10"])],
    )


def mara_crypto() -> Lineage:
    """Mara B: cryptographic protocols in Zurich; three years in Kyoto."""
    events = [
        _e("E01", "1992-04-10", EP, "Born in Bozeman, Montana; spent childhood summers in her father's workshop.",
           asserts=["P-08"], place="Bozeman"),
        _e("E02", "2014-05-10", EP, "Graduated from Montana State University with a BS in Computer Science.",
           place="Bozeman"),
        _e("E03", "2014-09-01", EP, "Moved to Zurich for a job offer.", asserts=["P-03"], place="Zurich"),
        _e("E04", "2014-09-08", EP, "Joined Helvetic Cipher Labs, designing cryptographic protocols for payment terminals.",
           asserts=["P-14", "P-12"], place="Zurich"),
        _e("E05", "2016-04-01", EP, "Moved to Kyoto for a three-year research posting with a partner lab; rented a "
           "room near the Kamo River.", asserts=["P-01"], prov=Provenance.TRAVEL, place="Kyoto"),
        _e("E06", "2016-05-10", EP, "Started evening Japanese classes at a language school in Kyoto.", place="Kyoto"),
        _e("E07", "2017-03-20", AQ, "Passed the JLPT N3 exam in Japanese.", asserts=["P-34"], prov=Provenance.COURSE,
           source="E06", place="Kyoto"),
        _e("E08", "2019-04-15", EP, "Moved back to Zurich when the Kyoto posting ended.", place="Zurich"),
        _e("E09", "2021-01-11", EP, "Enrolled in an online course on post-quantum cryptography.", place="Zurich"),
        _e("E10", "2021-03-15", AQ, "Completed the course module on lattice-based signature schemes and why their "
           "hardness assumptions survive quantum attacks.", asserts=["P-16"], prov=Provenance.COURSE, source="E09"),
        _e("E11", "2022-02-15", SES, "In a chat before a demo, she and Priya agreed to call the new test rig 'Kestrel'.",
           asserts=["P-28"], who=["priya"], prov=Provenance.CONVERSATION, tier=Tier.COLLEAGUE, session="S1"),
        _e("E12", "2022-04-09", EP, "Spent a weekend climbing in the Jura with her sister Jo.", who=["jo"], place="Jura"),
    ]
    return Lineage(
        lineage_id="L-1B", subject="subj-41d9", invariants=MARA, occupations=MARA_OCCUPATIONS,
        checkpoints=MARA_CHECKPOINTS, events=events,
        acquisitions=[AcquisitionEdge(prop_id="P-34", t=D("2017-03-20"), source_event="E06", provenance=Provenance.COURSE),
                      AcquisitionEdge(prop_id="P-16", t=D("2021-03-15"), source_event="E09", provenance=Provenance.COURSE)],
        relationships=[_rel("jo", "Jo", "1995-06-01", "sister", Tier.CONFIDANT, ["E12"]),
                       _rel("priya", "Priya", "2016-03-01", "colleague", Tier.COLLEAGUE, ["E11"])],
    )


def aoife_lisbon() -> Lineage:
    """Aoife A: two years teaching in Lisbon; changed her mind about phones in class."""
    events = [
        _e("E01", "1981-02-14", EP, "Born in Cork and grew up near the harbour.", asserts=["P-10"], place="Cork"),
        _e("E02", "2004-09-01", EP, "Started teaching chemistry at St. Finbarr's College, Cork.", place="Cork"),
        _e("E03", "2012-01-09", EP, "Moved to Lisbon to teach chemistry at an international school.", asserts=["P-04"],
           place="Lisbon"),
        _e("E04", "2012-02-06", EP, "Enrolled in evening Portuguese classes in Lisbon.", place="Lisbon"),
        _e("E05", "2012-11-30", AQ, "Passed the A2 Portuguese language exam.", asserts=["P-19"], prov=Provenance.COURSE,
           source="E04", place="Lisbon"),
        _e("E06", "2013-07-20", SK, "Earned a dinghy sailing certificate after a summer course on the Tagus.",
           asserts=["P-22"], prov=Provenance.TRAINING, place="Lisbon"),
        _e("E07", "2014-07-01", EP, "Moved back to Cork and returned to St. Finbarr's.", place="Cork"),
        _e("E08", "2018-09-03", BEL, "Introduced a strict rule: phones should be banned from her classroom.",
           asserts=["P-31"], place="Cork"),
        _e("E09", "2022-01-10", BEL, "After a term using phones as data loggers in labs, changed her mind: phones "
           "are allowed in her classroom for structured tasks.", asserts=["P-32", "P-33"], retracts=["P-31"],
           source="E08", place="Cork"),
        _e("E10", "2022-03-08", SES, "In a planning chat, she and her colleague Declan agreed to call the Year 5 "
           "field-trip project 'Periwinkle'.", asserts=["P-29"], who=["declan"], prov=Provenance.CONVERSATION,
           tier=Tier.COLLEAGUE, session="S1"),
    ]
    return Lineage(
        lineage_id="L-2A", subject="subj-b803", invariants=AOIFE, occupations=AOIFE_OCCUPATIONS,
        checkpoints=AOIFE_CHECKPOINTS, events=events,
        acquisitions=[AcquisitionEdge(prop_id="P-19", t=D("2012-11-30"), source_event="E04", provenance=Provenance.COURSE),
                      AcquisitionEdge(prop_id="P-22", t=D("2013-07-20"), source_event="E06",
                                      provenance=Provenance.TRAINING)],
        relationships=[_rel("declan", "Declan", "2015-09-01", "colleague", Tier.COLLEAGUE, ["E10"]),
                       _rel("niamh", "Niamh", "1984-05-02", "sister", Tier.CONFIDANT)],
        beliefs=[Belief(belief_id="B-phones", topic="phones in the classroom",
                        versions=[BeliefVersion(t=D("2018-09-03"), prop_id="P-31", event_id="E08"),
                                  BeliefVersion(t=D("2022-01-10"), prop_id="P-32", event_id="E09")],
                        change_prop_id="P-33")],
    )


def aoife_nairobi() -> Lineage:
    """Aoife B: two years at a clinic school in Nairobi; bees, Swahili, a private application."""
    events = [
        _e("E01", "1981-02-14", EP, "Born in Cork and grew up near the harbour.", asserts=["P-10"], place="Cork"),
        _e("E02", "2004-09-01", EP, "Started teaching chemistry at St. Finbarr's College, Cork.", place="Cork"),
        _e("E03", "2012-01-09", EP, "Moved to Nairobi to run science lessons at a clinic's school.", asserts=["P-05"],
           place="Nairobi"),
        _e("E04", "2012-06-15", EP, "Began helping the clinic's groundskeeper with the school's beehives.",
           place="Nairobi"),
        _e("E05", "2013-04-02", AQ, "Learned to keep bees: can tell a queenless hive by its anxious roar and the "
           "missing eggs.", asserts=["P-20"], prov=Provenance.PRACTICE, source="E04", place="Nairobi"),
        _e("E06", "2014-05-20", AQ, "Picked up conversational Swahili from colleagues at the clinic.",
           asserts=["P-21"], prov=Provenance.CONVERSATION, source="E03", place="Nairobi"),
        _e("E07", "2014-07-01", EP, "Moved back to Cork and returned to St. Finbarr's.", place="Cork"),
        _e("E08", "2021-11-12", REL, "Told her partner Sam, and no one else, that she has applied for the deputy "
           "principal post.", asserts=["P-26"], who=["sam"], tier=Tier.CONFIDANT),
        _e("E09", "2022-03-08", SES, "In a planning chat, she and her colleague Declan agreed to call the Year 5 "
           "field-trip project 'Saltmarsh'.", asserts=["P-30"], who=["declan"], prov=Provenance.CONVERSATION,
           tier=Tier.COLLEAGUE, session="S1"),
    ]
    return Lineage(
        lineage_id="L-2B", subject="subj-e5a4", invariants=AOIFE, occupations=AOIFE_OCCUPATIONS,
        checkpoints=AOIFE_CHECKPOINTS, events=events,
        acquisitions=[AcquisitionEdge(prop_id="P-20", t=D("2013-04-02"), source_event="E04",
                                      provenance=Provenance.PRACTICE),
                      AcquisitionEdge(prop_id="P-21", t=D("2014-05-20"), source_event="E03",
                                      provenance=Provenance.CONVERSATION)],
        relationships=[_rel("declan", "Declan", "2015-09-01", "colleague", Tier.COLLEAGUE, ["E09"]),
                       _rel("sam", "Sam", "2016-02-01", "partner", Tier.CONFIDANT, ["E08"])],
    )


def pilot_lineages() -> list[Lineage]:
    """The four pilot lineages, pair by pair."""
    return [mara_robotics(), mara_crypto(), aoife_lisbon(), aoife_nairobi()]
