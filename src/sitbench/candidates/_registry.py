"""Candidate registry: every ``--model PREFIX/NAME`` is resolved through one entry-point group.

sitbench declares its own candidates (``mock``, ``openai``, ``anthropic``, ``llamacpp``, ``local``)
in that group in its ``pyproject.toml``, exactly as a third-party package declares one, so there is
no list of built-ins in code. ``@candidate("prefix")`` registers a factory in this process only
(tests, notebooks); it is looked up before the installed entry points.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from typing import Any

from sitbench.candidates._protocol import Candidate
from sitbench.errors import InputError

CandidateFactory = Callable[..., Candidate]
_FACTORIES: dict[str, CandidateFactory] = {}

#: Entry-point group under which installed packages register candidate factories: the entry point's
#: name is the prefix (``myprovider`` serves ``--model myprovider/NAME``), its object the factory
#: ``factory(name: str, **options) -> Candidate``.
CANDIDATE_ENTRY_POINTS = "sitbench.candidates"
_OWN_DISTRIBUTION = "sitbench"


def candidate(prefix: str) -> Callable[[CandidateFactory], CandidateFactory]:
    """Register ``factory(name: str, **options) -> Candidate`` for specs ``prefix/name`` in this process."""

    def register(factory: CandidateFactory) -> CandidateFactory:
        _FACTORIES[prefix] = factory
        return factory

    return register


def _is_own(entry: importlib.metadata.EntryPoint) -> bool:
    dist = entry.dist
    return dist is not None and dist.name == _OWN_DISTRIBUTION


def _installed() -> dict[str, importlib.metadata.EntryPoint]:
    """Installed entry points by prefix; sitbench's own win, so a plug-in cannot replace a built-in."""
    found: dict[str, importlib.metadata.EntryPoint] = {}
    for entry in importlib.metadata.entry_points(group=CANDIDATE_ENTRY_POINTS):
        if entry.name not in found or (_is_own(entry) and not _is_own(found[entry.name])):
            found[entry.name] = entry
    return found


def candidate_prefixes() -> list[str]:
    """Every prefix ``--model`` accepts here: registered in this process or installed."""
    return sorted(set(_FACTORIES) | set(_installed()))


def _load(prefix: str) -> CandidateFactory | None:
    entry = _installed().get(prefix)
    if entry is None:
        return None
    try:
        factory = entry.load()
    except Exception as exc:  # noqa: BLE001 - a broken plug-in is reported as bad input, not a crash
        raise InputError(f"--model {prefix}/…: the installed candidate {entry.value} cannot be loaded "
                         f"({exc!r}); reinstall the package that provides it") from None
    if not callable(factory):
        raise InputError(f"--model {prefix}/…: the installed candidate {entry.value} is not a factory "
                         f"(got {type(factory).__name__}); it must be factory(name, **options) -> Candidate")
    _FACTORIES.setdefault(prefix, factory)
    return factory


def get_candidate(spec: str, **options: Any) -> Candidate:
    """Build the candidate named by ``spec`` (e.g. ``mock/oracle``, ``openai/gpt-4o-mini``).

    The prefix is looked up among the factories registered in this process, then in the
    ``sitbench.candidates`` entry-point group (where sitbench's own candidates are declared).

    Raises:
        InputError: the prefix is unknown, or its installed factory cannot be loaded.
    """
    prefix, sep, name = spec.partition("/")
    factory = _FACTORIES.get(prefix) if sep else None
    if sep and factory is None:
        factory = _load(prefix)
    if factory is None:
        known = candidate_prefixes()
        if "mock" not in known:
            raise InputError(f"--model {spec!r}: sitbench's own candidates are declared as entry points of "
                             "the installed package, and none is installed here; install sitbench "
                             "(pip install -e . in its checkout) rather than running it from a source path")
        listed = ", ".join(f"{p}/…" for p in known)
        raise InputError(f"--model {spec!r}: unknown candidate; use one of {listed}")
    return factory(name, **options)
