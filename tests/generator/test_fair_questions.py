"""Questions a careful reader finds fair (dev suite, seed 1, and many planned pairs).

One test per finding of a blind reading of generated probes: nobody speaks as a colleague the
identity has not met yet; relation words fit the person and the relationship at τ; a question asks
why the identity moved only where the move record gives a reason, and a reason the record gives is
true of the record; a confidant asks what the confiding record holds, not how the plan is going; a
pressure claim is never the partner's real value unless the probe is theorem-qualified; and the
record says which employer is current.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from sitbench.data._generator._registry import RegistryBuilder, Rejected
from sitbench.data._generator._symbolic import Scale, plan_pair
from sitbench.schema import Category, Lineage, Predicate, Probe, Query, Relationship, RelationshipVersion
from sitbench.stores import LoadedDataset, load_dataset

#: Names of the generator's pool of people that English speakers read as a woman's or a man's; names used
#: for either (Jo, Sam, Femi) are in neither set.
FEMININE = frozenset(("Priya Niamh Tess Maya Ingrid Lena Aisha Dora Fleur Hattie Jess Lotte Nell Ottilie Pilar "
                      "Selma Ursula Wanda Yasmin Agnes Cleo Elsa").split())
MASCULINE = frozenset("Declan Ronan Arjun Felix Omar Tobias Callum Ezra Gregor Ivan Kenji Malik Ruben Theo Vik Xavi "
                      "Zed Benno Dev".split())


@pytest.fixture(scope="module")
def ds(dev_suite: Path) -> LoadedDataset:
    return load_dataset(dev_suite)


def _probes(ds: LoadedDataset, category: Category | None = None) -> list[tuple[Probe, Query, Lineage]]:
    out = [(p, ds.visible.queries[p.query_key], ds.hidden.lineages[p.lineage_id])
           for p in ds.hidden.probes.values() if category is None or p.category is category]
    assert out
    return out


def _relationship(lineage: Lineage, interlocutor_id: str) -> Relationship | None:
    return next((r for r in lineage.relationships if r.interlocutor_id == interlocutor_id), None)


def _version_at(rel: Relationship, t: dt.date) -> RelationshipVersion | None:
    held = [v for v in rel.versions if v.t <= t]
    return held[-1] if held else None


def _utterance(query: Query) -> str:
    return query.turns[query.scored_turn].utterance


def _predicate(ds: LoadedDataset, prop_id: str) -> Predicate:
    return ds.hidden.registry.by_id()[prop_id].predicate


# ---------------------------------------------------------------- 1. people the identity has met


def test_nobody_speaks_as_someone_the_identity_has_not_met(ds: LoadedDataset) -> None:
    known = 0
    for probe, query, lineage in _probes(ds):
        who = query.interlocutor
        rel = _relationship(lineage, who.interlocutor_id)
        if rel is None:
            assert not who.description.startswith("your "), (probe.probe_id, who.description)
            continue
        known += 1
        met = rel.versions[0].t
        for turn in query.turns:
            assert met <= turn.t, (f"{probe.probe_id}: {who.description!r} speaks on {turn.t}, but the record has "
                                   f"the identity meet {rel.name} on {met}")
    assert known >= 200


# ---------------------------------------------------------------- 2. relation words that fit


def test_relation_words_fit_the_relationship_at_tau(ds: LoadedDataset) -> None:
    seen: Counter[str] = Counter()
    for probe, query, lineage in _probes(ds):
        rel = _relationship(lineage, query.interlocutor.interlocutor_id)
        if rel is None:
            continue
        version = _version_at(rel, query.tau)
        assert version is not None, probe.probe_id
        word = version.relation.split()[-1]
        seen[word] += 1
        assert re.search(rf"\b{word}\b", query.interlocutor.description), (
            f"{probe.probe_id}: {query.interlocutor.description!r} on {query.tau}, when the record has {rel.name} "
            f"as {version.relation}")
    assert seen["acquaintance"] > 0 and seen["friend"] > 0, seen


def _sibling(seed: int) -> tuple[str, str]:
    while True:
        try:
            plan = plan_pair(random.Random(seed), RegistryBuilder("SB-"), {"first": set(), "last": set(),
                                                                         "hometown": set()}, Scale())
            return plan.sibling
        except Rejected:
            seed += 10_000


def test_sister_and_brother_fit_the_name() -> None:
    words: Counter[str] = Counter()
    for seed in range(300):
        name, relation = _sibling(seed)
        words[relation] += 1
        assert not (relation == "sister" and name in MASCULINE), (seed, name, relation)
        assert not (relation == "brother" and name in FEMININE), (seed, name, relation)
    assert min(words[w] for w in ("sister", "brother", "cousin")) > 20, words


def test_the_gendered_name_sets_cover_the_pool() -> None:
    from sitbench.data._generator import _vocab as V

    assert set(V.FRIEND_NAMES) >= FEMININE | MASCULINE
    assert not FEMININE & MASCULINE


# ---------------------------------------------------------------- 3. why a move happened


_WHY = re.compile(r"\bwhat (?:brought|took|made|had taken)\b", re.I)
_REASON = r"(?:for|to|after|because)\b"


def test_why_a_move_happened_is_asked_only_where_the_record_says(ds: LoadedDataset) -> None:
    registry = ds.hidden.registry.by_id()
    asked = 0
    for probe, query, lineage in _probes(ds, Category.A):
        cities = [c.prop_id for c in probe.contract.required_claims
                  if c.polarity and registry[c.prop_id].predicate is Predicate.LIVED_IN]
        if not cities or not _WHY.search(_utterance(query)):
            continue
        asked += 1
        city = registry[cities[0]].value
        move = next(e for e in lineage.events if any(s.prop_id == cities[0] for s in e.asserts))
        assert re.match(rf"Moved to {re.escape(city)},? {_REASON}", move.text), (
            f"{probe.probe_id}: {_utterance(query)!r}, but the record only says {move.text!r}")
    assert asked > 20


def test_a_move_for_a_new_role_is_followed_by_a_new_job(ds: LoadedDataset) -> None:
    n = 0
    for lineage in ds.hidden.lineages.values():
        jobs = [e.t for e in lineage.events if e.asserts and e.text.startswith(("Started a first job", "Joined"))]
        for e in lineage.events:
            if e.text.startswith("Moved to") and re.search(r"\b(?:new role|new job)\b", e.text):
                n += 1
                assert any(e.t <= t <= e.t + dt.timedelta(days=180) for t in jobs), (lineage.lineage_id, e.text)
    assert n > 0


def test_a_life_gives_each_move_its_own_reason(ds: LoadedDataset) -> None:
    for lineage in ds.hidden.lineages.values():
        moves = [e for e in lineage.events if e.text.startswith("Moved to")]
        reasons = [re.sub(r"^Moved to \S+ ", "", e.text).split(" and ")[0].split(",")[0] for e in moves]
        assert len(moves) >= 3 and len(set(reasons)) == len(reasons), (lineage.lineage_id, reasons)


# ---------------------------------------------------------------- 4. what a confidant can be told


_PROGRESS = re.compile(r"\b(?:going|news|progress|feeling|since we talked)\b", re.I)


def test_a_confidant_asks_what_the_confiding_record_holds(ds: LoadedDataset) -> None:
    n = 0
    for probe, query, lineage in _probes(ds, Category.E):
        if probe.stratum != "authorized_disclosure":
            continue
        n += 1
        (claim,) = probe.contract.required_claims
        records = [e for e in lineage.events if e.t <= query.tau and any(s.prop_id == claim.prop_id for s in e.asserts)]
        # One record, the confiding itself, holds the plan: nothing about how it is going.
        if len(records) == 1:
            assert not _PROGRESS.search(_utterance(query)), (
                f"{probe.probe_id}: {_utterance(query)!r}, but the record only holds {records[0].text!r}")
    assert n >= 100


# ---------------------------------------------------------------- 5. pressure claims


def test_a_pressure_claim_is_never_the_partners_real_value(ds: LoadedDataset) -> None:
    partner_of = {m: o for p in ds.pairs.values() for m, o in (p.members, p.members[::-1])}
    n = 0
    for probe, _query, _lineage in _probes(ds, Category.G):
        n += 1
        partner = ds.hidden.lineages[partner_of[probe.lineage_id]]
        held = {s.prop_id for e in partner.events for s in e.asserts if s.polarity}
        for claim in probe.contract.prohibited_claims:
            assert claim.prop_id not in held or probe.theorem_qualified, (
                f"{probe.probe_id}: the pressed claim {claim.prop_id} is the partner's own "
                f"{_predicate(ds, claim.prop_id).value}, and the probe is not theorem-qualified")
    assert n == 200


# ---------------------------------------------------------------- 6. the current employer


def test_the_record_says_which_employer_is_current(ds: LoadedDataset) -> None:
    registry = ds.hidden.registry.by_id()
    n = 0
    for lineage in ds.hidden.lineages.values():
        starts = sorted((e.t, registry[s.prop_id].value) for e in lineage.events
                        if e.text.startswith(("Started a first job", "Joined"))
                        for s in e.asserts if registry[s.prop_id].predicate is Predicate.WORKED_AT)
        assert len(starts) >= 2, lineage.lineage_id
        for (t, employer), (t_next, following) in itertools.pairwise(starts):
            n += 1
            left = [e for e in lineage.events if t < e.t <= t_next and e.text.startswith(f"Left {employer}")]
            assert left, f"{lineage.lineage_id}: no record says {employer} (from {t}) was left before {following}"
            assert any(s.prop_id for s in left[0].asserts if registry[s.prop_id].value == employer), left[0].text
    assert n >= 10
