"""I1–I6 and the §7 experiment: generators, rubrics, the controls and cheats §11 and §7 name."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitbench.agents import AgentReply
from sitbench.chi._panel_i import (
    I1MemoryReasoning,
    I2GoalMemory,
    I3StateEvidence,
    I4CrossContext,
    I5Recovery,
    I6ExperienceDivergence,
)
from sitbench.chi._panel_run import PanelSpec, run_panel


def feats(summary: dict[str, Any], test: str) -> dict[str, Any]:
    return summary["panel"]["tests"][test]["features"][0]  # type: ignore[no-any-return]


def score(summary: dict[str, Any], test: str) -> float | None:
    return next(t.score for t in summary["observations"][0].task_results if t.test_id == test)


def run(tests: list[str], agent: str, model: str = "mock/panel-solver", condition: str = "equal-budget",
        seed: int = 1) -> dict[str, Any]:
    return run_panel(PanelSpec(tests=tests, agent=agent, model=model, condition=condition, trajectories=1, seed=seed))


@pytest.mark.parametrize("test", [I1MemoryReasoning(), I2GoalMemory(), I3StateEvidence(), I4CrossContext(),
                                  I5Recovery(), I6ExperienceDivergence()])
def test_same_seed_same_hashes(test: Any) -> None:
    a, b, c = test.generate(5), test.generate(5), test.generate(6)
    assert a.items_hash() == b.items_hash() and a.answer_key_hash() == b.answer_key_hash()
    assert a.items_hash() != c.items_hash()


def test_registered_counts() -> None:
    i1 = I1MemoryReasoning().generate(1)
    assert [e.name for e in i1.episodes] == ["intact", "erased", "oracle"]
    assert sum(p.stratum == "memory" for p in i1.episodes[0].probes) == 20
    i2 = I2GoalMemory().generate(1)
    assert sum(p.stratum == "update" for p in i2.episodes[0].probes) == 20
    i3 = I3StateEvidence().generate(1)
    cells: dict[str, int] = {}
    for e in i3.episodes:
        for p in e.probes:
            cells[p.stratum] = cells.get(p.stratum, 0) + 1
    assert len(cells) == 6 and set(cells.values()) == {20}
    assert not any(v in line for e in i3.episodes for line in e.records for v in ("positive", "negative", "neutral"))
    i4 = I4CrossContext().generate(1)
    assert len(i4.episodes[0].probes) == 40
    i6 = I6ExperienceDivergence().generate(1)
    histories = [len(e.records) for e in i6.episodes]
    assert len(set(histories)) == 1  # matched length in every arm


def test_i1_erased_clone_loses_what_intact_had_and_oracle_is_at_least_intact() -> None:
    s = run(["I1"], "replay", condition="best-effort")
    f = feats(s, "I1")
    acc = f["accuracy_by_arm"]
    assert acc["intact"] == 1.0 and acc["erased"] == 0.0 and acc["oracle"] >= acc["intact"]
    assert f["intact_minus_erased"] == 1.0 and f["generic_damage"] is False
    assert score(s, "I1") == 1.0


def test_i1_without_an_erase_hook_is_missing_not_failed() -> None:
    from sitbench.chi import _panel_run

    class NoErase:
        async def ingest(self, s: Any) -> None: ...
        async def respond(self, t: Any) -> str:
            return json.dumps({"abstain": True, "answer": None})
        async def end_session(self) -> None: ...

    orig = _panel_run._factory
    try:
        _panel_run._factory = lambda spec, ep, cand: ((lambda: NoErase()), {"label": "no-erase"})  # type: ignore[assignment]
        s = run_panel(PanelSpec(tests=["I1", "I2"], agent="x", model="", trajectories=1))
    finally:
        _panel_run._factory = orig  # type: ignore[assignment]
    i1 = next(t for t in s["observations"][0].task_results if t.test_id == "I1")
    assert i1.score is None and "erase" in (i1.missing_reason or "")
    assert score(s, "I2") == 0.0  # run, and failed
    assert s["observations"][0].capacities["I"] is None


def test_i2_blind_persistence_after_cancellation_is_reported() -> None:
    good = run(["I2"], "replay", condition="best-effort")
    naive = run(["I2"], "replay", model="mock/panel-naive", condition="best-effort")
    assert score(good, "I2") == 1.0 and feats(good, "I2")["cancellation_respected"] == 1.0
    assert feats(naive, "I2")["blind_persistence_after_cancellation"] == 1.0
    assert feats(naive, "I2")["stale_preference_rate"] == 1.0 and score(naive, "I2") == 0.0
    assert feats(naive, "I2")["old_preference_kept"] == 1.0


def test_i3_cells_equally_weighted_and_valence_shift_shows_in_the_did() -> None:
    good = run(["I3"], "sliding")
    naive = run(["I3"], "sliding", model="mock/panel-naive")
    assert score(good, "I3") == 1.0
    cells = feats(naive, "I3")["cells"]
    assert cells["neutral_weak"] == 1.0 and cells["positive_weak"] == 0.5 and cells["negative_weak"] == 0.5
    assert score(naive, "I3") == pytest.approx(sum(cells.values()) / 6)
    assert feats(naive, "I3")["difference_in_differences"] == {"positive": 0.5, "negative": 0.5}


def test_i4_verbatim_repeater_fails_justified_exceptions_and_revisions() -> None:
    repeater = run(["I4"], "replay", model="mock/panel-naive", condition="best-effort")
    f = feats(repeater, "I4")
    assert f["accuracy_by_kind"]["revised"] == 0.0 and f["scope_sensitive_change"] == 0.0
    assert f["revision_uptake"] == 0.0 and f["outdated_commitment_repetition"] == 1.0
    assert score(repeater, "I4") == pytest.approx(25 / 40)
    good = run(["I4"], "replay", condition="best-effort")
    assert score(good, "I4") == 1.0 and feats(good, "I4")["scope_sensitive_change"] == 1.0


def test_i5_damage_and_recovery_apart_and_sham_does_nothing() -> None:
    s = run(["I5"], "versioned")
    f = feats(s, "I5")
    assert f["damage"] == pytest.approx(0.5) and f["sham_damage"] == 0.0
    assert f["recovery"]["return_time"] == 1.0 and not f["recovery"]["censored"]
    assert score(s, "I5") == 1.0


def test_i5_no_repair_is_right_censored(monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.chi._memory_baselines import MemoryBaseline

    async def no_repair(self: Any, fault: Any) -> None:
        return None

    monkeypatch.setattr(MemoryBaseline, "repair_fault", no_repair)
    s = run(["I5"], "versioned")
    f = feats(s, "I5")
    assert f["recovery"]["censored"] and f["recovery"]["return_time"] is None
    assert score(s, "I5") == pytest.approx(0.5)


def test_i6_identical_histories_give_zero_and_stateless_estimand_is_zero() -> None:
    stateless = run(["I6"], "stateless")
    for cp, v in feats(stateless, "I6")["by_checkpoint"].items():
        assert v["estimand"] == 0.0, cp
    versioned = run(["I6"], "versioned")
    by = feats(versioned, "I6")["by_checkpoint"]
    for cp in ("baseline", "w1", "w5", "w20"):
        assert by[cp]["detail"]["same_history_mean_d"] == 0.0  # two deterministic agents, one history
    assert by["baseline"]["estimand"] == 0.0
    for cp in ("w5", "w20"):
        assert by[cp]["estimand"] > 0.1
        # the swapped arm carries the effect with the history, not the instance
        assert by[cp]["swap_follows_history"] == 1.0
        assert by[cp]["swapped_d"] == pytest.approx(by[cp]["detail"]["different_history_mean_d"])
        assert by[cp]["erased_d"] == 0.0 and by[cp]["sham_d"] == pytest.approx(by[cp]["swapped_d"])
    assert feats(versioned, "I6")["persistence"]["claim"] is True
    assert feats(stateless, "I6")["persistence"]["claim"] is False
    assert "null result" in feats(stateless, "I6")["persistence"]["result"]


def test_i6_capacity_is_accuracy_not_divergence() -> None:
    s = run(["I6"], "versioned")
    assert score(s, "I6") == 1.0
    assert feats(s, "I6")["accuracy_by_arm"]["erased"] == 0.0


class HistoryAgent:
    """A user agent in Python with every hook: remembers record lines, answers the latest value asked."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ticks = 0

    async def ingest(self, subject: Any) -> None: ...

    async def respond(self, turn: Any) -> AgentReply:
        if turn.utterance.startswith("RECORD "):
            self.lines.append(turn.utterance)
            return AgentReply(text="OK")
        import re

        m = re.search(r"What is the (.+?) of (.+?)\?", turn.utterance)
        hits = [ln.rsplit(" is ", 1)[1].rstrip(".") for ln in self.lines
                if m and f"The {m.group(1)} of {m.group(2)} is " in ln]
        return AgentReply(text=json.dumps({"abstain": not hits, "answer": hits[-1] if hits else None}))

    async def end_session(self) -> None: ...

    async def fork(self) -> HistoryAgent:
        child = HistoryAgent()
        child.lines = list(self.lines)
        return child

    async def tick(self, budget_ops: int | None = None) -> None:
        self.ticks += 1

    async def erase(self) -> None:
        self.lines = []

    async def inject_fault(self, fault: dict[str, Any]) -> None:
        self.saved, self.lines = self.lines, self.lines[::2]

    async def repair_fault(self, fault: dict[str, Any]) -> None:
        self.lines = self.saved


def make_history_agent() -> HistoryAgent:
    return HistoryAgent()


def test_a_python_user_agent_runs_i5_and_i6_through_its_hooks() -> None:
    s = run_panel(PanelSpec(tests=["I5", "I6"], agent=f"{__file__}:make_history_agent", trajectories=1, seed=2))
    assert score(s, "I5") == 1.0 and feats(s, "I5")["damage"] == pytest.approx(0.5)
    assert feats(s, "I6")["by_checkpoint"]["w20"]["estimand"] > 0.1


def test_chis_measures_over_the_real_checkpoints() -> None:
    versioned = run(["I5", "I6"], "versioned")
    assert feats(versioned, "I5")["chis"]["stability"]["value"] == 1.0
    assert feats(versioned, "I6")["chis"]["stability"] == 1.0
    assert feats(versioned, "I6")["chis"]["drift_w20_from_w1"] == 0.0
    sliding = run(["I6"], "sliding")  # washout pushes the history out of the window: drift and lower stability
    assert feats(sliding, "I6")["chis"]["drift_w20_from_w1"] > 0.0
    assert feats(sliding, "I6")["chis"]["stability"] < 1.0
