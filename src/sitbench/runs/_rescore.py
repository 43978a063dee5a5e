"""Offline rescoring: re-extract and re-score a run's stored responses with the current verifier.

No candidate is built and no model is called: the responses are copied byte for
byte, and scoring reads them like ``sitbench score`` does.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from sitbench.errors import InputError
from sitbench.runs._records import RunManifest, ScoreRecord
from sitbench.runs._scoring import iter_score_trials
from sitbench.runs._store import RESPONSES_FILE, RunStore
from sitbench.stores import LoadedDataset, load_dataset, make_dirs
from sitbench.verify import Extractor


class RescoreReport(BaseModel):
    """What a rescore changed; also stored as ``manifest.extra["rescore"]``."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    from_run: str
    """run_id of the source run."""
    from_dir: str
    """Directory name of the source run."""
    previous_verifier_version: str | None
    """Verifier of the source run's scores.jsonl; None when it was never scored."""
    verifier_version: str
    """Verifier that produced the new scores."""
    scored: int
    """Trials scored (dropped trials included, as ``dropped``; unscored ones not)."""
    torn_bytes: int = 0
    """Length of the torn line the source's responses.jsonl ends with (0 when it ended cleanly): the run is
    not finished until ``sitbench run --resume`` repairs it."""
    unscored: dict[str, int] = {}
    """Trials left unscored, by reason (``extractor unavailable``, ``torn``, ``not run``): rescore again
    with ``--resume`` to finish them."""
    compared: int
    """Completed trials that had a previous verdict to compare with."""
    changed_verdicts: dict[str, int]
    """Per probe category: trials whose SValid flipped between the two verifiers."""
    changed_trials: list[str]
    """Trial ids whose SValid flipped."""
    changed_checks: dict[str, int] = {}
    """Per check of Eq. 20: among the trials whose SValid flipped, those in which that check's result changed."""


_Previous = tuple[bool, frozenset[str]]
"""SValid and the names of the checks that failed."""


def _previous_verdicts(store: RunStore) -> dict[str, _Previous | None] | None:
    """Trial id → (SValid, failed checks) of the run's current scores (None for a trial without a verdict);
    None when the run was never scored."""
    if not store.has_scores():
        return None
    return {record.trial_id: None if record.verdict is None else
            (record.verdict.valid, frozenset(k for k, c in record.verdict.checks.items() if not c.passed))
            for record in store.iter_scores(check=False)}


class _Changes:
    """Verdicts that flipped, counted as the new records go by on their way to the file."""

    def __init__(self, previous: dict[str, _Previous | None]) -> None:
        self.previous = previous
        self.by_category: Counter[str] = Counter()
        self.by_check: Counter[str] = Counter()
        self.trials: list[str] = []
        self.compared = 0

    def watch(self, records: Iterable[ScoreRecord]) -> Iterator[ScoreRecord]:
        for record in records:
            old = self.previous.get(record.trial_id)
            if old is not None and record.verdict is not None:
                self.compared += 1
                if old[0] != record.verdict.valid:
                    self.by_category[record.category.value] += 1
                    self.trials.append(record.trial_id)
                    failed = frozenset(k for k, c in record.verdict.checks.items() if not c.passed)
                    self.by_check.update(old[1] ^ failed)
            yield record


def run_dataset_dir(run: Path, manifest: RunManifest, dataset: Path | None = None) -> Path:
    """The dataset a run was made with: ``dataset`` when given, else the path its manifest records.

    Raises:
        InputError: that is not a directory.
    """
    if dataset is not None:
        if not dataset.is_dir():
            raise InputError(f"--dataset {str(dataset)!r}: not a directory; give the dataset directory the run "
                             "was made with")
        return dataset
    recorded = manifest.dataset.get("path")
    if not recorded:
        # Path("") is the working directory: never read whatever dataset happens to be there.
        raise InputError(f"{RunStore(run).manifest_path}: dataset.path is missing; pass the dataset with "
                         "--dataset DIR")
    data_dir = Path(recorded)
    if not data_dir.is_dir():
        raise InputError(f"{RunStore(run).manifest_path}: dataset.path {str(data_dir)!r} is not a directory; "
                         "pass the dataset with --dataset")
    return data_dir


def rescore_run(run: Path, out: Path, dataset: Path | None = None, extractor_spec: str | None = None, *,
                resume: bool = False) -> RescoreReport:
    """Copy RUN's responses to OUT and score them with the installed verifier.

    OUT appears whole or not at all: the rescore is written to a hidden folder beside OUT and renamed into
    place at the end, so a rescore that is killed leaves OUT as it was and the same command can be run again.

    Args:
        run: Source run directory (left untouched).
        out: New run directory; must not exist yet or be empty, unless ``resume``.
        dataset: Dataset directory; the path recorded in RUN's manifest by default.
        extractor_spec: Stage-1 extractor (``--extractor``); the rule extractor by default.
        resume: OUT may be an earlier rescore of RUN (one that left trials unscored): it is rescored again and
            replaced (an LLM extractor's cached readings are not asked for again).

    Returns:
        The report, also written to ``OUT/manifest.json`` under ``extra.rescore``. Trials the verifier could
        not read are ``unscored`` in OUT's scores and counted in :attr:`RescoreReport.unscored`.

    Raises:
        InputError: RUN is not a run or holds no complete trial, OUT already holds files (that are not a rescore of RUN, with
            ``resume``), or the dataset is missing or is not the one the run used.
    """
    from sitbench.verify import close_extractor, get_extractor, verifier_label

    extractor = get_extractor(extractor_spec)
    source = RunStore(run).require()
    manifest = source.manifest()
    source.trial_lines()  # a run without one complete trial has nothing to rescore
    _check_out(run, out, manifest, resume)
    data_dir = run_dataset_dir(run, manifest, dataset)
    ds = load_dataset(data_dir)
    from sitbench.runs._runner import verify_run_dataset

    verify_run_dataset(ds, manifest.dataset, run)
    with _staging(out) as staging:
        try:
            report = _rescore_into(source, manifest, ds, extractor, staging)
        finally:
            close_extractor(extractor)
        extra = dict(manifest.extra)
        history = list(extra.get("rescore_history", []))
        if "rescore" in extra:
            history.append(extra["rescore"])
        extra["rescore"] = report.model_dump(mode="json")
        if history:
            extra["rescore_history"] = history
        RunStore(staging).write_manifest(manifest.model_copy(update={
            "verifier_version": verifier_label(extractor), "extra": extra,
            "dataset": {**manifest.dataset, "path": str(data_dir.resolve())}}))
    return report


def _check_out(run: Path, out: Path, manifest: RunManifest, resume: bool) -> None:
    """OUT is new or empty, or (``resume``) an earlier rescore of RUN."""
    if out.resolve() == run.resolve():
        raise InputError(f"--out {out}: is the source run; give a new directory (the source stays as it was)")
    if not (out.exists() and any(out.iterdir())):
        return
    if not resume:
        raise InputError(f"--out {out}: already holds files; give a new or empty directory (or add --resume to "
                         "finish an earlier rescore of this run that left trials unscored)")
    earlier = RunStore(out).manifest_or_none() if out.is_dir() else None
    if earlier is None or earlier.extra.get("rescore", {}).get("from_run") != manifest.run_id:
        raise InputError(f"--out {out} --resume: {out} is not a rescore of {run} (its manifest.json names another "
                         "source run, or none); give a new directory")
    RunStore(out).refuse_foreign_files()  # the earlier rescore is replaced: nothing else may be in it


@contextlib.contextmanager
def _staging(out: Path) -> Iterator[Path]:
    """A hidden folder beside ``out`` that replaces it when the block ends without an error (removed otherwise).

    A rescore killed before the end leaves a ``.NAME.rescore-*`` folder beside OUT and OUT untouched; the next
    rescore to OUT removes such leftovers first."""
    make_dirs(out.parent)
    for stale in out.parent.glob(f".{out.name}.rescore-*"):
        shutil.rmtree(stale, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.rescore-", dir=out.parent))
    try:
        yield staging
        old = None
        if out.exists():
            old = out.parent / f"{staging.name}-old"
            out.rename(old)
        staging.rename(out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _rescore_into(source: RunStore, manifest: RunManifest, ds: LoadedDataset, extractor: Extractor,
                  target_dir: Path) -> RescoreReport:
    """Score ``source``'s trials into ``target_dir`` (scores.jsonl and a copy of responses.jsonl)."""
    from sitbench.runs._scoring import ScoreTally, missing_trials
    from sitbench.verify import verifier_label

    trials = source.iter_trials()
    previous = _previous_verdicts(source)
    changes = _Changes(previous or {})
    tally = ScoreTally()
    stored: set[str] = set()

    def scored() -> Iterator[ScoreRecord]:
        for record in iter_score_trials(ds, trials, extractor):
            stored.add(record.trial_id)
            yield record
        yield from missing_trials(ds, manifest, stored, source.torn_trial_id)

    # Scored as read and written as scored: no list of the run's records is ever held.
    RunStore(target_dir).write_scores(tally.watch_records(changes.watch(scored())))
    if source.responses_path.exists():
        shutil.copyfile(source.responses_path, target_dir / RESPONSES_FILE)
    return RescoreReport(
        from_run=manifest.run_id, from_dir=source.root.name,
        previous_verifier_version=manifest.verifier_version if previous else None,
        verifier_version=verifier_label(extractor), scored=tally.counts["completed"] + tally.counts["dropped"],
        compared=changes.compared, changed_verdicts=dict(sorted(changes.by_category.items())),
        changed_trials=changes.trials, changed_checks=dict(sorted(changes.by_check.items())),
        unscored=dict(tally.unscored.most_common()), torn_bytes=source.torn_bytes)
