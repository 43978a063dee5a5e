"""Bad-input classes: bounds on options that size work, empty inputs, agents that exit or cannot be reached."""

from __future__ import annotations

from ._harness import Invocation, Workspace
from .cases import case

# ---------------------------------------------------------------- options that size processes (defect 3)


@case("unbounded resource", "run/workers-a-million")
def _run_workers(ws: Workspace) -> Invocation:
    return Invocation(["run", str(ws.dataset()), "--config", "B", "--model", "mock/oracle", "--out",
                       str(ws.root / "out"), "--workers", "1000000"], ("--workers 1000000", "at most", "CPUs"))


@case("unbounded resource", "score/workers-a-million")
def _score_workers(ws: Workspace) -> Invocation:
    return Invocation(["score", str(ws.run()), "--workers", "1000000"], ("--workers 1000000", "at most", "CPUs"))


@case("out-of-range numeric", "score/workers-zero")
def _score_workers_zero(ws: Workspace) -> Invocation:
    return Invocation(["score", str(ws.run()), "--workers", "0"], ("--workers 0",))
