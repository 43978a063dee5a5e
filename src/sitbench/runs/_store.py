"""The run directory: manifest.json, responses.jsonl (append-only), scores.jsonl.

:class:`RunStore` is the one reader of these files: metrics, analysis, the report, rescoring,
merging and the audit read a run through it, one record at a time.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, create_model

from sitbench.errors import InputError, OutputError
from sitbench.runs._records import RunManifest, ScoreRecord, SecondReading, TrialRecord, TrialTally
from sitbench.schema import Verdict
from sitbench.stores import (
    HIDDEN_DIR,
    MAX_LINE_BYTES,
    VISIBLE_DIR,
    check_no_link,
    iter_lines,
    load_model,
    loads_json,
    open_regular,
    output_error,
    parse_jsonl_line,
    write_json,
    write_jsonl,
    write_lines,
)

MANIFEST_FILE = "manifest.json"
"""A run's manifest (:class:`RunManifest`), inside the run directory."""
RESPONSES_FILE = "responses.jsonl"
"""A run's trial records (:class:`TrialRecord`), one JSON line per trial attempt, append-only."""
SCORES_FILE = "scores.jsonl"
"""A run's score records (:class:`ScoreRecord`), one JSON line per trial, written by scoring."""

# Older spellings, kept for the modules that still import them.
MANIFEST = MANIFEST_FILE
RESPONSES = RESPONSES_FILE
SCORES = SCORES_FILE

RESUME_HINT = "then continue the run with the same `sitbench run` command and --resume (the trials done are kept)"
"""What to do when a run's file cannot be written midway (after the fix that :func:`write_hint` names)."""
ELSEWHERE_HINT = "copy the run folder elsewhere"
"""Where else a run's scores and manifest can be written when its folder is full or read-only."""

DUPLICATE_HINT = "appears twice; merge shards with `sitbench merge` instead of concatenating score files"
"""How to fix a trial that appears twice among a run's score records."""

R = TypeVar("R", TrialRecord, TrialTally)

def _scan_lines(handle: Any) -> Iterator[tuple[int, int, int, bytes, int]]:
    """``(line number, file offset, end, block, start)`` of each line of a binary file: the line is
    ``block[start:end]``, newline included (the last one may lack it).

    Reads blocks of a few MiB and finds the line breaks in them, instead of making a bytes object of
    every line: a run's lines hold whole prompts, and indexing a large run is mostly copying otherwise.
    """
    number = 0
    base = 0  # file offset of block[0]
    while True:
        block = handle.read(_SCAN_BLOCK)
        if not block:
            return
        start = 0
        while True:
            newline = block.find(b"\n", start)
            if newline < 0:
                break
            number += 1
            yield number, base + start, newline + 1, block, start
            start = newline + 1
        if start == 0:
            # One line longer than the block: read on until its line break (or the end of the file),
            # never past the bound of one line.
            rest = handle.readline(MAX_LINE_BYTES)
            if len(block) + len(rest) > MAX_LINE_BYTES and not rest.endswith(b"\n"):
                raise InputError(f"{getattr(handle, 'name', 'responses.jsonl')} line {number + 1}: longer than "
                                 f"{MAX_LINE_BYTES >> 20} MiB, the most sitbench reads of one line; this is not a "
                                 "file sitbench wrote: give the right file")
            number += 1
            yield number, base, len(block) + len(rest), block + rest, 0
            base += len(block) + len(rest)
            continue
        if start < len(block):
            handle.seek(base + start)  # the partial line starts the next block
        base += start


_SCAN_BLOCK = 1 << 22
_BLANK = re.compile(rb"[ \t\r\n\x0b\x0c]*")
_TRIAL_ID_AT = re.compile(rb'\{"trial_id":"((?:[^"\\]|\\.)*)"')

# model_dump_json writes trial_id first; reading it off the line prefix finds a trial's lines without
# parsing every (large) response record.
_TRIAL_ID_PREFIX = re.compile(rb'^\{"trial_id":"((?:[^"\\]|\\.)*)"')


class _CheckHead(BaseModel):
    model_config = ConfigDict(extra="ignore")

    passed: bool


class _VerdictHead(BaseModel):
    # The fields of a verdict a summary keeps; of the per-check breakdown only each check's outcome is
    # read, to hold the verdict to it, and not kept.
    model_config = ConfigDict(extra="ignore")

    valid: bool
    verifier_version: str
    extractor: str | None = None
    checks: dict[str, _CheckHead] = {}


def verdict_problem(valid: bool, passed: list[bool], field: str) -> str | None:
    """What is wrong with a verdict whose ``valid`` is not the conjunction of its checks (``None`` when it is)."""
    if passed and valid != all(passed):
        failed = "fails a check" if not all(passed) else "passes every check"
        return (f"field '{field}.valid' is {str(valid).lower()} but the verdict {failed}; the record was edited: "
                "restore scores.jsonl or score the run again")
    return None


_BULKY = ("observation", "verdict", "partner")


def _summary_model(name: str, model: type[BaseModel], **extra: Any) -> type[BaseModel]:
    # The model's own fields and types, less the observation, with verdicts read as their heads: a
    # summary line validates the same fields as the full record but skips the bulky parts.
    return create_model(  # type: ignore[call-overload, no-any-return]
        name,
        __config__=ConfigDict(extra="ignore"),
        **{key: (field.annotation, field) for key, field in model.model_fields.items()
           if key not in (*_BULKY, *extra)},
        verdict=(_VerdictHead | None, None),
        partner=(_VerdictHead | None, None),
        **extra,
    )


_SecondSummary = _summary_model("_SecondSummary", SecondReading)
_ScoreSummary = _summary_model("_ScoreSummary", ScoreRecord, second=(_SecondSummary | None, None))


def _verdict_heads(fields: dict[str, Any]) -> dict[str, Any]:
    for key in ("verdict", "partner"):
        value = fields[key]
        if value is not None:
            fields[key] = Verdict.model_construct(valid=value.valid, checks={},
                                                  verifier_version=value.verifier_version, extractor=value.extractor)
    return fields


def _summary_record(raw: bytes, number: int, name: str) -> ScoreRecord:
    head = parse_jsonl_line(raw, number, name, _ScoreSummary, strict=True)
    fields = dict(head.__dict__)
    verdicts = [(key, fields[key]) for key in ("verdict", "partner")]
    if fields["second"] is not None:
        verdicts += [(f"second.{key}", getattr(fields["second"], key)) for key in ("verdict", "partner")]
    for key, verdict in verdicts:
        problem = verdict and verdict_problem(verdict.valid, [c.passed for c in verdict.checks.values()], key)
        if problem:
            raise InputError(f"{name} line {number}: {problem}")
    fields = _verdict_heads(fields)
    if fields["second"] is not None:
        fields["second"] = SecondReading.model_construct(observation=None,
                                                         **_verdict_heads(dict(fields["second"].__dict__)))
    return ScoreRecord.model_construct(observation=None, **fields)


def _full_record(raw: bytes, number: int, name: str) -> ScoreRecord:
    record = parse_jsonl_line(raw, number, name, ScoreRecord, strict=True)
    verdicts = [("verdict", record.verdict), ("partner", record.partner)]
    if record.second is not None:
        verdicts += [("second.verdict", record.second.verdict), ("second.partner", record.second.partner)]
    for key, verdict in verdicts:
        problem = verdict and verdict_problem(verdict.valid, [c.passed for c in verdict.checks.values()], key)
        if problem:
            raise InputError(f"{name} line {number}: {problem}")
    return record


def score_problem(record: ScoreRecord, run: str = "RUN") -> str | None:
    """What makes a score record unusable for metrics and analysis, as ``field 'x' …; fix``, or ``None``.

    Args:
        record: one score record.
        run: the run directory, to name in the fix.
    """
    if record.status != "completed":
        return None
    if record.verdict is None:
        return f"field 'verdict' is null on a completed trial; re-score the run with `sitbench rescore {run}`"
    if record.theorem_qualified and record.partner is None:
        return ("field 'partner' is null on a completed theorem-qualified trial (LAA needs the "
                f"partner-contract verdict); re-score the run with `sitbench rescore {run}`")
    return None


_RUN_FILES = frozenset({MANIFEST_FILE, RESPONSES_FILE, SCORES_FILE, ".lock"})


def _written_into_a_run(folder: Path, name: str, is_dir: bool) -> bool:
    """Whether ``folder/name`` (relative to a run folder) is what sitbench writes there."""
    if folder == Path("."):
        if is_dir:
            return name == "observations"
        return name in _RUN_FILES or (name.startswith(".") and name.endswith(".tmp"))
    return folder == Path("observations") and not is_dir and name.endswith((".jsonl", ".tmp"))


class RunStore:
    """Reads and writes one run directory. Appends are whole lines, flushed and synced."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @property
    def manifest_path(self) -> Path:
        """``RUN/manifest.json``."""
        return self.root / MANIFEST_FILE

    @property
    def responses_path(self) -> Path:
        """``RUN/responses.jsonl``."""
        return self.root / RESPONSES_FILE

    @property
    def scores_path(self) -> Path:
        """``RUN/scores.jsonl``."""
        return self.root / SCORES_FILE

    def refuse_links(self) -> None:
        """Refuse a run folder whose manifest, responses, scores or lock file is a symbolic link: a run
        writes those files, and writing through a link would change a file outside the run folder.

        Raises:
            OutputError: naming the link and the way out.
        """
        for name in (MANIFEST_FILE, RESPONSES_FILE, SCORES_FILE, ".lock"):
            check_no_link(self.root, self.root / name)

    def refuse_foreign_files(self) -> None:
        """Refuse a run folder about to be removed (or replaced) that is a link or holds anything sitbench
        does not write into a run: its manifest, responses, scores, lock, temporary files and
        ``observations/*.jsonl``.

        Raises:
            OutputError: naming the first foreign entry and the way out.
        """
        if self.root.is_symlink():
            check_no_link(self.root.parent, self.root)
        for here, dirs, files in os.walk(self.root, followlinks=False):
            rel = Path(here).relative_to(self.root)
            for name in sorted(dirs + files):
                path = Path(here) / name
                check_no_link(self.root, path)
                if not _written_into_a_run(rel, name, name in dirs):
                    raise OutputError(f"{path}: not a file sitbench wrote into the run {self.root}; sitbench never "
                                      "deletes a file it did not write: move it out of the folder, or choose another "
                                      "--out")

    def has_manifest(self) -> bool:
        """Whether the directory holds a manifest (a run was started here)."""
        return self.manifest_path.exists()

    def has_scores(self) -> bool:
        """Whether the run has been scored (``scores.jsonl`` exists)."""
        return self.scores_path.exists()

    def require(self) -> RunStore:
        """Fail with a clear message when the directory is not a run."""
        if self.manifest_path.is_dir():
            raise InputError(f"{self.manifest_path}: is a directory, not a file; a run's manifest is the JSON "
                             "file `sitbench run` writes")
        if not self.manifest_path.is_file():
            raise InputError(f"{self.root}: not a run directory (no {MANIFEST_FILE}); create one with `sitbench run`")
        self._refuse_dataset()
        return self

    def _refuse_dataset(self) -> None:
        # A dataset directory also has a manifest.json; without this its fields would be reported as a broken run.
        if (self.root / HIDDEN_DIR).is_dir() and (self.root / VISIBLE_DIR).is_dir():
            raise InputError(f"{self.root}: is a dataset directory, not a run directory; a run is what "
                             f"`sitbench run {self.root} --model MODEL --out RUN` writes into RUN")

    def manifest(self) -> RunManifest:
        """The run's manifest.

        Raises:
            InputError: the file is missing or malformed, or of a newer format (naming the version to install),
                or the directory is a dataset rather than a run.
        """
        self._refuse_dataset()
        return load_model(self.manifest_path, RunManifest, str(self.manifest_path))

    def manifest_or_none(self) -> RunManifest | None:
        """The manifest when the directory has one, else ``None`` (a bare directory of scores)."""
        return self.manifest() if self.manifest_path.is_file() else None

    def write_manifest(self, manifest: RunManifest, elsewhere: str = ELSEWHERE_HINT) -> None:
        """Replace the manifest atomically.

        Raises:
            OutputError: it cannot be written (naming it, the cause and ``elsewhere``, the way out).
        """
        write_json(self.manifest_path, manifest, elsewhere)

    torn_bytes: int = 0
    """Length of the torn last line the latest :meth:`iter_trials` found (0 when the file ended cleanly)."""
    torn_trial_id: str | None = None
    """The trial id the torn last line begins with, when it got that far (records are written id first)."""
    superseded: int = 0
    """Lines the latest :meth:`iter_trials` found replaced by a later line of the same trial."""

    def _trial_index(self, repair: bool) -> list[tuple[int, int, int]]:
        """``(line number, offset, length)`` of each trial's standing line, in first-appearance order.

        Sets :attr:`torn_bytes` and :attr:`superseded`; cuts a torn last line off with ``repair``.
        """
        path = self.responses_path
        self.torn_bytes = self.superseded = 0
        self.torn_trial_id = None
        if not path.exists():
            return []
        latest: dict[str, tuple[int, int, int]] = {}
        replaced: list[tuple[int, int, int]] = []
        offset = lines = 0
        handle = open_regular(path)
        with handle:
            for number, here, end, block, start in _scan_lines(handle):
                length = end - start
                offset = here + length
                if block[end - 1:end] != b"\n":
                    self.torn_bytes = length  # only the last line can lack its newline
                    torn_id = _TRIAL_ID_AT.match(block, start, end)
                    self.torn_trial_id = torn_id.group(1).decode("utf-8", "replace") if torn_id else None
                    break
                if _BLANK.match(block, start, end).end() == end:  # type: ignore[union-attr]
                    continue
                lines += 1
                match = _TRIAL_ID_AT.match(block, start, end)
                key: str
                if match is not None:
                    key = match.group(1).decode("utf-8", "replace")
                else:
                    try:
                        data = loads_json(block[start:end].decode("utf-8"), str(path), number)
                        key = str(data["trial_id"])
                    except (InputError, ValueError, KeyError, TypeError):
                        key = f"\x00line {number}"  # its own entry: reading it reports what is wrong
                if key in latest:
                    replaced.append(latest[key])
                # dict order: first appearance; value: the last line
                latest[key] = (number, here, length)
        if self.torn_bytes and repair:
            try:
                with path.open("r+b") as writable:
                    writable.truncate(offset - self.torn_bytes)
            except OSError as exc:
                raise output_error(path, exc, RESUME_HINT, what="its torn last line cannot be cut off") from None
        self.superseded = lines - len(latest)
        for _ in self._read_trials(replaced):
            pass  # a replaced line is never used, but a damaged one is still reported, as before
        return list(latest.values())

    def trial_lines(self) -> list[tuple[int, int, int]]:
        """Where each trial's standing line lies in responses.jsonl: ``(line number, offset, length)``.

        The entries :meth:`iter_trials` reads, in the same order, for a reader that reads them itself
        (:meth:`read_trials`), a slice at a time. Sets :attr:`torn_bytes` and :attr:`superseded`.

        Raises:
            InputError: the run holds no trial (responses.jsonl missing, empty, blank or one torn line):
                there is nothing to score, and scoring nothing is not a result.
        """
        lines = self._trial_index(False)
        if not lines:
            raise self.no_trials()
        return lines

    def no_trials(self) -> InputError:
        """The error of a reader given a run without one complete trial, naming the file and the fix."""
        path = self.responses_path
        if not path.exists():
            what = "file not found"
        elif self.torn_bytes:
            what = f"holds no complete trial (only a torn line of {self.torn_bytes} bytes: its writer was killed)"
        else:
            what = "holds no trials (the file is empty)"
        return InputError(f"{path}: {what}; run the trials first with `sitbench run DATASET --out {self.root} "
                          "--resume` (same --model/--agent and --config as the run)")

    def read_trials(self, lines: list[tuple[int, int, int]]) -> Iterator[TrialRecord]:
        """The trial records at ``lines`` (entries of :meth:`trial_lines`), in their order.

        Raises:
            InputError: a line is malformed or not a trial record (naming the file and line).
        """
        return self._read_trials(lines)

    def iter_trials(self, *, repair: bool = False) -> Iterator[TrialRecord]:
        """The trials of responses.jsonl, one per trial id, in the order they first appear, one at a time.

        A trial re-attempted after a drop has a later line of its own: the later record stands (a
        resume that was stopped before its final rewrite leaves both). A torn last line (a writer
        killed mid-line) is never a trial: its length is left in :attr:`torn_bytes` for the caller to
        report, and with ``repair`` (a run about to append) it is cut off so the next append starts on
        a fresh line. Reading alone never changes the file. :attr:`torn_bytes` and :attr:`superseded`
        are set when this is called, before the first record is read; what is held meanwhile is one
        small index entry per trial, never the records.

        Raises:
            InputError: a line is malformed or not a trial record (naming the file and line).
        """
        index = self._trial_index(repair)
        return self._read_trials(index)

    def iter_trial_tallies(self) -> Iterator[TrialTally]:
        """:meth:`iter_trials`, each read as a :class:`TrialTally` (what a manifest counts, no prompts).

        Raises:
            InputError: a line is malformed (naming the file and line).
        """
        return self._read_trials(self._trial_index(False), TrialTally)

    def _read_trials(self, index: list[tuple[int, int, int]], model: type[R] = TrialRecord) -> Iterator[R]:  # type: ignore[assignment]
        if not index:
            return
        name = str(self.responses_path)
        with open_regular(self.responses_path) as handle:
            position = 0
            for number, offset, length in index:
                if offset != position:
                    handle.seek(offset)
                raw = handle.read(length)
                position = offset + length
                # sitbench appends these lines itself and a run may hold a million: the fast parse, whose
                # failures (nesting too deep among them) are still reported through loads_json.
                yield parse_jsonl_line(raw, number, name, model, check=False)

    def iter_trial_lines(self, *, repair: bool = False) -> Iterator[tuple[int, TrialRecord]]:
        """Like :meth:`iter_trials`, with each record's line number in responses.jsonl (1-based)."""
        index = self._trial_index(repair)
        numbers = (number for number, _, _ in index)
        return zip(numbers, self._read_trials(index), strict=True)

    def trials(self, *, repair: bool = False) -> list[TrialRecord]:
        """Every trial of :meth:`iter_trials` in a list (for small runs and tests)."""
        return list(self.iter_trials(repair=repair))

    def find_trials(self, trial_ids: set[str]) -> dict[str, tuple[TrialRecord, int]]:
        """The standing records of ``trial_ids`` with their line numbers; other lines are not parsed.

        Raises:
            InputError: a wanted line is malformed (naming the file and line).
        """
        index = self._trial_index(repair=False)
        path = self.responses_path
        out: dict[str, tuple[TrialRecord, int]] = {}
        if not index:
            return out
        with path.open("rb") as handle:
            for number, offset, length in index:
                handle.seek(offset)
                raw = handle.read(length)
                match = _TRIAL_ID_PREFIX.match(raw)
                if match is not None and json.loads(b'"' + match.group(1) + b'"') not in trial_ids:
                    continue
                if match is None:
                    try:
                        if loads_json(raw.decode("utf-8"), str(path), number).get("trial_id") not in trial_ids:
                            continue
                    except (InputError, ValueError, AttributeError):
                        pass  # parsed below, which names what is wrong
                record = parse_jsonl_line(raw, number, str(path), TrialRecord, check=False)
                if record.trial_id in trial_ids:
                    out[record.trial_id] = (record, number)
        return out

    def rewrite_trials(self, key: Callable[[str], int]) -> bool:
        """Rewrite responses.jsonl atomically with one line per trial, sorted by ``key(trial_id)``.

        Lines are copied byte for byte (the standing line of each trial); nothing is rewritten when the
        file already is in that order without superseded lines.

        Returns:
            Whether the file was rewritten.

        Raises:
            OutputError: the file cannot be rewritten (a full disk): it is left as it was, with every
                trial, and the message says to continue the run with --resume.
        """
        index = self._trial_index(repair=False)
        ids: list[tuple[int, int, int, int]] = []
        with self.responses_path.open("rb") if index else open(os.devnull, "rb") as handle:
            for number, offset, length in index:
                handle.seek(offset)
                match = _TRIAL_ID_PREFIX.match(handle.read(min(length, 512)))
                trial_id = json.loads(b'"' + match.group(1) + b'"') if match else None
                ids.append((key(trial_id) if trial_id is not None else len(ids), number, offset, length))
        ordered = sorted(ids, key=lambda item: item[0])
        if not self.superseded and ordered == ids:
            return False
        source = self.responses_path
        tmp = source.with_name(f".{source.name}.rewrite.tmp")
        try:
            with source.open("rb") as read, tmp.open("wb") as write:
                for _, _, offset, length in ordered:
                    read.seek(offset)
                    write.write(read.read(length))
                write.flush()
                os.fsync(write.fileno())
            os.replace(tmp, source)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise output_error(source, exc, RESUME_HINT, what="cannot be rewritten") from None
            raise
        return True

    def append_trial(self, record: TrialRecord) -> None:
        """Append one trial's line to responses.jsonl and sync it.

        Raises:
            OutputError: the line cannot be written (naming the file and the cause); the trials
                written before stay, and --resume continues the run.
        """
        line = (record.model_dump_json() + "\n").encode("utf-8")
        try:
            fd = os.open(self.responses_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise output_error(self.responses_path, exc, RESUME_HINT) from None

    def iter_scores(self, *, summary: bool = False, check: bool = True) -> Iterator[ScoreRecord]:
        """The score records of scores.jsonl in file order, one at a time.

        Args:
            summary: read every field but the observation and each verdict's per-check breakdown
                (``observation`` is None and ``verdict.checks`` empty on what is yielded): what metrics
                and the analysis need, at a third of the cost.
            check: also refuse a trial that appears twice and a completed trial without its verdict
                (or, theorem-qualified, without its partner verdict), naming the line and the fix.

        Raises:
            InputError: the directory or its score file is missing, or a line is malformed or fails a
                check; the message names the file and line.
        """
        if not self.root.is_dir():
            raise InputError(f"{self.root}: no such run directory; pass a directory written by `sitbench run`")
        path = self.scores_path
        if path.exists() and not path.is_file() and not path.is_dir():
            open_regular(path).close()  # a FIFO or a device: refused, naming what it is
        if not path.is_file():
            self._refuse_dataset()
            raise InputError(f"{path}: file not found; score the run first with `sitbench score {self.root}`")
        return self._read_scores(summary, check)

    def _read_scores(self, summary: bool, check: bool) -> Iterator[ScoreRecord]:
        path = self.scores_path
        name = str(path)
        first_line: dict[tuple[str, str], int] = {}
        records = 0
        with open_regular(path) as handle:
            for number, raw in iter_lines(handle, name):
                if not raw.strip():
                    continue
                record = (_summary_record(raw, number, name) if summary
                          else _full_record(raw, number, name))
                if check:
                    key = (record.config, record.trial_id)
                    if key in first_line:
                        raise InputError(f"{path} line {number}: field 'trial_id': {record.trial_id!r} already on "
                                         f"line {first_line[key]}; {DUPLICATE_HINT}")
                    problem = score_problem(record, str(self.root))
                    if problem:
                        raise InputError(f"{path} line {number}: {problem}")
                    first_line[key] = number
                records += 1
                yield record
        if not records:
            # Scoring writes one line per trial, dropped ones included: an empty file is never a scored run.
            raise InputError(f"{path}: holds no score records (the file is empty or blank); score the run again "
                             f"with `sitbench score {self.root}`")

    def scores(self) -> list[ScoreRecord]:
        """Every score record in a list (for small runs and tests); see :meth:`iter_scores`."""
        if not self.scores_path.exists():
            raise InputError(f"{self.scores_path}: missing; score the run first with `sitbench score {self.root}`")
        return list(self.iter_scores(check=False))

    def write_score_lines(self, lines: Iterable[str], elsewhere: str = ELSEWHERE_HINT) -> int:
        """Write scores.jsonl atomically from score records already serialised, one line each with its newline.

        Returns:
            The number of lines written.

        Raises:
            OutputError: it cannot be written (naming it, the cause and ``elsewhere``, the way out);
                the previous scores.jsonl, if any, is left whole.
        """
        return write_lines(self.scores_path, lines, elsewhere)

    def write_scores(self, records: Iterable[ScoreRecord], elsewhere: str = ELSEWHERE_HINT) -> int:
        """Write scores.jsonl atomically from ``records`` as they come (temporary file, then rename).

        Returns:
            The number of records written.

        Raises:
            OutputError: as :meth:`write_score_lines`.
        """
        return write_jsonl(self.scores_path, records, elsewhere)
