"""The blind readings of the demo's answers, shipped so that ``sitbench demo --two-readers`` runs offline."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DEMO_READINGS_FILE = "demo-readings-sitbench-llm-3.jsonl"
"""Blind readings of every distinct answer of the demo's three runs, made under the LLM extractor's prompt
``sitbench-llm/3`` by a reader who saw only that prompt (never a contract, rule or label)."""


def demo_readings() -> Path:
    """Path of the shipped demo readings, replayed by ``--extractor llm:replay/PATH``."""
    return Path(str(resources.files("sitbench.data").joinpath(DEMO_READINGS_FILE)))
