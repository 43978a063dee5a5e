"""Store 2: hidden lineages, the proposition registry and probe contracts (evaluator-only)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sitbench._names import check_name
from sitbench.errors import InputError
from sitbench.schema import Lineage, Probe, Registry
from sitbench.stores._io import iter_jsonl, load_model
from sitbench.stores._layout import LINEAGES_DIR, PROBES, REGISTRY, require_dataset_dir


@dataclass(frozen=True)
class HiddenStore:
    """Evaluator-only data: never passed to a prompt builder or the extractor as a whole."""

    registry: Registry
    """The shared proposition registry."""
    lineages: dict[str, Lineage]
    """Lineage id → lineage."""
    probes: dict[str, Probe]
    """Probe id → probe, in file order."""
    probe_lines: dict[str, int]
    """Probe id → line number in probes.jsonl (for error messages)."""


def load_hidden(root: Path) -> HiddenStore:
    """Load store 2 from a dataset directory."""
    root = require_dataset_dir(root)
    registry = load_model(root / REGISTRY, Registry, REGISTRY)
    lineage_dir = root / LINEAGES_DIR
    if not lineage_dir.is_dir():
        raise InputError(f"{root / LINEAGES_DIR}: missing; the dataset has no hidden lineage store")
    lineages: dict[str, Lineage] = {}
    for path in sorted(lineage_dir.glob("*.json")):
        rel = f"{LINEAGES_DIR}/{path.name}"
        lineage = load_model(path, Lineage, rel)
        check_name(lineage.lineage_id, f"{rel}: lineage_id")
        check_name(lineage.subject, f"{rel}: subject")
        if f"{lineage.lineage_id}.json" != path.name:
            raise InputError(f"{rel}: lineage_id {lineage.lineage_id!r} does not match the file name")
        lineages[lineage.lineage_id] = lineage
    probes: dict[str, Probe] = {}
    lines: dict[str, int] = {}
    for number, probe in iter_jsonl(root / PROBES, Probe, PROBES):
        check_name(probe.probe_id, f"{PROBES} line {number}: probe_id")
        check_name(probe.query_key, f"{PROBES} line {number}: query_key")
        if probe.probe_id in probes:
            raise InputError(f"{PROBES} line {number}: probe_id {probe.probe_id!r} is duplicated")
        probes[probe.probe_id] = probe
        lines[probe.probe_id] = number
    return HiddenStore(registry=registry, lineages=lineages, probes=probes, probe_lines=lines)
