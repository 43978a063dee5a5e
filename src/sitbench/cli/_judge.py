"""What ``sitbench judge`` reads and writes: the batch input, the verdict line, its JSON form and the summary.

The text line of a verdict is defined here once (:func:`format_line`) and described once
(:data:`BATCH_FORMAT_HELP`, shown by ``sitbench judge --help``).
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from sitbench.candidates import NO_RECORDED_ANSWER
from sitbench.errors import InputError
from sitbench.schema import CheckResult, Observation, Verdict
from sitbench.stores import JsonProblem, loads_json, read_stdin, read_text, unpaired_surrogate

if TYPE_CHECKING:
    from sitbench.verify import Judgement

BATCH_FORMAT_HELP = """\b
Output of --batch, one line per response, in input order:
  PROBE line N: VALID|INVALID [failed CHECK,...] [| partner VALID|INVALID] [| READERS]
  PROBE line N: unscored: REASON
with two readers (--extractor FIRST+SECOND), READERS is one of
  agreed
  contested CHECK,...; second reader VALID|INVALID[, partner VALID|INVALID]
then one summary line on standard error:
  N judged: V valid, I invalid, U unscored[; C contested, A agreed]

N is the input line number, "failed" names the checks the primary reader's
reading fails, "partner" is the verdict against the collision partner's
contract (theorem-qualified probes only), "contested" names the checks the two
readers' verdicts differ on (partner.CHECK for the partner contract's) and the
second reader's verdict. An answer over the length cap is read by neither
reader: it has no READERS part and counts as neither agreed nor contested.
"unscored" is a response the reader could not read: no verdict, never a
failure. With --json each line is instead the JSON object judge --json prints,
plus "line"."""


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class VerdictOut(_Out):
    """One verdict as ``judge --json`` prints it: SValid and its per-check breakdown."""

    valid: bool
    checks: dict[str, CheckResult]

    @classmethod
    def of(cls, verdict: Verdict | None) -> VerdictOut | None:
        """The printed form of ``verdict`` (None stays None)."""
        return None if verdict is None else cls(valid=verdict.valid, checks=dict(verdict.checks))


class SecondOut(_Out):
    """The second reader's judgement of the response (two readers only)."""

    extractor: str | None
    """``id@version`` of the second reader."""
    valid: bool
    checks: dict[str, CheckResult]
    partner: VerdictOut | None
    observation: Observation


class JudgedOut(_Out):
    """What ``judge --json`` prints for one response, and one line of ``judge --batch --json``."""

    probe: str
    line: int | None = None
    """The input line number (``--batch`` only)."""
    valid: bool | None
    """The primary reader's verdict; None when the response is unscored."""
    checks: dict[str, CheckResult]
    partner: VerdictOut | None
    observation: Observation | None
    unscored: str | None = None
    """Why the response has no verdict (the reader could not read it), else None."""
    agreement: Literal["agreed", "contested"] | None = None
    """With two readers: whether their verdicts are the same (None with one reader, or unread)."""
    contested_checks: list[str] = Field(default_factory=list)
    """The checks the two readers' verdicts differ on (``partner.NAME`` for the partner contract's)."""
    second: SecondOut | None = None

    @property
    def failed(self) -> list[str]:
        """Names of the primary reader's failed checks, in check order."""
        return [name for name, check in self.checks.items() if not check.passed]


def judged_out(result: Judgement, line: int | None = None) -> JudgedOut:
    """The printed form of a judgement (``line``: its input line number in a batch)."""
    second = result.second
    second_out = None if second is None else SecondOut(
        extractor=second.verdict.extractor, valid=second.verdict.valid, checks=dict(second.verdict.checks),
        partner=VerdictOut.of(second.partner), observation=second.observation)
    agreement = result.agreement
    return JudgedOut(probe=result.probe_id, line=line, valid=result.verdict.valid, checks=dict(result.verdict.checks),
                     partner=VerdictOut.of(result.partner), observation=result.observation,
                     agreement=None if agreement is None else agreement.value,
                     contested_checks=result.contested_checks, second=second_out)


def unscored_out(probe: str, line: int | None, reason: str) -> JudgedOut:
    """The printed form of a response the reader could not read."""
    return JudgedOut(probe=probe, line=line, valid=None, checks={}, partner=None, observation=None, unscored=reason)


def _mark(valid: bool) -> str:
    return "VALID" if valid else "INVALID"


def readers_text(out: JudgedOut) -> str | None:
    """The READERS part of a verdict line: ``agreed``, or ``contested CHECKS; second reader …``; None with one
    reader (or none: an unread or over-length answer)."""
    if out.agreement is None or out.second is None:
        return None
    if out.agreement == "agreed":
        return "agreed"
    second = f"second reader {_mark(out.second.valid)}"
    if out.second.partner is not None:
        second += f", partner {_mark(out.second.partner.valid)}"
    return f"contested {','.join(out.contested_checks)}; {second}"


def format_line(out: JudgedOut) -> str:
    """One line of ``judge --batch``'s text output (:data:`BATCH_FORMAT_HELP` describes it)."""
    head = f"{out.probe} line {out.line}:"
    if out.valid is None:
        return f"{head} unscored: {' '.join((out.unscored or '').split())}"
    parts = [f"{head} {_mark(out.valid)}" + (f" failed {','.join(out.failed)}" if out.failed else "")]
    if out.partner is not None:
        parts.append(f"partner {_mark(out.partner.valid)}")
    readers = readers_text(out)
    if readers is not None:
        parts.append(readers)
    return " | ".join(parts)


@dataclass
class Tally:
    """Counts of a batch's verdicts, for its summary line."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("valid", "invalid", "unscored", "contested", "agreed"), 0))
    two_readers: bool = False
    unreplayed: int = 0
    """Unscored answers a replayed reading (``llm:replay/FILE``) holds no reading of."""

    def add(self, out: JudgedOut) -> None:
        """Count one printed verdict."""
        self.counts["unscored" if out.valid is None else "valid" if out.valid else "invalid"] += 1
        if out.valid is None and NO_RECORDED_ANSWER in (out.unscored or ""):
            self.unreplayed += 1
        if out.agreement is not None:
            self.counts[out.agreement] += 1

    @property
    def unscored(self) -> int:
        """Responses the reader could not read."""
        return self.counts["unscored"]

    def summary(self) -> str:
        """``N judged: V valid, I invalid, U unscored[; C contested, A agreed]`` and, when some are unscored,
        what to do about them."""
        c = self.counts
        text = f"{c['valid'] + c['invalid'] + c['unscored']} judged: {c['valid']} valid, {c['invalid']} invalid, " \
               f"{c['unscored']} unscored"
        if self.two_readers:
            text += f"; {c['contested']} contested, {c['agreed']} agreed"
        if self.unreplayed:
            text += (f"; {self.unreplayed} unscored because the replayed reading (llm:replay/FILE) holds no reading "
                     "of them: a replay serves only the answers it recorded (the demo's, for the shipped file), so "
                     "running again cannot score these; read them with a reader that reads any answer, "
                     "e.g. --extractor rules+llm:openai/MODEL (exit code 4)")
        elif c["unscored"]:
            text += ("; the unscored have no verdict, which is never a failure: run the same command again to "
                     "finish (what was read is cached; exit code 4)")
        return text


@dataclass(frozen=True)
class BatchItem:
    """One response of a batch file."""

    line: int
    probe: str
    response: str


BATCH_MAX_BYTES = 256 << 20
"""The largest batch file (or standard input) read: 256 MiB, tens of thousands of long responses."""


def _batch_text(path: str) -> tuple[str, str]:
    if path == "-":
        return "<stdin>", read_stdin(BATCH_MAX_BYTES)
    return path, read_text(Path(path), hint="check the path given to --batch", limit=BATCH_MAX_BYTES)


class _BadLine(ValueError):
    """What is wrong with one line of a batch file (the caller names the file and the line)."""


def _batch_item(number: int, line: str, known_probes: Container[str]) -> BatchItem:
    """One line parsed and checked.

    Raises:
        _BadLine: the problem with the line and its fix.
    """
    try:
        raw = loads_json(line, "", number, surrogates=False)
    except JsonProblem as exc:
        if exc.malformed is not None:
            raise _BadLine(f'not JSON ({exc.malformed}): each line must be {{"probe": ID, "response": TEXT}}') \
                from None
        raise _BadLine(exc.problem) from None
    surrogate = unpaired_surrogate(line) if "\\u" in line else None
    if surrogate is not None:
        raise _BadLine(f"unpaired surrogate escape {surrogate[1]} at column {surrogate[0] + 1}: a \\uD800–\\uDFFF "
                       "escape must be one half of a pair, fix or remove it")
    if not isinstance(raw, dict):
        raise _BadLine("expected a JSON object with fields probe and response")
    probe, response = raw.get("probe"), raw.get("response")
    if not isinstance(probe, str):
        raise _BadLine("field 'probe' must be a probe id string")
    if not isinstance(response, str):
        raise _BadLine("field 'response' must be a string")
    if probe not in known_probes:
        raise _BadLine(f"probe {probe!r} is not in the dataset's hidden/probes.jsonl")
    return BatchItem(number, probe, response)


def read_batch(path: str, known_probes: Container[str]) -> list[BatchItem]:
    """The responses of a batch file (``-`` = stdin); every line is checked before any is judged.

    Lines are split at ``\\n`` only, so a JSON string holding U+2028 or another Unicode line break stays
    on its line and line numbers are the ones an editor shows.

    Raises:
        InputError: one error line naming the file and every bad line with its problem (nothing is judged),
            or the input holds no response.
    """
    name, text = _batch_text(path)
    items: list[BatchItem] = []
    bad: dict[str, list[int]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            items.append(_batch_item(number, line, known_probes))
        except _BadLine as exc:
            bad.setdefault(str(exc), []).append(number)
    if bad:
        raise _bad_lines_error(name, bad)
    if not items:
        raise InputError(f"{name}: no responses to judge (the input is empty or blank); give one line per response, "
                         '{"probe": ID, "response": TEXT}')
    return items


def _spans(numbers: list[int]) -> str:
    """``1, 4-6, 9`` for ``[1, 4, 5, 6, 9]`` (ascending)."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and spans[-1][1] == n - 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _bad_lines_error(name: str, bad: dict[str, list[int]]) -> InputError:
    """One line for every bad line of a batch: ``FILE:N: PROBLEM`` for one, grouped by problem for several."""
    total = sum(len(numbers) for numbers in bad.values())
    if total == 1:
        [(problem, [number])] = bad.items()
        return InputError(f"{name}:{number}: {problem}")
    groups = "; ".join(f"{'line' if len(numbers) == 1 else 'lines'} {_spans(numbers)}: {problem}"
                       for problem, numbers in bad.items())
    return InputError(f"{name}: {total} bad lines, nothing judged: {groups}; fix every one and run the command again")
