"""The one rule for a value that becomes part of a file path, and the check before writing there.

Names read from files or options (an annotator, a lineage id, a subject, a probe id, a query key) may
end up as a file name: ``OUT/<annotator>.jsonl``, ``hidden/lineages/<lineage_id>.json``. A name is
safe as one path component when it is 1 to :data:`NAME_MAX` characters of ASCII letters, digits,
``.``, ``_`` and ``-``, beginning with a letter or a digit. That excludes ``.`` and ``..``, both
separators (``/`` and ``\\``), NUL and every other control character, an absolute path, a drive
(``C:``), a leading ``-`` (read as an option) and a hidden ``.name``.

:func:`child_path` adds the second half: the file it returns resolves (links followed) to a direct
child of the folder the user named, so a planted symbolic link cannot redirect a write either.

This module is a leaf (it imports only :mod:`sitbench.errors`), so the record schemas can validate
with it; the public names are re-exported by :mod:`sitbench.stores`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema

from sitbench.errors import InputError

NAME_MAX = 128
"""The longest name (characters; with a suffix such as ``.jsonl`` it stays far below 255 bytes)."""

NAME_RULE = f"use 1–{NAME_MAX} letters, digits, '.', '_' or '-', beginning with a letter or digit"
"""The fix every refusal ends with."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 60 else repr(value[:60]) + "…"


def name_problem(value: object) -> str | None:
    """Why ``value`` cannot be one path component (``None`` when it can).

    The branches, in order: not a string, empty, too long, ``.`` or ``..``, a separator (also what makes
    a path absolute), NUL, another control character, any other character outside the set, and a
    first character that is not a letter or digit.
    """
    if not isinstance(value, str):
        return f"is a {type(value).__name__}, not a string"
    if not value:
        return "is empty"
    if len(value) > NAME_MAX:
        return f"is {len(value)} characters long (at most {NAME_MAX})"
    if value in (".", ".."):
        return f"{value!r} is a folder, not a name"
    if "/" in value or "\\" in value:
        what = "an absolute path" if value[0] in "/\\" else "a path, not a name"
        return f"{_shown(value)} is {what} (it holds '/' or '\\')"
    if "\x00" in value:
        return f"{_shown(value)} holds a NUL character"
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in value):
        return f"{_shown(value)} holds a control character"
    if not _NAME.fullmatch(value):
        if value[0] in "._-":
            return f"{_shown(value)} begins with {value[0]!r}"
        odd = next(c for c in value if not (c.isascii() and (c.isalnum() or c in "._-")))
        return f"{_shown(value)} holds {odd!r}"
    return None


def check_name(value: str, where: str) -> str:
    """``value`` when it can be one path component; otherwise :class:`InputError` naming ``where``.

    ``where`` names the file and field, or the option: ``ann.jsonl line 1: annotator``, ``--annotator``.
    """
    problem = name_problem(value)
    if problem is not None:
        raise InputError(f"{where}: {problem}; {NAME_RULE}")
    return value


def _validate_name(value: str) -> str:
    problem = name_problem(value)
    if problem is not None:
        raise ValueError(f"{problem}; {NAME_RULE}")
    return value


NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
"""The character set of the rule as a JSON Schema pattern (with the length bound, the whole rule)."""

PathName = Annotated[str, AfterValidator(_validate_name),
                     WithJsonSchema({"type": "string", "minLength": 1, "maxLength": NAME_MAX, "pattern": NAME_PATTERN})]
"""A record field that may become a file name: validated by :func:`name_problem` when read."""


def relative_path_problem(value: str) -> str | None:
    """Why ``value`` is not a relative ``/``-separated path of names (``visible/queries.jsonl``)."""
    if not value:
        return "is empty"
    for part in value.split("/"):
        problem = name_problem(part)
        if problem is not None:
            return f"{_shown(value)}: a part {problem}"
    return None


def _validate_relative_path(value: str) -> str:
    problem = relative_path_problem(value)
    if problem is not None:
        raise ValueError(f"{problem}; a relative path inside the dataset, each part of which: {NAME_RULE}")
    return value


RelativePath = Annotated[str, AfterValidator(_validate_relative_path)]
"""A record field naming a file inside a folder (``hidden/probes.jsonl``): names joined by ``/``."""


def child_path(folder: Path, name: str, where: str, suffix: str = "") -> Path:
    """``folder / (name + suffix)``, after checking that it is a file directly inside ``folder``.

    ``name`` must pass :func:`check_name`; then the target, links followed, must resolve to a direct
    child of the resolved ``folder`` (a symbolic link planted at the target, or in its place, that
    points elsewhere is refused). Call it before creating anything.

    Raises:
        InputError: ``where: ...`` with the fix.
    """
    check_name(name, where)
    target = folder / f"{name}{suffix}"
    root = folder.resolve()
    resolved = target.resolve()
    if resolved.parent != root:
        raise InputError(f"{where}: {target} leads to {resolved}, outside {folder} (a symbolic link); "
                         "remove the link or choose another folder")
    return target
