"""Phase discipline (seed §8.3): held-out audit findings never modify extractor rules.

A development audit calibrates the extractor: its adjudicated items may become development corpus
lines or regression cases. A held-out audit is a post-freeze measurement only: every tool that would
feed its items back into the extractor's development material refuses, by calling
:func:`require_development` first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sitbench.errors import InputError


class PhaseError(InputError):
    """Held-out audit material offered where only development material may go."""


def phase_of(record: Any) -> str | None:
    """The phase of a sample, reference, annotation or verifier result (model or parsed JSON)."""
    if isinstance(record, dict):
        return record.get("phase")
    return getattr(record, "phase", None)


def require_development(record: Any, purpose: str) -> None:
    """Refuse held-out (or unlabelled) audit material for ``purpose``.

    Raises:
        PhaseError: the record is of a held-out audit, or carries no phase.
    """
    phase = phase_of(record)
    if phase == "heldout":
        raise PhaseError(f"{purpose}: refused: these are held-out audit items (phase 'heldout'); held-out audit "
                         "findings never modify extractor rules, the development corpus or the regression tests "
                         "(seed §8.3). Only a development-phase audit (audit sample --phase dev) may feed them")
    if phase != "dev":
        raise PhaseError(f"{purpose}: refused: the audit file records no development phase (phase {phase!r})")


def require_development_file(path: Path, purpose: str) -> dict[str, Any]:
    """Read an audit JSON file (sample, reference or verifier result) and refuse a held-out one."""
    from sitbench.stores import read_json

    data = read_json(path)
    if not isinstance(data, dict) or not str(data.get("format", "")).startswith("sitbench-audit-"):
        raise InputError(f"{path}: not an audit file (no sitbench-audit-* format field)")
    require_development(data, purpose)
    return data
