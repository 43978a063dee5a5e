"""The three dataset stores (seed §4.1), each with its own loader.

Only :func:`load_visible` may feed a prompt builder; :func:`load_hidden` feeds the
scorer; :func:`load_pairs` feeds collision certification and pair-balanced metrics.
"""

from sitbench.stores._io import sha256_file
from sitbench.stores._layout import (
    LINEAGES_DIR,
    MANIFEST,
    PAIRS,
    PROBES,
    QUERIES,
    REGISTRY,
    SUBJECTS_DIR,
)
from sitbench.stores.hidden import HiddenStore, load_hidden
from sitbench.stores.pairs import load_pairs
from sitbench.stores.visible import VisibleStore, load_visible

__all__ = [
    "LINEAGES_DIR",
    "MANIFEST",
    "PAIRS",
    "PROBES",
    "QUERIES",
    "REGISTRY",
    "SUBJECTS_DIR",
    "HiddenStore",
    "VisibleStore",
    "load_hidden",
    "load_pairs",
    "load_visible",
    "sha256_file",
]
