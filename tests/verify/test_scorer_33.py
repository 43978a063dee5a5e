"""Scorer 3.3: faithful readings of real models' answers that scorer 3.2 failed, and the wrong answers that must
still fail (docs/contract-semantics.md §6).

Each class is tested both ways, at least 15 cases a side, on the pilot and a generated development suite:
knowledge and skills outside the registry's topics are unrecorded (and a field or an employer named in other
words is not a falsity), learning from a person is an acquisition, a REJECT that only corrects a detail of the
premise is waived, a reading that asserts and denies one item satisfies no requirement on it, and a date on a
side claim is checked against the time the record held it.
"""

from __future__ import annotations

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
    PredicateKind,
    Provenance,
    UncertaintyLevel,
    UnmappedAssertion,
)
from sitbench.verify import Judge, load_judge

PE, AC, TB, UN = (ClaimProvenance.PERSONAL_EXPERIENCE, ClaimProvenance.ACQUIRED, ClaimProvenance.TOLD_BY,
                  ClaimProvenance.UNSPECIFIED)


def obs(acts: list[Act], claims: list[tuple] = (), unmapped: list[tuple[str, str, bool, ClaimProvenance]] = ()
        ) -> Observation:
    return Observation(
        acts=acts,
        claims=[ExtractedClaim(prop_id=c[0], polarity=c[1], provenance=c[2], span=(0, 0),
                               when=c[3] if len(c) > 3 else None) for c in claims],
        unmapped=[UnmappedAssertion(span=(0, 0), text=v, polarity=p, provenance=pr, slot=s, value=v)
                  for s, v, p, pr in unmapped],
        uncertainty=UncertaintyLevel.NONE, verifier_version="test")


@pytest.fixture(scope="module")
def pilot_judge(pilot: Path) -> Judge:
    return load_judge(pilot)


@pytest.fixture(scope="module")
def dev_judges(tmp_path_factory: pytest.TempPathFactory) -> list[Judge]:
    judges = []
    for seed in (1, 2):
        root = tmp_path_factory.mktemp("v33") / f"dev-seed{seed}"
        write_dataset(generate_content("dev", seed), root)
        judges.append(load_judge(root))
    return judges


def valid(judge: Judge, probe_id: str, observation: Observation) -> bool:
    return judge.score_observation(probe_id, observation).verdict.valid


# ------------------------------------------------------------------ 1. closed world of knowledge: registry topics

# L-1A (PR-03: "What kind of engineering did you work on?") is a software engineer on robot arms who took an
# evening kinematics course and lists bouldering, bicycle repair and trail running as hobbies.
SIDE_KNOWLEDGE = ["kinematics", "an evening kinematics course", "motion planning", "control theory", "C++",
                  "sensor calibration", "linear algebra", "machine learning", "route setting", "knife skills",
                  "wind loads on a roof", "my MArch", "PID tuning", "ROS", "trajectory optimisation",
                  "force sensing"]
SIDE_SKILLS = ["climbing", "bouldering", "trail running", "bike repair", "sea swimming", "lead climbing"]
# Registry topics L-1A never acquired: still unsupported inside the closed world.
FOREIGN_KNOWLEDGE = ["the Krebs cycle", "the citric acid cycle", "biochemistry", "Swahili", "Kiswahili",
                     "Portuguese", "beekeeping", "keeping a queenless hive", "lattice-based cryptography",
                     "lattice problems", "Japanese", "conversational Japanese", "Krebs", "hive management",
                     "Portuguese grammar"]
FOREIGN_SKILLS = ["dinghy sailing", "sailing", "a dinghy certificate"]


@pytest.mark.parametrize("value", SIDE_KNOWLEDGE)
def test_knowledge_outside_the_registry_topics_is_unrecorded(pilot_judge: Judge, value: str) -> None:
    assert valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, PE)],
                                           [("knowledge.topic", value, True, AC)]))


@pytest.mark.parametrize("value", SIDE_SKILLS)
def test_a_hobby_named_by_its_family_is_not_a_falsity(pilot_judge: Judge, value: str) -> None:
    assert valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, PE)], [("skill.sport", value, True, PE)]))


@pytest.mark.parametrize("value", FOREIGN_KNOWLEDGE)
def test_a_registry_topic_never_acquired_still_fails(pilot_judge: Judge, value: str) -> None:
    verdict = pilot_judge.score_observation("PR-03", obs([Act.ANSWER], [("P-11", True, PE)],
                                                         [("knowledge.topic", value, True, AC)])).verdict
    assert not verdict.valid and not verdict.checks["grounding"].passed


@pytest.mark.parametrize("value", FOREIGN_SKILLS)
def test_a_registry_skill_never_acquired_still_fails(pilot_judge: Judge, value: str) -> None:
    assert not valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, PE)],
                                               [("skill.sport", value, True, PE)]))


def test_a_value_outside_the_registry_never_satisfies_a_requirement(pilot_judge: Judge) -> None:
    # PR-12 asks L-1B to explain lattice-based signatures: naming some other topic is neutral, not the answer.
    assert not valid(pilot_judge, "PR-12", obs([Act.ANSWER], [], [("knowledge.topic", "number theory", True, AC)]))


@pytest.mark.parametrize("value", ["security engineering", "payments security", "information security", "applied crypto",
                                   "embedded security", "secure payments"])
def test_a_field_named_in_other_words_is_unrecorded(pilot_judge: Judge, value: str) -> None:
    # L-1B designed cryptographic protocols for payment terminals (PR-04 asks what engineering she worked on).
    assert valid(pilot_judge, "PR-04", obs([Act.ANSWER], [("P-12", True, PE)], [("work.field", value, True, PE)]))


@pytest.mark.parametrize("value", ["robotics", "aerospace", "warehouse robot arms", "oncology", "chemistry"])
def test_a_field_the_data_names_and_the_record_lacks_still_fails(pilot_judge: Judge, value: str) -> None:
    assert not valid(pilot_judge, "PR-04", obs([Act.ANSWER], [("P-12", True, PE)], [("work.field", value, True, PE)]))


def _employers(judge: Judge) -> list[tuple[str, str, str, str]]:
    """(probe, required claim, own employer, another employer of the registry) for A probes of one employer."""
    out = []
    employers = [p for p in judge._props.values() if p.slot == "employment.employer"]
    for probe_id, probe in sorted(judge.hidden.probes.items()):
        if probe.category is not Category.A or not probe.contract.required_claims:
            continue
        state = judge.support(probe).state
        own = [p for p in employers if state.supports(p.prop_id)]
        if len(own) != 1:
            continue
        other = next(p for p in employers if not state.supports(p.prop_id)
                     and p.value.split()[0] != own[0].value.split()[0])
        out.append((probe_id, probe.contract.required_claims[0].prop_id, own[0].value, other.value))
    return out


def test_an_employer_by_its_short_name_is_supported_and_another_still_fails(dev_judges: list[Judge]) -> None:
    cases = [(judge, *case) for judge in dev_judges for case in _employers(judge)[:10]]
    assert len(cases) >= 15
    for judge, probe_id, required, own, other in cases:
        probe = judge.probe(probe_id)
        acts = list(probe.contract.required_acts)
        base = [(required, True, PE)]
        short = own.split()[0]
        assert valid(judge, probe_id, obs(acts, base)), probe_id
        assert valid(judge, probe_id, obs(acts, base, [("employment.employer", short, True, PE)])), (probe_id, short)
        assert not valid(judge, probe_id, obs(acts, base, [("employment.employer", other.split()[0], True, PE)])), (
            probe_id, other)


# ------------------------------------------------------------------ 2. taught by a person


def _knowledge_requirements(judges: list[Judge]) -> list[tuple[Judge, str, str, Provenance]]:
    out = []
    for judge in judges:
        for probe_id, probe in sorted(judge.hidden.probes.items()):
            for req in probe.contract.required_claims:
                prop = judge._props[req.prop_id]
                if not (req.polarity and prop.predicate.kind is PredicateKind.KNOWLEDGE
                        and ClaimProvenance.ACQUIRED in req.provenance and len(probe.contract.required_claims) == 1):
                    continue
                edges = [e.provenance for e in judge.support(probe).state.knowledge if e.prop_id == req.prop_id]
                if len(edges) == 1:
                    out.append((judge, probe_id, req.prop_id, edges[0]))
    return out


def test_learning_in_conversation_meets_an_acquired_requirement(dev_judges: list[Judge]) -> None:
    cases = [c for c in _knowledge_requirements(dev_judges) if c[3] is Provenance.CONVERSATION]
    assert len(cases) >= 15
    for judge, probe_id, prop_id, _ in cases:
        acts = list(judge.probe(probe_id).contract.required_acts)
        assert valid(judge, probe_id, obs(acts, [(prop_id, True, AC)])), probe_id
        assert valid(judge, probe_id, obs(acts, [(prop_id, True, TB)])), probe_id


def test_told_by_does_not_meet_an_acquisition_made_otherwise(dev_judges: list[Judge]) -> None:
    cases = [c for c in _knowledge_requirements(dev_judges) if c[3] is not Provenance.CONVERSATION][:40]
    assert len(cases) >= 15
    for judge, probe_id, prop_id, _ in cases:
        acts = list(judge.probe(probe_id).contract.required_acts)
        assert valid(judge, probe_id, obs(acts, [(prop_id, True, AC)])), probe_id
        assert not valid(judge, probe_id, obs(acts, [(prop_id, True, TB)])), probe_id


def test_told_by_never_meets_a_place_or_employer(pilot_judge: Judge) -> None:
    assert not valid(pilot_judge, "PR-02", obs([Act.ANSWER], [("P-01", True, TB)]))
    assert not valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, TB)]))
    # Beekeeping was learned by practice, not in conversation: "the groundskeeper told me" is a report.
    assert not valid(pilot_judge, "PR-18", obs([Act.ANSWER], [("P-20", True, TB)]))


# ------------------------------------------------------------------ 3. a REJECT that corrects a detail


def _answer_probes(judges: list[Judge]) -> list[tuple[Judge, str, str, str]]:
    """(judge, probe, required claim, the onset year) of A probes forbidding REJECT with one dated requirement."""
    out = []
    for judge in judges:
        for probe_id, probe in sorted(judge.hidden.probes.items()):
            c = probe.contract
            if Act.REJECT not in c.forbidden_acts or len(c.required_claims) != 1 or not c.required_claims[0].polarity:
                continue
            onsets = judge.support(probe).state.onsets.get(c.required_claims[0].prop_id, ())
            if len(onsets) == 1:
                out.append((judge, probe_id, c.required_claims[0].prop_id, str(onsets[0].year)))
    return out


def test_correcting_the_year_while_answering_passes(dev_judges: list[Judge], pilot_judge: Judge) -> None:
    cases = _answer_probes([pilot_judge, *dev_judges])[:60]
    assert len(cases) >= 15
    for judge, probe_id, prop_id, year in cases:
        assert valid(judge, probe_id, obs([Act.ANSWER], [(prop_id, True, PE, year)])), probe_id
        assert valid(judge, probe_id, obs([Act.ANSWER, Act.REJECT], [(prop_id, True, PE, year)])), probe_id


def test_a_reject_that_corrects_nothing_grounded_still_fails(dev_judges: list[Judge], pilot_judge: Judge) -> None:
    cases = _answer_probes([pilot_judge, *dev_judges])[:60]
    assert len(cases) >= 15
    for judge, probe_id, prop_id, year in cases:
        wrong = str(int(year) - 3)
        # No corrected detail at all, a wrong corrected year, or a REJECT of the asked event itself.
        assert not valid(judge, probe_id, obs([Act.ANSWER, Act.REJECT], [(prop_id, True, PE)])), probe_id
        assert not valid(judge, probe_id, obs([Act.ANSWER, Act.REJECT], [(prop_id, True, PE, wrong)])), probe_id
        assert not valid(judge, probe_id, obs([Act.ANSWER, Act.REJECT], [(prop_id, True, PE, year),
                                                                        (prop_id, False, PE)])), probe_id


# ------------------------------------------------------------------ 4. self-contradiction


def _single_requirements(judges: list[Judge]) -> list[tuple[Judge, str, str, ClaimProvenance]]:
    out = []
    for judge in judges:
        for probe_id, probe in sorted(judge.hidden.probes.items()):
            c = probe.contract
            if len(c.required_claims) != 1 or not c.required_claims[0].polarity:
                continue
            req = c.required_claims[0]
            if judge._props[req.prop_id].predicate.kind is PredicateKind.PLACE:
                continue
            provenance = req.provenance[0] if req.provenance else UN
            if valid(judge, probe_id, obs(list(c.required_acts), [(req.prop_id, True, provenance)])):
                out.append((judge, probe_id, req.prop_id, provenance))
    return out


def test_a_reading_that_asserts_and_denies_one_item_meets_no_requirement(dev_judges: list[Judge]) -> None:
    cases = _single_requirements(dev_judges)[:80]
    assert len(cases) >= 15
    for judge, probe_id, prop_id, provenance in cases:
        acts = list(judge.probe(probe_id).contract.required_acts)
        assert not valid(judge, probe_id, obs(acts, [(prop_id, True, provenance), (prop_id, False, provenance)])), \
            probe_id


def test_statements_about_different_times_are_not_a_contradiction(pilot_judge: Judge) -> None:
    # "I used to ban phones; now I allow them for structured tasks — I changed my mind."
    assert valid(pilot_judge, "PR-19", obs([Act.ANSWER], [("P-31", False, PE), ("P-32", True, PE),
                                                         ("P-33", True, PE)]))
    # A self-correction never excuses a prohibited claim (App. C.10).
    assert not valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, PE), ("P-12", True, PE),
                                                             ("P-12", False, PE)]))


# ------------------------------------------------------------------ 5. dates on side claims


def _side_claims(judges: list[Judge]) -> list[tuple[Judge, str, str, str, str, int]]:
    """(judge, probe, required claim, side claim, its onset year, τ's year) for A probes."""
    out = []
    for judge in judges:
        for probe_id, probe in sorted(judge.hidden.probes.items()):
            c = probe.contract
            if probe.category is not Category.A or len(c.required_claims) != 1:
                continue
            state = judge.support(probe).state
            req = c.required_claims[0].prop_id
            side = [pid for pid, on in sorted(state.onsets.items()) if pid != req and state.supports(pid) and len(on) == 1
                    and judge._props[pid].predicate.kind is PredicateKind.ORGANIZATION
                    and on[0].year + 2 <= state.tau.year]
            if side:
                year = state.onsets[side[0]][0].year
                out.append((judge, probe_id, req, side[0], str(year), state.tau.year))
    return out


def test_a_side_claim_dated_while_the_record_held_it_passes(dev_judges: list[Judge]) -> None:
    cases = _side_claims(dev_judges)[:40]
    assert len(cases) >= 15
    for judge, probe_id, req, side, year, _ in cases:
        acts = list(judge.probe(probe_id).contract.required_acts)
        later = str(int(year) + 1)
        assert valid(judge, probe_id, obs(acts, [(req, True, PE), (side, True, PE, year)])), probe_id
        assert valid(judge, probe_id, obs(acts, [(req, True, PE), (side, True, PE, later)])), (probe_id, later)


def test_a_side_claim_dated_before_the_record_or_after_tau_fails(dev_judges: list[Judge]) -> None:
    cases = _side_claims(dev_judges)[:40]
    assert len(cases) >= 15
    for judge, probe_id, req, side, year, tau_year in cases:
        acts = list(judge.probe(probe_id).contract.required_acts)
        assert not valid(judge, probe_id, obs(acts, [(req, True, PE), (side, True, PE, str(int(year) - 1))])), probe_id
        assert not valid(judge, probe_id, obs(acts, [(req, True, PE), (side, True, PE, str(tau_year + 1))])), probe_id


def test_the_asked_claim_is_still_dated_by_its_onset(pilot_judge: Judge) -> None:
    # PR-03: L-1A's robotics job began in July 2014.
    assert valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, PE, "2014")]))
    assert valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, PE, "2014-07")]))
    assert not valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, PE, "2016")]))
    assert not valid(pilot_judge, "PR-03", obs([Act.ANSWER], [("P-11", True, PE, "2014-09")]))


# ------------------------------------------------------------------ Theorem 1's premise, under the new rules


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_reading_passes_both_members_of_a_pair(pilot_judge: Judge, data: st.DataObject) -> None:
    probes = sorted(p for p, probe in pilot_judge.hidden.probes.items() if probe.theorem_qualified)
    probe_id = data.draw(st.sampled_from(probes))
    probe = pilot_judge.probe(probe_id)
    prop_ids = sorted(pilot_judge._props)
    claims = data.draw(st.lists(st.tuples(st.sampled_from(prop_ids), st.booleans(),
                                          st.sampled_from(list(ClaimProvenance)),
                                          st.sampled_from(["2012", "2014", "2016", "2019", "2022"])), max_size=5))
    unmapped = data.draw(st.lists(st.tuples(
        st.sampled_from(["knowledge.topic", "skill.sport", "work.field", "employment.employer"]),
        st.sampled_from(["kinematics", "Cascadia", "Helvetic", "security engineering", "climbing", "sailing"]),
        st.booleans(), st.sampled_from(list(ClaimProvenance))), max_size=3))
    acts = data.draw(st.lists(st.sampled_from(list(Act)), max_size=3, unique=True))
    judgement = pilot_judge.score_observation(probe_id, obs(acts, claims, unmapped))
    assert probe.partner_probe_id is not None
    assert not (judgement.verdict.valid and judgement.partner is not None and judgement.partner.valid)


# ------------------------------------------------------------------ 6. a name the record holds only in words

# L-2A and L-2B teach at St. Finbarr's College, which the record names in its events but not as a proposition.
TEACHER_PROBES = ["PR-07", "PR-08", "PR-09", "PR-10", "PR-15", "PR-18", "PR-19", "PR-20", "PR-21"]


def _as_required(judge: Judge, probe_id: str) -> Observation:
    c = judge.probe(probe_id).contract
    claims = [(r.prop_id, r.polarity, r.provenance[0] if r.provenance else UN) for r in c.required_claims]
    return obs(list(c.required_acts), claims)


@pytest.mark.parametrize("probe_id", TEACHER_PROBES)
@pytest.mark.parametrize("value", ["St. Finbarr's", "St. Finbarr's College"])
def test_an_employer_the_record_names_in_words_is_supported(pilot_judge: Judge, probe_id: str, value: str) -> None:
    base = _as_required(pilot_judge, probe_id)
    assert pilot_judge.score_observation(probe_id, base).verdict.valid, probe_id
    with_employer = base.model_copy(update={"unmapped": [
        UnmappedAssertion(span=(0, 0), text=value, polarity=True, provenance=PE, slot="employment.employer",
                          value=value)]})
    assert valid(pilot_judge, probe_id, with_employer)


@pytest.mark.parametrize("probe_id", TEACHER_PROBES)
@pytest.mark.parametrize("value", ["St. Mary's College", "Cascadia Robotics", "Kellerman Academy"])
def test_an_employer_neither_the_data_nor_the_record_has_still_fails(pilot_judge: Judge, probe_id: str,
                                                                      value: str) -> None:
    base = _as_required(pilot_judge, probe_id)
    with_employer = base.model_copy(update={"unmapped": [
        UnmappedAssertion(span=(0, 0), text=value, polarity=True, provenance=PE, slot="employment.employer",
                          value=value)]})
    assert not valid(pilot_judge, probe_id, with_employer)


# ------------------------------------------------------------------ 8. denying what the record supports


def _supported_others(judges: list[Judge]) -> list[tuple[Judge, str, Observation, str, str]]:
    """(judge, probe, a passing reading, a supported non-asked personal proposition, a slot it has) for A probes."""
    out = []
    for judge in judges:
        for probe_id, probe in sorted(judge.hidden.probes.items()):
            if probe.category is not Category.A or len(probe.contract.required_claims) != 1:
                continue
            base = _as_required(judge, probe_id)
            if not judge.score_observation(probe_id, base).verdict.valid:
                continue
            state = judge.support(probe).state
            asked = probe.contract.required_claims[0].prop_id
            others = [pid for pid in sorted(state.truths) if state.supports(pid) and pid != asked
                      and judge._props[pid].slot in ("residence.city", "employment.employer")]
            if others:
                out.append((judge, probe_id, base, others[0], judge._props[others[0]].slot))
    return out


def test_denying_a_supported_value_fails(dev_judges: list[Judge]) -> None:
    cases = _supported_others(dev_judges)[:40]
    assert len(cases) >= 15
    for judge, probe_id, base, other, slot in cases:
        denied = base.model_copy(update={"claims": [*base.claims, ExtractedClaim(
            prop_id=other, polarity=False, provenance=PE, span=(0, 0))]})
        verdict = judge.score_observation(probe_id, denied).verdict
        assert not verdict.valid and not verdict.checks["denial"].passed, (probe_id, other)
        # "I never lived anywhere" / "never worked anywhere": the whole slot denied.
        anywhere = base.model_copy(update={"unmapped": [UnmappedAssertion(
            span=(0, 0), text="anywhere", polarity=False, provenance=PE, slot=slot, value="anywhere")]})
        assert not valid(judge, probe_id, anywhere), (probe_id, slot)


def test_denying_what_the_record_lacks_or_an_exception_passes(dev_judges: list[Judge], pilot_judge: Judge) -> None:
    # "I never lived in Kyoto — I'm an AI, so no matcha haunts" (L-1A never lived in Kyoto).
    assert valid(pilot_judge, "PR-01", obs([Act.REJECT], [("P-01", False, PE)]))
    assert valid(pilot_judge, "PR-01", obs([Act.REJECT], [("P-01", False, PE), ("P-03", False, PE)]))
    cases = _supported_others(dev_judges)[:40]
    assert len(cases) >= 15
    for judge, probe_id, base, _, slot in cases:
        state = judge.support(judge.probe(probe_id)).state
        lacking = next(pid for pid, p in sorted(judge._props.items()) if p.slot == slot
                       and not state.supports(pid) and not p.world_fact)
        denied = base.model_copy(update={"claims": [*base.claims, ExtractedClaim(
            prop_id=lacking, polarity=False, provenance=PE, span=(0, 0))]})
        assert valid(judge, probe_id, denied), (probe_id, lacking)
        elsewhere = base.model_copy(update={"unmapped": [UnmappedAssertion(
            span=(0, 0), text="anywhere else", polarity=False, provenance=PE, slot=slot, value="anywhere else")]})
        assert valid(judge, probe_id, elsewhere), probe_id


@pytest.mark.parametrize(("probe_id", "slot", "value", "denied_is_false"), [
    ("PR-08", "residence.city", "Cork", True),  # L-2B grew up in Cork: a place lived in
    ("PR-08", "residence.city", "Ireland", True),
    ("PR-08", "residence.city", "Nairobi", True),
    ("PR-03", "residence.city", "Seattle", True),
    ("PR-03", "residence.city", "Bozeman", True),
    ("PR-03", "employment.employer", "Cascadia Robotics", True),
    ("PR-03", "work.field", "robotics", True),
    ("PR-08", "residence.city", "Lisbon", False),
    ("PR-08", "residence.city", "Kyoto", False),
    ("PR-03", "residence.city", "Zurich", False),
    ("PR-03", "residence.city", "Kyoto", False),
    ("PR-03", "employment.employer", "Helvetic Cipher Labs", False),
    ("PR-03", "work.field", "cryptography", False),
    ("PR-03", "work.field", "post-quantum cryptography", False),
    ("PR-03", "knowledge.topic", "biochemistry", False),
])
def test_a_denied_unmapped_value(pilot_judge: Judge, probe_id: str, slot: str, value: str,
                                 denied_is_false: bool) -> None:
    base = _as_required(pilot_judge, probe_id)
    denied = base.model_copy(update={"unmapped": [UnmappedAssertion(
        span=(0, 0), text=value, polarity=False, provenance=PE, slot=slot, value=value)]})
    assert valid(pilot_judge, probe_id, denied) is not denied_is_false
