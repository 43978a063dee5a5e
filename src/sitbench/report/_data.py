"""What the report reads from run directories: manifest, scores, metrics and the failed trials."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sitbench.errors import InputError
from sitbench.metrics import ConfigMetrics, run_metrics
from sitbench.runs import MANIFEST_FILE, RESPONSES_FILE, SCORES_FILE, RunManifest, RunStore, ScoreRecord, TrialRecord


class ScoreView:
    """A run's score records, read from ``scores.jsonl`` afresh on each pass (never held in memory)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store

    def __iter__(self) -> Iterator[ScoreRecord]:
        return self.store.iter_scores()


@dataclass(frozen=True)
class LoadedRun:
    """One scored run directory, ready to be rendered."""

    name: str
    """Display name: the directory name, or the path given when two runs share a name."""
    path: Path
    """The run directory."""
    manifest: RunManifest
    """``manifest.json``."""
    scores: Iterable[ScoreRecord]
    """``scores.jsonl`` in file order: a :class:`ScoreView` that reads the file on each pass."""
    metrics: dict[str, ConfigMetrics]
    """Configuration → metrics, as ``sitbench metrics`` computes them."""
    file_sha256: dict[str, str]
    """SHA-256 of ``manifest.json``, ``scores.jsonl`` and ``responses.jsonl`` (when present)."""

    @property
    def model(self) -> str:
        """Candidate spec of the run (``candidate.spec``, else ``candidate.model``)."""
        candidate = self.manifest.candidate
        return str(candidate.get("spec") or candidate.get("model") or "")


@dataclass(frozen=True)
class FailedTrial:
    """A trial the drill-down lists — completed with an invalid target verdict, or contested by two readers — with
    its recorded inputs and output."""

    run: str
    """Run display name."""
    score: ScoreRecord
    """The score record (observation, verdicts, flags)."""
    trial: TrialRecord | None
    """The response record; ``None`` when ``responses.jsonl`` lacks the trial."""
    responses_line: int | None
    """Line of the trial in ``responses.jsonl`` (1-based), for tracing."""


def is_failed(record: ScoreRecord) -> bool:
    """Completed with an invalid target verdict (dropped trials are never failures)."""
    return record.status == "completed" and record.verdict is not None and not record.verdict.valid


def failed_checks(record: ScoreRecord) -> list[str]:
    """Names of the target-verdict checks that did not pass, in the verdict's order."""
    if record.verdict is None:
        return []
    return [name for name, check in record.verdict.checks.items() if not check.passed]


def run_names(paths: Sequence[Path]) -> list[str]:
    """Directory names, falling back to the path given when two runs share a name."""
    names = [path.name or str(path) for path in paths]
    return [name if names.count(name) == 1 else str(path) for name, path in zip(names, paths, strict=True)]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_run(path: Path, name: str) -> LoadedRun:
    """Read one scored run directory.

    Raises:
        InputError: the directory, its manifest or its score file is missing or malformed.
    """
    if not path.is_dir():
        raise InputError(f"{path}: no such run directory; pass a directory written by `sitbench run`")
    store = RunStore(path)
    if not store.manifest_path.is_file():
        raise InputError(
            f"{store.manifest_path}: file not found; the report traces every number to the run manifest, "
            "pass a directory written by `sitbench run`"
        )
    manifest = store.manifest()
    metrics = run_metrics(path)  # also checks every score record, naming the line
    scores = ScoreView(store)
    hashes = {
        file: _sha256(path / file)
        for file in (MANIFEST_FILE, SCORES_FILE, RESPONSES_FILE)
        if (path / file).is_file()
    }
    return LoadedRun(name=name, path=path, manifest=manifest, scores=scores, metrics=metrics, file_sha256=hashes)


def load_runs(paths: Sequence[Path]) -> list[LoadedRun]:
    """Read several run directories, named as :func:`run_names` names them."""
    if not paths:
        raise InputError("no run directory given; pass at least one scored run, e.g. `sitbench report runs/r1`")
    return [load_run(path, name) for path, name in zip(paths, run_names(paths), strict=True)]


def is_contested(record: ScoreRecord) -> bool:
    """Read by two readers whose verdicts differ (``agreement == "contested"``)."""
    return record.agreement == "contested"


@dataclass(frozen=True)
class Listed:
    """The trials the drill-down lists (failed, or contested by two readers) and how many there are in all."""

    picked: list[tuple[LoadedRun, ScoreRecord]]
    """The picked ``(run, score)`` pairs in report order (run, then file order)."""
    failed: int
    """Failed trials in all (completed, the primary reader's target verdict invalid)."""
    contested: int
    """Contested trials in all (two readers, verdicts differ), failed or not."""
    total: int
    """Trials that are failed, contested or both."""


_Key = tuple[str, ...]


def _pick(runs: Sequence[LoadedRun], cap: int,
          group: Callable[[LoadedRun, ScoreRecord], _Key | None]) -> tuple[list[tuple[LoadedRun, ScoreRecord]],
                                                                         dict[_Key, int]]:
    """At most ``cap`` records of the groups ``group`` puts them in (None: not listed), round-robin over the groups
    when there are more; the scores are read twice (count, then keep the picked), so memory holds ``cap`` records.

    Returns:
        The picked pairs in report order, and each group's count in all (in the order its first record comes).
    """
    counts: dict[_Key, int] = {}
    for run in runs:
        for record in run.scores:
            key = group(run, record)
            if key is not None:
                counts[key] = counts.get(key, 0) + 1
    total = sum(counts.values())
    take = dict(counts) if total <= cap else _round_robin(counts, cap)
    picked: list[tuple[LoadedRun, ScoreRecord]] = []
    if not any(take.values()):
        return picked, counts
    seen = dict.fromkeys(counts, 0)
    for run in runs:
        for record in run.scores:
            key = group(run, record)
            if key is not None:
                if seen[key] < take[key]:
                    picked.append((run, record))
                seen[key] += 1
    return picked, counts


def _failed_group(run: LoadedRun, record: ScoreRecord) -> _Key | None:
    return (run.name, record.config, record.category.value) if is_failed(record) else None


def _listed_group(run: LoadedRun, record: ScoreRecord) -> _Key | None:
    failed, contested = is_failed(record), is_contested(record)
    if not (failed or contested):
        return None
    return (run.name, record.config, record.category.value, "failed" if failed else "", "contested" if contested else "")


def select_failed(runs: Sequence[LoadedRun], cap: int) -> tuple[list[tuple[LoadedRun, ScoreRecord]], int]:
    """Pick at most ``cap`` failed trials for the drill-down.

    When there are more than ``cap``, the pick is a round-robin over (run, configuration,
    category) groups in file order, so every group that failed is represented and the
    choice is deterministic. The scores are read twice: once to count each group's failures
    (from which the round robin's depth in every group follows), once to keep the picked
    records only, so memory holds ``cap`` records however many trials failed.

    Returns:
        The picked ``(run, score)`` pairs in report order (run, then file order) and the
        total number of failed trials.
    """
    picked, counts = _pick(runs, cap, _failed_group)
    return picked, sum(counts.values())


def select_listed(runs: Sequence[LoadedRun], cap: int) -> Listed:
    """Pick at most ``cap`` failed or contested trials for the drill-down.

    As :func:`select_failed`, with the round robin over (run, configuration, category, failed, contested)
    groups, so the contested trials of every group are represented beside its failures. With one reader
    nothing is contested and the pick is :func:`select_failed`'s.
    """
    picked, counts = _pick(runs, cap, _listed_group)
    return Listed(picked=picked, failed=sum(n for key, n in counts.items() if key[3]),
                  contested=sum(n for key, n in counts.items() if key[4]), total=sum(counts.values()))


def _round_robin(counts: dict[_Key, int], cap: int) -> dict[_Key, int]:
    """How many of each group's first failures a round robin over the groups (in order, one from
    each at every depth) picks before it has ``cap``; ``counts`` hold more than ``cap`` in all."""
    take = dict.fromkeys(counts, 0)
    picked = depth = 0
    while picked < cap:
        for key, count in counts.items():
            if depth < count and picked < cap:
                take[key] += 1
                picked += 1
        depth += 1
    return take


def load_failed_trials(picked: Sequence[tuple[LoadedRun, ScoreRecord]]) -> list[FailedTrial]:
    """Attach the response record of each picked trial, reading only the lines needed."""
    wanted: dict[str, set[str]] = {}
    runs: dict[str, LoadedRun] = {}
    for run, record in picked:
        wanted.setdefault(run.name, set()).add(record.trial_id)
        runs[run.name] = run
    found: dict[tuple[str, str], tuple[TrialRecord, int]] = {}
    for name, ids in wanted.items():
        found.update(((name, tid), value) for tid, value in RunStore(runs[name].path).find_trials(ids).items())
    out: list[FailedTrial] = []
    for run, record in picked:
        hit = found.get((run.name, record.trial_id))
        out.append(
            FailedTrial(
                run=run.name,
                score=record,
                trial=hit[0] if hit else None,
                responses_line=hit[1] if hit else None,
            )
        )
    return out
