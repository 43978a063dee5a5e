"""Score a run's stored responses (offline: no model call), with the failure diagnostics."""

from __future__ import annotations

import datetime as dt
import gc
import json
import multiprocessing
import signal
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from sitbench.errors import InputError, ReadingUnavailable
from sitbench.lineage import situated_state
from sitbench.runs._records import RunManifest, ScoreRecord, SecondReading, TrialRecord
from sitbench.runs._store import RunStore
from sitbench.runs._workers import run_workers
from sitbench.schema import (
    PERSONAL_PROVENANCES,
    Category,
    Lineage,
    Observation,
    Probe,
    Registry,
)
from sitbench.stores import LoadedDataset, dumps
from sitbench.verify import Extractor, Judge, Judgement, RuleExtractor


def _acquired_after(lineage: Lineage, registry: Registry, tau: dt.date) -> set[str]:
    """Props (and their equivalence classes' members) first established after τ."""
    props = registry.by_id()
    before = {s.prop_id for e in lineage.events if e.t <= tau for s in e.asserts if s.polarity}
    before |= {a.prop_id for a in lineage.acquisitions if a.t <= tau}
    later = {s.prop_id for e in lineage.events if e.t > tau for s in e.asserts if s.polarity}
    later |= {a.prop_id for a in lineage.acquisitions if a.t > tau}
    later -= before
    classes = {props[p].equivalence_class for p in later if p in props and props[p].equivalence_class}
    return later | {p for p, prop in props.items() if prop.equivalence_class in classes}


def diagnostics(probe: Probe, observation: Observation, lineage: Lineage, registry: Registry) -> dict[str, bool]:
    """FMR / TL / UEL flags of one scored trial."""
    props = registry.by_id()
    positive = [c for c in observation.claims if c.polarity]
    false_memory = probe.category in (Category.B, Category.G) and any(
        c.prop_id == p.prop_id and p.polarity and (not p.provenance or c.provenance in p.provenance)
        for c in positive for p in probe.contract.prohibited_claims)
    temporal_leak = False
    if probe.category is Category.D and probe.stratum == "pre":
        later = _acquired_after(lineage, registry, probe.contract.temporal_cutoff)
        temporal_leak = any(c.prop_id in later for c in positive)
    unauthorized = False
    if probe.category is Category.C:
        state = situated_state(lineage, probe.contract.temporal_cutoff)
        for c in positive:
            prop = props.get(c.prop_id)
            if prop is None or c.provenance not in PERSONAL_PROVENANCES:
                continue
            if prop.predicate not in ("knows", "fact", "has_skill"):
                continue
            supported = state.supports(c.prop_id) or any(
                other.equivalence_class == prop.equivalence_class and state.supports(pid)
                for pid, other in props.items() if prop.equivalence_class)
            unauthorized = unauthorized or not supported
    return {"false_memory": false_memory, "temporal_leak": temporal_leak, "unauthorized_epistemic": unauthorized}


def _agent_fields(trial: TrialRecord) -> dict[str, float | int]:
    """Agent runs' per-trial accounting, copied into the score record for the report and trials.csv."""
    agent = trial.agent
    if agent is None:
        return {}
    ops = sum(op.count for op in agent.ingest_ops) + sum(op.count for turn in agent.turn_ops for op in turn)
    return {"ingest_ms": agent.ingest_ms, "answer_ms": agent.answer_ms,
            "agent_tokens": agent.usage.prompt_tokens + agent.usage.completion_tokens, "memory_ops": ops}


def check_trials_in_dataset(ds: LoadedDataset, trials: Iterable[TrialRecord]) -> None:
    """Every trial's probe is a probe of ``ds``: a run read against another dataset stops here.

    Raises:
        InputError: naming the first trial whose probe the dataset lacks.
    """
    for trial in trials:
        _check_trial(ds, trial)


def _check_trial(ds: LoadedDataset, trial: TrialRecord) -> None:
    if trial.probe_id not in ds.hidden.probes:
        raise InputError(f"responses.jsonl: trial {trial.trial_id!r}: probe_id {trial.probe_id!r} is not in "
                         f"{ds.root / 'hidden' / 'probes.jsonl'}; the run was made on another dataset: give "
                         "that one with --dataset DIR")


def score_trials(ds: LoadedDataset, trials: list[TrialRecord], extractor: Extractor | None = None,
                 judge: Judge | None = None) -> list[ScoreRecord]:
    """One ScoreRecord per trial, in trial order (read by ``extractor``, the rule extractor by default).

    ``judge`` is a :class:`Judge` over ``ds`` to reuse across calls (its vocabularies and supports are
    cached); it replaces ``extractor``, which it carries itself. Every trial's probe is checked
    against ``ds`` before the first is scored."""
    check_trials_in_dataset(ds, trials)
    return list(iter_score_trials(ds, trials, extractor, judge))


def _labels(ds: LoadedDataset, trial_id: str, config: str, probe: Probe,
            pair_of: dict[str, str]) -> dict[str, Any]:
    """The fields of a score record that describe the trial, whatever became of it."""
    query = ds.visible.queries[probe.query_key]
    return dict(trial_id=trial_id, config=config, probe_id=probe.probe_id, lineage_id=probe.lineage_id,
                pair_id=pair_of.get(probe.lineage_id, "?"), category=probe.category, stratum=probe.stratum,
                theorem_qualified=probe.theorem_qualified, gate_sensitive=probe.gate_sensitive,
                capability=query.capability.value,
                history_length=len(ds.hidden.lineages[probe.lineage_id].events))


def _pairs(ds: LoadedDataset) -> dict[str, str]:
    return {m: pair.pair_id for pair in ds.pairs.values() for m in pair.members}


def iter_score_trials(ds: LoadedDataset, trials: Iterable[TrialRecord], extractor: Extractor | None = None,
                      judge: Judge | None = None) -> Iterator[ScoreRecord]:
    """:func:`score_trials` one trial at a time: each record is yielded as its trial is read and scored.

    A trial whose answer the extractor could not read (:class:`~sitbench.errors.ReadingUnavailable`) is
    ``unscored`` with the reason; an answer over the cap (recorded by the run, or longer than the judge's
    cap) is invalid (``over_length``) without being read.

    Raises:
        InputError: a trial whose probe is not in ``ds`` (when it is reached).
    """
    judge = judge or Judge(ds.hidden, ds.visible.queries, extractor=extractor)
    pair_of = _pairs(ds)
    for trial in trials:
        _check_trial(ds, trial)
        probe = ds.hidden.probes[trial.probe_id]
        base = _labels(ds, trial.trial_id, trial.config, probe, pair_of) | dict(
            prompt_tokens=trial.prompt_tokens, **_agent_fields(trial))
        text = trial.response_text
        if trial.status != "completed" or text is None:
            yield ScoreRecord(**base, status="dropped")
            continue
        cap = judge.max_response_chars
        over = trial.over_length or (len(text) if len(text) > cap else None)
        if over:
            judged = judge.over_length(probe.probe_id, over)
            yield ScoreRecord(**base, status="completed", observation=judged.observation, verdict=judged.verdict,
                              partner=judged.partner, over_length=over)
            continue
        try:
            judged = judge.judge(probe.probe_id, text)
        except ReadingUnavailable as exc:
            yield ScoreRecord(**base, status="unscored", unscored_reason=f"{exc}; score the run again to finish")
            continue
        lineage = ds.hidden.lineages[probe.lineage_id]
        yield ScoreRecord(**base, status="completed", observation=judged.observation, verdict=judged.verdict,
                          partner=judged.partner, **diagnostics(probe, judged.observation, lineage, ds.hidden.registry),
                          **_second_reader(judged, probe, lineage, ds.hidden.registry))


def _second_reader(judged: Judgement, probe: Probe, lineage: Lineage, registry: Registry) -> dict[str, Any]:
    """The score record's two-reader fields: empty with one reader."""
    second, agreement = judged.second, judged.agreement
    if second is None or agreement is None:
        return {}
    reading = SecondReading(extractor=second.verdict.extractor or "?", observation=second.observation,
                            verdict=second.verdict, partner=second.partner,
                            **diagnostics(probe, second.observation, lineage, registry))
    return dict(agreement=agreement.value, contested_checks=judged.contested_checks, second=reading)


TORN_REASON = ("torn: the run stored only part of this trial's record (its writer was stopped mid-line); re-run it "
               "with `sitbench run ... --resume`, then score again")
NOT_RUN_REASON = ("not run: the run holds no record of this trial (it stopped before reaching it); finish it with "
                  "`sitbench run ... --resume`, then score again")


def missing_trials(ds: LoadedDataset, manifest: RunManifest, stored: set[str],
                   torn_trial_id: str | None = None) -> Iterator[ScoreRecord]:
    """``unscored`` records of the trials the run planned but holds no whole record of, in plan order.

    A trial the run planned (its configurations × the dataset's probes, within its shard) is attempted
    whether or not a record of it survived: a run stopped mid-write leaves a torn last line, and one stopped
    earlier leaves trials never reached. Counting them as attempted and not completed keeps every figure
    honest (SPEC §2.7: incomplete, never silently reweighted).

    Args:
        ds: The run's dataset.
        manifest: The run's manifest (configurations and shard).
        stored: Trial ids with a whole record in responses.jsonl.
        torn_trial_id: The trial the torn last line names (:attr:`RunStore.torn_trial_id`), if any.
    """
    from sitbench.runs._runner import parse_shard, trial_ids

    pair_of = _pairs(ds)
    for config, probe_id in trial_ids(ds, manifest.configs, parse_shard(manifest.shard), manifest.probes):
        trial_id = f"{config}:{probe_id}"
        if trial_id in stored:
            continue
        reason = TORN_REASON if trial_id == torn_trial_id else NOT_RUN_REASON
        yield ScoreRecord(**_labels(ds, trial_id, config, ds.hidden.probes[probe_id], pair_of), status="unscored",
                          unscored_reason=reason)


_CHUNK = 256  # trials per task: large enough that a task's overhead is small, small enough to balance


def score_workers(requested: int | None, trials: int, extractor: Extractor | None = None) -> int:
    """How many processes score ``trials`` trials: :func:`run_workers`, where the work is CPU work
    when the rule extractor reads (an extractor that calls a model does its own waiting, so it is
    never split across processes unasked).

    Raises:
        InputError: ``requested`` is below 1.
    """
    return run_workers(requested, trials, extractor is None or isinstance(extractor, RuleExtractor))


def iter_score_lines(ds: LoadedDataset, store: RunStore, extractor: Extractor | None = None,
                     workers: int | None = None) -> Iterator[str]:
    """The scores.jsonl lines of ``store``'s trials, in trial order, scored by ``workers`` processes, then an
    ``unscored`` line for each trial the run planned but holds no whole record of (:func:`missing_trials`).

    The lines are the same whatever the number of workers: each trial is scored by the same pure
    function, and the lines come back in the trials' order. Workers are forked from this process
    after the dataset is loaded, read their own trials from responses.jsonl (only line offsets are
    sent to them) and send back finished lines, so the calling process only writes.

    Args:
        ds: The run's dataset.
        store: The run; its :attr:`~RunStore.torn_bytes` is set before the first line is yielded.
        extractor: Stage-1 reader (the rule extractor by default).
        workers: Processes (see :func:`score_workers`; None chooses).

    Raises:
        InputError: a damaged trial line, or a trial whose probe is not in ``ds``.
    """
    lines = store.trial_lines()
    stored: set[str] = set()
    for line in _stored_score_lines(ds, store, lines, extractor, workers):
        stored.add(_line_trial_id(line))
        yield line
    for record in missing_trials(ds, store.manifest(), stored, store.torn_trial_id):
        yield dumps(record) + "\n"


def _line_trial_id(line: str) -> str:
    # dumps writes trial_id first: the JSON string after the key is decoded where it stands (escapes included).
    return str(scanstring(line, _ID_START)[0])


_ID_START = len('{"trial_id":"')


def _stored_score_lines(ds: LoadedDataset, store: RunStore, lines: list[tuple[int, int, int]],
                        extractor: Extractor | None, workers: int | None) -> Iterator[str]:
    """The score lines of the trials stored at ``lines``, in their order, by one or more processes."""
    processes = score_workers(workers, len(lines), extractor)
    judge = Judge(ds.hidden, ds.visible.queries, extractor=extractor)
    if processes == 1 or len(lines) <= _CHUNK:
        for record in iter_score_trials(ds, store.read_trials(lines), judge=judge):
            yield dumps(record) + "\n"
        return
    global _FORKED
    _FORKED = (ds, store, judge)
    chunks = [lines[i:i + _CHUNK] for i in range(0, len(lines), _CHUNK)]
    # Frozen objects are left out of the workers' collections, so collecting never writes to (and so
    # copies) the pages they share with this process.
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(processes, initializer=_quiet_worker) as pool:
            for chunk in pool.imap(_score_chunk, chunks):
                yield from chunk
    finally:
        _FORKED = None


def _quiet_worker() -> None:
    # A worker ends on SIGTERM (the pool stopping it, or a signal to the whole group) without a traceback,
    # and leaves an interrupt to the parent, which stops the pool.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


_FORKED: tuple[LoadedDataset, RunStore, Judge] | None = None
"""What forked scoring workers inherit: set by :func:`iter_score_lines` just before it forks them."""


def _score_chunk(lines: list[tuple[int, int, int]]) -> list[str]:
    assert _FORKED is not None, "a scoring worker runs only in a process forked by iter_score_lines"
    ds, store, judge = _FORKED
    return [dumps(record) + "\n" for record in iter_score_trials(ds, store.read_trials(lines), judge=judge)]


class ScoreTally:
    """Completed, dropped and unscored trials of score lines on their way to the file, and why each unscored
    trial was left (the reason's first words: ``extractor unavailable``, ``torn``, ``not run``)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.unscored: Counter[str] = Counter()
        self.torn_bytes = 0
        """Length of the torn line responses.jsonl ended with (set by the caller, which read the run)."""

    def watch(self, lines: Iterable[str]) -> Iterator[str]:
        """Pass ``lines`` through, counting them."""
        for line in lines:
            if _CONTESTED in line:
                self.counts["contested"] += 1
            elif _AGREED in line:
                self.counts["agreed"] += 1
            if _UNSCORED in line:  # a key and value in quotes cannot occur inside a JSON string
                self.counts["unscored"] += 1
                self.unscored[str(json.loads(line)["unscored_reason"]).split(":", 1)[0]] += 1
            elif _DROPPED in line:
                self.counts["dropped"] += 1
            else:
                self.counts["completed"] += 1
            yield line

    def watch_records(self, records: Iterable[ScoreRecord]) -> Iterator[ScoreRecord]:
        """Pass ``records`` through, counting them."""
        for record in records:
            self.counts[record.status] += 1
            if record.agreement is not None:
                self.counts[record.agreement] += 1
            if record.status == "unscored":
                self.unscored[(record.unscored_reason or "unknown").split(":", 1)[0]] += 1
            yield record

    def agreement_summary(self) -> str:
        """``", N contested, M agreed (two readers)"`` when two readers scored the trials, else ``""``."""
        if not (self.counts["contested"] or self.counts["agreed"]):
            return ""
        return f", {self.counts['contested']} contested and {self.counts['agreed']} agreed (two readers)"

    def unscored_summary(self) -> str:
        """:func:`describe_unscored` of the trials seen."""
        return describe_unscored(self.unscored)


def describe_unscored(unscored: Mapping[str, int]) -> str:
    """``22 (extractor unavailable ×22)`` for unscored trials counted by reason; empty when there are none."""
    if not unscored:
        return ""
    reasons = ", ".join(f"{reason} ×{n}" for reason, n in sorted(unscored.items(), key=lambda kv: -kv[1]))
    return f"{sum(unscored.values())} ({reasons})"


_CONTESTED = '"agreement":"contested"'
_AGREED = '"agreement":"agreed"'
_UNSCORED = '"status":"unscored"'
_DROPPED = '"status":"dropped"'
