"""Agents and candidates found by name through their entry-point groups."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from agents_support import EXAMPLES

from sitbench.agents import AGENT_ENTRY_POINTS
from sitbench.candidates import get_candidate
from sitbench.candidates._registry import CANDIDATE_ENTRY_POINTS
from sitbench.cli import main
from sitbench.errors import InputError
from sitbench.runs import RunStore


def _entry_points(group: str, name: str, value: str):
    real = importlib.metadata.entry_points

    def entry_points(**kwargs: str) -> importlib.metadata.EntryPoints:
        if kwargs.get("group") == group:
            return importlib.metadata.EntryPoints([importlib.metadata.EntryPoint(name, value, group)])
        return real(**kwargs)

    return entry_points


def test_an_installed_agent_is_found_by_name(pilot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        _entry_points(AGENT_ENTRY_POINTS, "keyword", "keyword_agent:make"))
    assert main(["run", str(pilot), "--agent", "keyword", "--out", str(tmp_path / "r")]) == 0
    assert RunStore(tmp_path / "r").manifest().agent.info.name == "keyword-baseline"


def test_an_unknown_agent_name_lists_the_installed_ones(pilot: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        _entry_points(AGENT_ENTRY_POINTS, "keyword", "keyword_agent:make"))
    assert main(["run", str(pilot), "--agent", "nothing", "--out", str(tmp_path / "r")]) == 2
    assert "no installed agent has that name (installed: keyword)" in capsys.readouterr().err


def test_an_installed_candidate_is_found_by_its_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.candidates import _registry

    monkeypatch.setattr(_registry.CANDIDATES, "_local", dict(_registry.CANDIDATES._local))
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        _entry_points(CANDIDATE_ENTRY_POINTS, "acme", "sitbench.candidates.mock:oracle_factory"))
    with pytest.raises(InputError, match=r"the installed candidate sitbench\.candidates\.mock:oracle_factory cannot"):
        get_candidate("acme/x")
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        _entry_points(CANDIDATE_ENTRY_POINTS, "acme", "sitbench.candidates.mock:mock_candidate"))
    candidate = get_candidate("acme/oracle")
    assert candidate.describe()["provider"] == "mock"
