"""The deterministic paired-history generator (SITBench at full scale)."""

from sitbench.data._generator._suites import (
    SUITES,
    derive_seed,
    generate_content,
    seed_commitment,
)

__all__ = ["SUITES", "derive_seed", "generate_content", "seed_commitment"]
