"""The memory-axis run protocol (spec §3, §5) through the Agent hooks, scored into the CHI kit.

Per trajectory (an independent corpus draw: the bootstrap's cluster) and arm:

1. A fresh agent from the factory; ``ingest`` gets the preamble, a store-1 evidence file whose
   only record is the registered policy (so the policy precedes history).
2. Pre-exposure check (§5.3): a sample of the arm's probes on clones of that fresh agent.
3. History: every record is one ``respond`` turn of a session (50 per session), ``end_session``
   after each session; intervening events (M1) are more such sessions.
4. Reset and delay: ``end_session`` clears transient context; declared neutral scheduler ticks
   call the optional ``tick(budget_ops)`` hook of an agent that has one (a non-invoked system's
   waiting creates no opportunity to act). Each tick advances the ingestion calendar one day.
5. Probes, blind, in a seeded random order, each on its own ``fork()`` clone (read-only for the
   checkpoint: a clone is discarded after one question). An agent without ``fork`` answers on
   the live agent, one session per probe, the order reversed on odd trajectories
   (counterbalanced), and the contamination is disclosed in the manifest.
6. Scoring with the exact-answer rubric; an in-budget timeout, error or malformed reply is an
   invalid outcome (a task failure, counted in f on lures), never a dropped observation.

Wall time (seconds) and event time (history events and scheduler ticks) are recorded
separately. Budgets are fixed before the run and written to the manifest.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import hashlib
import json
import math
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitbench._version import __version__, git_commit
from sitbench.agents import (
    ACCEPTED_REPLY_FORMS,
    AgentFailure,
)
from sitbench.chi._capacity import TaskScore, axis_capacities
from sitbench.chi._common import AXES, SPEC_VERSION
from sitbench.chi._interchange import (
    Analysis,
    ChiManifest,
    ChiObservation,
    MemoryCurveRecord,
    dump_jsonl,
)
from sitbench.chi._memory import MemoryPoint, memory_curve
from sitbench.chi._memory_baselines import BASELINES, Budget, make_baseline_factory
from sitbench.chi._memory_env import (
    M8_GRID,
    PANELS,
    Arm,
    MemoryEnvironment,
    Probe,
    answer_key_hash,
    environment_report,
    generate,
    generator_hash,
    items_hash,
    prompts_hash,
)
from sitbench.chi._memory_rubric import (
    REPLY_FORMAT,
    Outcome,
    ParsedReply,
    format_error,
    invalid,
    lure_counts,
    parse_reply,
    reply_example,
    score,
)
from sitbench.chi._panel import EpisodeRun, Grade, ProbeRecord
from sitbench.chi._panel_harness import PanelHarness
from sitbench.chi._panel_harness import _turn as _turn
from sitbench.chi._panel_harness import preamble_subject as preamble_subject
from sitbench.chi._uncertainty import (
    MIN_RESAMPLES,
    bootstrap_indices,
    percentile_interval,
)
from sitbench.errors import InputError
from sitbench.stats import resample_means
from sitbench.stores import write_text_atomic

RUN_VERSION = "chi-memory-run-0.1"
REGISTERED_TESTS = [p.upper() for p in PANELS]
PRE_EXPOSURE_SAMPLE = 10

@dataclasses.dataclass
class ProbeResult:
    """One probe's preserved output and score."""

    arm: str
    probe: Probe
    reply: str | None
    parsed: ParsedReply
    outcome: Outcome
    latency_s: float
    usage: dict[str, int]
    refs: list[str]
    phase: str = "probe"

    def to_json(self, trajectory: int) -> dict[str, Any]:
        p = self.probe
        return {"trajectory": trajectory, "arm": self.arm, "phase": self.phase, "probe_id": p.probe_id,
                "checkpoint": p.checkpoint, "stratum": p.stratum, "kind": p.kind, "utterance": p.utterance,
                "key": p.to_json()["key"], "reply": self.reply, "parsed": dataclasses.asdict(self.parsed),
                "outcome": self.outcome.value, "latency_s": round(self.latency_s, 6), "usage": self.usage,
                "source_refs": self.refs, "meta": p.meta}


@dataclasses.dataclass
class ArmResult:
    """Everything one arm produced."""

    arm: Arm
    results: list[ProbeResult]
    pre_exposure: list[ProbeResult]
    costs_ingest: dict[str, float]
    costs_probe: dict[str, float]
    wall: dict[str, float]
    events: int
    ticks: int
    cloned: bool


class _MemoryRubric:
    """The memory panel's exact-answer rubric as the panel harness grades with it."""

    test_id = "M"

    def grade(self, probe: Probe, reply: str | None, error: str | None) -> Grade:
        parsed = parse_reply(reply) if reply is not None else invalid(error or "no reply")
        outcome = score(probe.key, parsed)
        return Grade(outcome, dataclasses.asdict(parsed), 1.0 if outcome.success else 0.0, parsed.error)


_STORE_LEVELS = ("stored_objects", "stored_bytes", "stored_tokens", "stored_keys", "consolidated_keys",
                 "unconsolidated_records", "rules")
"""Cost keys that are levels of the store at the end of an arm, not counts of work."""


def probe_result(r: ProbeRecord) -> ProbeResult:
    """A panel-harness probe record in the memory axis's form."""
    d = dict(r.grade.parsed)
    if d.get("sources") is not None:
        d["sources"] = tuple(d["sources"])
    return ProbeResult(r.episode, r.probe, r.reply, ParsedReply(**d), r.grade.outcome, r.latency_s, r.usage, r.refs,
                       r.phase)


def arm_result(run: EpisodeRun) -> ArmResult:
    """A panel-harness episode run as the memory axis's :class:`ArmResult` (ingest and probe costs apart)."""
    ingest = {k.removeprefix("history."): v for k, v in run.costs.items() if k.startswith("history.")}
    probe = {k.removeprefix("probe."): v for k, v in run.costs.items() if k.startswith("probe.")}
    for key in _STORE_LEVELS:
        if key in run.final_costs:
            ingest[key] = run.final_costs[key]
            probe.pop(key, None)
    for key in ("model_calls", "prompt_tokens", "completion_tokens", "retrieval_calls", "retrieval_tokens"):
        if run.pre_costs.get(key):
            probe[f"pre_exposure_{key}"] = run.pre_costs[key]
    return ArmResult(run.episode, [probe_result(r) for r in run.records],
                     [probe_result(r) for r in run.pre_exposure], ingest, probe, dict(run.wall), run.events,
                     run.ticks, run.cloned)


class MemoryHarness:
    """Runs arms of a :class:`MemoryEnvironment` through an agent factory: the panel harness
    (:class:`~sitbench.chi._panel_harness.PanelHarness`) with the memory rubric and the pre-exposure check."""

    def __init__(self, factory: Callable[[], Any], budget: Budget | None, *, deadline_s: float = 60.0,
                 pre_exposure: int = PRE_EXPOSURE_SAMPLE) -> None:
        self.factory = factory
        self.budget = budget
        self.deadline_s = deadline_s
        self.pre_exposure = pre_exposure

    async def run_arm(self, arm: Arm, trajectory: int, rng: random.Random) -> ArmResult:
        harness = PanelHarness(self.factory, _MemoryRubric(), deadline_s=self.deadline_s, pre_exposure=self.pre_exposure)
        return arm_result(await harness.run_episode(arm, trajectory, rng))  # type: ignore[arg-type]


# -- panel scoring -------------------------------------------------------------------------------


def _counts(results: Sequence[ProbeResult], stratum: str | None = None) -> tuple[int, int]:
    rs = [r for r in results if stratum is None or r.probe.stratum == stratum]
    return sum(r.outcome.success for r in rs), len(rs)


def _rate(c: tuple[int, int]) -> float | None:
    return None if c[1] == 0 else c[0] / c[1]


def _ols_slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


def _outcomes(results: Sequence[ProbeResult]) -> dict[str, dict[str, int]]:
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        out[r.probe.stratum][r.outcome.value] += 1
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def _answered(r: ProbeResult) -> str | None:
    return None if not r.parsed.valid or r.parsed.abstain else (r.parsed.answer or "").strip().casefold()


def _diagnose(results: Sequence[ProbeResult]) -> dict[str, int]:
    """Why u and s probes failed: stale version, lower-authority claim, later version, abstain, invalid."""
    c: Counter[str] = Counter()
    for r in results:
        if r.outcome.success:
            c["correct"] += 1
            continue
        a = _answered(r)
        m = r.probe.meta
        if r.outcome is Outcome.INVALID:
            c["invalid"] += 1
        elif r.outcome is Outcome.ABSTAIN:
            c["abstained"] += 1
        elif a is not None and a == str(m.get("stale_value", "")).casefold():
            c["stale version"] += 1
        elif a is not None and a == str(m.get("contradiction_value", "")).casefold():
            c["lower-authority contradiction"] += 1
        elif a is not None and a == str(m.get("later_value", "")).casefold():
            c["later version (as-of ignored)"] += 1
        elif a is not None and r.probe.key.answer and a == r.probe.key.answer.casefold():
            c["right value, wrong source"] += 1
        else:
            c["other"] += 1
    return dict(c)


def _score_m1(env: MemoryEnvironment, by: dict[str, ArmResult], out: dict[str, Any]) -> None:
    """M1: accuracy per delay, the retention curve and its forgetting slope."""
    res = by["main"].results
    acc = {d: _rate(_counts(res, f"delay_{d}")) for d in env.params["delays"]}
    out["components"] = {f"delay_{d}": v for d, v in acc.items()}
    vals = [v for v in acc.values() if v is not None]
    out["score"] = sum(vals) / len(vals) if len(vals) == len(acc) else None
    out["correct"], out["total"] = _counts(res)
    out["features"] = {"retention_curve": acc, "forgetting_slope_per_log10_events": _ols_slope(
        [math.log10(1 + d) for d in acc], [acc[d] or 0.0 for d in acc])}


def _score_m2(env: MemoryEnvironment, by: dict[str, ArmResult], out: dict[str, Any]) -> None:
    """M2: order and as-of accuracy, temporal errors by conflict, recency and lag."""
    res = by["main"].results
    out["correct"], out["total"] = _counts(res)
    out["score"] = _rate((out["correct"], out["total"]))
    out["components"] = {"order": _rate(_counts(res, "order")), "asof": _rate(_counts(res, "asof"))}
    err: dict[str, Any] = {}
    for name, f in (("ingestion_conflict", lambda m: m.get("ingestion_conflict")),
                    ("recency", lambda m: m.get("recency")),
                    ("lag", lambda m: None if "lag_days" not in m else
                     ("<1y" if m["lag_days"] < 365 else "1-3y" if m["lag_days"] < 1095 else ">3y"))):
        groups: dict[str, list[int]] = defaultdict(list)
        for r in res:
            g = f(r.probe.meta)
            if g is not None:
                groups[str(g)].append(0 if r.outcome.success else 1)
        err[name] = {g: sum(v) / len(v) for g, v in sorted(groups.items())}
    out["features"] = {"temporal_error_by": err}


def _score_m3(env: MemoryEnvironment, by: dict[str, ArmResult], out: dict[str, Any]) -> None:
    """M3: accuracy per stratum, stale-fact persistence and lower-authority acceptance."""
    res = by["main"].results
    out["correct"], out["total"] = _counts(res)
    out["score"] = _rate((out["correct"], out["total"]))
    out["components"] = {s: _rate(_counts(res, s)) for s in sorted({r.probe.stratum for r in res})}
    corr = [r for r in res if r.probe.stratum == "correction_current"]
    stale = sum(1 for r in corr if _answered(r) == r.probe.meta["first_value"].casefold())
    lower = [r for r in res if r.probe.stratum == "lower_authority_current"]
    accepted = sum(1 for r in lower if _answered(r) == r.probe.meta["second_value"].casefold())
    lat: dict[str, list[int]] = defaultdict(list)
    for r in corr:
        g = r.probe.meta["events_since_second"]
        lat["<10 events" if g < 10 else "10-29 events" if g < 30 else ">=30 events"].append(int(r.outcome.success))
    out["features"] = {"stale_fact_persistence": stale / len(corr) if corr else None,
                       "lower_authority_acceptance": accepted / len(lower) if lower else None,
                       "revision_accuracy_by_events_since_correction": {k: sum(v) / len(v) for k, v in sorted(lat.items())}}


def _score_m4(env: MemoryEnvironment, by: dict[str, ArmResult], out: dict[str, Any]) -> None:
    """M4: accuracy per stratum, content-only answers, source confusion, hypotheses given as facts."""
    res = by["main"].results
    out["correct"], out["total"] = _counts(res)
    out["score"] = _rate((out["correct"], out["total"]))
    out["components"] = {s: _rate(_counts(res, s)) for s in ("single", "repeated", "cross_source", "hypothesis")}
    content_ok = [r for r in res if r.parsed.valid and not r.parsed.abstain and r.probe.key.answer
                  and (r.parsed.answer or "").strip().casefold() == r.probe.key.answer.casefold()]
    confusion = sum(1 for r in content_ok if tuple(sorted(r.parsed.sources or ())) != r.probe.key.sources)
    hyp = [r for r in content_ok if r.probe.key.status == "hypothesis"]
    out["features"] = {"content_only_rate": len(content_ok) / len(res) if res else None,
                       "source_confusion_rate": confusion / len(content_ok) if content_ok else None,
                       "hypothesis_as_fact_rate": (sum(1 for r in hyp if (r.parsed.status or "") != "hypothesis")
                                                   / len(hyp)) if hyp else None}


def _score_m5(env: MemoryEnvironment, by: dict[str, ArmResult], out: dict[str, Any]) -> None:
    """M5: rule and exception after consolidation, against before it and without it."""
    res = by["main"].results
    post = [r for r in res if r.probe.checkpoint == "post"]
    pre = [r for r in res if r.probe.checkpoint == "pre"]
    rule, exc = _rate(_counts(post, "rule")), _rate(_counts(post, "exception"))
    out["score"] = None if rule is None or exc is None else (rule + exc) / 2
    out["correct"], out["total"] = _counts(post)
    out["components"] = {"rule": rule, "exception": exc}
    nc = by.get("no_consolidation")
    pre_score = [_rate(_counts(pre, "rule")), _rate(_counts(pre, "exception"))]
    exc_pre = {r.probe.probe_id.replace("-pre-", "-"): r.outcome.success for r in pre if r.probe.stratum == "exception"}
    exc_post = {r.probe.probe_id.replace("-post-", "-"): r.outcome.success for r in post if r.probe.stratum == "exception"}
    lost = sum(1 for k, v in exc_pre.items() if v and not exc_post.get(k, False))
    out["features"] = {
        "pre_consolidation": {"rule": pre_score[0], "exception": pre_score[1]},
        "post_consolidation": {"rule": rule, "exception": exc},
        "no_consolidation": None if nc is None else {"rule": _rate(_counts(nc.results, "rule")),
                                                     "exception": _rate(_counts(nc.results, "exception"))},
        "exception_loss": lost,
        "background_ops": by["main"].costs_ingest.get("background_ops", 0.0)
        + by["main"].costs_probe.get("background_ops", 0.0),
    }


def _score_m6(env: MemoryEnvironment, by: dict[str, ArmResult], out: dict[str, Any]) -> None:
    """M6: valid retention and non-use of revoked or expired memories."""
    res = by["main"].results
    valid = _rate(_counts(res, "valid"))
    nonuse = _rate((sum(_counts(res, s)[0] for s in ("expired_current", "revoked")),
                    sum(_counts(res, s)[1] for s in ("expired_current", "revoked"))))
    out["score"] = None if valid is None or nonuse is None else (valid + nonuse) / 2
    scored = [r for r in res if r.probe.stratum != "expired_historical"]
    out["correct"], out["total"] = _counts(scored)
    out["components"] = {"valid_retention": valid, "revoked_expired_non_use": nonuse}
    out["features"] = {"revoked_non_use": _rate(_counts(res, "revoked")),
                       "expired_non_use": _rate(_counts(res, "expired_current")),
                       "expired_historical_recall": _rate(_counts(res, "expired_historical")),
                       "collateral_loss": None if valid is None else 1 - valid,
                       "note": "output tests cannot prove secure deletion"}


def _score_m7(env: MemoryEnvironment, by: dict[str, ArmResult], out: dict[str, Any]) -> None:
    """M7: accuracy under interference against the clean twin."""
    inter = _counts(by["interference"].results)
    clean = _counts(by["clean"].results)
    out["correct"], out["total"] = inter
    out["score"] = _rate(inter)
    ci, cc = _rate(inter), _rate(clean)
    out["components"] = {"interference": ci, "clean": cc}
    out["features"] = {"clean_accuracy": cc, "interference_accuracy": ci,
                       "signed_difference": None if ci is None or cc is None else ci - cc}


def _score_m8(env: MemoryEnvironment, by: dict[str, ArmResult], out: dict[str, Any]) -> None:
    """M8: the memory curve Q_M over the load grid, with costs and diagnostics per load."""
    points: dict[int, MemoryPoint] = {}
    costs: dict[int, dict[str, float]] = {}
    diag: dict[int, dict[str, dict[str, int]]] = {}
    assert env.grid is not None
    for n in env.grid:
        main = by[f"N={n}"]
        res = main.results
        clean_arm = by.get(f"N={n}/clean")
        lures = [r.outcome for r in res if r.probe.stratum == "f"]
        points[n] = MemoryPoint.from_counts(
            r=_counts(res, "r"), t=_counts(res, "t"), s=_counts(res, "s"), u=_counts(res, "u"),
            i=_counts(res, "i"), lures=lure_counts(lures),
            clean_i=None if clean_arm is None else _counts(clean_arm.results, "clean_i"))
        c = {f"ingest.{k}": v for k, v in main.costs_ingest.items()}
        c.update({f"probe.{k}": v for k, v in main.costs_probe.items()})
        c.update({f"wall.{k}": v for k, v in main.wall.items()})
        c["events"] = main.events
        c["ticks"] = main.ticks
        if clean_arm is not None:  # the paired clean twin is a second fresh agent with its own costs
            c.update({f"clean.ingest.{k}": v for k, v in clean_arm.costs_ingest.items()})
            c.update({f"clean.probe.{k}": v for k, v in clean_arm.costs_probe.items()})
            c.update({f"clean.wall.{k}": v for k, v in clean_arm.wall.items()})
            c["clean.events"] = clean_arm.events
        costs[n] = c
        diag[n] = {"u": _diagnose([r for r in res if r.probe.stratum == "u"]),
                   "s": _diagnose([r for r in res if r.probe.stratum == "s"])}
    curve = memory_curve(list(env.grid), points)
    out["points"] = points
    out["costs_by_load"] = costs
    out["diagnostics"] = diag
    out["score"] = curve.mean_q_m
    out["correct"] = out["total"] = None
    out["components"] = {str(n): q for n, q in curve.q_m.items()}
    out["features"] = {"q_m_curve": {str(n): q for n, q in curve.q_m.items()}, "eimc": curve.eimc,
                       "status": curve.status, "sustained_prefix_eimc": curve.sustained_prefix_eimc,
                       "nonmonotone": curve.nonmonotone, "delay_ticks": env.params["delay_ticks"]}


_PANEL_SCORERS: dict[str, Callable[[MemoryEnvironment, dict[str, ArmResult], dict[str, Any]], None]] = {
    "m1": _score_m1,
    "m2": _score_m2,
    "m3": _score_m3,
    "m4": _score_m4,
    "m5": _score_m5,
    "m6": _score_m6,
    "m7": _score_m7,
    "m8": _score_m8,
}
"""Each memory test's scoring, by panel id."""


def score_panel(env: MemoryEnvironment, arms: Sequence[ArmResult]) -> dict[str, Any]:
    """One trajectory's task score, raw counts, components and behavioural features for one panel."""
    by = {a.arm.name: a for a in arms}
    p = env.panel
    out: dict[str, Any] = {"test_id": p.upper(), "outcomes": {}, "features": {}, "components": {}}
    for a in arms:
        out["outcomes"][a.arm.name] = _outcomes(a.results)
    pre_exposure: Counter[str] = Counter(r.outcome.value for a in arms for r in a.pre_exposure)
    out["pre_exposure"] = dict(sorted(pre_exposure.items()))
    scorer = _PANEL_SCORERS.get(p)
    if scorer is not None:
        scorer(env, by, out)
    return out


# -- the whole run -------------------------------------------------------------------------------


@dataclasses.dataclass
class RunSpec:
    """What ``sitbench chi memory run`` was asked to do."""

    panels: list[str]
    agent: str
    model: str
    condition: str
    seed: int
    trajectories: int
    retriever: str = "bm25"
    grid: list[int] = dataclasses.field(default_factory=lambda: list(M8_GRID))
    clean_pair: bool = True
    deadline_s: float = 60.0
    resamples: int = MIN_RESAMPLES
    pre_exposure: int = PRE_EXPOSURE_SAMPLE
    agent_options: dict[str, str] = dataclasses.field(default_factory=dict)
    mechanism: str | None = None
    context_window: int | None = None


def trajectory_seed(seed: int, k: int) -> int:
    from sitbench.chi._memory_env import derive_seed

    return derive_seed("trajectory", seed, k) % (2**31)


_LOADED: dict[tuple[Any, ...], Any] = {}


def _loaded_factory(spec: RunSpec, arm: Arm, candidate: Any) -> tuple[Callable[[], Any], Budget | None, dict[str, Any]]:
    if spec.agent in BASELINES:
        # The oracle's side channel is per arm: M8's clean twin asks the same questions of other records.
        evidence = {p.utterance: p.evidence for p in arm.probes} if spec.agent == "oracle" else None
        factory, budget, entry = make_baseline_factory(
            spec.agent, spec.model, spec.condition, retriever=spec.retriever, evidence=evidence, candidate=candidate,
            context_window=spec.context_window, deadline_s=spec.deadline_s)
        return factory, budget, entry
    from sitbench.agents import load_agent

    key = (spec.agent, tuple(sorted(spec.agent_options.items())), spec.deadline_s)
    loaded = _LOADED.get(key)
    if loaded is None:
        loaded = _LOADED[key] = load_agent(spec.agent, timeout_s=spec.deadline_s, options=spec.agent_options or None)
    entry = {"baseline": None, "agent_spec": spec.agent, "transport": loaded.transport.value,
             "info": loaded.info.model_dump(), "label": loaded.info.name,
             "mechanism": spec.mechanism or "persistent", "budget": None,
             "note": "a user agent: its budgets and costs are its own; the harness counts tokens it reports"}
    return loaded.factory, None, entry


_ENV_CACHE: dict[tuple[Any, ...], MemoryEnvironment] = {}
_REPORT_CACHE: dict[tuple[Any, ...], dict[str, Any]] = {}
ENV_CACHE_SIZE = 8


def environment(panel: str, seed: int, grid: Sequence[int], clean_pair: bool) -> MemoryEnvironment:
    """Generate (or reuse, within one process: a sweep runs every baseline on the same corpora)."""
    key = (panel, seed, tuple(grid), clean_pair) if panel == "m8" else (panel, seed)
    env = _ENV_CACHE.get(key)
    if env is None:
        env = generate(panel, seed, **({"grid": list(grid), "clean_pair": clean_pair} if panel == "m8" else {}))
        while len(_ENV_CACHE) >= ENV_CACHE_SIZE:
            _ENV_CACHE.pop(next(iter(_ENV_CACHE)))
        _ENV_CACHE[key] = env
    return env


def _generator_report(env: MemoryEnvironment, counter: Any) -> dict[str, Any]:
    key = (env.panel, env.seed, items_hash(env))
    if key not in _REPORT_CACHE:
        _REPORT_CACHE[key] = environment_report(env, counter)
    return _REPORT_CACHE[key]


def run_memory(spec: RunSpec, out: Path | None = None, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run ``spec`` and write the run folder (when ``out`` is given); returns the summary."""
    say = progress or (lambda _m: None)
    for p in spec.panels:
        if p not in PANELS:
            raise InputError(f"--panel {p!r}: use one of {', '.join(PANELS)} or all")
    candidate = None
    if spec.agent in BASELINES and spec.agent != "mimic":
        if not spec.model:
            raise InputError(f"--agent {spec.agent}: needs --model (e.g. mock/memory-reader or local/smollm2)")
        from sitbench.candidates import get_candidate

        candidate = get_candidate(spec.model)
    started = time.perf_counter()
    created_at = _utc_now()
    from sitbench.configs import wordpiece_counter

    counter = wordpiece_counter()
    trajectories: list[dict[str, Any]] = []
    probe_lines: list[str] = []
    generator_reports: dict[str, Any] = {}
    entry: dict[str, Any] = {}
    budget: Budget | None = None
    format_errors: Counter[str] = Counter()
    for k in range(spec.trajectories):
        tseed = trajectory_seed(spec.seed, k)
        rng = random.Random(tseed)
        panel_scores: dict[str, Any] = {}
        arm_results_all: dict[str, list[ArmResult]] = {}
        t_start = time.perf_counter()
        hashes: dict[str, str] = {}
        for p in spec.panels:
            env = environment(p, tseed, spec.grid, spec.clean_pair)
            if k == 0:
                generator_reports[p] = _generator_report(env, counter)
            hashes[f"items:{p}"] = items_hash(env)
            hashes[f"answer_key:{p}"] = answer_key_hash(env)
            arms = list(env.arms)
            rng.shuffle(arms)
            results = []
            for arm in arms:
                factory, budget, entry = _loaded_factory(spec, arm, candidate)
                harness = MemoryHarness(factory, budget, deadline_s=spec.deadline_s, pre_exposure=spec.pre_exposure)
                say(f"trajectory {k + 1}/{spec.trajectories} {p} {arm.name}: {len(arm.records)} records, "
                    f"{len(arm.probes)} probes")
                ar = asyncio.run(harness.run_arm(arm, k, rng))
                results.append(ar)
                if not format_errors:
                    _warn_first_format_error(say, ar, p)
                for r in (*ar.pre_exposure, *ar.results):
                    if (reason := format_error(r.reply, r.parsed)) is not None:
                        format_errors[reason] += 1
                for r in (*ar.pre_exposure, *ar.results):
                    probe_lines.append(json.dumps(r.to_json(k), ensure_ascii=False))
            results.sort(key=lambda a: [x.name for x in env.arms].index(a.arm.name))
            panel_scores[p] = score_panel(env, results)
            arm_results_all[p] = results
        trajectories.append({"seed": tseed, "panels": panel_scores, "arms": arm_results_all,
                             "wall_s": time.perf_counter() - t_start, "hashes": hashes})
    summary = assemble(spec, trajectories, generator_reports, entry, budget, time.perf_counter() - started,
                       created_at=created_at)
    summary["format_errors"] = dict(format_errors.most_common())
    if out is not None:
        write_run(out, summary, probe_lines)
    return summary


def _warn_first_format_error(say: Callable[[str], None], ar: ArmResult, panel: str) -> None:
    """Say, at the first reply an agent returned that the rubric cannot read, why it scores invalid and what a
    reply must look like (the rubric stays as registered: a malformed required answer is a task failure)."""
    first = next((r for r in (*ar.pre_exposure, *ar.results) if format_error(r.reply, r.parsed) is not None), None)
    if first is None:
        return
    shown = first.reply if first.reply is not None and len(first.reply) <= 80 else f"{(first.reply or '')[:77]}..."
    say(f"warning: {panel} probe {first.probe.probe_id}: the reply {shown!r} is scored invalid: "
        f"{first.parsed.error}. The memory rubric reads only {REPLY_FORMAT}; for this question: "
        f"{reply_example(first.probe.utterance)}. A reply in another form is a task failure (CHI §5), counted "
        "as invalid; every reply and its reason are in probes.jsonl")


def _config_hash(spec: RunSpec, entry: dict[str, Any]) -> str:
    payload = {"agent": spec.agent, "model": spec.model, "condition": spec.condition, "retriever": spec.retriever,
               "entry": entry, "run_version": RUN_VERSION}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def _utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _trajectory_observation(k: int, tr: dict[str, Any], spec: RunSpec, entry: dict[str, Any], config_hash: str,
                           budget: Budget | None, grid: list[int] | None) -> ChiObservation:
    """One trajectory as a CHI observation: its M task scores, capacities, budgets, costs and state."""
    has_m8 = "m8" in spec.panels
    tasks = []
    for ps in tr["panels"].values():
        tasks.append(TaskScore(test_id=ps["test_id"], axis="M", score=ps["score"],
                               correct=ps.get("correct"), total=ps.get("total"),
                               missing_reason=None if ps["score"] is not None else "undefined score"))
    caps = axis_capacities(tasks, {"M": REGISTERED_TESTS})
    memory = None
    budgets: dict[str, float] = {}
    if budget is not None:
        budgets = {f"budget.{key}": float(v) for key, v in budget.to_json().items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)}
    events = ticks = 0
    totals: dict[str, float] = defaultdict(float)
    for ars in tr["arms"].values():
        for ar in ars:
            events += ar.events
            ticks += ar.ticks
            for key, v in ar.costs_ingest.items():
                totals[f"ingest.{key}"] += v
            for key, v in ar.costs_probe.items():
                totals[f"probe.{key}"] += v
    for key, v in totals.items():
        budgets[f"cost.{key}"] = float(max(v, 0.0))
    if has_m8:
        m8 = tr["panels"]["m8"]
        mcosts: dict[str, float] = defaultdict(float)
        for c in m8["costs_by_load"].values():
            for key, v in c.items():
                mcosts[key] += float(v)
        memory = MemoryCurveRecord(grid=grid or [], points=m8["points"], delay=float(m8["features"]["delay_ticks"]),
                                   costs={key: max(v, 0.0) for key, v in sorted(mcosts.items())})
    state = {"events": events, "ticks": ticks, "indexed_units": int(totals.get("ingest.stored_objects", 0)),
             "cloned_probes": all(ar.cloned for ars in tr["arms"].values() for ar in ars)}
    state_hash = hashlib.sha256(json.dumps({key: round(v, 6) for key, v in sorted(totals.items())}).encode()).hexdigest()
    history = hashlib.sha256("".join(sorted(tr["hashes"].values())).encode()).hexdigest()
    return ChiObservation(
        version=SPEC_VERSION, config_hash=config_hash, run=f"trajectory-{k:02d}",
        agent=str(entry.get("label") or spec.agent), seed=tr["seed"], step=0, wall_time=round(tr["wall_s"], 6),
        history_hash=history, state_hash=state_hash,
        capacities={a: (caps[a].capacity if a == "M" else None) for a in AXES}, human_similarity=None, chi=None,
        reference_kind="none", synthetic=False, budgets=budgets, tick=float(events + ticks), state=state,
        memory=memory, task_results=tasks)


def _controls_and_exclusions(spec: RunSpec, trajectories: list[dict[str, Any]], cloned: bool
                            ) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """The manifest's controls and exclusions, and the replies in no accepted form."""
    has_m8 = "m8" in spec.panels
    controls = [
        "no-persistence control: the stateless baseline is run on the same panel (sitbench chi memory run --agent stateless)",
        "pre-exposure check: a sample of each arm's probes asked on clones of the fresh agent before any history",
        "fresh nonce items per trajectory; probe order randomized per trajectory; arms in random order",
        "registered authority policy ingested before any history",
    ]
    if "m7" in spec.panels or has_m8:
        controls.append("interference paired with byte- and event-matched clean corpora (M7; M8's clean twins)")
    exclusions = [] if cloned else [
        "contamination: the agent has no fork(); probes were answered on the live agent, one session each, in "
        "counterbalanced order (reversed on odd trajectories); later probes may see earlier ones as experience"]
    fails = sum(sum(v.get("invalid", 0) for v in oc.values()) for tr in trajectories
                for ps in tr["panels"].values() for oc in ps["outcomes"].values())
    if fails:
        exclusions.append(f"{fails} invalid/timeout outcomes were scored as failures (none dropped)")
    malformed = malformed_replies(trajectories)
    if malformed:
        first = str(malformed[0]["reason"]).split("; accepted replies:")[0]
        exclusions.append(f"{len(malformed)} replies in no accepted reply form (accepted: {ACCEPTED_REPLY_FORMS}) "
                          f"were scored invalid; the first, probe {malformed[0]['probe_id']}: {first}")
    return controls, exclusions, malformed


def assemble(spec: RunSpec, trajectories: list[dict[str, Any]], generator_reports: dict[str, Any],
             entry: dict[str, Any], budget: Budget | None, wall_s: float, *,
             created_at: str | None = None) -> dict[str, Any]:
    """Manifest, observations, ChiReport and the memory section from the trajectories.

    The manifest's ``system`` block also carries the provenance of :class:`sitbench.runs.RunManifest`
    under its names (``package_version``, ``git_commit``, ``created_at``, ``finished_at``).
    """
    from sitbench.chi._report import build_report

    mechanism = entry.get("mechanism") or spec.mechanism or "persistent"
    config_hash = _config_hash(spec, entry)
    has_m8 = "m8" in spec.panels
    grid = list(spec.grid) if has_m8 else None
    observations = [_trajectory_observation(k, tr, spec, entry, config_hash, budget, grid)
                    for k, tr in enumerate(trajectories)]
    cloned = all(o.state["cloned_probes"] for o in observations)
    controls, exclusions, malformed = _controls_and_exclusions(spec, trajectories, cloned)
    label = "machine baseline" if spec.agent in BASELINES else "user agent"
    manifest = ChiManifest(
        version=SPEC_VERSION,
        protocol_id="chi-chis-0.1-memory-" + "+".join(spec.panels) + ("-grid-" + "-".join(map(str, grid)) if grid else ""),
        calibration_id=None,
        evidence_class="capacity-only",
        system={
            "evidence": f"{label}s, no human calibration (capacity-only; CHI null)",
            "agent": entry, "model": spec.model or None, "condition": spec.condition,
            "retriever": spec.retriever, "budgets_fixed_before_run": None if budget is None else budget.to_json(),
            "reset": "end_session after every history session and before every checkpoint (transient context cleared)",
            "delays": "declared neutral scheduler ticks (tick hook) and intervening events (M1)",
            "clones": "fork() per probe, read-only checkpoint" if cloned else "no fork: counterbalanced live probes",
            "scheduler": "tick(budget_ops) when the agent has it", "run_version": RUN_VERSION,
            "wall_time_s": round(wall_s, 3),
            "package_version": __version__, "git_commit": git_commit(),
            "created_at": created_at, "finished_at": _utc_now(),
        },
        feature_schemas={},
        dataset_hashes={"generator": generator_hash(), "prompts": prompts_hash(),
                        **{f"{key}:trajectory-{k:02d}": v for k, tr in enumerate(trajectories) for key, v in tr["hashes"].items()}},
        config_hash=config_hash,
        load_grid=grid,
        memory_mechanism=mechanism if has_m8 else None,
        seeds=[tr["seed"] for tr in trajectories],
        analysis=Analysis(n_resamples=spec.resamples, seed=spec.seed % (2**31)),
        controls=controls,
        exclusions=exclusions,
        limitations=[
            "Machine baselines over synthetic nonce items: capacity-only, no human calibration, CHI null.",
            "The mock/memory-reader model is a deterministic test instrument, not a language model." if
            spec.model.startswith("mock/") else f"Model {spec.model}: numbers as they came, no tuning.",
            "Memory results depend on corpus entropy, delay, resources and reset policy (CHI/CHIS Specification v0.1, "
            "§10).",
            "Template counts define a pilot panel; they do not establish power.",
        ],
    )
    report = build_report(manifest, observations, n_resamples=spec.resamples, seed=spec.seed % (2**31))
    section = memory_section(spec, trajectories, report)
    return {"spec": dataclasses.asdict(spec), "manifest": manifest, "observations": observations, "report": report,
            "memory": section, "generator": generator_reports, "entry": entry, "wall_s": wall_s,
            "malformed_replies": malformed}


def malformed_replies(trajectories: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every probe whose reply was in no accepted form, in run order: trajectory, panel, arm, probe, reason."""
    prefix = AgentFailure.MALFORMED.value
    return [{"trajectory": k, "panel": panel, "arm": ar.arm.name, "probe_id": r.probe.probe_id, "phase": r.phase,
             "reason": r.parsed.error}
            for k, tr in enumerate(trajectories) for panel, ars in tr["arms"].items() for ar in ars
            for r in (*ar.pre_exposure, *ar.results) if (r.parsed.error or "").startswith(prefix)]


def _interval(values: np.ndarray, idx: np.ndarray | None, seed: int) -> dict[str, Any]:
    n = values.shape[0]
    est = float(values.mean()) if n and not np.isnan(values).any() else None
    reps = None if idx is None or est is None else resample_means(values, idx)
    iv = percentile_interval(est, np.array([]) if reps is None else reps, n, seed)
    return {"estimate": iv.estimate, "lower": iv.lower, "upper": iv.upper}


def memory_section(spec: RunSpec, trajectories: list[dict[str, Any]], report: Any) -> dict[str, Any]:
    """Per-panel scores over trajectories with whole-cluster intervals; the M8 curve with every factor."""
    n = len(trajectories)
    seed = spec.seed % (2**31)
    idx = bootstrap_indices(n, spec.resamples, seed) if n >= 2 else None
    panels: dict[str, Any] = {}
    for p in spec.panels:
        scores = np.array([np.nan if tr["panels"][p]["score"] is None else tr["panels"][p]["score"] for tr in trajectories])
        comps = sorted({c for tr in trajectories for c in tr["panels"][p]["components"]})
        comp_iv = {}
        for c in comps:
            v = np.array([np.nan if tr["panels"][p]["components"].get(c) is None else tr["panels"][p]["components"][c]
                          for tr in trajectories])
            comp_iv[c] = _interval(v, idx, seed)
        outcomes: dict[str, Counter[str]] = defaultdict(Counter)
        for tr in trajectories:
            for arm, oc in tr["panels"][p]["outcomes"].items():
                for stratum, cnt in oc.items():
                    outcomes[f"{arm}/{stratum}"].update(cnt)
        pre: Counter[str] = Counter()
        for tr in trajectories:
            pre.update(tr["panels"][p].get("pre_exposure", {}))
        panels[p] = {"test_id": p.upper(), "score": _interval(scores, idx, seed), "components": comp_iv,
                     "pre_exposure": dict(sorted(pre.items())),
                     "outcomes": {k: dict(v) for k, v in sorted(outcomes.items())},
                     "features": [tr["panels"][p]["features"] for tr in trajectories]}
    out: dict[str, Any] = {"panels": panels, "trajectories": n}
    if "m8" in spec.panels:
        grid = spec.grid
        names = ["r", "t", "s", "u", "i", "f", "f_raw", "invalid_lure_rate", "clean_i"]
        factors: dict[str, dict[str, Any]] = {}
        for load in grid:
            row: dict[str, Any] = {}
            for name in names:
                v = np.array([np.nan if getattr(tr["panels"]["m8"]["points"][load], name) is None
                              else getattr(tr["panels"]["m8"]["points"][load], name) for tr in trajectories])
                row[name] = _interval(v, idx, seed)
            gap = np.array([np.nan if tr["panels"]["m8"]["points"][load].interference_gap is None
                            else tr["panels"]["m8"]["points"][load].interference_gap for tr in trajectories])
            row["i_minus_clean"] = _interval(gap, idx, seed)
            counts: dict[str, Any] = {}
            for tr in trajectories:
                for key, c in (tr["panels"]["m8"]["points"][load].counts or {}).items():
                    d = counts.setdefault(key, Counter())
                    d.update(c.model_dump())
            row["counts"] = {k: dict(v) for k, v in counts.items()}
            cost: dict[str, float] = defaultdict(float)
            for tr in trajectories:
                for key, v in tr["panels"]["m8"]["costs_by_load"][load].items():
                    cost[key] += float(v) / n
            row["costs_mean_per_trajectory"] = dict(sorted(cost.items()))
            diag: dict[str, Counter[str]] = defaultdict(Counter)
            for tr in trajectories:
                for s, d in tr["panels"]["m8"]["diagnostics"][load].items():
                    diag[s].update(d)
            row["why_u_and_s_failed"] = {k: dict(v) for k, v in diag.items()}
            factors[str(load)] = row
        cp = report.checkpoints[0]
        curve = cp.memory
        unc = cp.memory_uncertainty
        out["m8"] = {
            "grid": grid, "factors": factors,
            "q_m": {str(k): v for k, v in curve.q_m.items()},
            "q_m_interval": {str(k): {"lower": iv.lower, "upper": iv.upper} for k, iv in unc.q_m.items()},
            "mean_q_m": curve.mean_q_m, "eimc": curve.eimc, "status": curve.status,
            "sustained_prefix_eimc": curve.sustained_prefix_eimc, "nonmonotone": curve.nonmonotone,
            "sensitivity": curve.sensitivity, "sensitivity_status": curve.sensitivity_status,
            "eimc_bootstrap": [c.model_dump() for c in unc.categories],
            "crossing_frequency": {str(k): v for k, v in unc.crossing_frequency.items()},
            "label": cp.memory_label, "delay_ticks": cp.memory_delay,
        }
    return out


def write_run(out: Path, summary: dict[str, Any], probe_lines: list[str]) -> None:
    """Write the run folder: kit manifest and observations, probes, generator report, report.

    Each file is written through a temporary file and a rename (never torn).

    Raises:
        OutputError: a file cannot be written (a read-only folder, a full disk), naming it and the cause.
    """
    from sitbench.chi._memory_report import render_memory_text
    from sitbench.chi._report import render_text

    manifest_text = json.dumps(summary["manifest"].model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    write_text_atomic(out / "manifest.json", manifest_text)
    write_text_atomic(out / "observations.jsonl", dump_jsonl(summary["observations"]))
    write_text_atomic(out / "probes.jsonl", "\n".join(probe_lines) + ("\n" if probe_lines else ""))
    write_text_atomic(out / "generator.json", json.dumps(summary["generator"], indent=2, default=str) + "\n")
    write_text_atomic(out / "report.json", json.dumps(summary["report"].model_dump(mode="json"), indent=2) + "\n")
    run = {"spec": summary["spec"], "entry": summary["entry"], "memory": summary["memory"], "wall_s": summary["wall_s"]}
    write_text_atomic(out / "memory.json", json.dumps(run, indent=2, default=str) + "\n")
    text = render_memory_text(run) + "\n\n" + render_text(summary["report"]) + "\n"
    write_text_atomic(out / "report.txt", text)
