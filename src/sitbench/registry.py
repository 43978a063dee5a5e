"""One mechanism for everything pluggable: a named table per kind, filled in-process or by entry points.

Candidates (``--model``), agents (``--agent``), extractors (``--extractor``), the mock variants, the
integrity checks (``sitbench validate``) and the confirmatory experiments (``sitbench analyze``) each have
one :class:`Registry`. A third-party package adds to one by declaring an entry point in the registry's
group (its name is the plug-in's name, its object what the registry holds); sitbench declares its own
built-ins the same way in its ``pyproject.toml`` wherever a built-in must be found by name, so no list of
them lives in code. Code (a test, a notebook) may also :meth:`Registry.register` a plug-in for the
current process.

Precedence, most to least: registered in this process, declared by sitbench itself, declared by another
installed package. A plug-in therefore cannot replace a built-in by reusing its name.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar, overload

from sitbench.errors import InputError

T = TypeVar("T")

OWN_DISTRIBUTION = "sitbench"
"""The distribution whose entry points are sitbench's built-ins."""


class Registry(Generic[T]):
    """Named plug-ins of one kind.

    Args:
        kind: what the plug-ins are, for messages ("candidate", "agent", "extractor"…).
        group: the entry-point group that installed packages declare them in.
        option: the command-line option or command that names them, for messages (``--model``).
        check: called with each loaded object; returns what is wrong with it (``None`` when it is usable).
    """

    def __init__(self, kind: str, group: str, *, option: str,
                 check: Callable[[object], str | None] | None = None) -> None:
        self.kind = kind
        self.group = group
        self.option = option
        self._check = check
        self._local: dict[str, T] = {}
        self._loaded: dict[tuple[str, str], T] = {}

    @overload
    def register(self, name: str) -> Callable[[T], T]: ...

    @overload
    def register(self, name: str, obj: T) -> T: ...

    def register(self, name: str, obj: T | None = None) -> T | Callable[[T], T]:
        """Register ``obj`` under ``name`` in this process (usable as a decorator when ``obj`` is omitted)."""
        if not name or any(ch.isspace() for ch in name):
            raise ValueError(f"{self.kind} name {name!r}: must be a non-empty word")

        def add(value: T) -> T:
            self._local[name] = value
            return value

        return add if obj is None else add(obj)

    def unregister(self, name: str) -> None:
        """Forget a plug-in registered in this process (entry points stay installed)."""
        self._local.pop(name, None)

    def _entry_points(self) -> dict[str, importlib.metadata.EntryPoint]:
        found: dict[str, importlib.metadata.EntryPoint] = {}
        for entry in importlib.metadata.entry_points(group=self.group):
            if entry.name not in found or (_is_own(entry) and not _is_own(found[entry.name])):
                found[entry.name] = entry
        return found

    def names(self) -> list[str]:
        """Every name this registry can resolve here: those registered in this process in their order, then
        the installed ones sorted."""
        return [*self._local, *sorted(set(self._entry_points()) - set(self._local))]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def find(self, name: str) -> T | None:
        """The plug-in called ``name``, or ``None`` when there is none.

        Raises:
            InputError: an installed entry point of that name cannot be imported or fails :attr:`check`.
        """
        if name in self._local:
            return self._local[name]
        entry = self._entry_points().get(name)
        if entry is None:
            return None
        key = (name, entry.value)
        if key in self._loaded:
            return self._loaded[key]
        try:
            obj: T = entry.load()
        except Exception as exc:  # noqa: BLE001 - a broken plug-in is bad input, not a crash
            raise InputError(f"{self.option} {name}: the installed {self.kind} {entry.value} cannot be loaded "
                             f"({exc!r}); reinstall the package that provides it") from None
        problem = self._check(obj) if self._check is not None else None
        if problem:
            raise InputError(f"{self.option} {name}: the installed {self.kind} {entry.value} {problem}")
        self._loaded[key] = obj
        return obj

    def get(self, name: str) -> T:
        """The plug-in called ``name``.

        Raises:
            InputError: no plug-in has that name (the message lists those that exist), or it cannot be loaded.
        """
        obj = self.find(name)
        if obj is None:
            known = ", ".join(self.names()) or "none"
            raise InputError(f"{self.option} {name!r}: unknown {self.kind}; use one of {known}")
        return obj

    def items(self) -> list[tuple[str, T]]:
        """Every plug-in, loaded, in :meth:`names` order."""
        return [(name, self.get(name)) for name in self.names()]


def _is_own(entry: importlib.metadata.EntryPoint) -> bool:
    dist = entry.dist
    return dist is not None and dist.name == OWN_DISTRIBUTION
