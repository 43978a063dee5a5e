"""The ``sitbench`` command line: the top layer, which drives every other package through its public API.

Each sub-command group has a module of its own here and is imported on first use, so ``sitbench --help``
stays fast and a heavy optional dependency is imported only by the command that needs it.
"""

from sitbench.cli._main import cli, main

__all__ = ["cli", "main"]
