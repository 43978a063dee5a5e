"""The registry's further phrasings: several per world fact, distinctive, first-person changes of mind,
and read by the extractor from the registry."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from sitbench.data._generator import _forms
from sitbench.data._generator import _realize as R
from sitbench.data._generator import _vocab as V
from sitbench.schema import Envelope, Predicate, Registry
from sitbench.stores import load_dataset
from sitbench.verify import Vocabulary, extract, extraction_universe


def _mentions(form: str, text: str) -> bool:
    return bool(re.search(r"(?<![\w])" + re.escape(form.lower()) + r"(?:s|es|ed|ing|ers?)?(?![\w])", text.lower()))


def test_every_topic_has_two_further_world_phrasings_of_its_own() -> None:
    topics = {t.topic: t for t in V.TOPICS}
    assert set(_forms.WORLD_FORMS) == set(topics)
    owners: dict[str, str] = {}
    for topic, forms in _forms.WORLD_FORMS.items():
        assert len(set(forms)) >= 2, topic
        for form in forms:
            assert owners.setdefault(form, topic) == topic, f"{form!r} names {owners[form]} and {topic}"
            assert form not in topics[topic].world_forms, (topic, form)
            assert form != topics[topic].forms[0], (topic, form)


def test_world_phrasings_name_no_other_topic_and_appear_in_no_template() -> None:
    templates = (list(V.EVERYDAY) + list(V.WORK_EVERYDAY) + list(V.EVERYDAY_PLACES) + list(V.EVERYDAY_FOOD)
                 + list(V.EVERYDAY_THINGS) + list(V.HOBBIES) + list(V.PROJECT_OBJECTS) + list(R.CHILDHOOD)
                 + list(R.MOVE_REASONS) + list(R.TRANSITION_REASONS) + [s for b in V.BELIEFS for s, _ in b.stances]
                 + [p.confided for p in V.PLANS] + [p.rumour for p in V.PLANS] + [t.discipline for t in V.TOPICS]
                 + [x for v in R.SOURCE_TEMPLATES.values() for x in v] + list(R.ACQUIRED_TEMPLATES.values()))
    for topic in V.TOPICS:
        for form in _forms.WORLD_FORMS[topic.topic]:
            for other in V.TOPICS:
                if other.topic == topic.topic:
                    continue
                for text in (other.topic, other.clause, other.how, other.fact):
                    assert not _mentions(form, text), (topic.topic, form, other.topic, text)
                for known in other.forms + other.world_forms + _forms.WORLD_FORMS[other.topic]:
                    assert not _mentions(known, form), (form, "contains", known)
            for text in templates:
                assert not _mentions(form, text), (form, text)


def test_stance_parts_are_own_words_and_changes_are_first_person() -> None:
    for belief in V.BELIEFS:
        assert set(_forms.STANCE_PARTS[belief.keyword]) == {cue for _, cue in belief.stances}, belief.keyword
        for stance, cue in belief.stances:
            forms = _forms.stance_forms(belief.keyword, stance, cue)
            assert forms[0] == f"{belief.keyword} + {cue}"
            for form in forms[1:]:
                part = form.split(" + ", 1)[1]
                assert part in stance
                assert all(part not in other for other, _ in belief.stances if other != stance), (stance, part)
        for form in _forms.change_forms(belief.keyword):
            assert re.match(r"i('ve)? ", form) and form.endswith(f"+ {belief.keyword}"), form
    with pytest.raises(ValueError, match="STANCE_PARTS"):
        _forms.stance_forms("remote", "remote work is better for deep focus", "weakens")


def test_generated_registry_carries_the_phrasings(dev_suite: Path) -> None:
    ds = load_dataset(dev_suite)
    registry = ds.hidden.registry
    facts = [p for p in registry.propositions if p.world_fact]
    assert facts and all(len(p.surface_forms) >= 3 for p in facts)
    changes = [p for p in registry.propositions if p.predicate is Predicate.STANCE_CHANGE]
    assert changes and all(f.startswith(("i used to think", "i changed", "i've changed")) for p in changes
                           for f in p.surface_forms)
    texts = [e.text for lin in ds.hidden.lineages.values() for e in lin.events]
    extra = {f.lower() for forms in _forms.WORLD_FORMS.values() for f in forms}
    for text in set(texts):
        assert not any(_mentions(f, text) for f in extra), text


def _claims(registry: Registry, utterance: str, response: str) -> set[tuple[str, bool]]:
    env = Envelope(date=dt.date(2015, 6, 1), interlocutor="a stranger at a conference", utterance=utterance)
    observation = extract(response, env, Vocabulary(extraction_universe(env, registry), registry.closed_world))
    return {(c.prop_id, c.polarity) for c in observation.claims}


def test_the_extractor_reads_a_fact_stated_in_another_phrasing(dev_suite: Path) -> None:
    registry = load_dataset(dev_suite).hidden.registry
    topics = {t.topic: t for t in V.TOPICS}
    read = 0
    facts = [p for p in registry.propositions if p.world_fact]
    for fact in facts:
        topic = topics[fact.value]
        for phrase in _forms.WORLD_FORMS[fact.value]:
            response = f"Speaking generally, as general knowledge: it comes down to the {phrase}."
            read += (fact.prop_id, True) in _claims(registry, f"Can you explain how {topic.clause}?", response)
    # Each phrasing alone, in an answer that shares no other word with the fact, is read as the fact.
    assert read >= 0.9 * 2 * len(facts), f"{read} of {2 * len(facts)}"
