"""Oracle evidence selection (configuration I, and perfect handlers for D–H). Evaluator side.

The harness — not the candidate — picks the records of the correct projection H_≤τ that
bear on the probe: every record that asserts a proposition in the same slot family as a
proposition the contract names (so a false premise gets the true slot values), plus the
records the probe's interlocutor shares. It returns record indexes only: the builder
serializes the candidate-visible records, never a label or a contract.
"""

from __future__ import annotations

from sitbench.schema import Lineage, Probe, Query, Registry


def oracle_selection(probe: Probe, query: Query, lineage: Lineage, registry: Registry) -> list[int]:
    """Indexes into the lineage's events (= the subject's records) of the perfectly relevant evidence."""
    props = registry.by_id()
    named = [c.prop_id for c in probe.contract.required_claims + probe.contract.prohibited_claims]
    slots = {props[p].slot for p in named if p in props}
    classes = {props[p].equivalence_class for p in named if p in props and props[p].equivalence_class}
    # Facts the utterance itself names are relevant too (their true values, where the lineage has them).
    utterance = query.turns[query.scored_turn].utterance.lower()
    for prop in registry.propositions:
        if not prop.world_fact and any(f.split("+")[0].strip() in utterance for f in prop.surface_forms):
            slots.add(prop.slot)
    tau = query.tau
    chosen: list[int] = []
    for i, event in enumerate(lineage.events):
        if event.t > tau:
            continue
        for signed in event.asserts:
            asserted = props.get(signed.prop_id)
            if asserted is not None and (asserted.slot in slots
                                         or (asserted.equivalence_class and asserted.equivalence_class in classes)):
                chosen.append(i)
                break
    return chosen
