"""A whole dataset directory in memory: the three stores and the manifest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sitbench.schema import DatasetManifest, Pair
from sitbench.stores._io import load_model
from sitbench.stores._layout import MANIFEST
from sitbench.stores.hidden import HiddenStore, load_hidden
from sitbench.stores.pairs import load_pairs
from sitbench.stores.visible import VisibleStore, load_visible


@dataclass(frozen=True)
class LoadedDataset:
    """The three stores and the manifest of one dataset directory.

    Only the runner and the scorer hold one whole: a prompt builder is given the visible store alone.
    """

    root: Path
    visible: VisibleStore
    hidden: HiddenStore
    pairs: dict[str, Pair]
    manifest: DatasetManifest | None


def load_dataset(root: Path) -> LoadedDataset:
    """Load all three stores and the manifest (absent in a hand-made dataset).

    Raises:
        InputError: a store is missing or unreadable (the message names the file and the field).
    """
    visible = load_visible(root)
    hidden = load_hidden(root)
    pairs = load_pairs(root)
    manifest = load_model(root / MANIFEST, DatasetManifest, MANIFEST) if (root / MANIFEST).exists() else None
    return LoadedDataset(root=root, visible=visible, hidden=hidden, pairs=pairs, manifest=manifest)
