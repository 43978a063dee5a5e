"""Write a dataset (three stores + manifest) deterministically."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sitbench._version import __version__
from sitbench.data._visible import visible_evidence
from sitbench.lineage import profile_at, profile_sha256
from sitbench.schema import (
    SCHEMA_VERSION,
    DatasetManifest,
    Lineage,
    Pair,
    Probe,
    Query,
    Registry,
)
from sitbench.stores import (
    HIDDEN_DIR,
    LINEAGES_DIR,
    MANIFEST,
    PAIRS,
    PAIRS_DIR,
    PROBES,
    QUERIES,
    REGISTRY,
    SUBJECTS_DIR,
    VISIBLE_DIR,
    child_path,
    make_dirs,
    output_error,
    read_json,
    sha256_file,
    write_json,
    write_jsonl,
    write_text_atomic,
)

DATASHEET = "DATASHEET.md"


@dataclass(frozen=True)
class DatasetContent:
    """Everything a dataset holds, before it is split into stores."""

    suite: str
    seed: int | None
    registry: Registry
    lineages: list[Lineage]
    pairs: list[Pair]
    probes: list[Probe]
    queries: list[Query]
    rejections: dict[str, int] | None = None
    """Generated suites: pairs rejected and regenerated, by reason (recorded in the manifest counts)."""
    datasheet: Callable[[DatasetManifest], str] | None = None
    """Generated suites: renders DATASHEET.md from the final manifest."""


def certify_pair(pair_id: str, a: Lineage, b: Lineage, split: str, note: str = "") -> Pair:
    """Pair metadata with the profile hash at each checkpoint (taken from member ``a``)."""
    hashes = [profile_sha256(profile_at(a, t)) for t in a.checkpoints]
    return Pair(pair_id=pair_id, members=(a.lineage_id, b.lineage_id), split=split, profile_sha256=hashes, note=note)


def _store_files(root: Path) -> list[Path]:
    return sorted(p for d in (VISIBLE_DIR, HIDDEN_DIR, PAIRS_DIR) for p in (root / d).rglob("*") if p.is_file())


def compute_counts(content: DatasetContent) -> dict[str, int]:
    """Counts recorded in the manifest."""
    counts = {
        "pairs": len(content.pairs),
        "lineages": len(content.lineages),
        "probes": len(content.probes),
        "propositions": len(content.registry.propositions),
        "theorem_qualified": sum(p.theorem_qualified for p in content.probes),
    }
    per_category = Counter(p.category.value for p in content.probes)
    counts.update({f"category_{k}": per_category.get(k, 0) for k in "ABCDEFGH"})
    if content.rejections is not None:
        counts["rejected_pairs"] = sum(content.rejections.values())
        counts.update({f"rejected_{reason}": n for reason, n in content.rejections.items()})
    return counts


def refresh_manifest(root: Path) -> DatasetManifest:
    """Recompute the file hashes of an existing dataset's manifest (after a deliberate edit)."""
    manifest = DatasetManifest.model_validate(read_json(root / MANIFEST))
    files = {p.relative_to(root).as_posix(): sha256_file(p) for p in _store_files(root)}
    manifest = manifest.model_copy(update={"files": files})
    write_json(root / MANIFEST, manifest)
    return manifest


def write_dataset(content: DatasetContent, root: Path) -> DatasetManifest:
    """Write the three stores and ``manifest.json`` under ``root``; return the manifest.

    Output is byte-identical for identical content: no timestamps, fixed ordering. Each file is
    written through a temporary file and a rename (never torn).

    Raises:
        OutputError: a file or folder cannot be written (a read-only folder, a full disk), naming it
            and the cause.
    """
    make_dirs(root)
    for stale in _store_files(root):
        try:
            stale.unlink()
        except OSError as exc:
            raise output_error(stale, exc, what="cannot be removed") from None
    for lineage in content.lineages:
        subject = child_path(root / SUBJECTS_DIR, lineage.subject, f"lineage {lineage.lineage_id!r}: subject", ".json")
        own = child_path(root / LINEAGES_DIR, lineage.lineage_id, "lineage_id", ".json")
        write_json(subject, visible_evidence(lineage, content.registry))
        write_json(own, lineage)
    write_jsonl(root / QUERIES, content.queries)
    write_json(root / REGISTRY, content.registry)
    write_jsonl(root / PROBES, content.probes)
    write_json(root / PAIRS, [p.model_dump(mode="json") for p in content.pairs])
    files = {p.relative_to(root).as_posix(): sha256_file(p) for p in _store_files(root)}
    manifest = DatasetManifest(suite=content.suite, seed=content.seed, generator_version=__version__,
                               schema_version=SCHEMA_VERSION, counts=compute_counts(content), files=files)
    write_json(root / MANIFEST, manifest)
    if content.datasheet is not None:
        write_text_atomic(root / DATASHEET, content.datasheet(manifest))
    return manifest
