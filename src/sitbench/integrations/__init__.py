"""Bridges to other evaluation harnesses. Each lives in its own sub-package, installed with its
optional extra, and is never imported by the core (``sitbench`` itself, its CLI and its runs).

- :mod:`sitbench.integrations.inspect_ai`: the SIT task, solver, scorer, metrics and an offline
  model API for Inspect (``pip install "sitbench[inspect]"``).
"""
