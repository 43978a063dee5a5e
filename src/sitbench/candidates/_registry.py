"""Candidate registry: ``@candidate("prefix")`` registers a factory for ``prefix/NAME``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sitbench.candidates._protocol import Candidate
from sitbench.errors import InputError

CandidateFactory = Callable[..., Candidate]
_FACTORIES: dict[str, CandidateFactory] = {}


def candidate(prefix: str) -> Callable[[CandidateFactory], CandidateFactory]:
    """Register ``factory(name: str, **options) -> Candidate`` for specs ``prefix/name``."""

    def register(factory: CandidateFactory) -> CandidateFactory:
        _FACTORIES[prefix] = factory
        return factory

    return register


def _load_builtins() -> None:
    # Imported for their registration side effect; each module guards its own optional deps.
    import importlib

    for module in ("mock", "openai_compat", "anthropic_api", "llamacpp"):
        try:
            importlib.import_module(f"sitbench.candidates.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"sitbench.candidates.{module}":
                raise


#: Entry-point group under which installed packages register candidate factories: the entry point's
#: name is the prefix (``myprovider`` serves ``--model myprovider/NAME``), its object the factory.
CANDIDATE_ENTRY_POINTS = "sitbench.candidates"


def _load_entry_point(prefix: str) -> None:
    import importlib.metadata

    for entry in importlib.metadata.entry_points(group=CANDIDATE_ENTRY_POINTS):
        if entry.name == prefix:
            try:
                factory = entry.load()
            except Exception as exc:  # noqa: BLE001 - a broken plug-in is reported as bad input, not a crash
                raise InputError(f"--model {prefix}/…: the installed candidate {entry.value} cannot be loaded "
                                 f"({exc!r}); reinstall the package that provides it") from None
            _FACTORIES.setdefault(prefix, factory)
            return


def get_candidate(spec: str, **options: Any) -> Candidate:
    """Build the candidate named by ``spec`` (e.g. ``mock/oracle``, ``openai/gpt-4o-mini``).

    Built-in prefixes come first; any other prefix is looked up in the ``sitbench.candidates``
    entry-point group.

    Raises:
        InputError: the prefix is unknown.
    """
    _load_builtins()
    prefix, sep, name = spec.partition("/")
    if sep and prefix not in _FACTORIES:
        _load_entry_point(prefix)
    if not sep or prefix not in _FACTORIES:
        known = ", ".join(f"{p}/…" for p in sorted(_FACTORIES)) or "none"
        raise InputError(f"--model {spec!r}: unknown candidate; use one of {known}")
    return _FACTORIES[prefix](name, **options)
