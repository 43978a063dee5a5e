"""E6 histories of T = 50/100/250/500 events share one query set; the pools keep surface forms apart."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from sitbench.data import generate_content, write_dataset
from sitbench.data._generator import _realize as R
from sitbench.data._generator import _vocab as V
from sitbench.lineage import run_checks
from sitbench.stores import load_dataset


@pytest.fixture(scope="module")
def e6(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("e6") / "e6"
    write_dataset(generate_content("e6", 3), root)
    return root


def test_e6_horizons_and_fixed_query_set(e6: Path) -> None:
    ds = load_dataset(e6)
    assert [r.id for r in run_checks(ds) if not r.passed] == []
    horizon = re.compile(r"T = (\d+) events")
    by_base: dict[str, dict[int, list[str]]] = defaultdict(dict)
    for pair in ds.pairs.values():
        t = int(horizon.search(pair.note).group(1))  # type: ignore[union-attr]
        for member in pair.members:
            assert len(ds.hidden.lineages[member].events) == t
        base = pair.note.split(";")[0]
        first = pair.members[0]
        by_base[base][t] = sorted(
            (q.tau.isoformat(), q.interlocutor.description, q.turns[-1].utterance)
            for p in ds.hidden.probes.values() if p.lineage_id == first
            for q in [ds.visible.queries[p.query_key]])
    assert len(by_base) == 5
    for sets in by_base.values():
        assert sorted(sets) == [50, 100, 250, 500]
        assert sets[50] == sets[100] == sets[250] == sets[500]


def _forms() -> dict[str, str]:
    forms: dict[str, str] = {}

    def put(form: str, owner: str) -> None:
        assert forms.setdefault(form.lower(), owner) == owner, f"{form!r} names {forms[form.lower()]} and {owner}"

    for t in V.TOPICS:
        for f in t.forms:
            put(f, f"knows {t.topic}")
        for f in t.world_forms:
            put(f, f"fact {t.topic}")
    for o in V.OCCUPATIONS:
        for fld in o.fields:
            for f in fld.forms:
                put(f, f"field {fld.value}")
    for city in V.CITIES:
        put(city, f"city {city}")
    for town, _ in V.HOMETOWNS:
        put(town, f"hometown {town}")
    for plan in V.PLANS:
        for f in plan.forms:
            put(f, f"plan {plan.value}")
    return forms


def test_surface_forms_have_one_owner_and_names_are_not_places() -> None:
    forms = _forms()
    people = {n.lower() for n in V.FIRST_NAMES + V.SURNAMES + V.FRIEND_NAMES}
    assert not people & set(forms)
    assert not {c.lower() for c in V.CITIES} & {t.lower() for t, _ in V.HOMETOWNS}


def test_everyday_and_template_text_mentions_no_surface_form() -> None:
    forms = _forms()
    texts = ([t.discipline for t in V.TOPICS] + list(V.EVERYDAY) + list(V.WORK_EVERYDAY) + list(V.EVERYDAY_PLACES)
             + list(V.EVERYDAY_FOOD) + list(V.EVERYDAY_THINGS) + list(V.HOBBIES) + list(V.PROJECT_OBJECTS)
             + list(R.CHILDHOOD) + list(R.MOVE_REASONS) + list(R.TRANSITION_REASONS)
             + [s for b in V.BELIEFS for s, _ in b.stances]
             + [x for v in R.SOURCE_TEMPLATES.values() for x in v] + list(R.ACQUIRED_TEMPLATES.values()))
    for text in texts:
        for form in forms:
            pattern = r"(?<![\w])" + re.escape(form) + r"(?:s|es|ed|ing|ers?)?(?![\w])"
            assert not re.search(pattern, text.lower()), (text, form)


def test_field_phrases_and_nicknames_mention_no_other_surface_form() -> None:
    forms = _forms()
    for o in V.OCCUPATIONS:
        for fld in o.fields:
            for form, owner in forms.items():
                if owner == f"field {fld.value}":
                    continue
                pattern = r"(?<![\w])" + re.escape(form) + r"(?:s|es|ed|ing|ers?)?(?![\w])"
                assert not re.search(pattern, fld.phrase.lower()), (fld.phrase, form)
    words = {w.lower() for w in V.NICKNAME_HEADS + V.NICKNAME_TAILS}
    assert not words & set(forms)
    assert not {w.lower() for w in V.EMPLOYER_STEMS} & set(forms)


def test_topic_questions_carry_their_world_fact_cues() -> None:
    for t in V.TOPICS:
        assert any(f in t.how.lower() for f in t.world_forms), t.topic
        assert re.search(r"\bhow (does|do)\b", t.how, re.I), t.how
        assert t.forms[0] not in t.world_forms
    for b in V.BELIEFS:
        for stance, cue in b.stances:
            assert b.keyword in stance and cue in stance
