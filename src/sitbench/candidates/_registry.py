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


def get_candidate(spec: str, **options: Any) -> Candidate:
    """Build the candidate named by ``spec`` (e.g. ``mock/oracle``, ``openai/gpt-4o-mini``).

    Raises:
        InputError: the prefix is unknown.
    """
    _load_builtins()
    prefix, sep, name = spec.partition("/")
    if not sep or prefix not in _FACTORIES:
        known = ", ".join(f"{p}/…" for p in sorted(_FACTORIES)) or "none"
        raise InputError(f"--model {spec!r}: unknown candidate; use one of {known}")
    return _FACTORIES[prefix](name, **options)
