"""Scored run directories over a generated suite's probes, with verdicts drawn from a seed.

The probes (pair, lineage, category, stratum, theorem-qualified) are those of ``sitbench.data``'s generator;
the verdicts are written here, so a test knows every difference it planted.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sitbench.candidates import DecodingConfig
from sitbench.data import generate_content
from sitbench.runs import RunManifest, ScoreRecord
from sitbench.schema import Category, CheckResult, Observation, Verdict

CHECKS = ("act", "required", "forbidden", "uncertainty", "provenance", "disclosure", "grounding")
FINGERPRINT = "5e" * 32

Outcome = bool | Literal["dropped", "unscored"]
"""A trial's verdict (valid or not), or a trial that was dropped or could not be read."""


@dataclass(frozen=True)
class Probe:
    probe_id: str
    pair_id: str
    lineage_id: str
    category: Category
    stratum: str | None
    theorem_qualified: bool


def suite_probes(suite: str = "e6", seed: int = 1) -> list[Probe]:
    """The probes of a generated suite (e6: 20 pairs, 1,440 probes), without writing the dataset."""
    content = generate_content(suite, seed)
    pair_of = {member: pair.pair_id for pair in content.pairs for member in pair.members}
    return [Probe(p.probe_id, pair_of[p.lineage_id], p.lineage_id, p.category, p.stratum, p.theorem_qualified)
            for p in content.probes]


def draw(probes: Iterable[Probe], seed: int, p_valid: float = 0.75) -> dict[str, Outcome]:
    """Independent verdicts: each probe valid with probability ``p_valid``."""
    rng = random.Random(seed)
    return {p.probe_id: rng.random() < p_valid for p in probes}


def _verdict(failing: tuple[str, ...]) -> Verdict:
    return Verdict(valid=not failing, verifier_version="test-verifier/1",
                   checks={name: CheckResult(passed=name not in failing) for name in CHECKS})


def record(probe: Probe, config: str, outcome: Outcome, failing: tuple[str, ...] = ("act", "required")) -> ScoreRecord:
    """One score record; an invalid verdict fails ``failing`` and raises the category's diagnostic flag."""
    done = not isinstance(outcome, str)
    valid = outcome is True
    bad = done and not valid
    return ScoreRecord(
        trial_id=f"{config}:{probe.probe_id}", config=config, probe_id=probe.probe_id, lineage_id=probe.lineage_id,
        pair_id=probe.pair_id, category=probe.category, stratum=probe.stratum,
        theorem_qualified=probe.theorem_qualified, capability="IDENTITY_ONLY",
        status="completed" if done else outcome,  # type: ignore[arg-type]
        unscored_reason="extractor unavailable: test" if outcome == "unscored" else None,
        observation=Observation(acts=[], verifier_version="test-verifier/1") if done else None,
        verdict=_verdict(() if valid else failing) if done else None,
        partner=_verdict(("act",) if valid else ()) if done and probe.theorem_qualified else None,
        false_memory=bad and probe.category in (Category.B, Category.G),
        temporal_leak=bad and probe.category is Category.D and probe.stratum == "pre",
        unauthorized_epistemic=bad and probe.category is Category.C,
    )


def write_run(directory: Path, probes: list[Probe], arms: Mapping[str, Mapping[str, Outcome]], *,
              fingerprint: str = FINGERPRINT, failing: Mapping[str, tuple[str, ...]] | None = None) -> Path:
    """A scored run directory holding one configuration per entry of ``arms`` (config → probe → outcome)."""
    directory.mkdir(parents=True)
    manifest = RunManifest(
        run_id=f"run-{directory.name}", created_at="2026-01-01T00:00:00+00:00", package_version="0.0.0",
        dataset={"suite": "e6", "seed": 1, "manifest_sha256": fingerprint, "path": "data/e6"},
        configs=list(arms), candidate={"spec": "mock/test", "provider": "mock"}, decoding=DecodingConfig(),
        verifier_version="test-verifier/1", templates_sha256="cd" * 32,
    )
    (directory / "manifest.json").write_text(manifest.model_dump_json(indent=1), encoding="utf-8")
    lines = [record(p, config, outcomes[p.probe_id], (failing or {}).get(p.probe_id, ("act", "required")))
             .model_dump_json() + "\n" for config, outcomes in arms.items() for p in probes]
    (directory / "scores.jsonl").write_text("".join(lines), encoding="utf-8")
    return directory
