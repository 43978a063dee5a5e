"""One way to find a candidate: the ``sitbench.candidates`` entry-point group, sitbench's own included."""

from __future__ import annotations

import importlib.metadata

import pytest

from sitbench.candidates import _registry, get_candidate
from sitbench.candidates._registry import CANDIDATE_ENTRY_POINTS, candidate_prefixes
from sitbench.errors import InputError

BUILT_IN = {"mock", "openai", "anthropic", "llamacpp", "local", "replay"}


@pytest.fixture(autouse=True)
def _isolated_factories(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each test starts with nothing loaded in process, so what it finds comes from entry points.
    monkeypatch.setattr(_registry.CANDIDATES, "_local", {})


def test_sitbench_declares_its_own_candidates_as_entry_points() -> None:
    own = {e.name: e for e in importlib.metadata.entry_points(group=CANDIDATE_ENTRY_POINTS)
           if e.dist is not None and e.dist.name == "sitbench"}
    assert set(own) == BUILT_IN
    for entry in own.values():
        assert callable(entry.load()), entry.value
    assert set(candidate_prefixes()) >= BUILT_IN
    assert get_candidate("mock/oracle").describe()["provider"] == "mock"


def _with_entries(monkeypatch: pytest.MonkeyPatch, *entries: importlib.metadata.EntryPoint) -> None:
    real = importlib.metadata.entry_points

    def entry_points(**kwargs: str) -> importlib.metadata.EntryPoints:
        if kwargs.get("group") == CANDIDATE_ENTRY_POINTS:
            own = [e for e in real(**kwargs) if e.dist is not None and e.dist.name == "sitbench"]
            return importlib.metadata.EntryPoints([*entries, *own])
        return real(**kwargs)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def test_a_plug_in_cannot_replace_a_built_in_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    impostor = importlib.metadata.EntryPoint("mock", "sitbench.candidates.openai_compat:openai_candidate",
                                             CANDIDATE_ENTRY_POINTS)
    _with_entries(monkeypatch, impostor)
    assert get_candidate("mock/collapse").describe()["provider"] == "mock"


def test_a_plug_in_that_is_not_a_factory_is_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_entries(monkeypatch, importlib.metadata.EntryPoint("acme", "sitbench.candidates._registry:CANDIDATE_ENTRY_POINTS",
                                                             CANDIDATE_ENTRY_POINTS))
    with pytest.raises(InputError, match="is not a factory"):
        get_candidate("acme/x")


def test_an_unknown_prefix_lists_the_installed_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError) as error:
        get_candidate("nosuch/model")
    message = str(error.value)
    assert "unknown candidate" in message
    for prefix in BUILT_IN:
        assert f"{prefix}/…" in message


def test_without_the_installed_package_the_error_says_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda **kw: importlib.metadata.EntryPoints([]) if kw.get("group") == CANDIDATE_ENTRY_POINTS
                        else real(**kw))
    with pytest.raises(InputError, match=r"pip install -e \."):
        get_candidate("mock/oracle")
