"""Histories that read like lives: few repeats, articles by sound, no anachronisms, places that fit their
activities, occupation-consistent work, sessions numbered in date order."""

from __future__ import annotations

import calendar
import datetime as dt
import random
import re
from pathlib import Path

import pytest

from sitbench.data._generator import _events as EV
from sitbench.data._generator import _vocab as V
from sitbench.data._generator._text import article_errors, indefinite_article, with_article
from sitbench.stores import load_dataset


@pytest.mark.parametrize(("phrase", "article"), [
    ("hour", "an"), ("honest mistake", "an"), ("heir", "an"), ("university", "a"), ("unicorn", "a"),
    ("unimportant detail", "an"), ("user", "a"), ("usual", "a"), ("utter mess", "an"), ("usher", "an"),
    ("European city", "a"), ("one-off", "a"), ("onion", "an"), ("MRI scan", "an"), ("FBI agent", "an"),
    ("UFO", "a"), ("BSc in Nursing", "a"), ("MArch in Architecture", "an"), ("X-ray", "an"), ("U-turn", "a"),
    ("NASA engineer", "a"), ("8-week course", "an"), ("11-year-old", "an"), ("18th birthday", "an"),
    ("110 metres", "a"), ("archery certificate", "an"), ("optics enthusiast", "an"), ("accountant", "an"),
    ("associate architect", "an"), ("registered nurse", "a"), ("yacht", "a"), ("hotel", "a"), ("McDonald", "a"),
])
def test_indefinite_article_goes_by_sound(phrase: str, article: str) -> None:
    assert indefinite_article(phrase) == article
    assert with_article(phrase) == f"{article} {phrase}"


def test_article_errors_finds_each_wrong_article() -> None:
    assert article_errors("Met a optics enthusiast an hour after an university talk. A apple.") == [
        "a optics", "an university", "A apple"]
    assert article_errors("Waited an hour for a university bus and an MRI scan.") == []


def test_era_markers_flag_records_out_of_their_time() -> None:
    assert EV.era_violations("Made a mixtape of favourite songs for Jo.", 2015)
    assert EV.era_violations("Had a long video call with Jo.", 1995)
    assert EV.era_violations("Settled on a view: social media is harmful for teenagers.", 1992)
    assert EV.era_violations("Had a long video call with Jo.", 2015) == []
    assert EV.era_violations("Wrote a long letter to an old schoolfriend.", 1990) == []


def test_every_activity_keeps_inside_its_era_markers() -> None:
    """An activity's year window lies inside the window of every era word its texts carry."""
    for activity in _all_activities():
        for text in [activity.text] + [activity.text.replace("{detail}", d) for d in activity.details]:
            for lo, hi in (activity.years[0], activity.years[1]), :
                assert not EV.era_violations(text, max(lo, 1986)), (text, activity.years)
                assert not EV.era_violations(text, min(hi, 2026)), (text, activity.years)


def _all_activities() -> list[EV.Activity]:
    acts = list(EV.EVERYDAY) + list(EV.STUDENT_LIFE)
    for group in (*EV.STUDENT_EVENTS.values(), *EV.HOBBY_EVENTS.values(), *EV.WORK_EVENTS.values()):
        acts += list(group)
    return acts


def test_each_occupation_has_its_own_work_and_study_pools() -> None:
    office_only = re.compile(r"all-hands|quarterly report|retrospective|code|sprint", re.I)
    for occ in V.OCCUPATIONS:
        assert len(EV.WORK_EVENTS[occ.title]) >= 10, occ.title
        assert EV.STUDENT_EVENTS[occ.student], occ.student
        if occ.title != "software engineer":
            assert not [a.text for a in EV.WORK_EVENTS[occ.title] if office_only.search(a.text)], occ.title
        assert any(a.stages == (EV.Stage.SENIOR,) for a in EV.WORK_EVENTS[occ.title]), occ.title
    assert set(EV.HOBBY_EVENTS) == set(V.HOBBIES)


def test_field_phrases_carry_one_of_their_own_forms() -> None:
    for occ in V.OCCUPATIONS:
        for fld in occ.fields:
            assert any(re.search(rf"(?<![\w]){re.escape(f)}", fld.phrase) for f in fld.forms), fld.phrase


def _moments(rng: random.Random, n: int) -> list[EV.Moment]:
    towns = list(V.CITIES) + [h for h, _ in V.HOMETOWNS]
    out = []
    for _ in range(n):
        occ = rng.choice(V.OCCUPATIONS)
        t = dt.date(1986, 1, 1) + dt.timedelta(days=rng.randrange(40 * 365))
        out.append(EV.Moment(t=t, stage=rng.choice(list(EV.Stage)), occupation=occ.title, student=occ.student,
                             residence=rng.choice(towns + [None]), people=("Jo", "Sam")[:rng.randrange(3)],
                             hobbies=tuple(rng.sample(V.HOBBIES, 3)), coastal_places=V.COASTAL,
                             southern_places=V.SOUTHERN, tropical_places=V.TROPICAL))
    return out


def test_composed_texts_fit_their_date_place_and_stage() -> None:
    rng = random.Random(7)
    coastal = [p.phrase for p in EV.PLACES if p.coastal]
    checked = 0
    for m in _moments(rng, 3000):
        for work in (False, True):
            if work and m.stage not in EV.EMPLOYED:
                assert EV.compose(rng, m, True, set(), set()) is None or m.stage in EV.EMPLOYED
                continue
            candidates = EV.pool(m, work)
            if not candidates:
                continue
            activity = rng.choice(candidates)
            text = EV.realize(rng, activity, m)
            checked += 1
            assert "{" not in text and "  " not in text and text.endswith("."), text
            assert not article_errors(text), text
            assert not EV.era_violations(text, m.t.year), (m.t, text)
            for day in calendar.day_name:
                if re.search(rf"\b{day}\b", text):
                    assert day == calendar.day_name[m.t.weekday()], (m.t, text)
            for month in calendar.month_name[1:]:
                if re.search(rf"\b{month}\b", text):
                    assert month == calendar.month_name[m.t.month], (m.t, text)
            if activity.places:
                fitting = [p.phrase for p in EV.places_for(activity, m)]
                assert any(p in text for p in fitting), (activity.text, text)
            if not m.coastal:
                assert not any(p in text for p in coastal), (m.residence, text)
            if "blackberries" in text:
                assert m.residence not in V.TROPICAL and (m.t.month in (8, 9) if m.residence not in V.SOUTHERN
                                                          else m.t.month in (2, 3)), (m, text)
            if work:
                assert activity in EV.WORK_EVENTS[m.occupation]
            if m.stage is not EV.Stage.STUDENT:
                assert "lectures" not in text and "classmates" not in text, text
    assert checked > 3000


def test_places_are_typed_so_walks_go_along_paths() -> None:
    walks = [p.phrase for p in EV.PLACES if EV.Kind.WALK in p.kinds]
    assert "a corner café" not in walks and "the covered market" not in walks
    forage = {p.phrase for p in EV.PLACES if EV.Kind.FORAGE in p.kinds}
    assert forage and not forage & {p.phrase for p in EV.PLACES if EV.Kind.MARKET in p.kinds or EV.Kind.CAFE in p.kinds}


def _forms(root: Path) -> list[str]:
    ds = load_dataset(root)
    forms = {f.lower() for p in ds.hidden.registry.propositions for f in p.surface_forms if "+" not in f}
    forms |= {b.keyword.lower() for b in V.BELIEFS} | {o.lower() for o in V.PROJECT_OBJECTS}
    return sorted(forms)


def test_generated_histories_read_like_lives(dev_suite: Path) -> None:
    ds = load_dataset(dev_suite)
    forms = [re.compile(r"(?<![\w])" + re.escape(f) + r"(?:s|es|ed|ing|ers?)?(?![\w])") for f in _forms(dev_suite)]
    stances = {text: (b, i) for b in V.BELIEFS for i, (text, _) in enumerate(b.stances)}
    for lin in ds.hidden.lineages.values():
        texts = [e.text for e in lin.events]
        assert len(set(texts)) / len(texts) >= 0.95, lin.lineage_id
        known = {r.interlocutor_id: min(v.t for v in r.versions) for r in lin.relationships}
        start = next(e.t for e in lin.events if e.kind.value == "profile")
        first = min(e.t for e in lin.events if not e.text.startswith("Born"))
        assert all(V.HOBBY_SINCE.get(h, 0) <= first.year for h in lin.invariants.hobbies)
        for e in lin.events:
            assert not article_errors(e.text), e.text
            assert not EV.era_violations(e.text, e.t.year), (e.t, e.text)
            if e.kind.value == "belief":
                belief, i = stances[e.text.rsplit(": ", 1)[-1].rstrip(".")]
                assert belief.stance_since(i) <= e.t.year, (e.t, e.text)
            for who in e.participants:
                assert known[who] <= e.t, (e.t, e.text)
            if not e.asserts and not e.text.startswith(("Graduated", "Completed a", "Completed an")):
                low = e.text.lower()
                assert not [f.pattern for f in forms if f.search(low)], e.text
            if e.t < start:
                assert e.text not in V.WORK_EVERYDAY, e.text
        sessions = sorted((e.t, int(e.session_id[1:])) for e in lin.events if e.session_id)
        assert [k for _, k in sessions] == sorted(k for _, k in sessions), lin.lineage_id
