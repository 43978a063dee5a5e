"""Datasets: the reference pilot and the writer of the three stores."""

from sitbench.data._demo_readings import DEMO_READINGS_FILE, demo_readings
from sitbench.data._generator import SUITES as GENERATED_SUITES
from sitbench.data._generator import generate_content, seed_commitment
from sitbench.data._pilot import pilot_content
from sitbench.data._visible import visible_evidence
from sitbench.data._write import (
    DatasetContent,
    certify_pair,
    refresh_manifest,
    write_dataset,
)

__all__ = [
    "DEMO_READINGS_FILE",
    "GENERATED_SUITES",
    "DatasetContent",
    "certify_pair",
    "demo_readings",
    "generate_content",
    "pilot_content",
    "refresh_manifest",
    "seed_commitment",
    "visible_evidence",
    "write_dataset",
]
