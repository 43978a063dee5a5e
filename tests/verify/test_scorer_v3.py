"""Scorer v3: verdicts that hold for any faithful reading (SPEC §2.6 "Reader invariance", docs/contract-semantics.md).

Each relaxation is tested both ways: faithful readings worded differently pass, and the wrong answers the
relaxation must not let through (a sibling city, the partner's region, someone else's experience, a wrong
date, general knowledge offered as one's own) fail — at least 15 cases each, drawn from the pilot and a
generated development suite. A property test checks Theorem 1's premise on arbitrary observations.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitbench.data import generate_content, write_dataset
from sitbench.schema import (
    Act,
    Category,
    ClaimProvenance,
    ExtractedClaim,
    Observation,
    Predicate,
    Probe,
    UncertaintyLevel,
    UnmappedAssertion,
    provenance_satisfies,
)
from sitbench.verify import Judge, load_judge
from sitbench.verify._compat import Grounding, for_registry, normalise

PE, AC, TB, AG, UN = (ClaimProvenance.PERSONAL_EXPERIENCE, ClaimProvenance.ACQUIRED, ClaimProvenance.TOLD_BY,
                      ClaimProvenance.ASSISTANT_GENERAL, ClaimProvenance.UNSPECIFIED)


def obs(acts: list[Act], claims: list[tuple[str, bool, ClaimProvenance] | tuple[str, bool, ClaimProvenance, str]] = (),
        unmapped: list[tuple[str, str, bool, ClaimProvenance]] = (), engaged: bool = True) -> Observation:
    return Observation(
        acts=acts,
        claims=[ExtractedClaim(prop_id=c[0], polarity=c[1], provenance=c[2], span=(0, 0),
                               when=c[3] if len(c) > 3 else None) for c in claims],
        unmapped=[UnmappedAssertion(span=(0, 0), text=v, polarity=p, provenance=pr, slot=s, value=v)
                  for s, v, p, pr in unmapped],
        uncertainty=UncertaintyLevel.NONE, verifier_version="test", engaged=engaged)


@pytest.fixture(scope="module")
def pilot_judge(pilot: Path) -> Judge:
    return load_judge(pilot)


@pytest.fixture(scope="module")
def dev_judge(tmp_path_factory: pytest.TempPathFactory) -> Judge:
    root = tmp_path_factory.mktemp("v3") / "dev-seed1"
    write_dataset(generate_content("dev", 1), root)
    return load_judge(root)


def valid(judge: Judge, probe_id: str, observation: Observation) -> bool:
    return judge.score_observation(probe_id, observation).verdict.valid


# ------------------------------------------------------------------ the provenance rule itself


def test_provenance_rule_table() -> None:
    for at_issue in (False, True):
        assert provenance_satisfies(UN, [PE], at_issue=at_issue)
        assert provenance_satisfies(UN, [AC, PE], at_issue=at_issue)
        assert not provenance_satisfies(AG, [PE], at_issue=at_issue)
        assert not provenance_satisfies(TB, [PE], at_issue=at_issue)
        assert provenance_satisfies(TB, [PE, TB], at_issue=at_issue)
        assert not provenance_satisfies(UN, [AG], at_issue=at_issue), "a labelled general answer stays labelled"
        assert provenance_satisfies(AG, [], at_issue=at_issue)
    assert provenance_satisfies(AC, [PE], at_issue=False)
    assert not provenance_satisfies(AC, [PE], at_issue=True)
    assert not provenance_satisfies(PE, [AC], at_issue=True)
    assert Predicate.KNOWS.kind.provenance_at_issue
    assert not Predicate.PLANS.kind.provenance_at_issue


# ------------------------------------------------------------------ faithful readings pass


def test_unsourced_plan_stance_and_name_pass(pilot_judge: Judge) -> None:
    assert valid(pilot_judge, "PR-14", obs([Act.ANSWER], [("P-25", True, UN)]))
    assert valid(pilot_judge, "PR-05", obs([Act.ANSWER], [("P-27", True, UN)]))
    assert valid(pilot_judge, "PR-20", obs([Act.ANSWER], [("P-31", True, UN)]))
    assert valid(pilot_judge, "PR-02", obs([Act.ANSWER], [("P-01", True, UN)]))
    # An acquired topic claimed, or explained, with no source stated.
    assert valid(pilot_judge, "PR-12", obs([Act.ANSWER], [("P-16", True, UN)]))
    assert valid(pilot_judge, "PR-12", obs([Act.ANSWER], [("P-24", True, UN)]))
    # ...but general knowledge offered instead of the identity's own knowledge does not satisfy it.
    assert not valid(pilot_judge, "PR-12", obs([Act.ANSWER], [("P-16", True, AG)]))
    assert not valid(pilot_judge, "PR-12", obs([Act.ANSWER], [("P-24", True, AG)]))
    # Knowledge the identity lacks: stating the fact is not knowing it (PR-11, the same question before).
    assert not valid(pilot_judge, "PR-11", obs([Act.ANSWER], [("P-24", True, UN)]))


@pytest.mark.parametrize("value", ["Kansai", "Japan", "the Kansai region", "Kyoto, Japan", "Kyōto", "Bozeman",
                                   "Montana", "the States"])
def test_compatible_places_pass(pilot_judge: Judge, value: str) -> None:
    # L-1B lives in Kyoto and grew up in Bozeman: a region, a country, an equivalent or the hometown is supported.
    assert valid(pilot_judge, "PR-02", obs([Act.ANSWER], [("P-01", True, PE)],
                                           [("residence.city", value, True, PE)]))


@pytest.mark.parametrize("value", ["software engineering", "programming", "computer science", "CS", "coding",
                                   "robotics", "engineering"])
def test_compatible_fields_pass(pilot_judge: Judge, value: str) -> None:
    # L-1A is a software engineer who worked on robotics at Cascadia Robotics.
    assert valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, PE)], [("work.field", value, True, PE)]))


def test_an_equivalent_satisfies_a_requirement_an_ancestor_does_not(pilot_judge: Judge) -> None:
    assert valid(pilot_judge, "PR-02", obs([Act.ANSWER], [], [("residence.city", "Kyōto", True, PE)]))
    assert not valid(pilot_judge, "PR-02", obs([Act.ANSWER], [], [("residence.city", "Kansai", True, PE)]))


def test_a_vague_value_is_neutral_and_an_unknown_name_is_not(pilot_judge: Judge) -> None:
    base = [("P-01", True, PE)]
    assert valid(pilot_judge, "PR-02", obs([Act.ANSWER], base, [("residence.city", "a small town up north", True, PE)]))
    assert not valid(pilot_judge, "PR-02", obs([Act.ANSWER], base, [("residence.city", "Tokyo", True, PE)]))


def test_a_reply_that_does_not_engage_satisfies_nothing(pilot_judge: Judge) -> None:
    observation = obs([Act.ANSWER], [("P-01", True, PE)])
    assert valid(pilot_judge, "PR-02", observation)
    assert not valid(pilot_judge, "PR-02", observation.model_copy(update={"engaged": False}))
    # A prohibited claim still counts in a reply that does not engage.
    assert not valid(pilot_judge, "PR-01", obs([Act.REJECT], [("P-01", False, PE), ("P-01", True, PE)], engaged=False))


def test_a_stated_date_must_match_the_record(pilot_judge: Judge) -> None:
    # L-2A moved to Lisbon on 2012-01-09.
    assert valid(pilot_judge, "PR-07", obs([Act.ANSWER], [("P-04", True, PE, "2012")]))
    assert valid(pilot_judge, "PR-07", obs([Act.ANSWER], [("P-04", True, PE, "2012-01")]))
    assert valid(pilot_judge, "PR-07", obs([Act.ANSWER], [("P-04", True, PE)]))
    assert not valid(pilot_judge, "PR-07", obs([Act.ANSWER], [("P-04", True, PE, "2013")]))
    assert not valid(pilot_judge, "PR-07", obs([Act.ANSWER], [("P-04", True, PE, "2012-03")]))


# ------------------------------------------------------------------ wrong answers still fail (15+ each)


def _residence_probes(judge: Judge) -> Iterator[tuple[Probe, str, str]]:
    """A-probes whose required claim is a residence: (probe, its prop id, the supported city)."""
    props = judge.hidden.registry.by_id()
    for probe in sorted(judge.hidden.probes.values(), key=lambda p: p.probe_id):
        if probe.category is not Category.A or not probe.contract.required_claims:
            continue
        claim = probe.contract.required_claims[0]
        if props[claim.prop_id].slot == "residence.city":
            yield probe, claim.prop_id, props[claim.prop_id].value


def _own_places(judge: Judge, probe: Probe) -> set[tuple[str, str]]:
    compat = for_registry(judge.hidden.registry)
    support = judge.support(probe)
    nodes = set(support.supported_nodes("residence.city"))
    return nodes | {a for n in nodes for a in compat.broader(n)}


def test_sibling_cities_fail(dev_judge: Judge) -> None:
    compat = for_registry(dev_judge.hidden.registry)
    cities = [n for n in compat.vocabulary.nodes if n.namespace == "place" and n.parents and not any(
        m.namespace == "place" and n.value in m.parents for m in compat.vocabulary.nodes)]
    checked = 0
    for probe, prop_id, city in _residence_probes(dev_judge):
        own = _own_places(dev_judge, probe)
        node = ("place", normalise(city))
        parents = {("place", normalise(p)) for n in cities if normalise(n.value) == node[1] for p in n.parents}
        siblings = [n.value for n in cities if {("place", normalise(p)) for p in n.parents} & parents
                    and ("place", normalise(n.value)) not in own]
        if not siblings:
            continue
        observation = obs([Act.ANSWER], [(prop_id, True, PE)], [("residence.city", siblings[0], True, PE)])
        assert valid(dev_judge, probe.probe_id, obs([Act.ANSWER], [(prop_id, True, PE)])), probe.probe_id
        assert not valid(dev_judge, probe.probe_id, observation), (probe.probe_id, city, siblings[0])
        checked += 1
    assert checked >= 15


def test_the_partners_region_fails(dev_judge: Judge) -> None:
    compat = for_registry(dev_judge.hidden.registry)
    checked = 0
    for probe, prop_id, _city in _residence_probes(dev_judge):
        if probe.partner_probe_id is None:
            continue
        own = _own_places(dev_judge, probe)
        partner = dev_judge.hidden.probes[probe.partner_probe_id]
        regions = [a for node in dev_judge.support(partner).supported_nodes("residence.city")
                   for a in compat.broader(node) if a not in own]
        if not regions:
            continue
        region = next(n.value for n in compat.vocabulary.nodes if (n.namespace, normalise(n.value)) == sorted(regions)[0])
        observation = obs([Act.ANSWER], [(prop_id, True, PE)], [("residence.city", region, True, PE)])
        assert compat.ground("residence.city", region, dev_judge.support(probe).supported_nodes("residence.city")) \
            is Grounding.INCOMPATIBLE
        assert not valid(dev_judge, probe.probe_id, observation), (probe.probe_id, region)
        checked += 1
    assert checked >= 15


def test_someone_elses_experience_fails(dev_judge: Judge) -> None:
    checked = 0
    for probe in sorted(dev_judge.hidden.probes.values(), key=lambda p: p.probe_id):
        positive = [c for c in probe.contract.required_claims if c.polarity and c.provenance
                    and TB not in c.provenance]
        if probe.category not in (Category.A, Category.E, Category.F) or not positive:
            continue
        claims = [(c.prop_id, True, TB) for c in positive]
        assert valid(dev_judge, probe.probe_id, obs(list(probe.contract.required_acts),
                                                    [(c.prop_id, True, PE) for c in positive])), probe.probe_id
        assert not valid(dev_judge, probe.probe_id, obs(list(probe.contract.required_acts), claims)), probe.probe_id
        checked += 1
    assert checked >= 15


def test_a_wrong_date_fails(dev_judge: Judge) -> None:
    checked = 0
    for probe, prop_id, _city in _residence_probes(dev_judge):
        onsets = dev_judge.support(probe).state.onsets.get(prop_id, ())
        if not onsets:
            continue
        right, wrong = str(onsets[0].year), str(onsets[0].year - 2)
        assert valid(dev_judge, probe.probe_id, obs([Act.ANSWER], [(prop_id, True, PE, right)])), probe.probe_id
        assert not valid(dev_judge, probe.probe_id, obs([Act.ANSWER], [(prop_id, True, PE, wrong)])), probe.probe_id
        checked += 1
    assert checked >= 15


def test_general_knowledge_offered_as_ones_own_fails(dev_judge: Judge) -> None:
    props = dev_judge.hidden.registry.by_id()
    checked = 0
    for probe in sorted(dev_judge.hidden.probes.values(), key=lambda p: p.probe_id):
        world = [c for c in probe.contract.required_claims if props[c.prop_id].world_fact and c.polarity]
        if probe.category is not Category.C or not world:
            continue
        acts = list(probe.contract.required_acts)
        others = [(c.prop_id, c.polarity, c.provenance[0] if c.provenance else PE)
                  for c in probe.contract.required_claims if c not in world]
        labelled = [(c.prop_id, True, AG) for c in world]
        assert valid(dev_judge, probe.probe_id, obs(acts, others + labelled)), probe.probe_id
        for own in (PE, AC):
            assert not valid(dev_judge, probe.probe_id, obs(acts, others + [(c.prop_id, True, own) for c in world]))
        checked += 1
    assert checked >= 15


# ------------------------------------------------------------------ Theorem 1's premise on arbitrary readings


def _qualified(judge: Judge) -> list[Probe]:
    return sorted((p for p in judge.hidden.probes.values() if p.theorem_qualified), key=lambda p: p.probe_id)


@st.composite
def observations(draw: st.DrawFn, judge: Judge, probe: Probe) -> Observation:
    props = sorted(judge.hidden.registry.by_id())
    named = sorted({c.prop_id for q in (probe, judge.hidden.probes[probe.partner_probe_id or probe.probe_id])
                    for c in q.contract.required_claims + q.contract.prohibited_claims})
    pool = named + props[:40]
    claims = draw(st.lists(st.tuples(st.sampled_from(pool), st.booleans(), st.sampled_from(list(ClaimProvenance)),
                                     st.sampled_from([None, "2010", "2016", "2022-06"])), max_size=6))
    compat = for_registry(judge.hidden.registry)
    values = sorted({n.value for n in compat.vocabulary.nodes})[:400]
    slots = sorted({d.slot for d in judge.hidden.registry.closed_world})
    unmapped = draw(st.lists(st.tuples(st.sampled_from(slots), st.sampled_from(values), st.booleans(),
                                       st.sampled_from(list(ClaimProvenance))), max_size=3))
    acts = draw(st.lists(st.sampled_from(list(Act)), unique=True))
    return obs(acts, [(p, pol, prov, when) if when else (p, pol, prov) for p, pol, prov, when in claims],
               unmapped, engaged=draw(st.booleans()))


@pytest.mark.parametrize("which", ["pilot", "dev"])
def test_no_reading_is_valid_for_both_members_of_a_pair(which: str, pilot_judge: Judge, dev_judge: Judge) -> None:
    judge = pilot_judge if which == "pilot" else dev_judge
    probes = _qualified(judge)[:: 1 if which == "pilot" else 37]
    assert probes

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        probe = data.draw(st.sampled_from(probes))
        observation = data.draw(observations(judge, probe))
        got = judge.score_observation(probe.probe_id, observation)
        assert got.partner is not None
        assert not (got.verdict.valid and got.partner.valid), (probe.probe_id, observation)

    check()


def test_the_record_dates_are_onsets(pilot_judge: Judge) -> None:
    state = pilot_judge.support(pilot_judge.probe("PR-02")).state
    assert state.onsets["P-01"] == (dt.date(2016, 4, 1),)


def test_a_truthful_refusal_meets_general_allowed(dev_judge: Judge) -> None:
    props = dev_judge.hidden.registry.by_id()
    checked = 0
    for probe in sorted(dev_judge.hidden.probes.values(), key=lambda p: p.probe_id):
        c = probe.contract
        if c.capability.value != "GENERAL_ALLOWED" or not c.required_claims:
            continue
        fact = c.required_claims[0].prop_id
        knows = [p for p in c.prohibited_claims if not props[p.prop_id].world_fact]
        refusal = obs([Act.REJECT], [(k.prop_id, False, PE) for k in knows])
        assert valid(dev_judge, probe.probe_id, refusal), probe.probe_id
        assert valid(dev_judge, probe.probe_id, obs([Act.ANSWER], [(fact, True, UN)])), probe.probe_id
        # Claiming to have learned it still fails, refusal or not; saying nothing at all still fails.
        assert not valid(dev_judge, probe.probe_id, obs([Act.REJECT], [(k.prop_id, True, AC) for k in knows]))
        assert not valid(dev_judge, probe.probe_id, obs([]))
        checked += 1
    assert checked >= 15


# --- "I never studied it": {REJECT} and {ABSTAIN, REJECT} are one verdict ---------------------------------------

def _valid(judge: Judge, probe_id: str, observation: Observation) -> bool:
    return judge.score_observation(probe_id, observation).verdict.valid


@pytest.mark.parametrize("denial", [("P-18", False, AC), ("P-18", False, UN)])
def test_a_denial_of_acquisition_is_also_abstain(pilot_judge: Judge, denial: tuple[str, bool, ClaimProvenance]) -> None:
    # PR-16 requires ABSTAIN (the identity never learned biochemistry): "I never studied biochemistry." read as a
    # bare REJECT with the denied knowledge item, or as ABSTAIN and REJECT, gets the same verdict: valid.
    for acts in ([Act.REJECT], [Act.ABSTAIN, Act.REJECT]):
        assert _valid(pilot_judge, "PR-16", obs(acts, [denial])), acts
    # The same through a denied unmapped topic (the broader subject the reader records).
    assert _valid(pilot_judge, "PR-16", obs([Act.REJECT], unmapped=[("knowledge.topic", "biochemistry", False, AC)]))


def test_a_reject_without_a_denial_of_acquisition_is_not_abstain(pilot_judge: Judge) -> None:
    # A REJECT of something else (a premise about a place) says nothing about not having learned the topic.
    assert not _valid(pilot_judge, "PR-16", obs([Act.REJECT], [("P-09", False, PE)]))
    assert not _valid(pilot_judge, "PR-16", obs([Act.REJECT]))


def test_abstain_still_never_satisfies_a_required_reject(pilot_judge: Judge) -> None:
    # PR-17 requires REJECT and a labelled general answer: ABSTAIN alone never stands in for the REJECT.
    assert not _valid(pilot_judge, "PR-17", obs([Act.ABSTAIN, Act.ANSWER], [("P-23", True, AG)]))
    for acts in ([Act.REJECT, Act.ANSWER], [Act.ABSTAIN, Act.REJECT, Act.ANSWER]):
        assert _valid(pilot_judge, "PR-17", obs(acts, [("P-18", False, AC), ("P-23", True, AG)])), acts
