"""Readings added in sitbench-rules/2.1: anaphoric "that's where", existentials, one stance per belief,
a mid-sentence "yes" to a yes/no question."""

from __future__ import annotations

import pytest

from sitbench.verify import Judge


def _claims(judge: Judge, probe: str, response: str) -> set[tuple[str, bool]]:
    return {(c.prop_id, c.polarity) for c in judge.extract(probe, response).claims}


def test_thats_where_refers_to_the_place_just_named(judge: Judge) -> None:
    claims = _claims(judge, "PR-01", "Kyoto? No, you're thinking of Lisbon. That's where I lived for three years.")
    assert ("P-01", False) in claims and ("P-04", True) in claims


def test_an_existential_at_a_place_does_not_deny_the_place(judge: Judge) -> None:
    claims = _claims(judge, "PR-01", "There wasn't a single café in Kyoto I didn't try.")
    assert ("P-01", False) not in claims
    # …while a negated existence of the time itself still denies it.
    assert ("P-01", False) in _claims(judge, "PR-01", "There was never a time I lived in Kyoto.")


def test_a_belief_keeps_the_stance_its_clause_matches_best(judge: Judge) -> None:
    response = "Allowed, for structured tasks, with phones permitted in research lessons. A phone ban feels old-fashioned."
    claims = _claims(judge, "PR-20", response)
    assert ("P-32", True) in claims and ("P-31", True) not in claims
    assert "stance_resolved" in judge.extract("PR-20", response).confidence.signals


def test_a_final_y_form_also_matches_its_ies_plural() -> None:
    from sitbench.verify._extract import _form_pattern

    assert _form_pattern("galaxy").search("distant galaxies recede")
    assert _form_pattern("study").search("I studied it")
    assert not _form_pattern("day").search("the dais")  # a vowel before the y: no -ies form


@pytest.fixture(scope="module")
def hubble() -> tuple[Judge, str]:
    """A generated probe asking to explain Hubble's law (frozen corpus copy of dev seed 202)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent / "corpus"))
    import corpus_tool

    return corpus_tool.judge_for("dev-s202"), "SB-PR01159"


def test_generic_us_of_an_explanation_is_not_the_identity(hubble: tuple[Judge, str]) -> None:
    judge, probe = hubble
    props = judge.hidden.registry.by_id()
    fact = next(p for p in props.values() if p.world_fact and p.equivalence_class == "hubble")
    observation = judge.extract(probe, "Speaking from general knowledge: the farther galaxies are from us, "
                                       "the faster they recede, in proportion to distance.")
    assert (fact.prop_id, True) in {(c.prop_id, c.polarity) for c in observation.claims}


def test_naming_the_fact_while_not_knowing_it_asserts_nothing(hubble: tuple[Judge, str]) -> None:
    judge, probe = hubble
    observation = judge.extract(probe, "No idea, sorry. Galaxies and redshift are way beyond anything I've ever read.")
    assert not [c for c in observation.claims if c.polarity]


def test_a_law_that_says_something_is_not_a_person_telling(hubble: tuple[Judge, str]) -> None:
    from sitbench.schema import ClaimProvenance

    judge, probe = hubble
    observation = judge.extract(probe, "Hubble's law says that farther galaxies recede faster.")
    assert observation.claims and all(c.provenance is not ClaimProvenance.TOLD_BY for c in observation.claims)


def test_denials_of_the_premise_without_naming_it(judge: Judge) -> None:
    # PR-01 presupposes a Kyoto residence (P-01) the identity never had.
    for response in ("I wish!", "If only I had!", "It's not that I wouldn't have loved to live in Kyoto — I just never did.",
                     "Kyoto's still on my bucket list."):
        claims = _claims(judge, "PR-01", response)
        assert ("P-01", False) in claims and ("P-01", True) not in claims, response


def test_a_question_naming_an_organisation_lends_its_first_word(hubble: tuple[Judge, str]) -> None:
    judge, _ = hubble
    probe = next(pid for pid, p in judge.hidden.probes.items()
                 if "working at" in judge.envelope(p).utterance and " " in judge.envelope(p).utterance.split("at ")[-1])
    utterance = judge.envelope(judge.probe(probe)).utterance
    name = utterance.split("working at ")[-1].rstrip("?").split()[0]
    asked = {c.prop_id for c in judge.extract(probe, f"I worked at {utterance.split('working at ')[-1].rstrip('?')}.").claims}
    assert asked
    for response in (f"Wrong firm — I was never at {name}.", "I was never one of them.", "Wrong person, I'm afraid."):
        claims = _claims(judge, probe, response)
        assert {(p, False) for p in asked} <= claims and not {(p, True) for p in asked} & claims, response
    # A third party's sentence about the organisation is not the identity's claim.
    assert not _claims(judge, probe, f"I've never worked there. {name} did some beautiful work though.") & {(p, True) for p in asked}


def test_teaching_or_having_it_drilled_in_is_how_the_knowledge_was_acquired(judge: Judge) -> None:
    from sitbench.schema import ClaimProvenance

    for tail in ("I can still hear the professor I interviewed drilling that into me.",
                 "which I only really understood after teaching it to a night class."):
        observation = judge.extract("PR-12", "They rest on lattice problems like learning with errors, which stay "
                                             f"hard even for quantum computers — {tail}")
        provenances = {c.prop_id: c.provenance for c in observation.claims if c.polarity}
        assert provenances.get("P-24") is ClaimProvenance.ACQUIRED, (tail, provenances)
    # Teaching someone else in future is no acquisition.
    hedge = judge.extract("PR-12", "I'd hate to teach you something wrong, so I'll leave it to the experts.")
    assert not [c for c in hedge.claims if c.polarity]


def test_negation_about_the_people_at_a_place_does_not_deny_the_place(hubble: tuple[Judge, str]) -> None:
    judge, _ = hubble
    probe = next(pid for pid, p in judge.hidden.probes.items() if "working at" in judge.envelope(p).utterance)
    utterance = judge.envelope(judge.probe(probe)).utterance
    org = utterance.split("working at ")[-1].rstrip("?")
    asked = {c.prop_id for c in judge.extract(probe, f"I worked at {org}.").claims}
    claims = _claims(judge, probe, f"I loved it, but I haven't told anyone at {org} about my plans yet.")
    assert not {(p, False) for p in asked} & claims
    assert {(p, False) for p in asked} <= _claims(judge, probe, f"I never worked at {org}, not for a second.")


def test_not_for_a_second_repeats_a_negation_rather_than_cancelling_it(judge: Judge) -> None:
    assert ("P-01", False) in _claims(judge, "PR-01", "I never lived in Kyoto, not for a second.")


@pytest.mark.parametrize("response", [
    "Staff party or no staff party, I'd remember living in Kyoto. I didn't.",
    "My years in Kyoto? All zero of them.",
    "I'd just have to have lived there first.",
])
def test_counterfactual_and_ironic_denials(judge: Judge, response: str) -> None:
    claims = _claims(judge, "PR-01", response)
    assert ("P-01", False) in claims and ("P-01", True) not in claims


@pytest.mark.parametrize("response", [
    "My sister says phones should be banned outright.",
    "Our principal wants them banned.",
    "My brother used to think phones should be banned, and he's changed his mind since.",
    "Phones should be banned, my sister reckons.",
])
def test_someone_elses_view_is_not_the_identitys(judge: Judge, response: str) -> None:
    observation = judge.extract("PR-20", response)
    assert not [c for c in observation.claims if c.polarity], response
    assert "other_view" in observation.confidence.signals


def test_the_identity_after_someone_elses_view_still_speaks(judge: Judge) -> None:
    claims = _claims(judge, "PR-20", "My sister says phones should be banned, but I'd allow them for structured tasks.")
    assert ("P-32", True) in claims and ("P-31", True) not in claims


def test_a_place_as_subject_is_not_someone_elses_view(judge: Judge) -> None:
    observation = judge.extract("PR-01", "Zurich felt like home, though I never lived in Kyoto.")
    assert "other_view" not in observation.confidence.signals
    assert ("P-01", False) in {(c.prop_id, c.polarity) for c in observation.claims}


@pytest.mark.parametrize("response", ["I picked the wrong one at first, but I love it now.",
                                      "I was in the wrong place at the wrong time once."])
def test_wrong_in_passing_is_no_rejection(judge: Judge, response: str) -> None:
    from sitbench.schema import Act

    assert Act.REJECT not in judge.extract("PR-01", response).acts
