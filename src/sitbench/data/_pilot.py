"""The hand-authored reference pilot (the seed paper's two-pair reference fixture; docs/concepts.md)."""

from __future__ import annotations

from sitbench.data._pilot_lineages import pilot_lineages
from sitbench.data._pilot_probes import pilot_probes
from sitbench.data._pilot_registry import pilot_registry
from sitbench.data._write import DatasetContent, certify_pair


def pilot_content() -> DatasetContent:
    """2 collision pairs, 4 lineages, 34 propositions, 22 probes (10 theorem-qualified)."""
    mara_a, mara_b, aoife_a, aoife_b = pilot_lineages()
    probes, queries = pilot_probes()
    pairs = [
        certify_pair("PAIR-1", mara_a, mara_b, "pilot", "Same Montana resume; robotics in Seattle vs "
                     "cryptography in Zurich and Kyoto."),
        certify_pair("PAIR-2", aoife_a, aoife_b, "pilot", "Same Cork teacher resume; Lisbon vs Nairobi."),
    ]
    return DatasetContent(suite="pilot", seed=None, registry=pilot_registry(),
                          lineages=[mara_a, mara_b, aoife_a, aoife_b], pairs=pairs, probes=probes, queries=queries)
