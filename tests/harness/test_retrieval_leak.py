"""Configurations E and F on the pilot: E retrieves over H_T (post-τ evidence exposed), F filters
H_≤τ before retrieval (nothing dated after the turn can be retrieved)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitbench.configs import BuildContext, ChronicleRetriever, build_prompt
from sitbench.schema import Category, Probe, Query, Turn
from sitbench.stores import LoadedDataset, load_dataset

ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


@pytest.fixture(scope="module")
def ds(pilot: Path) -> LoadedDataset:
    return load_dataset(pilot)


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> BuildContext:
    return BuildContext(retriever=ChronicleRetriever(cache_dir=tmp_path_factory.mktemp("embeddings")))


def _turns(ds: LoadedDataset) -> Iterator[tuple[Probe, Query, int, Turn]]:
    for probe in ds.hidden.probes.values():
        query = ds.visible.queries[probe.query_key]
        for index, turn in enumerate(query.turns):
            yield probe, query, index, turn


def _evidence_dates(message: str) -> list[str]:
    """Dates inside the RETRIEVED RECORDS block of a serialized E/F prompt."""
    block = message.split("[RETRIEVED RECORDS: ", 1)[1].split("] [ASSISTANT CAPABILITY", 1)[0]
    return ISO_DATE.findall(block)


def test_e_retrieves_the_post_tau_course_for_the_pre_acquisition_probe(ds: LoadedDataset,
                                                                        context: BuildContext) -> None:
    probe = ds.hidden.probes["PR-11"]
    assert (probe.category, probe.stratum) == (Category.D, "pre")
    query = ds.visible.queries[probe.query_key]
    tau = query.turns[-1].t
    assert tau == dt.date(2018, 6, 1)
    build = build_prompt("E", ds.visible.subjects[query.subject], query, len(query.turns) - 1, context)
    records = build.view["records"]
    assert len(records) == 5  # k = 5
    late = [r for r in records if r["t"] > tau.isoformat()]
    # The lattice-signature course (2021) is exactly what the question is about: E surfaces it.
    assert any(r["t"].startswith("2021") and "lattice" in r["text"] for r in late)
    assert any(d > tau.isoformat() for d in _evidence_dates(build.messages[-1].content))
    assert "2021-03-15" in build.messages[-1].content


def test_e_exposes_post_tau_evidence_on_some_pre_acquisition_probe(ds: LoadedDataset,
                                                                    context: BuildContext) -> None:
    leaking = []
    for probe, query, index, turn in _turns(ds):
        if probe.category is Category.D and probe.stratum == "pre":
            build = build_prompt("E", ds.visible.subjects[query.subject], query, index, context)
            if any(r["t"] > turn.t.isoformat() for r in build.view["records"]):
                leaking.append(probe.probe_id)
    assert "PR-11" in leaking


def test_f_never_retrieves_a_record_dated_after_the_turn(ds: LoadedDataset, context: BuildContext) -> None:
    checked = 0
    for probe, query, index, turn in _turns(ds):
        subject = ds.visible.subjects[query.subject]
        build = build_prompt("F", subject, query, index, context)
        when = turn.t.isoformat()
        records = build.view["records"]
        assert records, f"F:{probe.probe_id} turn {index}: nothing retrieved"
        assert all(r["t"] <= when for r in records), f"F:{probe.probe_id} turn {index} retrieved a post-τ record"
        # The serialized prompt (not only the structured twin) carries only dates ≤ the turn's date.
        assert all(d <= when for d in _evidence_dates(build.messages[0].content))
        # A session still running at this turn has not been ingested as a record yet.
        later_session = any(t.session > turn.session for t in query.turns)
        if later_session:
            assert not any(r["kind"] == "session" and r["t"] >= when for r in records)
        checked += 1
    assert checked == 28  # 22 probes + a second turn for PR-05/06/09/10 + two more for PR-21


def test_f_filters_before_ranking(ds: LoadedDataset, context: BuildContext) -> None:
    # F is "same retriever and k over H_≤τ": its five records are the top five of the admissible
    # records in the full ranking, never fewer (a post-filter of E's top five would leave PR-11 with
    # the three pre-2018 records among them).
    assert context.retriever is not None
    probe = ds.hidden.probes["PR-11"]
    query = ds.visible.queries[probe.query_key]
    subject = ds.visible.subjects[query.subject]
    tau = query.turns[-1].t
    full = context.retriever.top_records(subject, query.turns[-1].utterance, len(subject.records), None)
    expected = [i for i in full if subject.records[i].t <= tau][:5]
    f = build_prompt("F", subject, query, 0, context)
    e = build_prompt("E", subject, query, 0, context)
    assert [r["text"] for r in f.view["records"]] == [subject.records[i].text for i in expected]
    assert [r["text"] for r in e.view["records"]] == [subject.records[i].text for i in full[:5]]
    post_filtered = [r for r in e.view["records"] if r["t"] <= tau.isoformat()]
    assert len(post_filtered) < len(f.view["records"]) == 5


def test_e_and_f_agree_when_nothing_is_after_tau(ds: LoadedDataset, context: BuildContext) -> None:
    # PR-12 asks the same question at 2022-06-01, after every record but one of that subject: the
    # lattice course is admissible, and F retrieves it just as E does.
    probe = ds.hidden.probes["PR-12"]
    query = ds.visible.queries[probe.query_key]
    subject = ds.visible.subjects[query.subject]
    f = build_prompt("F", subject, query, 0, context)
    assert any("lattice" in r["text"] for r in f.view["records"])
    assert f.view["records"][0]["t"] == "2021-03-15"
