"""The extraction universe X_q (Eq. 19): the whole registry, or the propositions the router's domains select."""

from __future__ import annotations

from pathlib import Path

from sitbench.schema import envelope_for
from sitbench.stores import load_dataset
from sitbench.verify import UniversePolicy, extraction_universe, load_judge


def test_routed_universes_are_ordered_subsets_that_keep_both_collision_alternatives(pilot: Path) -> None:
    ds = load_dataset(pilot)
    registry = ds.hidden.registry
    order = [p.prop_id for p in registry.propositions]
    narrower = 0
    for probe in ds.hidden.probes.values():
        query = ds.visible.queries[probe.query_key]
        envelope = envelope_for(query, 0)
        full = extraction_universe(envelope, registry, UniversePolicy.FULL)
        routed = extraction_universe(envelope, registry, UniversePolicy.ROUTED)
        assert [p.prop_id for p in full] == order
        ids = [p.prop_id for p in routed]
        assert ids == [i for i in order if i in set(ids)], probe.probe_id  # registry order, no repeats
        # A collision alternative is never routed without the rest of its equivalence class.
        classes = {p.equivalence_class for p in routed if p.equivalence_class}
        assert {p.prop_id for p in registry.propositions if p.equivalence_class in classes} <= set(ids)
        narrower += len(routed) < len(full)
    assert narrower > 0  # routing does narrow the universe on the pilot


def test_a_judge_under_either_policy_scores_and_names_it(pilot: Path) -> None:
    full, routed = load_judge(pilot), load_judge(pilot, policy=UniversePolicy.ROUTED)
    assert (full.policy, routed.policy) == (UniversePolicy.FULL, UniversePolicy.ROUTED)
    for judge in (full, routed):
        result = judge.judge("PR-01", "I lived in Kyoto for a while, yes.")
        assert result.verdict is not None and result.observation.claims
