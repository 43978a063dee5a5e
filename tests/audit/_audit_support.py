"""Hand-built annotations for the audit tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sitbench.audit import AuditSample


def line(sample: AuditSample, annotator: str, item_id: str, **fields: Any) -> dict[str, Any]:
    """One annotation line (defaults: done, no act, no claim, no uncertainty)."""
    base: dict[str, Any] = {"format": "sitbench-audit-annotation/1", "sample_id": sample.sample_id,
                            "phase": sample.phase, "annotator": annotator, "item_id": item_id, "status": "done",
                            "acts": [], "claims": [], "unmapped": [], "uncertainty": "none", "withheld": False}
    base.update(fields)
    return base


def claim(prop_id: str, polarity: bool = True, provenance: str = "personal_experience", span=None,
          mode: str = "asserted") -> dict[str, Any]:
    return {"prop_id": prop_id, "polarity": polarity, "provenance": provenance, "mode": mode, "span": span}


def write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path

DEMO_RUNS = ("run-collapse", "run-oracle", "run-oracle-perfect")
