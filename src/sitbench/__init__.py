"""sitbench: the Situated Identity Test harness."""

from sitbench._version import __version__

__all__ = ["__version__"]
