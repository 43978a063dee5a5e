"""Fixtures for the Foundation suite: a freshly written pilot and surgical store edits.

Every mutation test starts from the hand-authored pilot written by the real writer,
edits exactly one thing in one (or a mirrored pair of) store files, and then
recomputes the manifest hashes, so that only the invariant under test can break.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.data import pilot_content, write_dataset

from ._pilot_dir import PilotDir


@pytest.fixture
def pilot_dir(tmp_path: Path) -> PilotDir:
    """The reference pilot written by ``write_dataset(pilot_content(), dir)`` into a fresh directory."""
    root = tmp_path / "pilot"
    write_dataset(pilot_content(), root)
    return PilotDir(root)
