"""Small builders for hand-written score records."""

from __future__ import annotations

from sitbench.runs import ScoreRecord
from sitbench.schema import Category, Observation, Verdict

PAIR_OF = {"L-1A": "P1", "L-1B": "P1", "L-2A": "P2", "L-2B": "P2", "L-3A": "P3", "L-3B": "P3"}

_counter = {"n": 0}


def verdict(valid: bool) -> Verdict:
    return Verdict(valid=valid, checks={}, verifier_version="t")


def rec(
    lineage: str,
    category: str,
    valid: bool | None,
    *,
    config: str = "B",
    stratum: str | None = None,
    partner: bool | None = None,
    false_memory: bool = False,
    temporal_leak: bool = False,
    unauthorized_epistemic: bool = False,
    trial: str | None = None,
) -> ScoreRecord:
    """One score record; ``valid=None`` makes a dropped trial, ``partner`` makes it theorem-qualified."""
    _counter["n"] += 1
    probe = trial or f"PR-{_counter['n']:04d}"
    dropped = valid is None
    return ScoreRecord(
        trial_id=f"{config}:{probe}",
        config=config,
        probe_id=probe,
        lineage_id=lineage,
        pair_id=PAIR_OF[lineage],
        category=Category(category),
        stratum=stratum,
        theorem_qualified=partner is not None,
        capability="IDENTITY_ONLY",
        status="dropped" if dropped else "completed",
        observation=None if dropped else Observation(acts=[], verifier_version="t"),
        verdict=None if dropped else verdict(bool(valid)),
        partner=None if dropped or partner is None else verdict(partner),
        false_memory=false_memory,
        temporal_leak=temporal_leak,
        unauthorized_epistemic=unauthorized_epistemic,
    )
