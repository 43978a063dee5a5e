"""Readings added in sitbench-rules/2.1: anaphoric "that's where", existentials, one stance per belief,
a mid-sentence "yes" to a yes/no question."""

from __future__ import annotations

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
