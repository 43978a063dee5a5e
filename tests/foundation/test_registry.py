"""The one plug-in mechanism: precedence, errors and the registries that use it."""

from __future__ import annotations

import importlib.metadata

import pytest

from sitbench.errors import InputError
from sitbench.registry import Registry

GROUP = "sitbench.test-things"


def _entries(monkeypatch: pytest.MonkeyPatch, *entries: importlib.metadata.EntryPoint) -> None:
    real = importlib.metadata.entry_points

    def entry_points(**kwargs: str) -> importlib.metadata.EntryPoints:
        if kwargs.get("group") == GROUP:
            return importlib.metadata.EntryPoints(entries)
        return real(**kwargs)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def test_names_keep_registration_order_then_installed_sorted(monkeypatch: pytest.MonkeyPatch) -> None:
    _entries(monkeypatch, importlib.metadata.EntryPoint("zeta", "json:dumps", GROUP),
             importlib.metadata.EntryPoint("alpha", "json:loads", GROUP))
    things: Registry[object] = Registry("thing", GROUP, option="--thing")
    things.register("second", 2)
    things.register("first", 1)
    assert things.names() == ["second", "first", "alpha", "zeta"]
    import json

    assert things.get("alpha") is json.loads and things.get("first") == 1
    assert "zeta" in things and "nope" not in things


def test_in_process_registration_comes_before_an_installed_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    _entries(monkeypatch, importlib.metadata.EntryPoint("x", "json:dumps", GROUP))
    things: Registry[object] = Registry("thing", GROUP, option="--thing")

    @things.register("x")
    def local() -> None: ...

    assert things.get("x") is local
    things.unregister("x")
    import json

    assert things.get("x") is json.dumps


def test_unknown_broken_and_wrong_kind_are_bad_input_naming_the_option(monkeypatch: pytest.MonkeyPatch) -> None:
    _entries(monkeypatch, importlib.metadata.EntryPoint("broken", "no_such_module_here:thing", GROUP),
             importlib.metadata.EntryPoint("number", "math:pi", GROUP))
    things: Registry[object] = Registry("thing", GROUP, option="--thing",
                                        check=lambda obj: None if callable(obj) else "is not callable")
    with pytest.raises(InputError, match=r"--thing 'nope': unknown thing; use one of broken, number"):
        things.get("nope")
    with pytest.raises(InputError, match=r"--thing broken: the installed thing no_such_module_here:thing cannot be"):
        things.get("broken")
    with pytest.raises(InputError, match=r"--thing number: the installed thing math:pi is not callable"):
        things.get("number")
    assert things.find("nope") is None
    with pytest.raises(ValueError):
        things.register("two words", 1)


def test_a_changed_entry_point_is_loaded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    things: Registry[object] = Registry("thing", GROUP, option="--thing")
    _entries(monkeypatch, importlib.metadata.EntryPoint("x", "json:dumps", GROUP))
    assert things.get("x") is json.dumps
    _entries(monkeypatch, importlib.metadata.EntryPoint("x", "json:loads", GROUP))
    assert things.get("x") is json.loads


def test_the_plug_in_kinds_all_use_it() -> None:
    """Candidates, mocks, agents, extractors and integrity checks each have one Registry."""
    from sitbench.agents import AGENTS
    from sitbench.candidates._registry import CANDIDATES
    from sitbench.candidates.mock import MOCKS
    from sitbench.lineage import CHECKS
    from sitbench.verify import EXTRACTORS

    for registry in (AGENTS, CANDIDATES, MOCKS, EXTRACTORS, CHECKS):
        assert isinstance(registry, Registry)
    assert {"mock", "openai", "anthropic", "llamacpp", "local"} <= set(CANDIDATES.names())
    assert {"collapse", "oracle", "memory-reader"} <= set(MOCKS.names())
    assert {"rules", "llm"} <= set(EXTRACTORS.names())
    assert CHECKS.names()[:19] == [f"inv{i}" for i in range(1, 20)]
