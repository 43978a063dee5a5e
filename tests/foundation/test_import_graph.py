"""The package's import graph: no cycle between sitbench's packages, no reach into another package's privates.

Read from the source with :mod:`ast`, so an import inside a function (a lazy import that hides a cycle at
run time) or under ``TYPE_CHECKING`` counts like any other: what a module names is what it depends on.
A *package* is a first-level member of ``sitbench`` (``sitbench.runs``, ``sitbench.errors``…); its public
API is what its own modules without a leading underscore define, re-exported by its ``__init__``.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import sitbench

SRC = Path(sitbench.__file__).parent


def _module_name(path: Path) -> str:
    parts = ("sitbench", *path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every ``sitbench`` module a module's source names, with its line (relative imports resolved)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            # `from sitbench.x import _y` names a module when _y is one.
            found.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names
                         if (SRC / Path(*target.split(".")[1:]) / f"{alias.name}.py").exists())
    return [(line, name) for line, name in found if name == "sitbench" or name.startswith("sitbench.")]


def _graph() -> tuple[dict[str, dict[str, list[str]]], list[str]]:
    """Package → package → the importing sites; and each cross-package import of a private module."""
    edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    private: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        parts = module.split(".")
        if len(parts) < 2:
            continue  # sitbench/__init__.py: re-exports only
        source = parts[1]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, target in _imported(tree, module, path.name == "__init__.py"):
            target_parts = target.split(".")
            if len(target_parts) < 2 or target_parts[1] == source:
                continue
            site = f"{path.relative_to(SRC.parent)}:{line} imports {target}"
            edges[source][target_parts[1]].append(site)
            if any(part.startswith("_") and not part.startswith("__") for part in target_parts[2:]):
                private.append(site)
    return edges, private


def _cycles(edges: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """Strongly connected components with more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_cycle_between_packages() -> None:
    edges, _ = _graph()
    problems = []
    for component in _cycles(edges):
        sites = [site for a in component for b in component if b in edges[a] for site in edges[a][b][:3]]
        problems.append(f"cycle between {', '.join(component)}:\n    " + "\n    ".join(sites))
    assert not problems, "\n".join(problems)


def test_no_package_imports_another_package_private_module() -> None:
    _, private = _graph()
    assert not private, ("import the other package's public API (its __init__ re-exports) instead:\n    "
                         + "\n    ".join(private))


def test_the_checks_catch_what_they_are_for() -> None:
    """The two checks above are only worth something if they see a cycle and a private import."""
    assert _cycles({"a": {"b": ["x"]}, "b": {"c": ["y"]}, "c": {"a": ["z"]}, "d": {"a": ["w"]}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b": ["x"]}, "b": {}}) == []
    tree = ast.parse("def f():\n    from sitbench.runs._store import RunStore\n    from ..stores import _io\n")
    assert _imported(tree, "sitbench.metrics._compute", is_package=False) == [
        (2, "sitbench.runs._store"), (3, "sitbench.stores"), (3, "sitbench.stores._io")]
    # Every package of the source is seen (a walk that found nothing would pass both checks).
    edges, _ = _graph()
    assert {"runs", "verify", "metrics", "stats", "report", "cli"} <= set(edges)


def test_every_import_of_sitbench_resolves() -> None:
    """Lazy imports inside functions are only run on some paths: each one must still name what exists."""
    import importlib

    missing = []
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                    and node.module.split(".")[0] == "sitbench"):
                continue
            try:
                target = importlib.import_module(node.module)
            except ModuleNotFoundError as exc:
                if exc.name and exc.name.split(".")[0] != "sitbench":
                    continue  # an optional dependency (Inspect, mem0) that is not installed here
                missing.append(f"{module}:{node.lineno}: no module {node.module}")
                continue
            for alias in node.names:
                if not hasattr(target, alias.name):
                    try:
                        importlib.import_module(f"{node.module}.{alias.name}")
                    except ModuleNotFoundError:
                        missing.append(f"{module}:{node.lineno}: {node.module} has no {alias.name}")
    assert not missing, "\n".join(missing)
