"""The C/A episode contract: event delivery, clones, malformed replies, the registry of twelve tests."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitbench.chi._capacity import axis_capacities
from sitbench.chi._panel_c import (
    Delivery,
    Event,
    EventKind,
    InteractiveEpisode,
    NoTick,
    Outcome,
    ReplyError,
    Script,
    ScriptSession,
    generator_report,
    malformed_message,
    parse_object,
    play,
    run_test,
)
from sitbench.chi._panel_c_registry import CA_PANEL, panel_entry, run_reference

IDS = [e.test.test_id for e in CA_PANEL]


def test_the_registry_holds_c1_to_c6_and_a1_to_a6() -> None:
    assert IDS == ["C1", "C2", "C3", "C4", "C5", "C6", "A1", "A2", "A3", "A4", "A5", "A6"]
    assert panel_entry("c4").test.test_id == "C4"
    with pytest.raises(KeyError, match="unknown C/A test"):
        panel_entry("M1")


@pytest.mark.parametrize("test_id", IDS)
def test_good_reference_outscores_the_poor_one_and_seeds_fix_the_items(test_id: str) -> None:
    _, good, report = run_reference(test_id, 17, "good")
    _, poor, report2 = run_reference(test_id, 17, "poor")
    assert report == report2 and report["items_hash"] == run_reference(test_id, 17)[2]["items_hash"]
    assert report["items_hash"] != run_reference(test_id, 18)[2]["items_hash"]
    assert good.capacity is not None and poor.capacity is not None
    assert good.capacity == 1.0 and poor.capacity < good.capacity
    assert good.task_score().axis == test_id[0]


def test_the_c_and_a_scores_make_axis_capacities() -> None:
    scores = [run_reference(t, 1)[1].task_score() for t in IDS]
    caps = axis_capacities(scores)
    assert caps["C"].capacity == 1.0 and caps["A"].capacity == 1.0
    assert caps["C"].registered == IDS[:6] and caps["A"].n_items > 0


def test_a_system_without_tick_leaves_c6_missing_and_the_c_axis_without_capacity() -> None:
    from sitbench.chi._panel_c_goal import PromptOnly

    scores = [run_reference(t, 1)[1].task_score() for t in IDS if t != "C6"]
    scores.append(run_test(panel_entry("C6").test, 1, PromptOnly)[1].task_score())
    caps = axis_capacities(scores)
    assert caps["C"].missing == ["C6"] and caps["C"].capacity is None  # never renormalized
    assert caps["C"].available_task_mean == 1.0


def _script(st: dict[str, Any]) -> Script:
    reply, delivery = yield Event(kind=EventKind.TURN, text="Q\n{}", reply_format="{}")
    st["turn"] = (reply, delivery)
    reply, delivery = yield Event(kind=EventKind.TICK, text="TICK\n{}", no_tick=NoTick.SKIP)
    st["skip"] = (reply, delivery)
    reply, delivery = yield Event(kind=EventKind.TICK, text="TICK\n{}", no_tick=NoTick.TURN)
    st["as_turn"] = (reply, delivery)
    yield Event(kind=EventKind.END_SESSION)
    reply, _ = yield Event(kind=EventKind.TURN, text="CLONE\n{}", clone=True)
    st["clone"] = reply
    reply, _ = yield Event(kind=EventKind.TURN, text="AFTER\n{}")
    st["after"] = reply
    parse_object(reply)


class _Test:
    test_id = "X1"
    axis = "C"

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}

    def generate(self, seed: int) -> list[InteractiveEpisode]:
        return [InteractiveEpisode(test_id="X1", episode_id="x", arm="main", spec={})]

    def session(self, episode: InteractiveEpisode) -> ScriptSession:
        s = ScriptSession(episode, _script, lambda st: (Outcome.SUCCESS, {}))
        self.state = s.state
        return s

    def score(self, records: Any) -> Any:
        raise NotImplementedError


class _Counter:
    def __init__(self) -> None:
        self.turns: list[str] = []
        self.ended = 0

    def respond(self, text: str) -> str:
        self.turns.append(text.split("\n")[0])
        return json.dumps({"n": len(self.turns), "ended": self.ended})

    def end_session(self) -> None:
        self.ended += 1


def test_events_map_onto_hooks_and_clones_leave_the_live_system_unchanged() -> None:
    t = _Test()
    agent = _Counter()
    rec = play(t, t.generate(0)[0], agent)
    st = t.state
    assert st["turn"][1] is Delivery.HOOK
    assert st["skip"] == (None, Delivery.NOT_INVOKED)  # a non-invoked system gets no opportunity
    assert st["as_turn"][1] is Delivery.TURN
    assert json.loads(st["clone"]) == {"n": 3, "ended": 1}
    assert json.loads(st["after"])["n"] == 3  # the clone's turn never reached the live system
    assert agent.turns == ["Q", "TICK", "AFTER"]
    assert rec.outcome is Outcome.SUCCESS and [s.clone for s in rec.steps].count(True) == 1


def test_a_tick_hook_is_used_when_present() -> None:
    class Ticked(_Counter):
        def __init__(self) -> None:
            super().__init__()
            self.ticks: list[int] = []

        def tick(self, text: str, budget_ops: int) -> str | None:
            self.ticks.append(budget_ops)
            return None

    t = _Test()
    agent = Ticked()
    play(t, t.generate(0)[0], agent)
    assert agent.ticks == [0, 0] and t.state["skip"][1] is Delivery.HOOK


def test_the_first_malformed_reply_is_reported_with_the_expected_format() -> None:
    class Prose:
        def respond(self, text: str) -> str:
            return "I would sort them and then continue the goal."

        def end_session(self) -> None:
            return None

    recs, _ = run_test(panel_entry("C1").test, 1, Prose)
    msg = malformed_message(recs)
    assert msg is not None and msg.startswith("C1 episode c1-1-00: malformed reply (not one JSON object)")
    assert '"op": "stage"' in msg
    recs, _ = run_test(panel_entry("A1").test, 1, Prose)
    msg = malformed_message(recs)
    assert msg is not None and '{"choice": "A"}' in msg  # the choice format, not the acknowledgement's
    assert malformed_message(run_reference("C1", 1)[0]) is None


def test_parse_object_is_strict() -> None:
    assert parse_object('```json\n{"a": 1}\n```') == {"a": 1}
    for bad in (None, "", "[1]", '{"a": 1} trailing', "yes"):
        with pytest.raises(ReplyError):
            parse_object(bad)


def test_generator_report_counts_arms() -> None:
    t = panel_entry("C3").test
    eps = t.generate(2)
    rep = generator_report(t, eps, 2)
    assert rep["arms"] == {"falsifying": 20, "neutral_evidence": 10} and rep["seed"] == 2


def test_feature_vectors_follow_the_schema_and_mark_missing_features() -> None:
    from sitbench.chi._panel_c_features import CA_FEATURE_SCHEMA, feature_names, feature_vector
    from sitbench.chi._panel_c_goal import PromptOnly

    good = {t: run_reference(t, 1, "good")[1] for t in IDS}
    poor = {t: run_reference(t, 1, "poor")[1] for t in IDS}
    for axis in ("C", "A"):
        names = feature_names(axis)
        assert len(names) == len(CA_FEATURE_SCHEMA[axis]) == len(feature_vector(axis, good))
    zc = dict(zip(feature_names("C"), feature_vector("C", good), strict=True))
    assert zc["C4.calls_per_episode"] == 1.0 and zc["C4.stopping_rate"] == 1.0
    za_good = dict(zip(feature_names("A"), feature_vector("A", good), strict=True))
    za_poor = dict(zip(feature_names("A"), feature_vector("A", poor), strict=True))
    assert za_good["A1.shift_positive"] == 0.0 and za_poor["A1.shift_positive"] > 0
    assert za_good["A3.positive.half_time.value"] is None  # no induction: undefined, not 0
    assert za_poor["A2.shift.positive.1"] is not None and za_poor["A4.ascending_first.value"] is not None
    missing = dict(good, C6=run_test(panel_entry("C6").test, 1, PromptOnly)[1])
    zc = dict(zip(feature_names("C"), feature_vector("C", missing), strict=True))
    assert zc["C6.progress_per_tick"] is None and zc["C1.resumption_probability"] == 1.0


def test_the_stateless_baseline_fails_what_needs_state_and_is_not_invoked_on_c6() -> None:
    caps = {t: run_reference(t, 4, "stateless")[1] for t in IDS}
    assert caps["C1"].capacity == pytest.approx(10 / 30)  # only the cancellation trials pass
    assert caps["C3"].capacity == 0.0 and caps["C5"].capacity == 0.0 and caps["A6"].capacity == 0.0
    assert caps["C2"].capacity == 1.0 and caps["C4"].capacity == 1.0  # every turn shows what they need
    assert caps["C6"].capacity is None and caps["C6"].missing_reason
    assert all(caps[t].capacity == 1.0 for t in ("A1", "A2", "A3", "A4", "A5"))  # no state, no shift
    axes = axis_capacities([s.task_score() for s in caps.values()])
    assert axes["C"].capacity is None and axes["C"].missing == ["C6"]


@pytest.mark.parametrize("test_id", IDS)
def test_one_panel_reference_agent_serves_every_test(test_id: str) -> None:
    from sitbench.chi._panel_c_registry import PanelReference

    entry = panel_entry(test_id)
    _, good = run_test(entry.test, 6, PanelReference)
    _, poor = run_test(entry.test, 6, lambda: PanelReference("poor"))
    assert good.capacity == run_test(entry.test, 6, entry.good)[1].capacity == 1.0
    assert poor.capacity == run_test(entry.test, 6, entry.poor)[1].capacity


def test_the_panel_reference_refuses_an_unknown_first_turn() -> None:
    from sitbench.chi._panel_c_registry import PanelReference

    with pytest.raises(ValueError, match="not one a C or A test sends"):
        PanelReference().respond("HELLO\n{}")


def test_item_hashes_do_not_depend_on_the_process_hash_seed() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("from sitbench.chi._panel_c_registry import CA_PANEL; from sitbench.chi._panel_c import generator_report;"
            "print(','.join(generator_report(e.test, e.test.generate(5), 5)['items_hash'] for e in CA_PANEL))")
    src = str(Path(__file__).resolve().parents[2] / "src")
    outs = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=src)
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout.strip())
    here = ",".join(generator_report(e.test, e.test.generate(5), 5)["items_hash"] for e in CA_PANEL)
    assert outs == {here}


def test_probe_vectors_are_proportions_under_a_fixed_schema() -> None:
    from sitbench.chi._panel_c_features import CA_VECTOR_SCHEMA, probe_vector

    assert set(CA_VECTOR_SCHEMA) == set(IDS)
    for t in IDS:
        for which in ("good", "poor", "stateless"):
            score = run_reference(t, 2, which)[1]  # type: ignore[arg-type]
            v = probe_vector(score)
            assert len(v) == len(CA_VECTOR_SCHEMA[t])
            assert all(x is None or 0.0 <= x <= 1.0 for x in v)
    good, poor = run_reference("C1", 2)[1], run_reference("C1", 2, "poor")[1]
    assert probe_vector(good) == [1.0, 1.0, 1.0, 1.0] and probe_vector(poor)[2] == 0.0
    assert probe_vector(run_reference("C6", 2, "stateless")[1]) == [None, None, None]
