"""Reading and writing store files with errors that name the file, line and field."""

from __future__ import annotations

import contextlib
import errno
import gc
import hashlib
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ValidationError

from sitbench.errors import InputError, OutputError

M = TypeVar("M", bound=BaseModel)


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(record)"


def describe_validation_error(where: str, exc: ValidationError, hint: str = "") -> str:
    """One line: ``where: field: message`` for the first error, with a count of the rest."""
    first = exc.errors()[0]
    field = _loc(tuple(first["loc"]))
    message = str(first["msg"]).removeprefix("Value error, ")
    if first.get("type") == "enum" or "Input should be" in message:
        message += f" (got {first.get('input')!r})"
    more = len(exc.errors()) - 1
    suffix = f" (+{more} more error{'s' if more > 1 else ''})" if more else ""
    return f"{where}: {field}: {message}{suffix}{'; ' + hint if hint else ''}"


_NOT_FOUND_HINT = ("is this a sitbench dataset directory? "
                   "(create one with `sitbench generate --suite pilot --out DIR`)")

# A JSON \u escape of a UTF-16 surrogate, with the backslashes before it (an even count means the
# backslash of the escape is itself escaped, so it is text, not an escape).
_SURROGATE_ESCAPE = re.compile(r"(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})")


def describe_os_error(path: Path, exc: OSError, hint: str = "") -> str:
    """One line for a file that could not be opened: the path, what is wrong with it, what to do."""
    if isinstance(exc, IsADirectoryError):
        what = "is a directory, not a file"
    elif isinstance(exc, NotADirectoryError):
        what = "cannot be read: a part of the path is a file, not a directory"
    elif isinstance(exc, FileNotFoundError):
        what = "file not found"
    elif isinstance(exc, PermissionError):
        what = "cannot be read: permission denied"
    else:
        what = f"cannot be read ({exc.strerror or exc})"
    return f"{path}: {what}" + (f"; {hint}" if hint else "")


MAX_FILE_BYTES = 1 << 30
"""The largest JSON file (a manifest, a registry, a lineage, an analysis) read whole: 1 GiB. A JSONL file
is streamed instead, with a bound per line (:data:`MAX_LINE_BYTES`)."""

MAX_LINE_BYTES = 64 << 20
"""The longest line of a JSONL file sitbench reads: 64 MiB (a trial record holds its whole prompt, far less)."""


def _size(limit: int) -> str:
    return f"{limit >> 20:,} MiB" if limit >= 1 << 20 else f"{limit:,} bytes"


def open_regular(path: Path, hint: str = _NOT_FOUND_HINT) -> IO[bytes]:
    """Open a regular file for reading (binary); anything else is refused before it is opened.

    A FIFO would block the reader until something writes to it, and a device (``/dev/zero``) never
    ends: neither is a file sitbench reads.

    Raises:
        InputError: the file is missing, a directory, not a regular file or unreadable, naming it.
    """
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else (
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
            raise InputError(f"{path}: is {kind}, not a regular file; give the path of a file (sitbench never "
                             "reads from a pipe or a device, which may never end)")
        return open(path, "rb")
    except OSError as exc:
        raise InputError(describe_os_error(path, exc, hint if isinstance(exc, FileNotFoundError) else "")) \
            from None


_CHUNK = 1 << 20


def read_bounded(handle: IO[bytes], limit: int) -> bytes:
    """At most ``limit + 1`` bytes of a binary stream, read a MiB at a time (``read(limit + 1)`` would
    allocate the whole bound at once, however short the stream); more than ``limit`` means too long."""
    chunks: list[bytes] = []
    held = 0
    while held <= limit:
        chunk = handle.read(min(_CHUNK, limit + 1 - held))
        if not chunk:
            break
        chunks.append(chunk)
        held += len(chunk)
    return b"".join(chunks)


def read_bytes(path: Path, hint: str = _NOT_FOUND_HINT, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; InputError naming the file when it is
    missing, a directory, a FIFO or device, larger than ``limit``, or unreadable.

    ``hint`` follows a missing file's message (what to create, or which option to check)."""
    with open_regular(path, hint) as handle:
        try:
            data = read_bounded(handle, limit)
        except OSError as exc:
            raise InputError(describe_os_error(path, exc)) from None
    if len(data) > limit:
        raise InputError(f"{path}: larger than {_size(limit)}, the most sitbench reads of such a file; this is not "
                         "a file sitbench wrote: give the right file")
    return data


def iter_lines(handle: IO[bytes], name: str, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of each line of a binary stream, none longer than ``limit`` bytes.

    Raises:
        InputError: a line is longer than ``limit`` (``NAME line N``), before more than ``limit`` bytes
            of it are held.
    """
    number = 0
    while True:
        try:
            raw = handle.readline(limit + 1)
        except OSError as exc:
            raise InputError(f"{name}: cannot be read ({exc.strerror or exc})") from None
        if not raw:
            return
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            raise InputError(f"{name} line {number}: longer than {_size(limit)}, the most sitbench reads of one line; "
                             "this is not a file sitbench wrote: give the right file")
        yield number, raw


def decode_utf8(data: bytes, name: str) -> str:
    """Decode UTF-8 text; InputError naming the line and column of the first byte that is not UTF-8
    (or of a NUL byte, which no text file sitbench reads contains)."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(_nul_message(name, data.count(b"\n", 0, nul) + 1, nul - (data.rfind(b"\n", 0, nul) + 1)))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(f"{name} line {line}: not valid UTF-8 (byte {exc.object[exc.start]:#04x} at column "
                         f"{column}); the file is damaged or not a text file: restore it or save it as UTF-8") \
            from None


def _nul_message(name: str, line: int, offset: int) -> str:
    return (f"{name} line {line}: a NUL byte at column {offset + 1}: this is a binary file, not UTF-8 JSON text; "
            "give the file sitbench wrote, or restore it from a copy")


def read_text(path: Path, hint: str = _NOT_FOUND_HINT, name: str | None = None, limit: int = MAX_FILE_BYTES) -> str:
    """A UTF-8 text file of at most ``limit`` bytes; errors name the file (and the line of a byte that is not UTF-8)."""
    return decode_utf8(read_bytes(path, hint, limit), name or str(path))


def read_stdin(limit: int = MAX_FILE_BYTES, name: str = "<stdin>") -> str:
    """The standard input as UTF-8 text, by the same rule as a file: at most ``limit`` bytes, no NUL byte,
    nothing that is not UTF-8 (whatever the locale's encoding).

    Raises:
        InputError: naming ``<stdin>``, the line and the byte, or the bound.
    """
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream with no bytes beneath (an embedding program's own)
        text = sys.stdin.read(limit + 1)
        if len(text) > limit:
            raise InputError(f"{name}: longer than {_size(limit)}, the most sitbench reads; give a file instead")
        return decode_utf8(text.encode("utf-8", "surrogateescape"), name)
    data = read_bounded(buffer, limit)
    if len(data) > limit:
        raise InputError(f"{name}: longer than {_size(limit)}, the most sitbench reads; give a file instead")
    return decode_utf8(data, name)


def unpaired_surrogate(text: str) -> tuple[int, str] | None:
    """Offset and text of the first ``\\uD800``–``\\uDFFF`` escape in JSON text that is not half of a pair.

    Python's ``json`` accepts such an escape and yields a string that cannot be written as UTF-8; the
    pydantic parser rejects it as "unexpected end of hex escape", which does not say what is wrong."""
    pending_high: re.Match[str] | None = None
    for match in _SURROGATE_ESCAPE.finditer(text):
        if len(match.group(1)) % 2 == 0:
            continue
        escape_start = match.start() + len(match.group(1)) - 1
        low = match.group(2)[1].lower() in "cdef"
        if low:
            if pending_high is not None and pending_high.end() == escape_start:
                pending_high = None
                continue
            if pending_high is not None:
                break
            return escape_start, text[escape_start:match.end()]
        if pending_high is not None:
            break
        pending_high = match
    if pending_high is None:
        return None
    start = pending_high.start() + len(pending_high.group(1)) - 1
    return start, text[start:pending_high.end()]


def _surrogate_message(where: str, text: str, found: tuple[int, str], line: int | None = None) -> str:
    offset, escape = found
    if line is None:
        line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return (f"{where} line {line}: unpaired surrogate escape {escape} at column {column}: a \\uD800–\\uDFFF "
            "escape must be one half of a pair (a character beyond U+FFFF is written as two escapes); the file "
            "is damaged: restore it or remove the escape")


def reject_unpaired_surrogate(text: str, where: str, line: int | None = None) -> None:
    """InputError naming ``where``, the line and the escape when JSON ``text`` holds an unpaired surrogate.

    ``line`` is the line number of ``text`` inside its file when ``text`` is one JSONL line."""
    if "\\u" not in text:
        return
    found = unpaired_surrogate(text)
    if found is not None:
        raise InputError(_surrogate_message(where, text, found, line))


MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects sitbench reads in its own files (its records nest fewer than
ten levels); deeper text is refused before it is parsed, so no reader recurses without bound."""

# A JSON string (escapes included): brackets inside one are text, not nesting.
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text (strings skipped), without recursion; the scan
    stops one level past :data:`MAX_JSON_DEPTH`."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0
    depth = deepest = 0
    for char in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_JSON_DEPTH:
                    return deepest
        else:
            depth -= 1
    return deepest


class JsonProblem(InputError):
    """What :func:`loads_json` refuses: malformed JSON, nesting too deep, or a key given twice.

    ``problem`` is the message without the file and line, for a reader that names them its own way;
    ``malformed`` the JSON decoder's own words when the text is malformed (``None`` otherwise)."""

    def __init__(self, at: str, problem: str, malformed: str | None = None) -> None:
        super().__init__(f"{at}: {problem}")
        self.problem = problem
        self.malformed = malformed
        self._at = at

    def __reduce__(self) -> tuple[type[JsonProblem], tuple[str, str, str | None]]:
        # Raised in a forked scoring worker, it is pickled back to the parent whole.
        return type(self), (self._at, self.problem, self.malformed)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return record


def loads_json(text: str, where: str, line: int | None = None, *, surrogates: bool = True) -> Any:
    """Parse JSON text of one of sitbench's own files: the one parser every reader of them uses.

    Nesting deeper than :data:`MAX_JSON_DEPTH` and an object with a key given twice (which a
    reader would otherwise resolve by silently keeping the last) are refused, as are malformed
    JSON and (unless ``surrogates`` is false) unpaired surrogate escapes.

    Args:
        text: the JSON text (a whole file, or one JSONL line).
        where: the file, for the message.
        line: the line number of ``text`` inside its file, when it is one JSONL line.
        surrogates: also refuse an unpaired surrogate escape (a caller that words it itself says no).

    Raises:
        JsonProblem: ``WHERE line N: …`` naming what is wrong and the fix.
        InputError: an unpaired surrogate escape.
    """
    at = f"{where} line {line}" if line is not None else where
    if _nesting_depth(text) > MAX_JSON_DEPTH:
        raise JsonProblem(at, f"JSON nested more than {MAX_JSON_DEPTH} levels deep (arrays and objects); this is "
                              "not a file sitbench wrote: restore it from a copy")
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        where_line = f"{where} line {exc.lineno if line is None else line}"
        raise JsonProblem(where_line, f"malformed JSON: {exc.msg} (column {exc.colno})", exc.msg) from None
    except _DuplicateKey as exc:
        raise JsonProblem(at, f"the key {exc.key!r} appears twice in one object; a reader would keep only the "
                              "last: remove one of them") from None
    except RecursionError:  # pragma: no cover - the depth check above comes first
        raise JsonProblem(at, "JSON nested too deep; restore the file from a copy") from None
    if surrogates:
        reject_unpaired_surrogate(text, where, line)
    return data


def parse_json_text(text: str, where: str) -> Any:
    """Parse JSON text; InputError naming ``where``, the line and what is wrong (see :func:`loads_json`)."""
    return loads_json(text, where)


def read_json(path: Path, hint: str = _NOT_FOUND_HINT) -> Any:
    """Parse a JSON file; InputError naming the file and position on failure."""
    return parse_json_text(read_text(path, hint), str(path))


def load_model(path: Path, model: type[M], label: str | None = None) -> M:
    """Read one JSON file into ``model``."""
    data = read_json(path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(label or str(path), exc)) from None


def iter_jsonl(path: Path, model: type[M], label: str | None = None) -> Iterator[tuple[int, M]]:
    """Yield ``(line_number, record)`` for each non-blank line of a JSONL file.

    The file is read line by line, as bytes, so a damaged byte is reported with its line number. The
    cyclic garbage collector is paused while the file is read: validated records create no cycles,
    and its repeated full scans dominated load time on large runs."""
    name = label or str(path)
    handle = open_regular(path)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with handle:
            try:
                yield from _records(iter_lines(handle, name), name, model)
            except IsADirectoryError as exc:
                raise InputError(describe_os_error(path, exc)) from None
    finally:
        if was_enabled:
            gc.enable()


def iter_jsonl_bytes(data: bytes, name: str, model: type[M]) -> Iterator[tuple[int, M]]:
    """Like :func:`iter_jsonl`, over the bytes of a JSONL file already read; ``name`` labels errors."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield from _records(enumerate(data.split(b"\n"), start=1), name, model)
    finally:
        if was_enabled:
            gc.enable()


def jsonl_line_error(name: str, number: int, line: str, exc: ValidationError | None = None) -> InputError:
    """The error for JSONL line ``number`` that did not parse (or validate): malformed JSON, nesting too
    deep, a duplicate key, an unpaired surrogate escape, or the first invalid field."""
    try:
        loads_json(line, name, number)
    except InputError as found:
        return found
    if exc is None:
        return InputError(f"{name} line {number}: malformed JSON")
    return InputError(describe_validation_error(f"{name} line {number}", exc))


def parse_jsonl_line(raw: bytes, number: int, name: str, model: type[M], *, check: bool = True,
                     strict: bool = False) -> M:
    """Validate one non-blank JSONL line (its bytes) into ``model``.

    Args:
        raw: the line's bytes.
        number: its 1-based line number, for messages.
        name: the file, for messages.
        model: the record model.
        check: parse it with :func:`loads_json` first (nesting bounded, a duplicate key refused); off
            only for the bulk reads of a file sitbench appends itself, where the cost is paid per trial.
        strict: validate in pydantic's strict mode (no ``"yes"`` for a boolean, no ``"3"`` for a number).

    Raises:
        InputError: a NUL byte, invalid UTF-8, malformed JSON, nesting too deep, a duplicate key or an
            invalid field, named as ``NAME line NUMBER``.
    """
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise InputError(_nul_message(name, number, nul))
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} line {number}: not valid UTF-8 (byte {raw[exc.start]:#04x} at column "
                         f"{exc.start + 1}); the file is damaged or not a text file: restore it from a copy") \
            from None
    if check:
        loads_json(line, name, number)
    try:
        return model.model_validate_json(line, strict=strict or None)
    except ValidationError as exc:
        if exc.errors()[0].get("type") == "json_invalid":
            raise jsonl_line_error(name, number, line, exc) from None
        raise InputError(describe_validation_error(f"{name} line {number}", exc)) from None


def _records(lines: Iterable[tuple[int, bytes]], name: str, model: type[M]) -> Iterator[tuple[int, M]]:
    for number, raw in lines:
        if raw.strip():
            yield number, parse_jsonl_line(raw, number, name, model)


def dumps(record: BaseModel | Any, *, indent: int | None = None) -> str:
    """Deterministic JSON text of a model or plain value."""
    data = record.model_dump(mode="json", exclude_none=False) if isinstance(record, BaseModel) else record
    return json.dumps(data, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":"))


def os_error_cause(exc: OSError) -> str:
    """What the operating system said, with the errno's name: ``No space left on device (ENOSPC)``."""
    cause = exc.strerror or str(exc) or type(exc).__name__
    code = errno.errorcode.get(exc.errno) if isinstance(exc.errno, int) else None
    return f"{cause} ({code})" if code else cause


_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


def write_hint(exc: OSError, elsewhere: str = "choose another --out") -> str:
    """What to do about an output that could not be written, by its cause.

    ``elsewhere`` is the way out: another place (``choose another --out``), offered as the alternative
    to freeing space or making the folder writable; or, starting with ``then``, what follows the fix
    (``then continue the run with --resume``)."""
    prefix = fix = ""
    if exc.errno in _FULL:
        fix = "free space"
    elif exc.errno in _READ_ONLY:
        fix = "make it writable"
    elif exc.errno == errno.ENOTDIR:
        prefix = "a part of the path is a file, not a folder: "
    elif exc.errno == errno.EISDIR:
        prefix = "a folder is in the way: "
    if elsewhere.startswith("then "):
        return f"{prefix}{fix or 'fix this'}, {elsewhere}"
    return f"{prefix}{fix + ' or ' if fix else ''}{elsewhere}"


def describe_write_error(path: Path | str, exc: OSError, elsewhere: str | None = None, *,
                         what: str = "cannot be written") -> str:
    """One line for an output that could not be written: the path, the cause and what to do
    (:func:`write_hint`, whose way out ``elsewhere`` is, by default to choose another ``--out``)."""
    advice = write_hint(exc, elsewhere or "choose another --out")
    return f"{path}: {what}: {os_error_cause(exc)}; {advice}"


def output_error(path: Path | str, exc: OSError, elsewhere: str | None = None, *,
                 what: str = "cannot be written") -> OutputError:
    """:class:`OutputError` of :func:`describe_write_error`, to ``raise ... from None``."""
    return OutputError(describe_write_error(path, exc, elsewhere, what=what))


def make_dirs(path: Path, elsewhere: str | None = None) -> Path:
    """Create folder ``path`` and its parents (as ``mkdir -p``); OutputError naming it when that fails
    (``elsewhere`` as in :func:`describe_write_error`)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise OutputError(f"{path}: cannot be created as a folder: a file of that name exists; "
                          f"{elsewhere or 'choose another --out'}") from exc
    except OSError as exc:
        raise output_error(path, exc, elsewhere, what="folder cannot be created") from None
    return path


_UMASK: int | None = None


def _new_file_mode() -> int:
    # What open() would give a new file (0o666 less the umask); mkstemp makes its file 0o600.
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return 0o666 & ~_UMASK


class AtomicFile:
    """The text handle :func:`atomic_writer` yields: writes go to a temporary file beside the target.

    ``write``, ``writelines`` and ``flush`` turn an OSError (a full disk) into an OutputError naming the
    target, so an error raised while the content is produced is never mistaken for one of the output."""

    def __init__(self, path: Path, handle: IO[str], elsewhere: str | None) -> None:
        self.path = path
        self._handle = handle
        self._elsewhere = elsewhere

    def write(self, text: str) -> int:
        try:
            return self._handle.write(text)
        except OSError as exc:
            raise output_error(self.path, exc, self._elsewhere) from None

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._handle.flush()
        except OSError as exc:
            raise output_error(self.path, exc, self._elsewhere) from None


@contextlib.contextmanager
def atomic_writer(path: Path, elsewhere: str | None = None) -> Iterator[AtomicFile]:
    """A text file (UTF-8) written to a temporary file beside ``path`` and renamed over it when the block ends.

    The temporary file is synced before the rename, so ``path`` is the old file or the whole new one,
    never a torn one; when the block raises (or the write fails) the temporary file is removed and
    ``path`` is left as it was. A new file gets the mode ``open()`` would give it; a replaced one keeps
    its mode.

    Raises:
        OutputError: the folder cannot be created, or the file cannot be written or renamed (a
            read-only folder, a full disk); the message names ``path``, the cause and what to do
            (``elsewhere``: the way out, see :func:`write_hint`).
    """
    path = Path(path)
    tmp, handle = _open_temp(path, elsewhere)
    try:
        yield AtomicFile(path, handle, elsewhere)
    except BaseException:
        _discard(tmp, handle)
        raise  # an error of the block (or an OutputError of its writes) as it is
    try:
        handle.flush()
        os.fsync(handle.fileno())
        handle.close()
        os.replace(tmp, path)
    except BaseException as exc:
        _discard(tmp, handle)
        if isinstance(exc, OSError):
            raise output_error(path, exc, elsewhere) from None
        raise


def _open_temp(path: Path, elsewhere: str | None) -> tuple[str, IO[str]]:
    """A new temporary text file beside ``path`` (its folder created), with the mode ``path`` should get."""
    make_dirs(path.parent, elsewhere)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise output_error(path, exc, elsewhere) from None
    try:
        os.fchmod(fd, stat.S_IMODE(path.stat().st_mode) if path.is_file() else _new_file_mode())
        return tmp, os.fdopen(fd, "w", encoding="utf-8", newline="\n")
    except BaseException as exc:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise output_error(path, exc, elsewhere) from None
        raise


def _discard(tmp: str, handle: IO[str]) -> None:
    """Close and remove a temporary file that will not replace its target (errors ignored: a full
    disk fails the close's flush again, and the file is dropped anyway)."""
    with contextlib.suppress(OSError):
        handle.close()
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def write_text_atomic(path: Path, text: str, elsewhere: str | None = None) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (never a torn file).

    Raises:
        OutputError: ``path`` cannot be written (see :func:`atomic_writer`).
    """
    _write_atomic(path, (text,), elsewhere)


def _write_atomic(path: Path, chunks: Iterable[str], elsewhere: str | None = None) -> None:
    """Write the chunks to a temporary file beside ``path``, sync it, then rename it over ``path``."""
    with atomic_writer(path, elsewhere) as handle:
        for chunk in chunks:
            handle.write(chunk)


def write_json(path: Path, record: BaseModel | Any, elsewhere: str | None = None) -> None:
    """Write one pretty-printed JSON document atomically (OutputError naming ``path`` when it cannot be)."""
    write_text_atomic(path, dumps(record, indent=1) + "\n", elsewhere)


def write_jsonl(path: Path, records: Iterable[BaseModel | Any], elsewhere: str | None = None) -> int:
    """Write a JSONL file atomically, one compact record per line, as the records come.

    The lines go to a temporary file beside ``path`` that replaces it once complete (never a torn
    file), so an iterator of records is written without being held in memory.

    Returns:
        The number of records written.
    """
    return write_lines(path, (dumps(record) + "\n" for record in records), elsewhere)


def write_lines(path: Path, lines: Iterable[str], elsewhere: str | None = None) -> int:
    """Write text lines (each ending in a newline) to ``path`` atomically, as they come.

    Returns:
        The number of lines written.
    """
    count = 0

    def counted() -> Iterator[str]:
        nonlocal count
        for line in lines:
            yield line
            count += 1

    _write_atomic(path, counted(), elsewhere)
    return count


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
