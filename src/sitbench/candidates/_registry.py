"""Candidate registry: every ``--model PREFIX/NAME`` is resolved through one entry-point group.

sitbench declares its own candidates (``mock``, ``openai``, ``anthropic``, ``llamacpp``, ``local``)
in that group in its ``pyproject.toml``, exactly as a third-party package declares one, so there is
no list of built-ins in code. ``@candidate("prefix")`` registers a factory in this process only
(tests, notebooks); it is looked up before the installed entry points.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sitbench.candidates._protocol import Candidate
from sitbench.errors import InputError
from sitbench.registry import Registry

CandidateFactory = Callable[..., Candidate]

#: Entry-point group under which installed packages register candidate factories: the entry point's
#: name is the prefix (``myprovider`` serves ``--model myprovider/NAME``), its object the factory
#: ``factory(name: str, **options) -> Candidate``.
CANDIDATE_ENTRY_POINTS = "sitbench.candidates"


def _is_factory(obj: object) -> str | None:
    if callable(obj):
        return None
    return f"is not a factory (got {type(obj).__name__}); it must be factory(name, **options) -> Candidate"


CANDIDATES: Registry[CandidateFactory] = Registry("candidate", CANDIDATE_ENTRY_POINTS, option="--model",
                                                   check=_is_factory)
"""Candidate factories by ``--model`` prefix."""


def candidate(prefix: str) -> Callable[[CandidateFactory], CandidateFactory]:
    """Register ``factory(name: str, **options) -> Candidate`` for specs ``prefix/name`` in this process."""
    return CANDIDATES.register(prefix)


def candidate_prefixes() -> list[str]:
    """Every prefix ``--model`` accepts here: registered in this process or installed."""
    return sorted(CANDIDATES.names())


def get_candidate(spec: str, **options: Any) -> Candidate:
    """Build the candidate named by ``spec`` (e.g. ``mock/oracle``, ``openai/gpt-4o-mini``).

    The prefix is looked up among the factories registered in this process, then in the
    ``sitbench.candidates`` entry-point group (where sitbench's own candidates are declared).

    Raises:
        InputError: the prefix is unknown, or its installed factory cannot be loaded.
    """
    prefix, sep, name = spec.partition("/")
    factory = CANDIDATES.find(prefix) if sep else None
    if factory is None:
        known = candidate_prefixes()
        if "mock" not in known:
            raise InputError(f"--model {spec!r}: sitbench's own candidates are declared as entry points of "
                             "the installed package, and none is installed here; install sitbench "
                             "(pip install -e . in its checkout) rather than running it from a source path")
        listed = ", ".join(f"{p}/…" for p in known)
        raise InputError(f"--model {spec!r}: unknown candidate; use one of {listed}")
    return factory(name, **options)
