"""Lineage operations: projection, situated state, public profile, integrity checks."""

from sitbench.lineage._projection import (
    SituatedState,
    profile_at,
    profile_sha256,
    project,
    serialize_profile,
    situated_state,
)

__all__ = [
    "SituatedState",
    "profile_at",
    "profile_sha256",
    "project",
    "serialize_profile",
    "situated_state",
]
