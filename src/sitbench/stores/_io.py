"""Reading and writing store files with errors that name the file, line and field."""

from __future__ import annotations

import gc
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pydantic import BaseModel, ValidationError

from sitbench.errors import InputError

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
    message = first["msg"]
    if first.get("type") == "enum" or "Input should be" in message:
        message += f" (got {first.get('input')!r})"
    more = len(exc.errors()) - 1
    suffix = f" (+{more} more error{'s' if more > 1 else ''})" if more else ""
    return f"{where}: {field}: {message}{suffix}{'; ' + hint if hint else ''}"


def read_json(path: Path) -> Any:
    """Parse a JSON file; InputError naming the file and position on failure."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: file not found; is this a sitbench dataset directory? "
                         "(create one with `sitbench generate --suite pilot --out DIR`)") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} line {exc.lineno}: malformed JSON: {exc.msg} (column {exc.colno})") from None


def load_model(path: Path, model: type[M], label: str | None = None) -> M:
    """Read one JSON file into ``model``."""
    data = read_json(path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(label or str(path), exc)) from None


def iter_jsonl(path: Path, model: type[M], label: str | None = None) -> Iterator[tuple[int, M]]:
    """Yield ``(line_number, record)`` for each non-blank line of a JSONL file.

    The cyclic garbage collector is paused while the file is read: validated records create
    no cycles, and its repeated full scans dominated load time on large runs."""
    name = label or str(path)
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: file not found; is this a sitbench dataset directory? "
                         "(create one with `sitbench generate --suite pilot --out DIR`)") from None
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield from _records(handle, name, model)
    finally:
        if was_enabled:
            gc.enable()


def iter_jsonl_bytes(data: bytes, name: str, model: type[M]) -> Iterator[tuple[int, M]]:
    """Like :func:`iter_jsonl`, over the bytes of a JSONL file already read; ``name`` labels errors.

    Each line is checked for UTF-8 on its own, so a damaged byte is reported with its line number.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for number, raw in enumerate(data.split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"{name} line {number}: not valid UTF-8 (byte {exc.start} of the line); the file "
                                 "is damaged: restore it from a copy") from None
            yield from _records(io.StringIO(line), name, model, first=number)
    finally:
        if was_enabled:
            gc.enable()


def _records(handle: TextIO, name: str, model: type[M], first: int = 1) -> Iterator[tuple[int, M]]:
    with handle:
        for number, line in enumerate(handle, start=first):
            if not line.strip():
                continue
            try:
                yield number, model.model_validate_json(line)
            except ValidationError as exc:
                if exc.errors()[0].get("type") == "json_invalid":
                    try:
                        json.loads(line)
                    except json.JSONDecodeError as bad:
                        raise InputError(f"{name} line {number}: malformed JSON: {bad.msg} "
                                         f"(column {bad.colno})") from None
                raise InputError(describe_validation_error(f"{name} line {number}", exc)) from None


def dumps(record: BaseModel | Any, *, indent: int | None = None) -> str:
    """Deterministic JSON text of a model or plain value."""
    data = record.model_dump(mode="json", exclude_none=False) if isinstance(record, BaseModel) else record
    return json.dumps(data, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":"))


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (never a torn file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, record: BaseModel | Any) -> None:
    """Write one pretty-printed JSON document atomically."""
    write_text_atomic(path, dumps(record, indent=1) + "\n")


def write_jsonl(path: Path, records: Iterable[BaseModel | Any]) -> None:
    """Write a JSONL file atomically, one compact record per line."""
    write_text_atomic(path, "".join(dumps(r) + "\n" for r in records))


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
