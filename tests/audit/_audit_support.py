"""Hand-built annotations for the audit tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sitbench.audit import AuditSample, SampleItem
from sitbench.verify import Vocabulary, get_extractor


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


def rule_reading(sample: AuditSample, item: SampleItem) -> dict[str, Any]:
    """The rule extractor's reading of an item, as an annotator would mark it (one claim per proposition)."""
    props = {p.prop_id: p for p in sample.vocabulary.propositions}
    obs = get_extractor("rules").extract(item.response, item.envelope,
                                         Vocabulary([props[p] for p in item.universe], sample.vocabulary.closed_world))
    seen: set[str] = set()
    claims = []
    for c in obs.claims:
        if c.prop_id in seen:
            continue
        seen.add(c.prop_id)
        claims.append({"prop_id": c.prop_id, "polarity": c.polarity, "provenance": c.provenance.value,
                       "mode": "asserted", "span": list(c.span) if c.span[1] > c.span[0] else None})
    unmapped = [{"span": list(u.span), "text": item.response[u.span[0]:u.span[1]], "polarity": u.polarity,
                 "provenance": u.provenance.value, "slot": u.slot, "value": u.value} for u in obs.unmapped
                if u.span[1] > u.span[0] and item.response[u.span[0]:u.span[1]] == u.text]
    return {"acts": [a.value for a in obs.acts], "claims": claims, "unmapped": unmapped,
            "uncertainty": obs.uncertainty.value, "withheld": obs.disclosure.framed_as_withheld}


def rule_lines(sample: AuditSample, name: str, change: dict[str, dict[str, Any]] | None = None,
               synthetic: bool = True) -> list[dict[str, Any]]:
    """A SYNTHETIC annotator who reads every item as the rule extractor does, except the items in ``change``
    (item id → fields that replace the rule reading's)."""
    out = []
    for item in sample.by_position():
        reading = rule_reading(sample, item) | (change or {}).get(item.item_id, {})
        out.append({"format": "sitbench-audit-annotation/1", "sample_id": sample.sample_id, "phase": sample.phase,
                    "annotator": name, "item_id": item.item_id, "synthetic": synthetic, **reading})
    return out
