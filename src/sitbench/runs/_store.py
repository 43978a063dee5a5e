"""The run directory: manifest.json, responses.jsonl (append-only), scores.jsonl."""

from __future__ import annotations

import os
from pathlib import Path

from sitbench.errors import InputError
from sitbench.runs._records import RunManifest, ScoreRecord, TrialRecord
from sitbench.stores import (
    iter_jsonl,
    iter_jsonl_bytes,
    load_model,
    read_bytes,
    write_json,
    write_jsonl,
)

MANIFEST = "manifest.json"
RESPONSES = "responses.jsonl"
SCORES = "scores.jsonl"


class RunStore:
    """Reads and writes one run directory. Appends are whole lines, flushed and synced."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def responses_path(self) -> Path:
        return self.root / RESPONSES

    def require(self) -> RunStore:
        """Fail with a clear message when the directory is not a run."""
        if (self.root / MANIFEST).is_dir():
            raise InputError(f"{self.root / MANIFEST}: is a directory, not a file; a run's manifest is the JSON "
                             "file `sitbench run` writes")
        if not (self.root / MANIFEST).is_file():
            raise InputError(f"{self.root}: not a run directory (no {MANIFEST}); create one with `sitbench run`")
        return self

    def manifest(self) -> RunManifest:
        return load_model(self.root / MANIFEST, RunManifest, str(self.root / MANIFEST))

    def write_manifest(self, manifest: RunManifest) -> None:
        write_json(self.root / MANIFEST, manifest)

    torn_bytes: int = 0
    """Length of the torn last line the latest :meth:`trials` found (0 when the file ended cleanly)."""
    superseded: int = 0
    """Lines the latest :meth:`trials` found replaced by a later line of the same trial."""

    def trials(self, *, repair: bool = False) -> list[TrialRecord]:
        """The trials of responses.jsonl, one per trial id, in the order they first appear.

        A trial re-attempted after a drop has a later line of its own: the later record stands (a
        resume that was stopped before its final rewrite leaves both). A torn last line (a writer
        killed mid-line) is never a trial: its length is left in :attr:`torn_bytes` for the caller to
        report, and with ``repair`` (a run about to append) it is cut off so the next append starts on
        a fresh line. Reading alone never changes the file.
        """
        path = self.responses_path
        self.torn_bytes = self.superseded = 0
        if not path.exists():
            return []
        data = read_bytes(path)
        cut = data.rfind(b"\n") + 1 if data and not data.endswith(b"\n") else len(data)
        self.torn_bytes = len(data) - cut
        if self.torn_bytes and repair:
            with path.open("r+b") as handle:
                handle.truncate(cut)
        latest: dict[str, TrialRecord] = {}
        lines = 0
        for _, record in iter_jsonl_bytes(data[:cut], str(path), TrialRecord):
            latest[record.trial_id] = record  # dict order: first appearance; value: the last record
            lines += 1
        self.superseded = lines - len(latest)
        return list(latest.values())

    def append_trial(self, record: TrialRecord) -> None:
        line = (record.model_dump_json() + "\n").encode("utf-8")
        fd = os.open(self.responses_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def scores(self) -> list[ScoreRecord]:
        path = self.root / SCORES
        if not path.exists():
            raise InputError(f"{path}: missing; score the run first with `sitbench score {self.root}`")
        return [record for _, record in iter_jsonl(path, ScoreRecord, str(path))]

    def write_scores(self, records: list[ScoreRecord]) -> None:
        write_jsonl(self.root / SCORES, records)
