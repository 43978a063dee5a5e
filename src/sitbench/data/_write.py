"""Write a dataset (three stores + manifest) deterministically."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from sitbench._version import __version__
from sitbench.data._visible import visible_evidence
from sitbench.errors import InputError
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
    check_no_link,
    check_replaceable,
    child_path,
    file_head,
    make_dirs,
    output_error,
    owned_files,
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


_STORE_DIRS = (VISIBLE_DIR, HIDDEN_DIR, PAIRS_DIR)


def _store_files(root: Path) -> list[Path]:
    return sorted(p for d in _STORE_DIRS for p in (root / d).rglob("*") if p.is_file())


def _is_dataset_manifest(path: Path) -> bool:
    try:
        DatasetManifest.model_validate(read_json(path))
    except (InputError, ValidationError):
        return False
    return True


def _files_written_before(root: Path) -> list[Path]:
    """The store files an earlier ``write_dataset`` left in ``root``, to replace; refuses anything else.

    The earlier manifest's ``files`` decides what sitbench wrote: a file of the stores it does not list
    (a user's own), a link anywhere in the stores (a deletion through it would reach outside ``root``)
    and a ``manifest.json`` or ``DATASHEET.md`` that is not sitbench's make the command refuse before
    anything is removed.

    Raises:
        OutputError: naming the file or link and the way out.
    """
    manifest = root / MANIFEST
    check_replaceable(manifest, _is_dataset_manifest)
    check_replaceable(root / DATASHEET, lambda p: file_head(p).startswith(b"# Datasheet: SITBench suite"))
    for path in (root / d for d in (*_STORE_DIRS, SUBJECTS_DIR, LINEAGES_DIR)):
        check_no_link(root, path)
    written: set[str] = set()
    if manifest.is_file():
        written = set(DatasetManifest.model_validate(read_json(manifest)).files)
    return owned_files(root, _STORE_DIRS, written, str(manifest))


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

    The store files of an earlier dataset in ``root`` are replaced; nothing else is ever removed or
    written through a link (see :func:`_files_written_before`).

    Raises:
        OutputError: a file or folder cannot be written (a read-only folder, a full disk), naming it
            and the cause; or ``root`` holds a file sitbench did not write where it writes or removes.
    """
    make_dirs(root)
    for stale in _files_written_before(root):
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
