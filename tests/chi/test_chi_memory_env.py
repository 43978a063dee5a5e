"""The M1–M8 item generators against the panel text of the CHI/CHIS specification v0.1 (§3, §11)."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from sitbench.chi import (
    M8_GRID,
    MEMORY_PANELS,
    Checkpoint,
    Ingest,
    Ticks,
    environment_report,
    generate_memory_panel,
    parse_question,
    parse_record,
)
from sitbench.chi._memory_env import CONFUSABLE, SOURCE_CLASSES, answer_key_hash, items_hash
from sitbench.errors import InputError

SEED = 11


def strata(arm) -> Counter[str]:  # type: ignore[no-untyped-def]
    return Counter(p.stratum for p in arm.probes)


def test_m1_forty_associations_four_delays_disjoint_subsets() -> None:
    # "Ingest 40 independent random associations, reset working context, and probe disjoint subsets after
    # 0, 10, 100 and 1000 intervening events using cloned checkpoints."
    env = generate_memory_panel("m1", SEED)
    (arm,) = env.arms
    study = arm.steps[0]
    assert isinstance(study, Ingest) and len(study.records) == 40
    assert len({r.key for r in study.records}) == 40
    assert strata(arm) == {"delay_0": 10, "delay_10": 10, "delay_100": 10, "delay_1000": 10}
    keys = [p.question for p in arm.probes]
    assert len(set(keys)) == 40  # disjoint subsets: every study item is probed once
    # intervening events before each checkpoint: 0, 10, 100, 1000 (cumulative)
    events, seen = 0, {}
    for step in arm.steps[1:]:
        if isinstance(step, Ingest):
            events += len(step.records)
        elif isinstance(step, Checkpoint):
            seen[step.name] = events
    assert seen == {"delay_0": 0, "delay_10": 10, "delay_100": 100, "delay_1000": 1000}
    # a reset (neutral tick) precedes every checkpoint
    names = [type(s).__name__ for s in arm.steps]
    for k, s in enumerate(arm.steps):
        if isinstance(s, Checkpoint):
            assert names[k - 1] == "Ticks"


def test_m2_forty_dated_events_out_of_order_twenty_order_twenty_asof() -> None:
    # "Store 40 dated events whose ingestion order differs from event order. Ask 20 before/after and
    # 20 as-of queries after context reset." Control: recent/remote and both directions balanced.
    env = generate_memory_panel("m2", SEED)
    (arm,) = env.arms
    recs = arm.records
    assert len(recs) == 40
    assert [r.event_time for r in recs] != sorted(r.event_time for r in recs)
    by_key: dict[tuple[str, str], list] = {}
    for pos, r in enumerate(recs):
        by_key.setdefault(r.key, []).append((pos, r))
    conflicts = sum(1 for v in by_key.values() if v[0][1].event_time > v[1][1].event_time)
    assert conflicts == 10  # half the keys have their later state ingested first
    assert strata(arm) == {"order": 20, "asof": 20}
    order = [p for p in arm.probes if p.stratum == "order"]
    assert Counter(p.key.answer for p in order) == {"A": 10, "B": 10}
    assert Counter(p.meta["ingestion_conflict"] for p in order) == {True: 10, False: 10}
    asof = [p for p in arm.probes if p.stratum == "asof"]
    assert Counter(p.meta["state"] for p in asof) == {"earlier_state": 10, "later_state": 10}
    assert {p.meta["recency"] for p in asof + order} == {"recent", "remote"}
    by_id = {r.record_id: r for r in recs}
    for p in asof:  # the keyed state is the one in effect on the as-of date
        date = dt.date.fromisoformat(parse_question(p.utterance)[1]["date"])  # type: ignore[index]
        gold = by_id[p.evidence[0]]
        assert gold.value == p.key.answer and gold.event_time <= date


def test_m3_thirty_facts_ten_each_kind_current_and_historical() -> None:
    # "30 entity facts: ten valid corrections, ten less-authoritative contradictions, ten unresolved
    # equally authoritative conflicts. Query current and historical states."
    env = generate_memory_panel("m3", SEED)
    (arm,) = env.arms
    recs = arm.records
    assert len({r.key for r in recs}) == 30 and len(recs) == 60
    roles = Counter(r.role for r in recs)
    assert roles == {"target": 30, "correction": 10, "contradiction": 10, "conflict": 10}
    by_key: dict[tuple[str, str], list] = {}
    for r in recs:
        by_key.setdefault(r.key, []).append(r)
    for first, second in by_key.values():
        assert first.event_time < second.event_time  # chronological within the key
        if second.role == "correction":
            assert second.version > first.version and second.authority >= first.authority
            assert second.corrects == first.record_id
        elif second.role == "contradiction":
            assert second.authority < first.authority and second.version > first.version
        else:
            assert (second.authority, second.version) == (first.authority, first.version)
            assert second.value != first.value and second.source_id != first.source_id
    assert strata(arm) == {"correction_current": 10, "lower_authority_current": 10, "unresolved_current": 10,
                           "correction_historical": 10, "lower_authority_historical": 10}
    assert sum(p.key.unresolved for p in arm.probes) == 10
    # control: recency alone must not decide every conflict (the later record wins only for corrections)
    recency_right = sum(1 for p in arm.probes if p.stratum.endswith("_current") and not p.key.unresolved
                        and p.key.answer == p.meta["second_value"])
    assert recency_right == 10


def test_m4_forty_claims_repeated_hypotheses_cross_source() -> None:
    # "40 claims with opaque source IDs, including ten repeated claims from the same source and ten
    # model-generated hypotheses." Control: duplicate wording across sources.
    env = generate_memory_panel("m4", SEED)
    (arm,) = env.arms
    assert len(arm.probes) == 40 and strata(arm) == {"single": 10, "repeated": 10, "cross_source": 10, "hypothesis": 10}
    recs = arm.records
    assert sum(r.status == "hypothesis" for r in recs) == 10
    for p in arm.probes:
        assert p.kind == "source_status" and p.key.sources and p.key.status
        if p.stratum == "repeated":
            assert len(p.evidence) == 2 and len(p.key.sources) == 1
        if p.stratum == "cross_source":
            assert len(p.key.sources) == 2
        if p.stratum == "hypothesis":
            assert p.key.status == "hypothesis"
    dup = Counter((r.key, r.value) for r in recs)
    assert sum(c - 1 for c in dup.values()) == 20  # duplicates add records, not units
    assert environment_report(env)["arms"]["main"]["redundancy"]["duplicate_records"] == 20


def test_m5_forty_records_ten_rules_ten_exceptions_twenty_op_budget() -> None:
    # "Ingest 40 records with ten shared regularities and ten explicit exceptions. Allow a fixed
    # 20-operation consolidation budget, reset context, then query rules and exceptions."
    # Control: checkpoint clones for pre/post probes, equal budgets and a no-consolidation condition.
    env = generate_memory_panel("m5", SEED)
    main, control = env.arms
    assert len(main.records) == 40
    assert Counter(r.role for r in main.records) == {"instance": 30, "exception": 10}
    assert len({r.group for r in main.records}) == 10
    ticks = [s for s in main.steps if isinstance(s, Ticks)]
    assert [t.ops_per_tick for t in ticks] == [20]
    assert [s.name for s in main.steps if isinstance(s, Checkpoint)] == ["pre", "post"]
    assert Counter((p.checkpoint, p.stratum) for p in main.probes) == {
        ("pre", "rule"): 10, ("pre", "exception"): 10, ("post", "rule"): 10, ("post", "exception"): 10}
    assert control.name == "no_consolidation" and [t.ops_per_tick for t in control.steps if isinstance(t, Ticks)] == [0]
    assert [r.text for r in control.records] == [r.text for r in main.records]


def test_m6_sixty_records_twenty_expired_or_revoked() -> None:
    # "Mark 20 of 60 records expired or revoked while retaining 40 valid records. After a scheduled
    # maintenance interval, query all three groups." Expired facts stay valid historically.
    env = generate_memory_panel("m6", SEED)
    (arm,) = env.arms
    units = [r for r in arm.records if r.revokes is None]
    assert len(units) == 60
    revokes = [r for r in arm.records if r.revokes is not None]
    assert len(revokes) == 10 and len({r.revokes for r in revokes}) == 10
    assert sum(r.valid_to is not None for r in units) == 10
    assert any(isinstance(s, Ticks) and s.n > 0 for s in arm.steps)
    assert strata(arm) == {"valid": 40, "expired_current": 10, "expired_historical": 10, "revoked": 10}
    for p in arm.probes:
        if p.stratum in ("expired_current", "revoked"):
            assert p.key.abstain
        else:
            assert p.key.answer is not None


def test_m7_paired_corpora_matched_bytes_and_events() -> None:
    # "paired 40-item corpora, one with unrelated distractors and one with semantically similar conflicting
    # distractors; match bytes and event counts. Probe the same keys on independent clones."
    env = generate_memory_panel("m7", SEED)
    clean, inter = env.arms
    assert (clean.name, inter.name) == ("clean", "interference")
    assert len(clean.records) == len(inter.records) == 120
    assert sum(len(r.text.encode()) for r in clean.records) == sum(len(r.text.encode()) for r in inter.records)
    assert [p.question for p in clean.probes] == [p.question for p in inter.probes] and len(clean.probes) == 40
    targets = {r.key for r in inter.records if r.role == "target"}
    similar = [r for r in inter.records if r.role == "interference"]
    assert len(similar) == 80
    for d in similar:  # same entity with a confusable attribute, or the same attribute of a near name
        assert any((d.entity == e and d.attribute == CONFUSABLE[a]) or (d.attribute == a and d.entity != e
                   and d.entity.split()[0] == e.split()[0]) for e, a in targets)
    assert not any(r.role == "interference" for r in clean.records)


@pytest.mark.parametrize("n", [100, 300, 1000])
def test_m8_corpus_counts_per_load(n: int) -> None:
    # "Each fresh corpus adds N distractor keys, valid updates for 0.2N target keys, and 0.2N
    # lower-authority contradictory records." Six disjoint 40-probe strata.
    env = generate_memory_panel("m8", SEED, grid=[n])
    main, clean = env.arms
    recs = main.records
    roles = Counter(r.role for r in recs)
    assert roles["target"] == n
    assert roles["distractor"] + roles["interference"] == n
    assert roles["update"] == round(0.2 * n) and roles["contradiction"] == round(0.2 * n)
    assert len(recs) == n + n + 2 * round(0.2 * n)
    target_keys = {r.key for r in recs if r.role == "target"}
    distractor_keys = {r.key for r in recs if r.role in ("distractor", "interference")}
    assert len(target_keys) == n and len(distractor_keys) == n and not target_keys & distractor_keys
    updated = {r.key for r in recs if r.role == "update"}
    contradicted = {r.key for r in recs if r.role == "contradiction"}
    assert updated <= target_keys and contradicted <= target_keys and not updated & contradicted
    by_key = {r.key: r for r in recs if r.role == "target"}
    for r in recs:
        if r.role == "contradiction":
            assert r.authority < by_key[r.key].authority and r.event_time > by_key[r.key].event_time
        if r.role == "update":
            assert r.authority >= by_key[r.key].authority and r.version == 2
    assert strata(main) == {s: 40 for s in ("r", "t", "s", "u", "i", "f")}
    assert len({p.probe_id for p in main.probes}) == 240
    assert len({(p.stratum, p.utterance) for p in main.probes}) == 240  # no probe is asked twice
    stored = {r.key for r in recs} | {r.key for r in clean.records}
    for p in main.probes:
        if p.stratum == "f":  # absent lures: never stored in either corpus
            slots = parse_question(p.utterance)[1]  # type: ignore[index]
            assert (slots["entity"], slots["attribute"]) not in stored and p.key.abstain
    assert Counter(p.meta["lure_kind"] for p in main.probes if p.stratum == "f") == {"near_name": 20, "unseen_attribute": 20}
    u = Counter(p.meta["u_kind"] for p in main.probes if p.stratum == "u")
    assert u == {"updated_current": 20, "updated_historical": 10, "contradicted_current": 10}
    # the clean twin: same probed keys, byte- and event-matched, no interfering records
    assert [p.question for p in clean.probes] == [p.question for p in main.probes if p.stratum == "i"]
    assert len(clean.records) == len(recs)
    assert sum(len(r.text.encode()) for r in clean.records) == sum(len(r.text.encode()) for r in recs)
    assert not any(r.role == "interference" for r in clean.records)


def test_m8_default_grid_is_the_v01_load_panel() -> None:
    assert M8_GRID == (100, 300, 1000, 3000, 10000)
    with pytest.raises(InputError, match="below 100"):
        generate_memory_panel("m8", 0, grid=[50])


def test_memory_units_have_every_section_3_field() -> None:
    env = generate_memory_panel("m8", SEED, grid=[100], clean_pair=False)
    for r in env.arms[0].records:
        assert r.entity and r.attribute and r.value and r.source_id and r.event_time and r.valid_from and r.version
        assert r.authority == SOURCE_CLASSES[r.source_class]
        back = parse_record(r.text)
        assert back is not None and back.record_id == r.record_id and back.value == r.value
        assert back.key == r.key and back.authority == r.authority and back.event_time == r.event_time.isoformat()
    keys = [r.key for r in env.arms[0].records if r.role in ("target", "distractor", "interference")]
    assert len(keys) == len(set(keys))  # unique entity/attribute keys
    values = [r.value for r in env.arms[0].records]
    assert len(values) == len(set(values))  # arbitrary values, drawn without replacement


@pytest.mark.parametrize("panel", MEMORY_PANELS)
def test_generators_are_deterministic_by_seed(panel: str) -> None:
    opts = {"grid": [100, 300]} if panel == "m8" else {}
    a = generate_memory_panel(panel, 5, **opts)
    b = generate_memory_panel(panel, 5, **opts)
    c = generate_memory_panel(panel, 6, **opts)
    assert items_hash(a) == items_hash(b) and answer_key_hash(a) == answer_key_hash(b)
    assert [r.text for arm in a.arms for r in arm.records] == [r.text for arm in b.arms for r in arm.records]
    assert items_hash(a) != items_hash(c)
    for arm in a.arms:
        for p in arm.probes:
            assert parse_question(p.utterance) is not None, p.utterance


def test_generator_report_fields() -> None:
    env = generate_memory_panel("m8", SEED, grid=[100])

    class Words:
        name = "whitespace words"

        @staticmethod
        def count_many(texts: list[str]) -> list[int]:
            return [len(t.split()) for t in texts]

    rep = environment_report(env, Words())
    assert len(rep["generator_sha256"]) == 64 and len(rep["items_sha256"]) == 64
    arm = rep["arms"]["N=100"]
    assert arm["stored_objects"] == 240 and arm["keys"] == 200 and arm["versions"] == 220
    assert arm["value_entropy_bits"]["per_value_generator"] == pytest.approx(26.01, abs=0.01)
    assert set(arm["byte_length"]) == {"min", "p10", "p50", "p90", "max", "mean"}
    assert arm["tokens"] == sum(len(r.text.split()) for r in env.arms[0].records)
    assert rep["totals"]["stored_objects"] == 480
    assert arm["relationships"]["lower_authority_contradictions"] == 20
