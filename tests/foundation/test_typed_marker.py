"""sitbench declares itself typed (PEP 561): the ``py.typed`` marker sits inside the package it describes."""

from __future__ import annotations

import importlib.resources


def test_the_package_carries_an_empty_py_typed_marker() -> None:
    marker = importlib.resources.files("sitbench").joinpath("py.typed")
    assert marker.is_file()
    assert marker.read_bytes() == b""
