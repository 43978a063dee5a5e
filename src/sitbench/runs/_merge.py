"""Merge the shards of one run (``sitbench run --shard i/n``) into a single run directory."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from sitbench.errors import InputError
from sitbench.runs._records import RunManifest, ScoreRecord, TrialRecord
from sitbench.runs._store import SCORES, RunStore

# Fields every shard must agree on, with the fix to suggest when one does not.
_SAME = ("dataset.manifest_sha256", "configs", "handler", "candidate", "decoding", "templates_sha256", "probes")
# describe() fields that may differ between machines without changing what is asked.
_OPERATIONAL = frozenset({"timeout_s", "retry", "api_key_env", "n_threads", "verbose", "sdk", "base_url",
                          "engine"})


class MergeReport(BaseModel):
    """What ``sitbench merge`` did; also stored as ``manifest.extra["merge"]``."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    shards: list[dict[str, Any]]
    """Per shard: directory name, run_id, shard spec and counts."""
    trials: int
    """Distinct trials in the merged run."""
    duplicates: int
    """Trials present in more than one shard with identical content (kept once)."""
    missing: list[str]
    """Expected trial ids no shard holds (empty when the dataset could not be read)."""
    scores_merged: bool
    """Whether scores.jsonl was merged (every shard scored by the same verifier)."""


def _field(manifest: RunManifest, dotted: str) -> Any:
    value: Any = manifest.model_dump(mode="json")
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if dotted == "candidate" and isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in _OPERATIONAL}
    return value


def _content(record: TrialRecord) -> str:
    # Latency and retries describe the call, not the answer: two copies of one
    # trial that differ only there are the same trial.
    data = record.model_dump(mode="json")
    for turn in data["turns"]:
        for key in ("latency_s", "retries", "cached"):
            turn["response"].pop(key, None)
    data.pop("evidence_ms", None)
    return json.dumps(data, sort_keys=True)


def _expected(first: RunManifest) -> list[str] | None:
    from sitbench.runs._runner import trial_ids
    from sitbench.stores import load_dataset

    path = Path(str(first.dataset.get("path", "")))
    if not path.is_dir():
        return None
    try:
        ds = load_dataset(path)
    except InputError:
        return None
    return [f"{c}:{p}" for c, p in trial_ids(ds, first.configs, None, first.probes)]


def merge_runs(shards: list[Path], out: Path) -> MergeReport:
    """Union the trials of several shard runs into OUT, after checking they belong together.

    Args:
        shards: Run directories (usually ``--shard 1/n`` … ``n/n`` of one run).
        out: New run directory; must not exist yet or be empty.

    Returns:
        The report; missing trials are listed, not fatal (resume OUT to fill them).

    Raises:
        InputError: fewer than one shard, a shard given twice, OUT not empty, shards that disagree on the
            dataset, configurations, handler, candidate, decoding or templates, or one
            trial with different content in two shards.
    """
    if not shards:
        raise InputError("sitbench merge: give at least one run directory")
    if out.exists() and any(out.iterdir()):
        raise InputError(f"--out {out}: already holds files; give a new or empty directory")
    given: dict[Path, Path] = {}
    for shard in shards:
        if shard.resolve() in given:
            raise InputError(f"{shard}: given twice (also as {given[shard.resolve()]}); give each shard once")
        given[shard.resolve()] = shard
    stores = [RunStore(s).require() for s in shards]
    manifests = [s.manifest() for s in stores]
    first = manifests[0]
    for path, manifest in zip(shards[1:], manifests[1:], strict=True):
        for name in _SAME:
            if name == "probes" and _field(manifest, name) != _field(first, name):
                rules = [f"{p}: {m.probes.rule if m.probes else 'all probes'}"
                         for p, m in ((shards[0], first), (path, manifest))]
                raise InputError(f"{RunStore(path).manifest_path}: a partial run (--probes or --limit) cannot be "
                                 f"merged with a run of other probes ({'; '.join(rules)}); merge only shards of one "
                                 "run, and run the full dataset into its own --out")
            if _field(manifest, name) != _field(first, name):
                raise InputError(f"{RunStore(path).manifest_path}: field '{name}' differs from {shards[0]}'s "
                                 f"({_field(manifest, name)!r} vs {_field(first, name)!r}); only shards of one "
                                 "run can be merged")

    merged: dict[str, TrialRecord] = {}
    source: dict[str, Path] = {}
    duplicates = 0
    for path, store in zip(shards, stores, strict=True):
        for record in store.trials():
            seen = merged.get(record.trial_id)
            if seen is None:
                merged[record.trial_id] = record
                source[record.trial_id] = path
            elif _content(seen) == _content(record):
                duplicates += 1
            else:
                raise InputError(f"{store.responses_path}: trial {record.trial_id} differs from the copy in "
                                 f"{source[record.trial_id]}; keep one of the two runs out of the merge")

    expected = _expected(first)
    order = {t: k for k, t in enumerate(expected or [])}
    records = sorted(merged.values(), key=lambda r: (order.get(r.trial_id, len(order)), r.trial_id))
    missing = [t for t in (expected or []) if t not in merged]

    versions = {m.verifier_version for m in manifests}
    scored = all((s.root / SCORES).exists() for s in stores) and len(versions) == 1 and None not in versions
    target = RunStore(out)
    from sitbench.stores import write_jsonl

    write_jsonl(target.responses_path, records, "choose another --out")
    if scored:
        by_id: dict[str, ScoreRecord] = {}
        for store in stores:
            for score in store.scores():
                by_id.setdefault(score.trial_id, score)
        target.write_scores([by_id[r.trial_id] for r in records if r.trial_id in by_id], "choose another --out")

    from sitbench.runs._summary import summarize_trials

    report = MergeReport(
        shards=[{"dir": p.name, "run_id": m.run_id, "shard": m.shard, "counts": m.counts,
                 "git_commit": m.git_commit} for p, m in zip(shards, manifests, strict=True)],
        trials=len(records), duplicates=duplicates, missing=missing, scores_merged=scored)
    finished = [m.finished_at for m in manifests]
    summary = summarize_trials(records)
    summary["counts"] = {**summary["counts"], "missing": len(missing)}  # type: ignore[dict-item]
    target.write_manifest(first.model_copy(update={
        "run_id": hashlib.sha256("+".join(m.run_id for m in manifests).encode()).hexdigest()[:12],
        "created_at": min(m.created_at for m in manifests),
        "finished_at": None if None in finished else max(f for f in finished if f),
        "shard": None,
        "verifier_version": first.verifier_version if scored else None,
        "seeds": {k: v for m in manifests for k, v in m.seeds.items()},
        "extra": {**first.extra, "merge": report.model_dump(mode="json")},
        **summary,
    }), "choose another --out")
    return report
