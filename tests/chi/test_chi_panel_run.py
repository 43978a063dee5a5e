"""The panel runner: missingness, the kit's interchange, hooks, the memory tests through the same runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sitbench.chi import load_manifest, load_observations, validate_records
from sitbench.chi._panel import ALL_TESTS, Hook, PanelTest
from sitbench.chi._panel_harness import missing_hooks
from sitbench.chi._panel_run import PanelSpec, panel_tests, parse_panel, run_panel
from sitbench.cli import main
from sitbench.errors import InputError


def test_every_builtin_test_satisfies_the_protocol() -> None:
    tests = panel_tests()
    assert {"R1", "R2", "R3", "R4", "M1", "M8"} <= set(tests)
    for t in tests.values():
        assert isinstance(t, PanelTest)
        assert t.test_id in ALL_TESTS


def test_parse_panel() -> None:
    assert parse_panel("r") == ["R1", "R2", "R3", "R4"]
    assert parse_panel("m3,r1") == ["R1", "M3"]
    with pytest.raises(InputError, match="not a registered test"):
        parse_panel("r9")


def test_all_thirty_are_reported_and_unrun_axes_have_no_capacity(tmp_path: Path) -> None:
    s = run_panel(PanelSpec(tests=["R1", "R2", "R3"], agent="sliding", trajectories=2, seed=1), out=tmp_path)
    obs = s["observations"][0]
    assert [t.test_id for t in obs.task_results] == list(ALL_TESTS)
    r4 = next(t for t in obs.task_results if t.test_id == "R4")
    assert r4.score is None and "not run" in (r4.missing_reason or "")
    c1 = next(t for t in obs.task_results if t.test_id == "C1")
    assert c1.score is None and c1.missing_reason
    # R4 was not run: the R axis is missing, not renormalised over R1–R3
    assert obs.capacities["R"] is None and obs.capacities["M"] is None
    assert obs.chi is None and s["manifest"].evidence_class == "capacity-only"
    manifest = load_manifest(tmp_path / "manifest.json")
    records = load_observations(tmp_path / "observations.jsonl")
    validate_records(manifest, records, "observations.jsonl")
    assert len(manifest.feature_schemas["probe"]) == len(records[0].features or [])
    lines = (tmp_path / "probes.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    assert {"utterance", "reply", "parsed", "outcome", "source_refs", "key"} <= set(first)


def test_a_full_axis_has_a_capacity() -> None:
    s = run_panel(PanelSpec(tests=parse_panel("r"), agent="sliding", trajectories=1, seed=1))
    obs = s["observations"][0]
    scores = [t.score for t in obs.task_results if t.axis == "R"]
    assert obs.capacities["R"] == pytest.approx(sum(scores) / 4)  # type: ignore[arg-type]
    assert s["panel"]["uncertainty"].startswith("null")
    assert s["panel"]["capacities"]["R"]["lower"] is None


def test_same_seed_same_hashes() -> None:
    a = run_panel(PanelSpec(tests=["R1", "M2"], agent="stateless", trajectories=1, seed=9))
    b = run_panel(PanelSpec(tests=["R1", "M2"], agent="stateless", trajectories=1, seed=9))
    c = run_panel(PanelSpec(tests=["R1", "M2"], agent="stateless", trajectories=1, seed=10))
    assert a["manifest"].dataset_hashes == b["manifest"].dataset_hashes
    assert a["manifest"].dataset_hashes != c["manifest"].dataset_hashes


class _NoHooks:
    async def ingest(self, s: Any) -> None: ...
    async def respond(self, t: Any) -> str:
        return "{}"
    async def end_session(self) -> None: ...


def test_missing_hooks_are_named() -> None:
    assert missing_hooks(_NoHooks(), {Hook.ERASE, Hook.FORK}) == ["erase", "fork"]


def test_memory_tests_score_as_under_the_memory_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.chi import RunSpec, _panel_run, run_memory
    from sitbench.chi._memory_run import trajectory_seed

    mem = run_memory(RunSpec(panels=["m3", "m6"], agent="versioned", model="mock/memory-reader",
                             condition="equal-budget", seed=4, trajectories=1, pre_exposure=0))
    monkeypatch.setattr(_panel_run, "test_seed", lambda seed, k, test_id: trajectory_seed(seed, k))
    panel = run_panel(PanelSpec(tests=["M3", "M6"], agent="versioned", model="mock/memory-reader", seed=4,
                                trajectories=1))
    for p in ("m3", "m6"):
        assert panel["panel"]["tests"][p.upper()]["score"]["estimate"] == mem["memory"]["panels"][p]["score"]["estimate"]


def test_cli_run_and_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["chi", "run", "--panel", "r2,r3", "--agent", "rag", "--trajectories", "2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "R2 (R)" in text and "R: missing" in text
    assert main(["chi", "score", str(out / "observations.jsonl"), "--manifest", str(out / "manifest.json"),
                 "--json"]) == 0
    capsys.readouterr()
    assert main(["chi", "run", "--panel", "c9", "--agent", "rag"]) == 2
    assert "not a registered test" in capsys.readouterr().err


def test_demo_good_is_above_poor_on_every_test_and_html_is_written(tmp_path: Path) -> None:
    from sitbench.chi._panel_report import PANEL_DEMO_TESTS, panel_demo_failures, panel_demo_specs

    specs = panel_demo_specs()
    for spec in specs.values():
        spec.trajectories = 1
    sections = {name: run_panel(spec, out=tmp_path / name)["panel"] for name, spec in specs.items()}
    assert panel_demo_failures(sections) == []
    assert set(sections["good"]["tests"]) == set(PANEL_DEMO_TESTS)
    page = (tmp_path / "good" / "panel.html").read_text()
    assert "capacity-only" in page and "Capacity profile" in page and "Missing registered tests (0)" in page


def test_an_evaluator_outage_invalidates_the_block_and_is_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.chi._panel_r import R3Counterfactual

    def broken(self: Any, probe: Any, reply: Any, error: Any) -> Any:
        raise ZeroDivisionError("rubric bug")

    monkeypatch.setattr(R3Counterfactual, "grade", broken)
    s = run_panel(PanelSpec(tests=["R2", "R3"], agent="sliding", trajectories=1, seed=1))
    r3 = next(t for t in s["observations"][0].task_results if t.test_id == "R3")
    assert r3.score is None and "evaluator outage" in (r3.missing_reason or "")
    assert any("evaluator outage" in e for e in s["manifest"].exclusions)
    assert s["observations"][0].capacities["R"] is None


class _DeclaresNoTick:
    """An HTTP-like agent whose tick method exists but is not declared: it must never be called."""

    ticks = 0

    def declared_hooks(self) -> list[str]:
        return ["fork"]

    async def tick(self, budget_ops: int | None = None) -> None:
        _DeclaresNoTick.ticks += 1


def test_an_undeclared_tick_is_never_called() -> None:
    from sitbench.chi._panel import Hook, agent_hooks

    assert agent_hooks(_DeclaresNoTick()) == {Hook.FORK}


def test_every_r_and_i_test_validates_under_chi_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ri"
    assert main(["chi", "run", "--panel", "r,i", "--agent", "stateless", "--trajectories", "2", "--out", str(out),
                 "--json"]) == 0
    section = json.loads(capsys.readouterr().out)
    assert list(section["tests"]) == ["R1", "R2", "R3", "R4", "I1", "I2", "I3", "I4", "I5", "I6"]
    assert section["resamples"] == 2000
    assert main(["chi", "score", str(out / "observations.jsonl"), "--manifest", str(out / "manifest.json")]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["system"]["preregistered"]["I6"]["practical_threshold"] == 0.1
    assert manifest["system"]["preregistered"]["I5"]["epsilon"] == 0.05
    assert (out / "panel.html").exists()


class _DiesInHistory:
    """Fails on its fifth history line: every probe after it is a task failure, none is dropped."""

    def __init__(self) -> None:
        self.seen = 0

    async def ingest(self, s: Any) -> None: ...

    async def respond(self, t: Any) -> str:
        if t.utterance.startswith("RECORD "):
            self.seen += 1
            if self.seen == 5:
                raise RuntimeError("store crashed")
            return "OK"
        return json.dumps({"abstain": True, "answer": None})

    async def end_session(self) -> None: ...


def test_an_agent_failing_during_history_fails_the_remaining_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.chi import _panel_run

    monkeypatch.setattr(_panel_run, "_factory", lambda spec, ep, cand: ((lambda: _DiesInHistory()), {"label": "x"}))
    s = run_panel(PanelSpec(tests=["R1"], agent="x", model="", trajectories=1))
    r1 = next(t for t in s["observations"][0].task_results if t.test_id == "R1")
    assert r1.score == 0.0 and r1.total == 24
    assert s["panel"]["tests"]["R1"]["outcomes"]["initial"] == {"invalid": 24}


def test_a_new_test_plugs_in_through_the_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import dataclass

    from sitbench.chi import Episode, Grade, PanelProbe, TestInstance, TestResult, _panel_run
    from sitbench.chi._memory_env import Checkpoint
    from sitbench.chi._memory_rubric import Outcome

    @dataclass(frozen=True)
    class Toy:
        test_id: str = "C1"
        axis: str = "C"
        version: str = "toy-1"
        hooks: frozenset[Hook] = frozenset()
        vector_schema: tuple[str, ...] = ("accuracy",)

        def generate(self, seed: int) -> TestInstance:
            probe = PanelProbe("c1-1", "main", "s", "k", f"Say {seed % 7}.", ("abstain", "answer"), {"answer": "x"})
            return TestInstance("C1", seed, [Episode("main", [Checkpoint("main")], [probe])])

        def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
            return Grade(Outcome.WRONG if reply is None or "x" not in reply else Outcome.CORRECT, {"reply": reply})

        def score(self, instance: TestInstance, runs: Any) -> TestResult:
            ok = [r.grade.success for run in runs for r in run.records]
            return TestResult("C1", sum(ok) / len(ok), sum(ok), len(ok), vector=[sum(ok) / len(ok)])

    monkeypatch.setattr(_panel_run, "_TESTS", dict(_panel_run._TESTS))
    register_test = _panel_run.register_test
    register_test(Toy())  # type: ignore[arg-type]
    panel_tests()  # the built-in tests first: the toy then replaces the built-in C1
    register_test(Toy())  # type: ignore[arg-type]
    assert parse_panel("c") == ["C1", "C2", "C3", "C4", "C5", "C6"]
    s = run_panel(PanelSpec(tests=["C1", "R4"], agent="stateless", trajectories=1))
    c1 = next(t for t in s["observations"][0].task_results if t.test_id == "C1")
    assert c1.score == 0.0 and c1.total == 1
    assert s["observations"][0].capacities["C"] is None  # C2–C6 were not run
    with pytest.raises(InputError, match="registered on axis"):
        register_test(Toy(axis="R"))  # type: ignore[arg-type]
