"""Every package sitbench's code imports is declared in pyproject.toml, where the module that imports it gets it.

A third-party import of a base module must be satisfied by the base ``dependencies``; one of a module that an
extra owns (``_dependencies.EXTRA_OF``) by the base dependencies or that extra. Something merely present in this
environment (brought in by another package, or by the ``dev`` extra) does not count: the next release of that
package may stop bringing it, as openai and anthropic stopped bringing httpx. CI also runs ``_dependencies.py``
with a venv holding the base install alone.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from . import _dependencies
from ._dependencies import (
    IMPORTED_BY_NAME,
    extra_of,
    installed_extras,
    modules,
    normalize,
    requirement_name,
    third_party_imports,
)

ROOT = Path(__file__).resolve().parents[2]


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def undeclared(project: dict[str, Any], src: Path) -> list[str]:
    """Each third-party import under ``src`` that the declarations of ``project`` do not satisfy, as a line."""
    base = {requirement_name(r) for r in project.get("dependencies", [])}
    extras = {extra: {requirement_name(r) for r in reqs}
              for extra, reqs in project.get("optional-dependencies", {}).items()}
    distributions = {name: {normalize(d) for d in dists}
                     for name, dists in importlib.metadata.packages_distributions().items()}
    here = installed_extras()
    problems = []
    for module, path in modules(src):
        extra = extra_of(module)
        allowed = (base | extras.get(extra, set())) if extra else base
        where = f"[{extra}]" if extra else "the base dependencies"
        for line, name in third_party_imports(path.read_text(encoding="utf-8"), module):
            site = f"{path.relative_to(src)}:{line}" if line else f"{path.relative_to(src)} (by name)"
            provided_by = distributions.get(name)
            if provided_by is None:
                if extra is not None and extra not in here:
                    continue  # the extra is not installed here, so what provides the name cannot be looked up
                problems.append(f"{site}: imports {name}, which no installed distribution provides "
                                f"(declare it in {where})")
            elif not provided_by & allowed:
                problems.append(f"{site}: imports {name} (from {', '.join(sorted(provided_by))}), "
                                f"not declared in {where}")
    return problems


def test_every_third_party_import_is_declared_for_its_module() -> None:
    problems = undeclared(_pyproject()["project"], ROOT / "src")
    assert not problems, "declare these in pyproject.toml:\n  " + "\n  ".join(problems)


def test_the_check_sees_an_undeclared_import() -> None:
    """Without httpx in the base dependencies the check names sitbench's HTTP client; a module of an extra gets
    only that extra (llama.cpp's module with [local] declaring Inspect's requirements is flagged)."""
    project = _pyproject()["project"]
    without_httpx = {**project, "dependencies": [r for r in project["dependencies"]
                                                 if requirement_name(r) != "httpx"]}
    assert any(p.startswith("sitbench/agents/_http.py:") and "imports httpx" in p
               for p in undeclared(without_httpx, ROOT / "src"))
    extras = project["optional-dependencies"]
    swapped = {**project, "optional-dependencies": {**extras, "local": extras["inspect"]}}
    if "local" in installed_extras():
        assert any(p.startswith("sitbench/candidates/llamacpp.py:") and "imports llama_cpp" in p
                   for p in undeclared(swapped, ROOT / "src"))


def test_the_import_walk_sees_lazy_guarded_and_by_name_imports() -> None:
    source = ("import os, numpy.linalg\nfrom sitbench.errors import InputError\nfrom . import _x\n"
              "def f():\n    try:\n        import llama_cpp\n    except ImportError:\n        pass\n"
              "    from httpx import Client\n")
    assert third_party_imports(source) == [(1, "numpy"), (6, "llama_cpp"), (9, "httpx")]
    assert extra_of("sitbench.integrations.inspect_ai._task") == "inspect"
    assert extra_of("sitbench.integrations") is None
    # The names imported through importlib are still written in their modules.
    for module, names in IMPORTED_BY_NAME.items():
        path = ROOT / "src" / Path(*module.split(".")).with_suffix(".py")
        for name in names:
            assert re.search(rf"""["']{name}["']""", path.read_text(encoding="utf-8")), f"{module} no longer names {name}"


def test_every_module_imports_in_a_fresh_interpreter(tmp_path: Path) -> None:
    """Each module whose extra is installed imports on its own, in an interpreter that has imported nothing yet."""
    result = subprocess.run([sys.executable, _dependencies.__file__], capture_output=True, text=True,
                            timeout=300, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.match(r"imported [1-9]\d* sitbench modules", result.stdout), result.stdout
