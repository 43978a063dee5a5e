"""The dev suite (5 pairs) passes all 19 integrity checks and has the exact design shape."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from sitbench.lineage import profile_at, run_checks, serialize_profile
from sitbench.schema import Category
from sitbench.stores import load_dataset

PER_LINEAGE = {"A": 30, "B": 30, "C": 25, "D": 25, "E": 25, "F": 25, "G": 20, "H": 20}


def test_all_integrity_checks_pass(dev_suite: Path) -> None:
    rows = run_checks(load_dataset(dev_suite))
    assert [r.id for r in rows] == [f"inv{i}" for i in range(1, 20)]
    assert [r.id for r in rows if not r.passed] == []


def test_shape_counts_and_splits(dev_suite: Path) -> None:
    ds = load_dataset(dev_suite)
    assert (len(ds.pairs), len(ds.hidden.lineages), len(ds.hidden.probes)) == (5, 10, 2000)
    per = Counter((p.lineage_id, p.category.value) for p in ds.hidden.probes.values())
    for lineage_id in ds.hidden.lineages:
        assert {c: per[(lineage_id, c)] for c in "ABCDEFGH"} == PER_LINEAGE
    for lin in ds.hidden.lineages.values():
        assert 250 <= len(lin.events) <= 500
        assert len(lin.checkpoints) == 5
    assert {p.split for p in ds.pairs.values()} == {"dev"}
    manifest = json.loads((dev_suite / "manifest.json").read_text())
    assert manifest["counts"]["probes"] == 2000 and manifest["seed"] == 1
    assert manifest["counts"]["rejected_pairs"] == sum(
        v for k, v in manifest["counts"].items() if k.startswith("rejected_") and k != "rejected_pairs")


def test_pairs_collide_on_the_profile_and_differ_in_history(dev_suite: Path) -> None:
    ds = load_dataset(dev_suite)
    for pair in ds.pairs.values():
        a, b = (ds.hidden.lineages[m] for m in pair.members)
        assert a.checkpoints == b.checkpoints
        for t in a.checkpoints:
            assert serialize_profile(profile_at(a, t)) == serialize_profile(profile_at(b, t))
        assert [e.text for e in a.events] != [e.text for e in b.events]
        # A profile-level transition is one shared event, on the same date, in both members.
        assert [(e.t, e.text) for e in a.events if e.kind.value == "profile"] == \
               [(e.t, e.text) for e in b.events if e.kind.value == "profile"]
    aliases = {ds.hidden.lineages[p.members[0]].invariants.alias for p in ds.pairs.values()}
    assert len(aliases) == 5


def test_theorem_qualified_partners_share_the_query_and_sit_in_the_pair(dev_suite: Path) -> None:
    ds = load_dataset(dev_suite)
    pair_of = {m: p.pair_id for p in ds.pairs.values() for m in p.members}
    tq = [p for p in ds.hidden.probes.values() if p.theorem_qualified]
    assert len(tq) > 500
    for probe in tq:
        partner = ds.hidden.probes[probe.partner_probe_id]
        assert pair_of[partner.lineage_id] == pair_of[probe.lineage_id] != None  # noqa: E711
        assert partner.lineage_id != probe.lineage_id
        qa, qb = ds.visible.queries[probe.query_key], ds.visible.queries[partner.query_key]
        assert qa.turns[-1] == qb.turns[-1] and qa.interlocutor == qb.interlocutor
    # Every theorem-qualified category is represented.
    assert {p.category for p in tq} >= {Category.A, Category.B, Category.C, Category.H}


def test_epistemic_graph_and_provenance_variety(dev_suite: Path) -> None:
    ds = load_dataset(dev_suite)
    provenances = {a.provenance.value for lin in ds.hidden.lineages.values() for a in lin.acquisitions}
    assert provenances >= {"course", "reading", "practice", "observation", "conversation", "training", "travel",
                           "tool_use"}
    props = ds.hidden.registry.by_id()
    for probe in ds.hidden.probes.values():
        if probe.category is Category.C and "ABSTAIN" in [a.value for a in probe.contract.required_acts]:
            lineage = ds.hidden.lineages[probe.lineage_id]
            classes = {props[c.prop_id].equivalence_class for c in probe.contract.prohibited_claims}
            acquired = {props[a.prop_id].equivalence_class for a in lineage.acquisitions}
            assert not classes & acquired, probe.probe_id  # never acquired anywhere in the lineage


def test_datasheet_lists_counts_seeds_hashes_and_calibration(dev_suite: Path) -> None:
    sheet = (dev_suite / "DATASHEET.md").read_text()
    manifest = json.loads((dev_suite / "manifest.json").read_text())
    assert "| A | " in sheet and "## Substrate calibration" in sheet and "## Seeds" in sheet
    for path, digest in manifest["files"].items():
        assert f"`{path}`: `{digest}`" in sheet
    # Per-category rows of the checkpoint table add up to the category totals.
    for cat, total in {"A": 300, "H": 200}.items():
        row = next(line for line in sheet.splitlines() if line.startswith(f"| {cat} |"))
        cells = [int(x) for x in row.strip("| ").split(" | ")[1:]]
        assert sum(cells[:5]) == cells[5] == total
