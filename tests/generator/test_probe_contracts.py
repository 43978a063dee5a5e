"""Every generated probe's question asks for exactly what its contract requires (dev suite, seed 1).

One test per rule: the person asked for a confided plan is the one it was confided to; a plain
question about a view requires only the view, a question about its history requires the change;
GENERAL_ALLOWED contracts follow seed C.2; no boundary fact lies in the occupation's own field;
autobiographical questions ask what the records hold, in the tense of the residence at τ; and
the reinforcement turn speaks of a place as a place.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from sitbench.data._generator import _forms
from sitbench.data._generator import _probes as P
from sitbench.data._generator import _vocab as V
from sitbench.lineage import Tense, city_mentions
from sitbench.schema import Act, CapabilityMode, Category, ClaimProvenance, Lineage, Predicate, Probe, Query
from sitbench.stores import LoadedDataset, load_dataset


@pytest.fixture(scope="module")
def ds(dev_suite: Path) -> LoadedDataset:
    return load_dataset(dev_suite)


def _probes(ds: LoadedDataset, category: Category) -> list[tuple[Probe, Query, Lineage]]:
    out = [(p, ds.visible.queries[p.query_key], ds.hidden.lineages[p.lineage_id])
           for p in ds.hidden.probes.values() if p.category is category]
    assert out, f"no {category.value} probes"
    return out


def _predicate(ds: LoadedDataset, prop_id: str) -> Predicate:
    return ds.hidden.registry.by_id()[prop_id].predicate


def _utterance(query: Query) -> str:
    return query.turns[query.scored_turn].utterance


def _filled(templates: tuple[str, ...], **values: str) -> set[str]:
    return {t.format(**values) for t in templates}


# ---------------------------------------------------------------- 1. E: the cleared person asks


def test_authorized_disclosure_is_asked_by_the_person_told(ds: LoadedDataset) -> None:
    n = 0
    for probe, query, lineage in _probes(ds, Category.E):
        if probe.stratum != "authorized_disclosure":
            continue
        n += 1
        (claim,) = probe.contract.required_claims
        told = {who for e in lineage.events if e.t <= query.tau
                for who in e.participants if any(s.prop_id == claim.prop_id and s.polarity for s in e.asserts)}
        assert told, f"{probe.probe_id}: no record confides {claim.prop_id}"
        assert query.interlocutor.interlocutor_id in told, (
            f"{probe.probe_id}: {query.interlocutor.description} asks {_utterance(query)!r}, but only {sorted(told)} "
            "were told")
        assert Act.ANSWER in probe.contract.required_acts
    assert n >= 100


def test_withholding_is_asked_by_someone_never_told(ds: LoadedDataset) -> None:
    for probe, query, lineage in _probes(ds, Category.E):
        if probe.stratum != "withholding":
            continue
        props = {c.prop_id for c in probe.contract.prohibited_claims}
        told = {who for e in lineage.events for who in e.participants if any(s.prop_id in props for s in e.asserts)}
        assert query.interlocutor.interlocutor_id not in told, probe.probe_id


# ---------------------------------------------------------------- 2. F: the change only when asked


def test_plain_view_questions_require_only_the_current_stance(ds: LoadedDataset) -> None:
    seen = {"plain-post": 0, "history-post": 0}
    for probe, query, lineage in _probes(ds, Category.F):
        utterance = _utterance(query)
        belief = next(b for b in lineage.beliefs if b.topic in utterance)
        plain = utterance in _filled(P.VIEW_Q, topic=belief.topic)
        history = utterance in _filled(P.CHANGE_Q, topic=belief.topic)
        assert plain != history, f"{probe.probe_id}: {utterance!r} is from neither question list"
        required = [_predicate(ds, c.prop_id) for c in probe.contract.required_claims]
        held = [v for v in belief.versions if v.t <= query.tau]
        stances = [c.prop_id for c in probe.contract.required_claims if _predicate(ds, c.prop_id) is Predicate.STANCE]
        change_only = utterance in _filled(P.CHANGE_ONLY_Q, topic=belief.topic)
        # "Has your view changed?" asks for the change (or, before any, its denial) alone; every other question
        # asks the view.
        expected = [] if change_only else [held[-1].prop_id]
        assert stances == expected, f"{probe.probe_id}: {utterance!r} requires stances {stances}, not {expected}"
        if probe.stratum == "post":
            key = "plain-post" if plain else "history-post"
            seen[key] += 1
            assert (Predicate.STANCE_CHANGE in required) == history, (
                f"{probe.probe_id}: {utterance!r} {'does not ask' if plain else 'asks'} about the change, but the "
                f"contract {'requires' if plain else 'does not require'} it")
        else:
            changes = [c for c in probe.contract.required_claims if _predicate(ds, c.prop_id) is Predicate.STANCE_CHANGE]
            # Before any change only the change-only question asks about it, and its answer denies it.
            assert [c.polarity for c in changes] == ([False] if change_only else []), probe.probe_id
    assert min(seen.values()) > 0, seen


# ---------------------------------------------------------------- 3. C: capability modes and boundary topics


def test_general_allowed_contracts_follow_seed_c2(ds: LoadedDataset) -> None:
    n = 0
    for probe, _query, _lineage in _probes(ds, Category.C):
        contract = probe.contract
        if contract.capability is not CapabilityMode.GENERAL_ALLOWED:
            continue
        acquired = any(c.polarity and _predicate(ds, c.prop_id) is Predicate.KNOWS for c in contract.required_claims)
        if acquired:
            continue
        n += 1
        assert Act.REJECT not in contract.required_acts, probe.probe_id
        assert contract.required_acts == [Act.ANSWER], probe.probe_id
        assert [c.prop_id for c in contract.required_claims if not c.polarity] == [], probe.probe_id
        (fact,) = contract.required_claims
        assert ds.hidden.registry.by_id()[fact.prop_id].world_fact
        assert set(fact.provenance) == {ClaimProvenance.ASSISTANT_GENERAL, ClaimProvenance.UNSPECIFIED}
        assert [(_predicate(ds, c.prop_id), c.polarity) for c in contract.prohibited_claims] == [(Predicate.KNOWS, True)]
    assert n > 0


def test_provenance_separated_still_denies_then_labels(ds: LoadedDataset) -> None:
    n = 0
    for probe, _query, _lineage in _probes(ds, Category.C):
        contract = probe.contract
        if contract.capability is CapabilityMode.PROVENANCE_SEPARATED and Act.REJECT in contract.required_acts:
            n += 1
            assert Act.ANSWER in contract.required_acts
    assert n > 0


def test_no_boundary_fact_lies_in_the_occupations_field(ds: LoadedDataset) -> None:
    discipline = {t.topic: t.discipline for t in V.TOPICS}
    registry = ds.hidden.registry.by_id()
    n = 0
    for category in (Category.C, Category.D):
        for probe, _query, lineage in _probes(ds, category):
            claims = probe.contract.required_claims + probe.contract.prohibited_claims
            if any(c.polarity and registry[c.prop_id].predicate is Predicate.KNOWS for c in probe.contract.required_claims):
                continue  # acquired: not a boundary
            title = lineage.occupations[1].occupation
            for c in claims:
                prop = registry[c.prop_id]
                if prop.predicate is Predicate.KNOWS:
                    n += 1
                    assert not _forms.in_field(title, discipline[prop.value]), (
                        f"{probe.probe_id}: a {title} is asked to disclaim {prop.value} ({discipline[prop.value]})")
    assert n > 0


def test_every_occupation_has_a_field_entry() -> None:
    assert {o.title for o in V.OCCUPATIONS} == set(_forms.FIELD_DISCIPLINES)
    disciplines = {t.discipline for t in V.TOPICS}
    for title, fields in _forms.FIELD_DISCIPLINES.items():
        assert fields <= disciplines, (title, fields - disciplines)


# ---------------------------------------------------------------- 4. A: recorded content, in the right tense


def _residence_at(lineage: Lineage, ds: LoadedDataset, tau: dt.date) -> str | None:
    registry = ds.hidden.registry.by_id()
    city = None
    for e in sorted(lineage.events, key=lambda e: e.t):
        if e.t > tau:
            break
        for s in e.asserts:
            if s.polarity and registry[s.prop_id].predicate is Predicate.LIVED_IN:
                city = registry[s.prop_id].value
    return city


def test_residence_questions_ask_about_the_move_in_the_tense_at_tau(ds: LoadedDataset) -> None:
    registry = ds.hidden.registry.by_id()
    seen = {"now": 0, "before": 0}
    for probe, query, lineage in _probes(ds, Category.A):
        cities = [registry[c.prop_id].value for c in probe.contract.required_claims
                  if c.polarity and registry[c.prop_id].predicate is Predicate.LIVED_IN]
        if not cities:
            continue
        (city,) = cities
        utterance = _utterance(query)
        now = _residence_at(lineage, ds, query.tau) == city
        seen["now" if now else "before"] += 1
        templates = P.RESIDENCE_NOW if now else P.RESIDENCE_BEFORE
        assert utterance in _filled(templates, x=city), (
            f"{probe.probe_id}: {utterance!r} on {query.tau}, when the identity "
            f"{'lives' if now else 'no longer lives'} in {city}")
        for mention in city_mentions(utterance, [city]):
            assert mention.tense is (Tense.PRESENT if now else Tense.PAST), (probe.probe_id, mention)
        # The question names the move, which the record holds.
        move = next(e for e in lineage.events if any(s.prop_id == c.prop_id for c in probe.contract.required_claims
                                                     for s in e.asserts))
        assert move.text.startswith(f"Moved to {city}") or city in move.text
    assert min(seen.values()) > 0, seen


def test_employer_questions_ask_about_the_job_in_the_tense_at_tau(ds: LoadedDataset) -> None:
    registry = ds.hidden.registry.by_id()
    n = 0
    for probe, query, lineage in _probes(ds, Category.A):
        employers = [c.prop_id for c in probe.contract.required_claims
                     if c.polarity and registry[c.prop_id].predicate is Predicate.WORKED_AT]
        if not employers:
            continue
        n += 1
        name = registry[employers[0]].value
        # Current: the job the record has started by τ and not yet left ("Left X …" ends a job in its own record).
        records = [(e, registry[s.prop_id].value) for e in lineage.events if e.t <= query.tau
                   for s in e.asserts if registry[s.prop_id].predicate is Predicate.WORKED_AT]
        left = {value for e, value in records if e.text.startswith("Left ")}
        current = {value for e, value in records if not e.text.startswith("Left ")} - left
        assert len(current) == 1, (probe.probe_id, current)
        now = current == {name}
        assert _utterance(query) in _filled(P.EMPLOYER_NOW if now else P.EMPLOYER_BEFORE, x=name), probe.probe_id
    assert n > 0


_UNRECORDED = re.compile(r"neighbourhood|weekends|food|market|team like|stays with you|enjoy most", re.I)


def test_no_autobiographical_question_asks_for_content_no_record_holds(ds: LoadedDataset) -> None:
    for probe, query, _lineage in _probes(ds, Category.A):
        assert not _UNRECORDED.search(_utterance(query)), (probe.probe_id, _utterance(query))


# ---------------------------------------------------------------- 5. G: places are places


def test_reinforcement_speaks_of_places_as_places(ds: LoadedDataset) -> None:
    n = 0
    for probe, query, _lineage in _probes(ds, Category.G):
        texts = [t.utterance for t in query.turns]
        assert not any("your time with" in t for t in texts), probe.probe_id
        if probe.pressure_level == "L5":
            n += 1
            reinforcing = texts[1]
            assert re.search(r"your time (in|at) |you grew up in ", reinforcing), reinforcing
            if "your time at " in reinforcing:
                assert "employer" in probe.note, probe.probe_id
    assert n > 0
