"""C2 self-generated subgoals and C5 counterfactual exploration: environments, rubrics, controls."""

from __future__ import annotations

import json

from sitbench.chi._panel_c import InteractiveTest, Outcome, payload_of, play, run_test
from sitbench.chi._panel_c_plan import (
    C2_ENVIRONMENTS,
    C5_SIM_BUDGET,
    C5_TASKS,
    ExplorerReference,
    SandboxExploration,
    ScriptPlanner,
    SubgoalReference,
    SubgoalWorlds,
)


def test_c2_worlds_are_seeded_and_their_prerequisites_are_observable() -> None:
    t = SubgoalWorlds()
    assert isinstance(t, InteractiveTest)
    a = t.generate(4)
    assert [e.item_hash for e in a] == [e.item_hash for e in t.generate(4)]
    assert [e.item_hash for e in a] != [e.item_hash for e in t.generate(5)]
    for e in a:
        s = e.spec
        assert s["objective"] == s["necessary"][-1]
        assert len(s["requires"]) > len(s["necessary"])  # decoys exist
        # Every necessary object is reachable from the objective through the visible requirements.
        seen, stack = set(), [s["objective"]]
        while stack:
            x = stack.pop()
            seen.add(x)
            stack.extend(s["requires"][x])
        assert seen == set(s["necessary"])
    rec = play(t, a[0], SubgoalReference())
    view = payload_of(rec.steps[0].text)
    assert "prerequisites_in_order" not in view and view["requires"] == a[0].spec["requires"]


def test_c2_reference_completes_and_the_fixed_script_planner_does_not() -> None:
    _, good = run_test(SubgoalWorlds(), 9, SubgoalReference)
    _, script = run_test(SubgoalWorlds(), 9, ScriptPlanner)
    assert good.capacity == 1.0 and good.total == C2_ENVIRONMENTS
    assert good.features["plan_dependency_order"] == 1.0 and good.features["first_plan_turn"] == 0.0
    assert script.capacity is not None and script.capacity < 0.2
    assert good.controls["oracle_list_success_rate"] == 1.0


def test_c2_prose_plans_alone_earn_no_credit() -> None:
    recs, prose = run_test(SubgoalWorlds(), 9, lambda: SubgoalReference(execute=False))
    assert prose.capacity == 0.0
    assert prose.features["useful_subgoals"] and prose.features["useful_subgoals"] > 0  # the plans were right
    assert all(r.features["necessary_made"] == 0 for r in recs)
    assert prose.controls["plan_only_replies"] == sum(r.features["actions_spent"] for r in recs if r.arm == "main")


def test_c2_a_prose_reply_is_a_malformed_reply() -> None:
    class Prose:
        def respond(self, text: str) -> str:
            return "First I will make the base, then the frame."

        def end_session(self) -> None:
            return None

    recs, s = run_test(SubgoalWorlds(), 1, Prose)
    assert s.capacity == 0.0 and all(r.outcome is Outcome.INVALID for r in recs)


def test_c2_actions_outside_the_budget_are_not_executed() -> None:
    class Wasteful(SubgoalReference):
        def __init__(self) -> None:
            super().__init__()
            self.n = 0

        def respond(self, text: str) -> str:
            self.n += 1
            if self.n <= 3:  # three wasted turns: over the two-action slack
                return json.dumps({"actions": []})
            return super().respond(text)

    _, s = run_test(SubgoalWorlds(), 9, Wasteful)
    assert s.capacity == 0.0


def test_c5_reference_simulates_and_executes_the_alternative() -> None:
    t = SandboxExploration()
    assert isinstance(t, InteractiveTest)
    _, good = run_test(t, 2, ExplorerReference)
    assert good.capacity == 1.0 and good.total == C5_TASKS
    assert good.features["tempting_rate"] == 0.0 and good.features["first_simulation_turn"] == 0.0
    assert 2 <= good.features["exploration_breadth"] <= C5_SIM_BUDGET
    assert good.controls["simulation_budget"] == C5_SIM_BUDGET


def test_c5_the_tempting_action_fails_and_simulation_is_never_demanded() -> None:
    t = SandboxExploration()
    _, greedy = run_test(t, 2, lambda: ExplorerReference(simulate=False))
    assert greedy.capacity == 0.0 and greedy.features["tempting_rate"] == 1.0
    rec = play(t, t.generate(2)[0], ExplorerReference())
    assert "simulat" not in json.dumps(payload_of(rec.steps[0].text)["goal"])
    assert "reaches the goal" not in rec.steps[0].text  # outcomes only appear through a simulation


def test_c5_an_externally_supplied_search_tree_is_not_self_generated() -> None:
    class TreeReader(ExplorerReference):
        def respond(self, text: str) -> str:
            tree = payload_of(text).get("search_tree")
            if tree:
                return json.dumps({"execute": next(r for r, o in tree.items() if o == "reaches the goal")})
            return json.dumps({"execute": payload_of(text)["routes"][1]["route"]})

    _, s = run_test(SandboxExploration(), 2, TreeReader)
    assert s.controls["supplied_tree_success_rate"] == 1.0 and s.controls["supplied_tree_in_capacity"] is False
    assert s.capacity is not None and s.capacity < 0.8  # capacity comes from the main arm only
