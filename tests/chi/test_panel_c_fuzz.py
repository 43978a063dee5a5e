"""Every C/A environment survives arbitrary replies: each ends with a record and a score, never a crash."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from sitbench.chi._panel_c import Outcome, run_test
from sitbench.chi._panel_c_registry import CA_PANEL

_KEYS = ("answer", "actions", "plan", "hypothesis", "action", "call", "open", "simulate", "execute", "artifact",
         "choice", "ack", "abstain")


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 2 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.randrange(-3, 30)
    if kind == 3:
        return rng.choice(["A", "B", "c", "", "box A", "route-x", "T-0001", "unit-bada", "ba"])
    if kind == 4:
        return rng.random()
    if kind == 5:
        return rng.choice(["stage", "make", "work", "replace"])
    if kind == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if kind == 7:
        keys = ("op", "goal", "stage", "token", "target", "task", "item", "result", "1")
        return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return {k: _value(rng, depth + 1) for k in rng.sample(_KEYS, 2)}


def _leaves(obj: Any) -> list[Any]:
    if isinstance(obj, dict):
        return [*obj, *(x for v in obj.values() for x in _leaves(v))]
    if isinstance(obj, list):
        return [x for v in obj for x in _leaves(v)]
    return [obj]


class Fuzzer:
    """Mostly well-formed replies built from what the event shows (names, numbers), sometimes garbage."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def _plausible(self, seen: list[Any]) -> dict[str, Any]:
        rng = self.rng
        pick = (lambda: rng.choice(seen)) if seen else (lambda: _value(rng))
        action = {"op": rng.choice(["stage", "make", "work", "replace"]), "goal": pick(), "stage": rng.randrange(4),
                  "token": pick(), "target": pick(), "task": pick(), "item": rng.randrange(8), "result": pick()}
        full = {"answer": pick(), "actions": [action], "plan": [pick(), pick()], "hypothesis": pick(),
                "action": action, "call": pick(), "open": rng.choice("ABCD"), "simulate": pick(), "execute": pick(),
                "artifact": {str(rng.randrange(7)): pick()}, "choice": rng.choice("AB"), "ack": True}
        return {k: full[k] for k in rng.sample(list(full), rng.randrange(1, 4))}

    def _reply(self, text: str) -> str:
        r = self.rng.random()
        if r < 0.05:
            return "not json"
        if r < 0.1:
            return json.dumps({k: _value(self.rng) for k in self.rng.sample(_KEYS, self.rng.randrange(1, 5))})
        _, _, body = text.partition("\n")
        try:
            seen = [x for x in _leaves(json.loads(body)) if isinstance(x, (str, int))] if body else []
        except ValueError:
            seen = []
        return json.dumps(self._plausible(seen))

    def respond(self, text: str) -> str:
        return self._reply(text)

    def tick(self, text: str, budget_ops: int) -> str | None:
        return None if self.rng.random() < 0.3 else self._reply(text)

    def end_session(self) -> None:
        return None


@pytest.mark.parametrize("entry", CA_PANEL, ids=lambda e: e.test.test_id)
def test_arbitrary_replies_never_crash_an_environment(entry: Any) -> None:
    for seed in range(3):
        counter = iter(range(seed * 1000, seed * 1000 + 1000))
        records, score = run_test(entry.test, seed, lambda c=counter: Fuzzer(next(c)))  # type: ignore[misc]
        assert records and all(isinstance(r.outcome, Outcome) for r in records)
        assert score.capacity is None or 0.0 <= score.capacity <= 1.0
