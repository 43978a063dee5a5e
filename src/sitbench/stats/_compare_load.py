"""Scored runs read into the arms ``sitbench compare`` compares: one per configuration, or the agent.

Every run must be scored and made on the same dataset (the SHA-256 of its manifest.json, as each run
recorded it); the records are reduced, as they are read, to what the comparison needs of each trial.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from sitbench.errors import InputError
from sitbench.runs import RunManifest, RunStore, ScoreRecord
from sitbench.schema import Category
from sitbench.stats._compare_models import CompareArm, DatasetFingerprint

AGENT_CONFIG = "agent"
"""The configuration value of a trial run through an agent."""


class CompareRow(NamedTuple):
    """What the comparison keeps of one score record."""

    probe_id: str
    pair_id: str
    lineage_id: str
    category: Category
    stratum: str | None
    theorem_qualified: bool
    status: str
    valid: bool | None
    partner_valid: bool | None
    false_memory: bool
    temporal_leak: bool
    unauthorized_epistemic: bool
    failed_checks: tuple[str, ...]


@dataclass(frozen=True)
class LoadedArm:
    """One arm: its description and its trials by probe id, in file order."""

    info: CompareArm
    rows: dict[str, CompareRow]


def _row(record: ScoreRecord) -> CompareRow:
    verdict = record.verdict
    failed = tuple(name for name, check in verdict.checks.items() if not check.passed) if verdict else ()
    return CompareRow(
        record.probe_id, record.pair_id, record.lineage_id, record.category, record.stratum,
        record.theorem_qualified, record.status, None if verdict is None else verdict.valid,
        None if record.partner is None else record.partner.valid, record.false_memory, record.temporal_leak,
        record.unauthorized_epistemic, failed,
    )


def _run_names(paths: Sequence[Path]) -> list[str]:
    """Directory names, or the path given where two runs share a name."""
    names = [path.name or str(path) for path in paths]
    return [name if names.count(name) == 1 else str(path) for name, path in zip(names, paths, strict=True)]


def _fingerprint(manifest: RunManifest) -> DatasetFingerprint:
    dataset = manifest.dataset
    seed = dataset.get("seed")
    return DatasetFingerprint(manifest_sha256=dataset.get("manifest_sha256"), suite=dataset.get("suite"),
                              seed=seed if isinstance(seed, int) else None, path=dataset.get("path"))


def _describe(fingerprint: DatasetFingerprint) -> str:
    digest = fingerprint.manifest_sha256
    what = f"manifest SHA-256 {digest[:12]}…" if digest else f"no recorded fingerprint, at {fingerprint.path}"
    return f"dataset {fingerprint.suite or '?'} ({what})"


def _check_same_dataset(first: tuple[Path, DatasetFingerprint], other: tuple[Path, DatasetFingerprint]) -> None:
    (path_a, a), (path_b, b) = first, other
    same = a.manifest_sha256 == b.manifest_sha256 if a.manifest_sha256 or b.manifest_sha256 else a.path == b.path
    if not same:
        raise InputError(
            f"{path_b}: made on {_describe(b)} but {path_a} on {_describe(a)}; compare runs of one dataset: "
            f"run both on the same DATASET (`sitbench run DATASET ... --out RUN`)"
        )


def _open(path: Path) -> RunManifest:
    store = RunStore(path).require()
    manifest = store.manifest()
    if not store.has_scores():
        raise InputError(f"{path}: not scored (no {store.scores_path.name}); score it first with "
                         f"`sitbench score {path}`")
    return manifest


def _arm_rows(path: Path) -> dict[str, dict[str, CompareRow]]:
    """Configuration → probe id → row, in file order."""
    by_config: dict[str, dict[str, CompareRow]] = {}
    for record in RunStore(path).iter_scores():
        by_config.setdefault(str(record.config), {})[record.probe_id] = _row(record)
    return by_config


def _arm_info(label: str, path: Path, manifest: RunManifest, config: str, rows: dict[str, CompareRow]) -> CompareArm:
    statuses = [row.status for row in rows.values()]
    agent = manifest.agent
    model = agent.spec if agent is not None else manifest.candidate.get("spec")
    return CompareArm(
        label=label, run=str(path), run_id=manifest.run_id, config=config,
        agent=agent.info.name if agent is not None and config == AGENT_CONFIG else None,
        model=None if model is None else str(model), verifier_version=manifest.verifier_version,
        attempted=len(statuses), completed=statuses.count("completed"), dropped=statuses.count("dropped"),
        unscored=statuses.count("unscored"),
    )


def _labels(run_name: str, manifest: RunManifest, configs: Sequence[str]) -> list[str]:
    agent_name = manifest.agent.info.name if manifest.agent is not None else AGENT_CONFIG
    return [agent_name if config == AGENT_CONFIG else f"{run_name}:{config}" for config in configs]


def load_arms(run_dirs: Sequence[Path | str]) -> tuple[list[LoadedArm], DatasetFingerprint]:
    """Read scored runs into arms: one per configuration a run holds, or the agent of an agent run.

    A configuration arm is labelled ``RUN:CONFIG`` (RUN: the directory name), an agent run by the agent's
    name (``RUN:NAME`` when two arms would share it).

    Raises:
        InputError: no run, a run given twice, a directory that is not a run, a run not scored, runs of
            different datasets (naming both and the fix), or a malformed score file.
    """
    paths = [Path(p) for p in run_dirs]
    if not paths:
        raise InputError("RUN: give at least one scored run directory, e.g. `sitbench compare runs/a runs/b`")
    seen: dict[Path, Path] = {}
    for path in paths:
        if path.resolve() in seen:
            raise InputError(f"{path}: given twice (also as {seen[path.resolve()]}); pass each run once")
        seen[path.resolve()] = path
    manifests = [_open(path) for path in paths]
    fingerprints = [_fingerprint(m) for m in manifests]
    for path, fingerprint in zip(paths[1:], fingerprints[1:], strict=True):
        _check_same_dataset((paths[0], fingerprints[0]), (path, fingerprint))
    arms: list[LoadedArm] = []
    for path, name, manifest in zip(paths, _run_names(paths), manifests, strict=True):
        by_config = _arm_rows(path)
        order = [str(c) for c in manifest.configs if str(c) in by_config]
        configs = order + [c for c in by_config if c not in order]
        for label, config in zip(_labels(name, manifest, configs), configs, strict=True):
            if any(arm.info.label == label for arm in arms):
                label = f"{name}:{label}"
            arms.append(LoadedArm(_arm_info(label, path, manifest, config, by_config[config]), by_config[config]))
    return arms, fingerprints[0]
