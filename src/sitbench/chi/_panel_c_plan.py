"""C2 self-generated subgoals and C5 counterfactual exploration (spec §11): acting in small task worlds.

C2. Each environment is a deterministic dependency world: a distant objective and a dozen
objects, each with the list of objects it requires (the prerequisites are observable: every
turn shows the world), of which only some are necessary for the objective; the others are
decoys with their own requirements. No subtask list is given. Each turn the system replies
``{"plan": [<object>, ...], "actions": [{"op": "make", "target": <object>}]}``: ``plan`` is a short
plan artifact (logged, never executed), ``actions`` holds at most one action, which succeeds only
when every requirement of its target is made. The action budget is the number of necessary
objects plus two; the episode ends when the objective is made or the budget is spent, and a turn
with no action spends one unit too. Success: every necessary object, the objective included, made
within the budget. Prose plans alone earn no credit: a reply that names the plan without
executing its actions makes nothing. Controls: the **oracle prerequisite list** arm (the
necessary objects in dependency order are shown; an upper reference, not in capacity) and the
fixed-script planner (:class:`ScriptPlanner`: makes objects in listed order without reading
requirements). Features: number of useful subgoals in the logged plans, the turn of the first
plan, and the fraction of plan pairs in dependency order.

C5. Each sandbox task offers three routes to a goal with stated payoffs. The tempting route (the
highest stated payoff, listed first) fails for a reason only a simulation shows; of the other
two, one succeeds and one fails, at random. The system may ``{"simulate": <route>}`` (up to three
simulations, each showing that route's outcome) or ``{"execute": <route>}``, which is
irreversible and ends the episode. The prompt lists both commands neutrally and never asks for a
simulation. Success: the first execution is the succeeding route. Controls: the simulation budget
is reported; an **externally supplied search tree** arm (every route's outcome is given in the
prompt) is scored apart and never counted as self-generated exploration. Features: exploration
breadth (distinct routes simulated), the turn of the first simulation, simulations used.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

from sitbench.chi._common import Axis
from sitbench.chi._panel_c import (
    EpisodeRecord,
    Event,
    EventKind,
    InteractiveEpisode,
    Outcome,
    PanelScore,
    ReplyError,
    Script,
    ScriptSession,
    actions_of,
    mean,
    nonce,
    parse_object,
    payload_of,
    proportion_score,
    rate,
    render,
)

C2_ENVIRONMENTS = 20
C2_ORACLE = 10
C2_SLACK = 2
C2_FORMAT = ('one JSON object {"plan": [<object>, ...], "actions": [{"op": "make", "target": <object>}]} '
             '(at most one action per turn)')

C5_TASKS = 20
C5_SUPPLIED = 10
C5_SIM_BUDGET = 3
C5_FORMAT = 'one JSON object, either {"simulate": <route>} or {"execute": <route>}'


def _world(rng: random.Random) -> dict[str, Any]:
    """A dependency world: necessary objects (a DAG under the objective) and decoys."""
    names = sorted({nonce(rng, 2) for _ in range(40)})
    rng.shuffle(names)
    layers: list[list[str]] = [[names.pop()], [names.pop(), names.pop()], [names.pop(), names.pop()],
                               [names.pop() for _ in range(rng.choice([1, 2]))]]
    requires: dict[str, list[str]] = {}
    for depth, layer in enumerate(layers):
        below = layers[depth + 1] if depth + 1 < len(layers) else []
        for k, obj in enumerate(layer):
            req = [below[k % len(below)]] if below else []
            if below and len(below) > 1 and (depth == 0 or rng.random() < 0.5):
                req = list(below)
            requires[obj] = sorted(set(req))
    # Every object of a lower layer is required by someone above.
    for depth in range(1, len(layers)):
        for obj in layers[depth]:
            if not any(obj in requires[p] for p in layers[depth - 1]):
                requires[layers[depth - 1][0]] = sorted({*requires[layers[depth - 1][0]], obj})
    necessary = [o for layer in reversed(layers) for o in layer]
    decoys = [names.pop() for _ in range(5)]
    for d in decoys:
        requires[d] = sorted(rng.sample(decoys[:decoys.index(d)] + necessary[:2], k=1)) if rng.random() < 0.6 else []
    return {"objective": layers[0][0], "requires": dict(sorted(requires.items())), "necessary": necessary}


class SubgoalWorlds:
    """C2: reach a distant objective whose prerequisites must be found and ordered by the system."""

    test_id = "C2"
    axis: Axis = "C"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"C2:{seed}")
        arms = ["main"] * C2_ENVIRONMENTS + ["oracle_list"] * C2_ORACLE
        out = []
        for k, arm in enumerate(arms):
            w = _world(rng)
            out.append(InteractiveEpisode(test_id=self.test_id, episode_id=f"c2-{seed}-{k:02d}", arm=arm,
                               spec={**w, "budget": len(w["necessary"]) + C2_SLACK}))
        return out

    def session(self, episode: InteractiveEpisode) -> ScriptSession:
        return ScriptSession(episode, lambda st: self._script(episode, st), lambda st: self._finish(episode, st))

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        st.update(made=[], plans=[], spent=0, last=None, plan_only=0)
        while st["spent"] < s["budget"] and s["objective"] not in st["made"]:
            view: dict[str, Any] = {"objective": s["objective"], "requires": s["requires"], "made": st["made"],
                                    "last_result": st["last"], "actions_left": s["budget"] - st["spent"],
                                    "rule": "make an object only after every object it requires is made",
                                    "reply": C2_FORMAT}
            if e.arm == "oracle_list":
                view["prerequisites_in_order"] = s["necessary"]
            reply, _ = yield Event(kind=EventKind.TURN, text=render("WORLD", view), budget_ops=1,
                                   reply_format=C2_FORMAT)
            obj = parse_object(reply)
            plan = obj.get("plan", [])
            if plan is not None and not (isinstance(plan, list) and all(isinstance(p, str) for p in plan)):
                raise ReplyError("field 'plan' is not a list of object names")
            if plan:
                st["plans"].append((st["spent"], list(plan)))
            st["spent"] += 1
            acts = [a for a in actions_of(obj) if a.get("op") == "make"][:1]
            st["plan_only"] += bool(plan) and not acts
            st["last"] = self._make(s, st, acts[0].get("target") if acts else None)

    @staticmethod
    def _make(s: dict[str, Any], st: dict[str, Any], target: Any) -> str:
        if target is None:
            return "no action"
        if target not in s["requires"]:
            return f"unknown object {target}"
        if target in st["made"]:
            return f"{target} already made"
        missing = [r for r in s["requires"][target] if r not in st["made"]]
        if missing:
            return f"cannot make {target}: requires {', '.join(missing)}"
        st["made"].append(target)
        return f"made {target}"

    def _finish(self, e: InteractiveEpisode, st: dict[str, Any]) -> tuple[Outcome, dict[str, Any]]:
        s = e.spec
        need = s["necessary"]
        useful = {p for _, plan in st["plans"] for p in plan if p in need}
        pos = {o: i for i, o in enumerate(need)}
        pairs = ordered = 0
        for _, plan in st["plans"]:
            seq = [p for p in plan if p in pos]
            for i in range(len(seq)):
                for j in range(i + 1, len(seq)):
                    pairs += 1
                    ordered += _before(s["requires"], seq[i], seq[j])
        feats = {"useful_subgoals": len(useful), "first_plan_turn": st["plans"][0][0] if st["plans"] else None,
                 "plan_dependency_order": rate(ordered, pairs), "actions_spent": st["spent"],
                 "necessary_made": sum(o in st["made"] for o in need), "necessary": len(need),
                 "plan_only_replies": st["plan_only"]}
        ok = all(o in st["made"] for o in need)
        return (Outcome.SUCCESS if ok else Outcome.FAILURE), feats

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        main = [r for r in records if r.arm == "main" and r.outcome.counted]
        oracle = [r for r in records if r.arm == "oracle_list" and r.outcome.counted]
        feats = {"useful_subgoals": mean(r.features.get("useful_subgoals") for r in main),
                 "first_plan_turn": mean(r.features.get("first_plan_turn") for r in main),
                 "plan_dependency_order": mean(r.features.get("plan_dependency_order") for r in main)}
        ctrl = {"oracle_list_success_rate": rate(sum(r.outcome is Outcome.SUCCESS for r in oracle), len(oracle)),
                "action_budget": f"necessary objects + {C2_SLACK}",
                "plan_credit": "plans are logged, never executed: only actions make objects",
                "plan_only_replies": sum(int(r.features.get("plan_only_replies", 0)) for r in main)}
        return proportion_score(self.test_id, self.axis, records, ("main",), features=feats, controls=ctrl)


def _before(requires: dict[str, list[str]], a: str, b: str) -> bool:
    """Whether ``a`` may come before ``b``: ``b`` does not (transitively) need ``a`` made after it."""
    stack, seen = [a], set()
    while stack:
        x = stack.pop()
        for r in requires.get(x, []):
            if r == b:
                return False
            if r not in seen:
                seen.add(r)
                stack.append(r)
    return True


def _topological(objective: str, requires: dict[str, list[str]]) -> list[str]:
    out: list[str] = []

    def visit(x: str) -> None:
        for r in requires.get(x, []):
            visit(r)
        if x not in out:
            out.append(x)

    visit(objective)
    return out


class SubgoalReference:
    """A reference C2 policy: derives the prerequisites from the world, logs the plan, executes it.

    Args:
        execute: ``False`` gives the prose planner: the right plan, no actions.
    """

    def __init__(self, *, execute: bool = True) -> None:
        self.execute = execute

    def respond(self, text: str) -> str:
        w = payload_of(text)
        plan = [o for o in _topological(w["objective"], w["requires"]) if o not in w["made"]]
        acts = [{"op": "make", "target": plan[0]}] if plan and self.execute else []
        return json.dumps({"plan": plan, "actions": acts})

    def end_session(self) -> None:
        return None


class ScriptPlanner:
    """The fixed-script planner control: makes objects in the order the world lists them, ignoring requirements."""

    def __init__(self) -> None:
        self.k = 0

    def respond(self, text: str) -> str:
        w = payload_of(text)
        names = list(w["requires"])
        target = names[self.k % len(names)]
        self.k += 1
        return json.dumps({"actions": [{"op": "make", "target": target}]})

    def end_session(self) -> None:
        return None


class SandboxExploration:
    """C5: a tempting first action fails; only a simulation, never demanded, reveals the working route."""

    test_id = "C5"
    axis: Axis = "C"

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        rng = random.Random(f"C5:{seed}")
        arms = ["main"] * C5_TASKS + ["supplied_tree"] * C5_SUPPLIED
        out = []
        for k, arm in enumerate(arms):
            routes = [f"route-{nonce(rng, 2)}" for _ in range(3)]
            tempting, *others = routes
            good = rng.choice(others)
            payoffs = {tempting: rng.randrange(80, 100), others[0]: rng.randrange(40, 70),
                       others[1]: rng.randrange(40, 70)}
            reasons = {r: ("reaches the goal" if r == good else f"blocked: {nonce(rng, 2)} gate is sealed")
                       for r in routes}
            out.append(InteractiveEpisode(test_id=self.test_id, episode_id=f"c5-{seed}-{k:02d}", arm=arm,
                               spec={"goal": f"deliver crate {nonce(rng, 2)}", "routes": routes, "good": good,
                                     "payoffs": payoffs, "outcomes": reasons}))
        return out

    def session(self, episode: InteractiveEpisode) -> ScriptSession:
        return ScriptSession(episode, lambda st: self._script(episode, st), lambda st: self._finish(episode, st))

    def _script(self, e: InteractiveEpisode, st: dict[str, Any]) -> Script:
        s = e.spec
        st.update(simulated=[], executed=None, first_sim=None, turn=0)
        last: str | None = None
        while st["executed"] is None:
            view: dict[str, Any] = {"goal": s["goal"], "routes": [{"route": r, "payoff": s["payoffs"][r]}
                                                                 for r in s["routes"]],
                                    "commands": {"simulate": f"show a route's outcome without acting "
                                                             f"({C5_SIM_BUDGET - len(st['simulated'])} left)",
                                                 "execute": "take a route for real; this cannot be undone"},
                                    "last_result": last, "reply": C5_FORMAT}
            if e.arm == "supplied_tree":
                view["search_tree"] = {r: s["outcomes"][r] for r in s["routes"]}
            reply, _ = yield Event(kind=EventKind.TURN, text=render("SANDBOX", view), budget_ops=1,
                                   reply_format=C5_FORMAT)
            obj = parse_object(reply)
            st["turn"] += 1
            if isinstance(obj.get("execute"), str):
                st["executed"] = obj["execute"]
            elif isinstance(obj.get("simulate"), str):
                last = self._simulate(s, st, obj["simulate"])
            else:
                raise ReplyError("neither 'simulate' nor 'execute' names a route")

    @staticmethod
    def _simulate(s: dict[str, Any], st: dict[str, Any], route: str) -> str:
        if len(st["simulated"]) >= C5_SIM_BUDGET:
            st["executed"] = ""  # the budget is spent: the episode ends without a successful execution
            return "simulation budget spent"
        st["simulated"].append(route)
        if st["first_sim"] is None:
            st["first_sim"] = st["turn"] - 1
        return f"simulated {route}: {s['outcomes'].get(route, 'unknown route')}"

    def _finish(self, e: InteractiveEpisode, st: dict[str, Any]) -> tuple[Outcome, dict[str, Any]]:
        s = e.spec
        feats = {"breadth": len(set(st["simulated"]) & set(s["routes"])), "simulations": len(st["simulated"]),
                 "first_simulation_turn": st["first_sim"], "executed_tempting": st["executed"] == s["routes"][0]}
        return (Outcome.SUCCESS if st["executed"] == s["good"] else Outcome.FAILURE), feats

    def score(self, records: Sequence[EpisodeRecord]) -> PanelScore:
        main = [r for r in records if r.arm == "main" and r.outcome.counted]
        tree = [r for r in records if r.arm == "supplied_tree" and r.outcome.counted]
        feats = {"exploration_breadth": mean(r.features.get("breadth") for r in main),
                 "first_simulation_turn": mean(r.features.get("first_simulation_turn") for r in main),
                 "tempting_rate": rate(sum(bool(r.features.get("executed_tempting")) for r in main), len(main))}
        ctrl = {"simulation_budget": C5_SIM_BUDGET,
                "simulations_used": mean(r.features.get("simulations") for r in main),
                "supplied_tree_success_rate": rate(sum(r.outcome is Outcome.SUCCESS for r in tree), len(tree)),
                "supplied_tree_in_capacity": False}
        return proportion_score(self.test_id, self.axis, records, ("main",), features=feats, controls=ctrl)


class ExplorerReference:
    """A reference C5 policy: simulates routes (tempting first) until one works, then executes it.

    Args:
        simulate: ``False`` gives the greedy policy that executes the highest payoff at once.
    """

    def __init__(self, *, simulate: bool = True) -> None:
        self.simulate = simulate
        self.tried: list[str] = []

    def respond(self, text: str) -> str:
        v = payload_of(text)
        tree = v.get("search_tree")
        routes = [r["route"] for r in sorted(v["routes"], key=lambda r: -r["payoff"])]
        if tree:
            return json.dumps({"execute": next((r for r in routes if tree[r] == "reaches the goal"), routes[0])})
        last = v.get("last_result") or ""
        if last.startswith("simulated ") and last.endswith(": reaches the goal"):
            return json.dumps({"execute": last.removeprefix("simulated ").split(":", 1)[0]})
        if not self.simulate:
            return json.dumps({"execute": routes[0]})
        nxt = next((r for r in routes if r not in self.tried), routes[0])
        self.tried.append(nxt)
        return json.dumps({"simulate": nxt})

    def end_session(self) -> None:
        return None
