"""One runner for every registered test of the CHI panel (spec §2, §5, §8, §11).

``run_panel`` takes the tests a :class:`PanelSpec` names (any subset of the 30 registered ids),
draws each test's instance per trajectory from a derived seed, runs every episode on a fresh
agent through :class:`~sitbench.chi._panel_harness.PanelHarness` and scores it with the test's own
``score``. Output is the kit's interchange: ``manifest.json`` (capacity-only, CHI null, the item
and answer-key hashes, feature schemas, seeds), ``observations.jsonl`` (one observation per
trajectory: its task results for **all 30** registered tests, the five-axis capacities, the
blind-probe vector), ``probes.jsonl`` (one record per probe: question, reply, parse, outcome,
source references) and ``panel.json`` (per-test scores with whole-cluster intervals).

Missingness (§2, §5): a registered test that is not implemented, not asked for, or needs an agent
hook the agent lacks is a missing task score with its reason, never a failure; an axis missing a
registered test has capacity ``None`` (no renormalisation).

Tests register with :func:`register_test`; :func:`panel_tests` also finds the ``TESTS`` tuple of every
``sitbench/chi/_panel_*.py`` module (R1–R4, M1–M8, C1–C6, A1–A6 and I1–I6). A test with its own
``run_episode(factory, episode, trajectory, deadline_s=…)`` (the interactive C and A tests) is driven by it
instead of the history/probe harness.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import hashlib
import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitbench._version import __version__, git_commit
from sitbench.chi._capacity import TaskScore, axis_capacities
from sitbench.chi._common import AXES, SPEC_VERSION
from sitbench.chi._interchange import Analysis, ChiManifest, ChiObservation, dump_jsonl
from sitbench.chi._memory_baselines import BASELINES, make_baseline_factory
from sitbench.chi._memory_env import derive_seed
from sitbench.chi._panel import ALL_TESTS, PANEL_VERSION, REGISTERED, EpisodeRun, PanelTest, ProbeRecord, TestResult
from sitbench.chi._panel_harness import EvaluatorOutage, PanelHarness, missing_hooks
from sitbench.chi._panel_reference import REFERENCE_SYSTEMS, reference_factory
from sitbench.chi._panel_solver import PanelSolverCandidate
from sitbench.chi._uncertainty import MIN_RESAMPLES, bootstrap_indices, percentile_interval
from sitbench.errors import InputError
from sitbench.stats import resample_means
from sitbench.stores import write_text_atomic

RUN_VERSION = "chi-panel-run-0.1"

_TESTS: dict[str, PanelTest] = {}
REFERENCE_READERS = (PanelSolverCandidate,)
"""Importing the runner registers ``mock/panel-solver`` and ``mock/panel-naive``."""


def register_test(test: PanelTest) -> None:
    """Make ``test`` runnable by ``sitbench chi run --panel``; its id must be a registered §11 id."""
    if test.test_id not in ALL_TESTS:
        raise InputError(f"test id {test.test_id!r}: not one of the 30 registered tests ({', '.join(ALL_TESTS)})")
    if test.test_id not in REGISTERED[test.axis]:
        raise InputError(f"test {test.test_id}: registered on axis {_axis_of(test.test_id)}, not {test.axis}")
    _TESTS[test.test_id] = test


def _axis_of(test_id: str) -> str:
    return next(a for a, ts in REGISTERED.items() if test_id in ts)


def panel_tests() -> dict[str, PanelTest]:
    """Every implemented test, by id, in §11 order (importing the built-in test modules once)."""
    global _DISCOVERED
    if not _DISCOVERED:
        _DISCOVERED = True
        for test in _builtin_tests():
            if test.test_id not in _TESTS:
                register_test(test)
    return {t: _TESTS[t] for t in ALL_TESTS if t in _TESTS}


_DISCOVERED = False


def _builtin_tests() -> list[PanelTest]:
    """Every ``TESTS`` tuple of the package's ``_panel_*`` modules (R, M, C, A and I)."""
    import importlib
    import pkgutil

    import sitbench.chi as chi

    found: list[PanelTest] = []
    for info in sorted(pkgutil.iter_modules(chi.__path__), key=lambda m: m.name):
        if info.name.startswith("_panel_"):
            found.extend(getattr(importlib.import_module(f"sitbench.chi.{info.name}"), "TESTS", ()))
    return found


def parse_panel(value: str) -> list[str]:
    """``r1,i4`` or ``all`` (every implemented test), or an axis letter (``r``: its implemented tests).

    Raises:
        InputError: an id that is not registered or not implemented, naming the implemented ones.
    """
    implemented = panel_tests()
    items = [p.strip().upper() for p in value.split(",") if p.strip()]
    if items == ["ALL"]:
        return list(implemented)
    out: list[str] = []
    for item in items:
        if item in REGISTERED:
            out.extend(t for t in REGISTERED[item] if t in implemented)
        elif item in implemented:
            out.append(item)
        elif item in ALL_TESTS:
            raise InputError(f"--panel {value!r}: {item} is registered but not implemented yet; implemented: "
                             f"{', '.join(implemented)}")
        else:
            raise InputError(f"--panel {value!r}: {item!r} is not a registered test; use ids such as r1,i4, an axis "
                             "letter (r, m, c, a, i) or all")
    if not out:
        raise InputError(f"--panel {value!r}: names no implemented test; implemented: {', '.join(implemented)}")
    return list(dict.fromkeys(sorted(out, key=ALL_TESTS.index)))


@dataclasses.dataclass
class PanelSpec:
    """What ``sitbench chi run`` was asked to do."""

    tests: list[str]
    agent: str
    model: str = "mock/panel-solver"
    condition: str = "equal-budget"
    seed: int = 0
    trajectories: int = 2
    deadline_s: float = 60.0
    resamples: int = MIN_RESAMPLES
    agent_options: dict[str, str] = dataclasses.field(default_factory=dict)
    retriever: str = "bm25"


def test_seed(seed: int, k: int, test_id: str) -> int:
    """The seed of ``test_id``'s instance on trajectory ``k`` (independent draws per test and trajectory)."""
    return derive_seed("panel", seed, k, test_id) % (2**31)


_LOADED: dict[tuple[Any, ...], Any] = {}


def _factory(spec: PanelSpec, episode: Any, candidate: Any) -> tuple[Callable[[], Any], dict[str, Any]]:
    if spec.agent in BASELINES:
        evidence = {p.utterance: p.evidence for p in episode.probes} if spec.agent == "oracle" else None
        factory, _budget, entry = make_baseline_factory(spec.agent, spec.model, spec.condition, retriever=spec.retriever,
                                                        evidence=evidence, candidate=candidate,
                                                        deadline_s=spec.deadline_s)
        return factory, entry
    if spec.agent in REFERENCE_SYSTEMS:
        ref_key = ("reference", spec.agent, spec.retriever, spec.deadline_s)
        if ref_key not in _LOADED:
            _LOADED[ref_key] = reference_factory(spec.agent, retriever=spec.retriever, deadline_s=spec.deadline_s)
        ref_factory, ref_entry = _LOADED[ref_key]
        return ref_factory, ref_entry
    from sitbench.agents import load_agent

    key = (spec.agent, tuple(sorted(spec.agent_options.items())), spec.deadline_s)
    loaded = _LOADED.get(key)
    if loaded is None:
        loaded = _LOADED[key] = load_agent(spec.agent, timeout_s=spec.deadline_s, options=spec.agent_options or None)
    entry = {"baseline": None, "agent_spec": spec.agent, "transport": loaded.transport.value,
             "info": loaded.info.model_dump(), "label": loaded.info.name,
             "note": "a user agent: its budgets and costs are its own; the harness counts tokens it reports"}
    return loaded.factory, entry


async def _run_test(spec: PanelSpec, test: PanelTest, k: int, candidate: Any, rng: random.Random
                    ) -> tuple[Any, list[EpisodeRun], TestResult, dict[str, Any]]:
    instance = test.generate(test_seed(spec.seed, k, test.test_id))
    episodes = list(instance.episodes)
    rng.shuffle(episodes)
    runs: list[EpisodeRun] = []
    entry: dict[str, Any] = {}
    for j, episode in enumerate(episodes):
        factory, entry = _factory(spec, episode, candidate)
        if test.hooks and j == 0:  # one factory serves every episode: its agents' hooks are checked once
            probe_agent = await _maybe_agent(factory)
            lacking = missing_hooks(probe_agent, test.hooks)
            close = getattr(probe_agent, "close", None)
            if callable(close):
                await _await(close())
            if lacking:
                result = TestResult(test.test_id, None, missing_reason=f"the agent lacks the hook(s) {', '.join(lacking)}"
                                    f" that {test.test_id} needs (missing, not failed)")
                return instance, [], result, entry
        try:
            drive = getattr(test, "run_episode", None)
            if callable(drive):  # an interactive test (C, A) drives its own episode through the hooks
                runs.append(await drive(factory, episode, k, deadline_s=spec.deadline_s))
            else:
                runs.append(await PanelHarness(factory, test, deadline_s=spec.deadline_s).run_episode(episode, k, rng))
        except EvaluatorOutage as exc:
            return instance, runs, _invalidated(test, exc), entry
    order = [e.name for e in instance.episodes]
    runs.sort(key=lambda r: order.index(r.episode.name))
    try:
        result = test.score(instance, runs)
    except Exception as exc:  # noqa: BLE001 - the scorer failed, not the agent: the block is invalid (§5)
        return instance, runs, _invalidated(test, exc), entry
    return instance, runs, result, entry


def _invalidated(test: PanelTest, exc: Exception) -> TestResult:
    """An evaluator outage: the trajectory's block of this test is invalid (missing, never a failure)."""
    return TestResult(test.test_id, None, missing_reason=f"evaluator outage, block invalidated (rerun the matched "
                                                         f"block): {exc!r}"[:300])


async def _await(value: Any) -> Any:
    import inspect

    return await value if inspect.isawaitable(value) else value


async def _maybe_agent(factory: Callable[[], Any]) -> Any:
    return await _await(factory())


def run_panel(spec: PanelSpec, out: Path | None = None, progress: Callable[[str], None] | None = None
              ) -> dict[str, Any]:
    """Run ``spec`` (every named test on every trajectory) and write the run folder when ``out`` is given.

    Raises:
        InputError: an unknown test or baseline, a baseline without ``--model``.
    """
    say = progress or (lambda _m: None)
    if spec.agent in REFERENCE_SYSTEMS:  # a reference system's reader and budget are part of its definition
        _q, _b, reader, condition = REFERENCE_SYSTEMS[spec.agent]
        spec = dataclasses.replace(spec, model=reader, condition=condition)
    tests = panel_tests()
    for t in spec.tests:
        if t not in tests:
            raise InputError(f"--panel {t}: not implemented; implemented: {', '.join(tests)}")
    candidate = None
    if spec.agent in BASELINES and spec.agent != "mimic":
        if not spec.model:
            raise InputError(f"--agent {spec.agent}: needs --model (e.g. mock/panel-solver or local/smollm2)")
        from sitbench.candidates import get_candidate

        candidate = get_candidate(spec.model)
    started = time.perf_counter()
    created_at = _utc_now()
    trajectories: list[dict[str, Any]] = []
    probe_lines: list[str] = []
    generators: dict[str, Any] = {}
    entry: dict[str, Any] = {}
    malformed: str | None = None
    for k in range(spec.trajectories):
        rng = random.Random(derive_seed("panel-order", spec.seed, k))
        t0 = time.perf_counter()
        results: dict[str, TestResult] = {}
        hashes: dict[str, str] = {}
        walls: dict[str, float] = {}
        for test_id in spec.tests:
            test = tests[test_id]
            say(f"trajectory {k + 1}/{spec.trajectories} {test_id}")
            ts = time.perf_counter()
            instance, runs, result, entry = asyncio.run(_run_test(spec, test, k, candidate, rng))
            walls[test_id] = time.perf_counter() - ts
            if k == 0:
                generators[test_id] = {"version": test.version, "seed": instance.seed, **instance.report}
            hashes[f"items:{test_id}"] = instance.items_hash()
            hashes[f"answer_key:{test_id}"] = instance.answer_key_hash()
            results[test_id] = result
            if malformed is None and (malformed := first_malformed(test, runs)) is not None:
                say(f"first malformed reply of the run: {malformed}")
            for run in runs:
                probe_lines.extend(json.dumps(probe_json(k, test_id, r), ensure_ascii=False, default=str)
                                   for r in run.records)
        trajectories.append({"seed": derive_seed("panel", spec.seed, k) % (2**31), "results": results,
                             "hashes": hashes, "wall_s": time.perf_counter() - t0, "wall_by_test": walls})
    summary = assemble(spec, trajectories, generators, entry, time.perf_counter() - started, created_at=created_at)
    if out is not None:
        write_run(out, summary, probe_lines)
    return summary


def first_malformed(test: PanelTest, runs: Sequence[EpisodeRun]) -> str | None:
    """The on-screen line for the first reply in ``runs`` that the rubric could not read, with the expected format.

    A test may say it itself (``malformed(runs)``, the C and A tests); otherwise it is the first probe
    whose reply came back and was graded invalid, with the fields its question asked for.
    """
    own = getattr(test, "malformed", None)
    if callable(own):
        out = own(runs)
        return None if out is None else str(out)
    for run in runs:
        for r in run.records:
            if r.reply is not None and r.grade.outcome.value == "invalid":
                fields = ", ".join(getattr(r.probe, "fields", ())) or "see the question"
                return (f"{test.test_id} episode {r.episode} probe {r.probe.probe_id}: malformed reply "
                        f"({r.grade.error or 'not readable'}); scored as a task failure. Expected: one JSON object "
                        f"with the fields {fields}")
    return None


def probe_json(k: int, test_id: str, r: ProbeRecord) -> dict[str, Any]:
    """One probe's record (§5.6): question, reply, parse, outcome, source references."""
    p = r.probe
    return {"trajectory": k, "test": test_id, "episode": r.episode, "phase": r.phase, "probe_id": p.probe_id,
            "checkpoint": p.checkpoint, "stratum": p.stratum, "kind": p.kind, "utterance": p.utterance,
            "key": getattr(p, "key", None) if isinstance(getattr(p, "key", None), dict) else p.to_json().get("key"),
            "reply": r.reply, "parsed": r.grade.parsed, "outcome": r.grade.outcome.value, "value": r.grade.value,
            "error": r.grade.error, "latency_s": round(r.latency_s, 6), "usage": r.usage, "source_refs": r.refs}


# -- assembly ------------------------------------------------------------------------------------


def task_scores(results: dict[str, TestResult]) -> list[TaskScore]:
    """Task scores for all 30 registered tests: run ones as scored, the others missing with the reason."""
    out = []
    for test_id in ALL_TESTS:
        axis = _axis_of(test_id)
        r = results.get(test_id)
        if r is None:
            reason = "not run in this panel" if test_id in panel_tests() else "not implemented (missing, not failed)"
            out.append(TaskScore(test_id=test_id, axis=axis, missing_reason=reason))
            continue
        out.append(TaskScore(test_id=test_id, axis=axis, score=r.score, correct=r.correct, total=r.total,
                             missing_reason=r.missing_reason or (None if r.score is not None else "undefined score")))
    return out


def probe_schema(tests: Sequence[str]) -> list[str]:
    """The run's blind-probe vector schema: each run test's coordinates, prefixed with its id."""
    reg = panel_tests()
    return [f"{t}.{name}" for t in tests for name in reg[t].vector_schema]


def _observation(k: int, tr: dict[str, Any], spec: PanelSpec, entry: dict[str, Any], config_hash: str
                 ) -> ChiObservation:
    tasks = task_scores(tr["results"])
    caps = axis_capacities(tasks, REGISTERED)
    vector: list[float | None] = []
    reg = panel_tests()
    for t in spec.tests:
        r = tr["results"][t]
        v = r.vector if len(r.vector) == len(reg[t].vector_schema) else [None] * len(reg[t].vector_schema)
        vector.extend(None if x is None else float(min(1.0, max(0.0, x))) for x in v)
    history = hashlib.sha256("".join(v for key, v in sorted(tr["hashes"].items())).encode()).hexdigest()
    state = {"tests_run": list(spec.tests),
             "missing": {t.test_id: t.missing_reason for t in tasks if t.score is None}}
    return ChiObservation(
        version=SPEC_VERSION, config_hash=config_hash, run=f"trajectory-{k:02d}",
        agent=str(entry.get("label") or spec.agent), seed=tr["seed"], step=0, wall_time=round(tr["wall_s"], 6),
        history_hash=history, state_hash=hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest(),
        capacities={a: caps[a].capacity for a in AXES}, human_similarity=None, chi=None, reference_kind="none",
        synthetic=False, budgets={}, tick=None, state=state, features=vector or None, task_results=tasks)


def assemble(spec: PanelSpec, trajectories: list[dict[str, Any]], generators: dict[str, Any],
             entry: dict[str, Any], wall_s: float, *, created_at: str | None = None) -> dict[str, Any]:
    """Manifest, observations, the kit's report and the panel section from the trajectories."""
    from sitbench.chi._report import build_report

    reg = panel_tests()
    config_hash = hashlib.sha256(json.dumps({"agent": spec.agent, "model": spec.model, "condition": spec.condition,
                                             "entry": entry, "run_version": RUN_VERSION}, sort_keys=True,
                                            default=str).encode()).hexdigest()
    observations = [_observation(k, tr, spec, entry, config_hash) for k, tr in enumerate(trajectories)]
    label = ("machine baseline" if spec.agent in BASELINES else
             "reference system (deterministic test instrument)" if spec.agent in REFERENCE_SYSTEMS else "user agent")
    schemas: dict[str, list[str]] = {"probe": probe_schema(spec.tests)}
    for t in spec.tests:
        schemas[f"z.{t}"] = sorted({key for tr in trajectories for key in tr["results"][t].features})
    missing = sorted({f"{t.test_id}: {t.missing_reason}" for o in observations for t in o.task_results or []
                      if t.score is None and t.test_id in spec.tests})
    manifest = ChiManifest(
        version=SPEC_VERSION,
        protocol_id=f"chi-chis-0.1-panel-{'+'.join(t.lower() for t in spec.tests)}",
        calibration_id=None,
        evidence_class="capacity-only",
        system={"evidence": f"{label}, no human calibration (capacity-only; CHI null)", "agent": entry,
                "model": spec.model or None, "condition": spec.condition, "run_version": RUN_VERSION,
                "panel_version": PANEL_VERSION, "tests": {t: reg[t].version for t in spec.tests},
                "feature_schema_version": PANEL_VERSION,
                "preregistered": {t: dict(getattr(reg[t], "preregistered", ())) for t in spec.tests
                                  if getattr(reg[t], "preregistered", ())},
                "reset": "end_session before every checkpoint (transient context cleared)",
                "clones": "fork() per probe when the agent has it; otherwise counterbalanced live probes",
                "scheduler": "tick(budget_ops) when the agent declares it; in C and A with the tick's text as "
                             "observation when the hook takes it, and what it returns is the tick's reply", "wall_time_s": round(wall_s, 3),
                "package_version": __version__, "git_commit": git_commit(), "created_at": created_at,
                "finished_at": _utc_now()},
        feature_schemas=schemas,
        dataset_hashes={f"{key}:trajectory-{k:02d}": v for k, tr in enumerate(trajectories)
                        for key, v in tr["hashes"].items()},
        config_hash=config_hash,
        seeds=[tr["seed"] for tr in trajectories],
        analysis=Analysis(n_resamples=spec.resamples, seed=spec.seed % (2**31)),
        controls=sorted({c for t in spec.tests for c in getattr(reg[t], "controls", ())}),
        exclusions=missing,
        limitations=[
            "Machine baselines or a user agent over synthetic items: capacity-only, no human calibration, CHI null.",
            "Registered tests that were not run are missing, never failed; an axis missing one has no capacity.",
            "Template counts define a pilot panel; they do not establish power.",
            *([] if len(trajectories) >= 2 else ["One trajectory: fewer than two clusters, so every interval is "
                                                 "null (§8)."]),
        ],
    )
    report = build_report(manifest, observations, n_resamples=spec.resamples, seed=spec.seed % (2**31))
    section = panel_section(spec, trajectories)
    return {"spec": dataclasses.asdict(spec), "manifest": manifest, "observations": observations, "report": report,
            "panel": section, "generator": generators, "entry": entry, "wall_s": wall_s}


def _interval(values: np.ndarray, idx: np.ndarray | None, seed: int) -> dict[str, Any]:
    n = values.shape[0]
    est = float(values.mean()) if n and not np.isnan(values).any() else None
    reps = None if idx is None or est is None else resample_means(values, idx)
    iv = percentile_interval(est, np.array([]) if reps is None else reps, n, seed)
    return {"estimate": iv.estimate, "lower": iv.lower, "upper": iv.upper}


def panel_section(spec: PanelSpec, trajectories: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-test scores and components over trajectories with whole-cluster intervals; denominators; missingness."""
    n = len(trajectories)
    seed = spec.seed % (2**31)
    idx = bootstrap_indices(n, spec.resamples, seed) if n >= 2 else None
    tests: dict[str, Any] = {}
    for t in spec.tests:
        rs: list[TestResult] = [tr["results"][t] for tr in trajectories]
        scores = np.array([np.nan if r.score is None else r.score for r in rs])
        comps = sorted({c for r in rs for c in r.components})
        outcomes: dict[str, Counter[str]] = defaultdict(Counter)
        for r in rs:
            for key, cnt in r.outcomes.items():
                outcomes[key].update(cnt)
        tests[t] = {
            "test_id": t, "axis": _axis_of(t), "score": _interval(scores, idx, seed),
            "components": {c: _interval(np.array([np.nan if r.components.get(c) is None else r.components[c]
                                                  for r in rs]), idx, seed) for c in comps},
            "correct": [r.correct for r in rs], "total": [r.total for r in rs],
            "missing": [r.missing_reason for r in rs if r.missing_reason],
            "outcomes": {key: dict(sorted(v.items())) for key, v in sorted(outcomes.items())},
            "features": [r.features for r in rs],
            "wall_s": [round(tr["wall_by_test"][t], 6) for tr in trajectories],
        }
    caps: dict[str, Any] = {}
    for axis in AXES:
        per = np.array([np.nan if (c := axis_capacities(task_scores(tr["results"]), REGISTERED)[axis].capacity) is None
                        else c for tr in trajectories])
        caps[axis] = _interval(per, idx, seed)
    return {"tests": tests, "capacities": caps, "trajectories": n, "resamples": spec.resamples if n >= 2 else None,
            "uncertainty": "whole-cluster percentile bootstrap over trajectories" if n >= 2 else
            "null: fewer than two clusters (§8)"}


def write_run(out: Path, summary: dict[str, Any], probe_lines: list[str]) -> None:
    """Write the run folder: manifest, observations, probes, generator reports, panel section, reports
    (``report.txt`` and the HTML page ``panel.html``).

    Raises:
        OutputError: a file cannot be written, naming it and the cause.
    """
    from sitbench.chi._report import render_text

    write_text_atomic(out / "manifest.json",
                      json.dumps(summary["manifest"].model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n")
    write_text_atomic(out / "observations.jsonl", dump_jsonl(summary["observations"]))
    write_text_atomic(out / "probes.jsonl", "\n".join(probe_lines) + ("\n" if probe_lines else ""))
    write_text_atomic(out / "generator.json", json.dumps(summary["generator"], indent=2, default=str) + "\n")
    write_text_atomic(out / "report.json", json.dumps(summary["report"].model_dump(mode="json"), indent=2) + "\n")
    run = {"spec": summary["spec"], "entry": summary["entry"], "panel": summary["panel"], "wall_s": summary["wall_s"]}
    write_text_atomic(out / "panel.json", json.dumps(run, indent=2, default=str) + "\n")
    write_text_atomic(out / "report.txt", render_panel_text(summary["panel"]) + "\n\n" + render_text(summary["report"])
                      + "\n")
    from sitbench.chi._panel_report import render_panel_html

    write_text_atomic(out / "panel.html", render_panel_html(summary) + "\n")


def render_panel_text(section: dict[str, Any]) -> str:
    """The five-axis capacity profile and per-test scores as plain text."""
    def fmt(iv: dict[str, Any]) -> str:
        if iv["estimate"] is None:
            return "missing"
        ci = "" if iv["lower"] is None else f" [{iv['lower']:.3f}, {iv['upper']:.3f}]"
        return f"{iv['estimate']:.3f}{ci}"

    lines = [f"CHI panel: {section['trajectories']} trajectories; uncertainty: {section['uncertainty']}",
             "evidence class: capacity-only (no human calibration); CHI: null",
             "capacity profile p (an axis missing a registered test has none):"]
    lines += [f"  {a}: {fmt(iv)}" for a, iv in section["capacities"].items()]
    lines.append("tests:")
    for t, s in section["tests"].items():
        den = ", ".join(f"{c}/{n}" for c, n in zip(s["correct"], s["total"], strict=True) if n is not None)
        miss = f"  missing: {s['missing'][0]}" if s["missing"] else ""
        lines.append(f"  {t} ({s['axis']}): {fmt(s['score'])}" + (f"  correct/total per trajectory: {den}" if den else "")
                     + miss)
        for c, iv in s["components"].items():
            lines.append(f"      {c}: {fmt(iv)}")
    return "\n".join(lines)


def _utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
