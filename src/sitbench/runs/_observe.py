"""Several extractors' readings of one run, side by side, and their agreement.

``sitbench observe RUN --extractor SPEC`` reads every completed trial of RUN with another extractor
and writes ``RUN/observations/<id>@<version>.jsonl`` (one :class:`ObservationRecord` per trial, in
trial order): the observation and the verdicts it gives. ``scores.jsonl`` stays as it was.
``sitbench agreement RUN`` compares every stored reading with a reference reading (the scores, by
default) on the same trials.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from sitbench.errors import InputError, ReadingUnavailable
from sitbench.runs._records import TrialRecord
from sitbench.runs._rescore import run_dataset_dir
from sitbench.runs._scoring import check_trials_in_dataset
from sitbench.runs._store import ELSEWHERE_HINT, RunStore
from sitbench.schema import Observation
from sitbench.stores import LoadedDataset, iter_jsonl, load_dataset, write_jsonl
from sitbench.verify import (
    AgreementReport,
    Judge,
    Reading,
    close_extractor,
    compare,
    get_extractor,
    stamp,
)

OBSERVATIONS_DIR = "observations"
"""Directory of a run that holds other extractors' readings."""

SCORES_READING = "scores"
"""Name of the reading stored in ``scores.jsonl``."""


class ObservationRecord(BaseModel):
    """One trial read by one extractor (a line of ``observations/<extractor>.jsonl``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trial_id: str
    """Matches the trial record."""
    category: str
    """Probe category, for per-category agreement."""
    observation: Observation
    """Γ̂ by this extractor."""
    valid: bool
    """Target verdict from this observation."""
    partner_valid: bool | None = None
    """Partner verdict for theorem-qualified probes."""


def _file_name(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9@._+-]+", "_", label) + ".jsonl"


def observe_run(run: Path, extractor_spec: str, dataset: Path | None = None) -> Path:
    """Read every completed trial of ``run`` with another extractor; returns the file written.

    Raises:
        InputError: RUN is not a run or its dataset is missing.
        ReadingUnavailable: the extractor could not read some trials (the file holds the others).
    """
    store = RunStore(run).require()
    manifest = store.manifest()
    data_dir = run_dataset_dir(run, manifest, dataset)
    extractor = get_extractor(extractor_spec)
    ds = load_dataset(data_dir)
    from sitbench.runs._runner import verify_run_dataset

    verify_run_dataset(ds, manifest.dataset, run)
    judge = Judge(ds.hidden, ds.visible.queries, extractor=extractor)
    trials = store.trials()
    if not trials:
        raise store.no_trials()
    if store.torn_bytes:
        raise InputError(f"{store.responses_path}: ends with a torn line ({store.torn_bytes} bytes after the last "
                         "complete trial: its writer was killed); finish the run with `sitbench run ... --resume` "
                         "before reading it again")
    check_trials_in_dataset(ds, trials)
    try:
        records, unread = _read_all(judge, ds, trials)
    finally:
        close_extractor(extractor)
    out = run / OBSERVATIONS_DIR / _file_name(stamp(extractor))
    write_jsonl(out, records, ELSEWHERE_HINT)
    if unread:
        # What was read is kept (and cached): running the same command again reads only the rest.
        raise ReadingUnavailable(f"{out}: {len(unread)} trials not read and left out of this reading ({unread[0]}); "
                                 "run the same command again when the extractor answers")
    return out


def _read_all(judge: Judge, ds: LoadedDataset, trials: list[TrialRecord]) -> tuple[list[ObservationRecord],
                                                                                   list[str]]:
    """The reading of every completed trial, and why each trial the extractor could not read was not read."""
    records: list[ObservationRecord] = []
    unread: list[str] = []
    for trial in trials:
        if trial.status != "completed" or trial.response_text is None:
            continue
        try:
            judged = judge.judge(trial.probe_id, trial.response_text)
        except ReadingUnavailable as exc:
            unread.append(str(exc))
            continue
        records.append(ObservationRecord(
            trial_id=trial.trial_id, category=ds.hidden.probes[trial.probe_id].category.value,
            observation=judged.observation, valid=judged.verdict.valid,
            partner_valid=None if judged.partner is None else judged.partner.valid))
    return records, unread


def readings_of(run: Path) -> dict[str, dict[str, ObservationRecord]]:
    """Every stored reading of a run: ``scores`` plus each ``observations/*.jsonl``, by trial id."""
    store = RunStore(run).require()
    out: dict[str, dict[str, ObservationRecord]] = {}
    scores = {}
    for record in store.scores():
        if record.observation is None or record.verdict is None:
            continue
        scores[record.trial_id] = ObservationRecord(
            trial_id=record.trial_id, category=record.category.value, observation=record.observation,
            valid=record.verdict.valid, partner_valid=None if record.partner is None else record.partner.valid)
    if scores:
        out[SCORES_READING] = scores
    folder = run / OBSERVATIONS_DIR
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        out[path.stem] = {r.trial_id: r for _, r in iter_jsonl(path, ObservationRecord, str(path))}
    return out


def run_agreement(run: Path, reference: str = SCORES_READING) -> dict[str, AgreementReport]:
    """Agreement of every stored reading with ``reference`` on the trials both read, per category too.

    Raises:
        InputError: the reference reading is not stored, or there is nothing to compare it with.
    """
    readings = readings_of(run)
    if reference not in readings:
        raise InputError(f"--reference {reference!r}: no such reading in {run} "
                         f"(stored: {', '.join(readings) or 'none'}; score the run or run sitbench observe)")
    others = {name: r for name, r in readings.items() if name != reference}
    if not others:
        raise InputError(f"{run}: only the {reference!r} reading is stored; add another with "
                         f"sitbench observe {run} --extractor SPEC")
    base = readings[reference]
    reports = {}
    for name, reading in others.items():
        pairs = []
        for trial_id, ref in base.items():
            other = reading.get(trial_id)
            if other is None:
                continue
            verdicts = [(ref.valid, other.valid)]
            if ref.partner_valid is not None and other.partner_valid is not None:
                verdicts.append((ref.partner_valid, other.partner_valid))
            pairs.append(Reading(reference=ref.observation, other=other.observation, verdicts=tuple(verdicts),
                                 groups={"category": (ref.category,)}))
        reports[name] = compare(pairs)
    return reports
