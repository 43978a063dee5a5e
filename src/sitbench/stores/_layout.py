"""Where each of the three stores lives inside a dataset directory (seed §4.1)."""

from __future__ import annotations

from pathlib import Path

MANIFEST = "manifest.json"
VISIBLE_DIR = "visible"
HIDDEN_DIR = "hidden"
PAIRS_DIR = "pairs"

SUBJECTS_DIR = f"{VISIBLE_DIR}/subjects"
QUERIES = f"{VISIBLE_DIR}/queries.jsonl"
REGISTRY = f"{HIDDEN_DIR}/registry.json"
LINEAGES_DIR = f"{HIDDEN_DIR}/lineages"
PROBES = f"{HIDDEN_DIR}/probes.jsonl"
PAIRS = f"{PAIRS_DIR}/pairs.json"


def require_dataset_dir(root: Path) -> Path:
    """Check that ``root`` looks like a dataset directory; return it."""
    from sitbench.errors import InputError

    if not root.exists():
        raise InputError(f"{root}: no such directory (create one with `sitbench generate --suite pilot --out {root}`)")
    if not root.is_dir():
        raise InputError(f"{root}: not a directory; pass a dataset directory written by `sitbench generate`")
    return root
