"""A handful of probes to try a model on first: ``run --probes ID,…`` and ``run --limit N``.

The same probes go to every configuration, so the configurations stay comparable. A theorem-qualified
probe is drawn together with its partner (the same query asked of the collision partner), so LAA and
IC are computed on whole pairs; the draw is stratified by probe category and seeded, and the run's
manifest records the selection, which makes the run *partial*: ``merge`` refuses it beside a full run.
"""

from __future__ import annotations

import random
from collections import defaultdict

from sitbench.errors import InputError
from sitbench.runs._records import ProbeSelection
from sitbench.stores import LoadedDataset


def _units(ds: LoadedDataset) -> list[list[str]]:
    """The drawable units in the dataset's order: a theorem-qualified probe with its partner, or one probe."""
    probes = ds.hidden.probes
    seen: set[str] = set()
    units: list[list[str]] = []
    for probe_id, probe in probes.items():
        if probe_id in seen:
            continue
        unit = [probe_id]
        partner = probe.partner_probe_id
        if probe.theorem_qualified and partner in probes and partner not in seen:
            unit.append(partner)
        seen.update(unit)
        units.append(unit)
    return units


def select_probes(ds: LoadedDataset, *, probes: str | None = None, limit: int | None = None,
                  seed: int = 0) -> ProbeSelection | None:
    """The probes of ``--probes`` (with their partners) or a seeded draw of ``--limit`` probes; None for neither.

    Args:
        ds: the dataset.
        probes: comma-separated probe ids.
        limit: how many probes to draw (a theorem-qualified probe comes with its partner, so a draw may hold one
            probe fewer than ``limit`` rather than split a pair).
        seed: the seed of the draw.

    Returns:
        The selection, or None when neither option is given.

    Raises:
        InputError: both options, an unknown probe id, or a limit below 1.
    """
    if probes is not None and limit is not None:
        raise InputError("--probes and --limit: give one (the probes to run, or how many to draw)")
    if probes is not None:
        return _named(ds, probes)
    if limit is None:
        return None
    if limit < 1:
        raise InputError(f"--limit {limit}: give a number of probes of at least 1 (or leave it out for all)")
    by_category: dict[str, list[list[str]]] = defaultdict(list)
    for unit in _units(ds):
        by_category[ds.hidden.probes[unit[0]].category.value].append(unit)
    rng = random.Random(f"sitbench-limit/{seed}")
    for category in sorted(by_category):
        rng.shuffle(by_category[category])
    chosen: set[str] = set()
    # Round robin over the categories: each gets its next unit while it fits, so a few probes cover every
    # category before any gets a second.
    progressing = True
    while progressing:
        progressing = False
        for category in sorted(by_category):
            queue = by_category[category]
            while queue and len(chosen) + len(queue[0]) > limit:
                queue.pop(0)
            if queue:
                chosen.update(queue.pop(0))
                progressing = True
    if not chosen:
        raise InputError(f"--limit {limit}: too few for one probe with its collision partner; use --limit 2 or more")
    order = [p for p in ds.hidden.probes if p in chosen]
    return ProbeSelection(probe_ids=order, limit=limit, seed=seed,
                          rule=f"--limit {limit} --limit-seed {seed}: a seeded draw stratified by probe category, "
                               "theorem-qualified probes with their partners, the same probes for every configuration")


def _named(ds: LoadedDataset, text: str) -> ProbeSelection:
    names = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in names):
        raise InputError(f"--probes {text!r}: an empty item; give comma-separated probe ids such as PR-01,PR-05")
    unknown = [p for p in names if p not in ds.hidden.probes]
    if unknown:
        listed = ", ".join(list(ds.hidden.probes)[:3])
        raise InputError(f"--probes: {', '.join(unknown)} not in the dataset (its probe ids look like {listed}; "
                         "`sitbench show DATASET ID` shows one)")
    chosen = set(names)
    for name in names:
        probe = ds.hidden.probes[name]
        if probe.theorem_qualified and probe.partner_probe_id in ds.hidden.probes:
            chosen.add(probe.partner_probe_id)
    order = [p for p in ds.hidden.probes if p in chosen]
    added = len(chosen) - len(set(names))
    return ProbeSelection(probe_ids=order, rule=f"--probes {','.join(names)}" + (
        f" and the collision partners of its theorem-qualified probes ({added} added)" if added else ""))
