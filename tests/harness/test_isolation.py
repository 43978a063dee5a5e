"""Payload isolation (inv11/inv12) is audited on every serialized prompt of every run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sitbench.candidates import get_candidate
from sitbench.configs import _templates
from sitbench.lineage import IsolationError
from sitbench.runs import Runner, RunOptions


def _run(pilot: Path, out: Path, config: str) -> None:
    runner = Runner(pilot, get_candidate("mock/oracle"), "mock/oracle", out, RunOptions(configs=[config]))
    asyncio.run(runner.run())


@pytest.mark.parametrize("config", list("ABCDEFGHI"))
@pytest.mark.parametrize("planted", ["required_claims", "L-1A", "P-01", "PAIR-2", "prohibited_claims"])
def test_planted_field_fails_the_run(pilot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     config: str, planted: str) -> None:
    monkeypatch.setitem(_templates.TEMPLATES, config, _templates.TEMPLATES[config] + f" [{planted}]")
    with pytest.raises(IsolationError, match=planted):
        _run(pilot, tmp_path / "run", config)


def test_partner_record_fails_the_run(pilot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The crypto Mara's Kyoto record must never reach the robotics Mara's prompt.
    leak = ("Moved to Kyoto for a three-year research posting with a partner lab; rented a room near the "
            "Kamo River.")
    monkeypatch.setitem(_templates.TEMPLATES, "B", _templates.TEMPLATES["B"] + " " + leak)
    with pytest.raises(IsolationError, match="partner record"):
        _run(pilot, tmp_path / "run", "B")


def test_clean_templates_pass(pilot: Path, tmp_path: Path) -> None:
    _run(pilot, tmp_path / "run", "I")
    assert (tmp_path / "run" / "responses.jsonl").read_text().count("\n") == 22
