"""R1–R4: seeded generators, exact-answer rubrics, the cheats §11 names, the baselines."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitbench.agents import AgentReply
from sitbench.chi._memory_rubric import Outcome
from sitbench.chi._panel_r import (
    R1RuleTransfer,
    R2EvidenceRevision,
    R3Counterfactual,
    R4Abstention,
    bayes,
    r3_compute,
)
from sitbench.chi._panel_run import PanelSpec, run_panel


class ScriptedAgent:
    """A user agent answering every question with ``answer(utterance)``; history turns are acknowledged."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    async def ingest(self, subject: Any) -> None:
        return None

    async def respond(self, turn: Any) -> AgentReply:
        if turn.utterance.startswith("RECORD "):
            return AgentReply(text="OK")
        return AgentReply(text=self.answer(turn.utterance))

    async def end_session(self) -> None:
        return None

    async def fork(self) -> ScriptedAgent:
        return self


def run_with(monkeypatch: pytest.MonkeyPatch, tests: list[str], answer: Any, trajectories: int = 1) -> dict[str, Any]:
    from sitbench.chi import _panel_run

    def fake_factory(spec: Any, episode: Any, candidate: Any) -> Any:
        return (lambda: ScriptedAgent(answer)), {"label": "scripted"}

    monkeypatch.setattr(_panel_run, "_factory", fake_factory)
    return run_panel(PanelSpec(tests=tests, agent="scripted", model="", trajectories=trajectories, seed=3))


def result(summary: dict[str, Any], test: str, k: int = 0) -> Any:
    return next(t for t in summary["observations"][k].task_results if t.test_id == test)


@pytest.mark.parametrize("test", [R1RuleTransfer(), R2EvidenceRevision(), R3Counterfactual(), R4Abstention()])
def test_same_seed_same_hashes_other_seed_other_items(test: Any) -> None:
    a, b, c = test.generate(11), test.generate(11), test.generate(12)
    assert a.items_hash() == b.items_hash() and a.answer_key_hash() == b.answer_key_hash()
    assert a.items_hash() != c.items_hash()


def test_item_counts_are_the_registered_ones() -> None:
    r1 = R1RuleTransfer().generate(1)
    first = r1.episodes[0].probes_at("initial")
    assert len(first) == 24 and sum(p.stratum == "invalid_premise" for p in first) == 6
    teaching = r1.episodes[0].steps[0].lines  # type: ignore[union-attr]
    assert len(teaching) == 12
    history = "\n".join(r1.episodes[0].records)

    def expr(p: Any) -> str:
        return str(p.question.split("result of ")[1].split("?")[0])

    assert not any(expr(p) in "\n".join(teaching) for p in first)  # no answer keys in memory before asking
    assert not any(expr(p) in history for p in r1.episodes[0].probes_at("later"))
    assert sum(expr(p) in history for p in first) == 6  # the corrective feedback: six worked first items
    r2 = R2EvidenceRevision().generate(1)
    assert [len(e.probes) for e in r2.episodes] == [20, 20]
    r3 = R3Counterfactual().generate(1)
    inter = [p for p in r3.episodes[0].probes if p.stratum == "interventional"]
    assert len(inter) == 20 and sum(p.meta["conflict"] for p in inter) == 10
    r4 = R4Abstention().generate(1)
    ans = [p for p in r4.episodes[0].probes if p.key["answerable"]]
    assert len(ans) == 20 and sum(p.key["truth"] for p in ans) == 10
    assert len(r4.episodes[0].probes) == 40


def test_r1_operator_names_are_counterbalanced_across_seeds() -> None:
    names = {tuple(sorted(R1RuleTransfer().generate(s).params["rules"])) for s in range(5)}
    assert len(names) == 5


def test_r3_conflict_items_really_conflict() -> None:
    r3 = R3Counterfactual().generate(4)
    for it, p in zip(r3.params["items"], [p for p in r3.episodes[0].probes if p.stratum == "interventional"], strict=True):
        obs = r3_compute(it["roots"], it["eqs"])
        after = r3_compute(it["roots"], it["eqs"], {it["x"]: 1 - obs[it["x"]]})
        assert (after[it["y"]] != obs[it["y"]]) == p.meta["conflict"]
        assert f"{it['y']} = {after[it['y']]}" not in p.question.split("Intervention")[0] or not p.meta["conflict"]


def test_solver_scores_and_stateless_loses_r1_only() -> None:
    good = run_panel(PanelSpec(tests=["R1", "R2", "R3", "R4"], agent="sliding", model="mock/panel-solver",
                               trajectories=1, seed=2))
    stateless = run_panel(PanelSpec(tests=["R1"], agent="stateless", model="mock/panel-solver", trajectories=1, seed=2))
    assert result(good, "R1").score == 1.0 and result(good, "R3").score == 1.0
    assert result(good, "R2").score == pytest.approx(1.0, abs=1e-6)
    # stateless has no taught examples: only the six invalid premises (warranted abstentions) pass
    assert result(stateless, "R1").score == pytest.approx(6 / 24)


def test_r4_always_abstain_scores_zero_with_zero_coverage(monkeypatch: pytest.MonkeyPatch) -> None:
    s = run_with(monkeypatch, ["R4"], lambda u: json.dumps({"abstain": True, "probability": None}))
    assert result(s, "R4").score == 0.0
    feats = s["panel"]["tests"]["R4"]["features"][0]
    assert feats["answer_coverage"] == 0.0 and feats["correct_abstention_rate"] == 1.0


def test_r4_brier_is_computed_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    s = run_with(monkeypatch, ["R4"], lambda u: json.dumps({"abstain": False, "probability": 0.7}))
    inst = R4Abstention().generate(_seed("R4"))
    truths = [p.key["truth"] for p in inst.episodes[0].probes if p.key["answerable"]]
    assert result(s, "R4").score == pytest.approx(1 - sum((0.7 - t) ** 2 for t in truths) / 20)


def _seed(test: str) -> int:
    from sitbench.chi._panel_run import test_seed

    return test_seed(3, 0, test)


def test_r2_prior_repeater_earns_exactly_one_minus_mse_of_the_prior(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    def repeat_prior(u: str) -> str:
        p = float(re.search(r"faulty: ([0-9.]+)\.", u).group(1))  # type: ignore[union-attr]
        return json.dumps({"abstain": False, "prior": p, "posterior_first": p, "posterior_second": p})

    s = run_with(monkeypatch, ["R2"], repeat_prior)
    inst = R2EvidenceRevision().generate(_seed("R2"))
    errs = []
    for it in inst.params["items"]:
        for ev in (it["evidence"], it["evidence"][::-1]):
            b1 = bayes(it["prior"], ev[0]["ph"], ev[0]["pn"])
            b2 = bayes(b1, ev[1]["ph"], ev[1]["pn"])
            errs.append(((it["prior"] - b1) ** 2 + (it["prior"] - b2) ** 2) / 2)
    assert result(s, "R2").score == pytest.approx(1 - sum(errs) / len(errs))
    assert result(s, "R2").score < 1.0


def test_r2_abstention_is_an_inappropriate_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    s = run_with(monkeypatch, ["R2"], lambda u: json.dumps({"abstain": True}))
    assert result(s, "R2").score == 0.0


def test_r3_observed_state_answerer_loses_the_conflict_items(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    def observed(u: str) -> str:
        if "Intervention" not in u:
            return json.dumps({"abstain": False, "answer": "0"})
        y = re.search(r"what is the value of (\S+)\?", u).group(1)  # type: ignore[union-attr]
        state = dict(x.split(" = ") for x in re.search(r"Observed state: (.+?)\. Intervention", u).group(1).split(", "))  # type: ignore[union-attr]
        return json.dumps({"abstain": False, "answer": state[y]})

    s = run_with(monkeypatch, ["R3"], observed)
    feats = s["panel"]["tests"]["R3"]["features"][0]
    assert feats["conflict_accuracy"] == 0.0 and feats["non_conflict_accuracy"] == 1.0
    assert result(s, "R3").score == 0.5


def test_malformed_and_failing_replies_are_task_failures_not_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(u: str) -> str:
        if "lamp" in u:
            raise RuntimeError("backend down")
        return "sure, the answer is 4"

    s = run_with(monkeypatch, ["R1", "R4"], broken)
    assert result(s, "R1").score == 0.0 and result(s, "R1").total == 24
    assert result(s, "R4").score == 0.0
    assert s["panel"]["tests"]["R4"]["outcomes"]["answerable"] == {"invalid": 20}


def test_naive_reference_is_below_the_solver_on_every_r_test() -> None:
    spec = {"tests": ["R1", "R2", "R3", "R4"], "agent": "sliding", "trajectories": 1, "seed": 5}
    good = run_panel(PanelSpec(model="mock/panel-solver", **spec))  # type: ignore[arg-type]
    poor = run_panel(PanelSpec(model="mock/panel-naive", **spec))  # type: ignore[arg-type]
    for t in spec["tests"]:  # type: ignore[union-attr]
        assert result(poor, t).score < result(good, t).score, t


def test_grade_reads_only_valid_objects() -> None:
    r4 = R4Abstention()
    p = next(p for p in r4.generate(1).episodes[0].probes if p.key["answerable"])
    assert r4.grade(p, '{"abstain": false, "probability": 1.5}', None).outcome is Outcome.INVALID
    assert r4.grade(p, '{"abstain": true, "probability": 0.4}', None).outcome is Outcome.INVALID
    assert r4.grade(p, None, "timeout after 60 s").error == "timeout after 60 s"
    assert r4.grade(p, '```json\n{"abstain": false, "probability": 0.5}\n```', None).value == 0.75
