"""Store 3: pair-construction metadata, used only to certify profile collisions."""

from __future__ import annotations

from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from sitbench.errors import InputError
from sitbench.schema import Pair
from sitbench.stores._io import describe_validation_error, read_json
from sitbench.stores._layout import PAIRS, require_dataset_dir

_PAIRS = TypeAdapter(list[Pair])


def load_pairs(root: Path) -> dict[str, Pair]:
    """Load store 3 from a dataset directory."""
    root = require_dataset_dir(root)
    data = read_json(root / PAIRS)
    try:
        pairs = _PAIRS.validate_python(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(PAIRS, exc)) from None
    return {p.pair_id: p for p in pairs}
