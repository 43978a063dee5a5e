"""The one rule for the paths sitbench writes or deletes inside the folder the user named.

Three guards, checked before anything is created or removed:

* :func:`check_no_link` — no part of a path below the folder the user named is a symbolic link, so
  neither a write nor a deletion can be redirected out of it (the named folder itself may be a link:
  the user chose it);
* :func:`owned_files` — the files found under a folder sitbench fills must all be files it wrote (a
  manifest of what it wrote decides); anything else makes the command refuse, so a user's own file is
  never deleted;
* :func:`check_replaceable` — an existing file of the name about to be written must be one sitbench
  wrote (recognised by its content), never a user's file of the same name.

Each refusal is one :class:`~sitbench.errors.OutputError` naming the path and the way out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from sitbench.errors import OutputError


def check_no_link(root: Path, path: Path) -> None:
    """Refuse when ``path`` or a folder between ``root`` and it is a symbolic link.

    Args:
        root: the folder the user named (it may itself be a link).
        path: a path below ``root`` that is about to be written, replaced or removed (it need not exist).

    Raises:
        OutputError: naming the link and where it leads.
    """
    current = Path(root)
    for part in Path(path).relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            raise OutputError(f"{current}: is a symbolic link (to {os.readlink(current)}); sitbench never writes or "
                              f"deletes through a link inside {root}: remove the link or choose another --out")


def owned_files(root: Path, folders: Iterable[str], written: set[str], written_by: str) -> list[Path]:
    """The files under ``root/FOLDER`` for each folder, every one of which sitbench wrote.

    The folders are walked without following links. A link anywhere below ``root`` is refused
    (a deletion through it would remove files outside ``root``); so is a file whose path relative to
    ``root`` is not in ``written``: it is not sitbench's to remove.

    Args:
        root: the folder the user named.
        folders: sub-folders of ``root`` to walk (``hidden``, ``visible``…); missing ones are skipped.
        written: ``/``-separated paths relative to ``root`` of the files sitbench wrote there.
        written_by: the record of what was written, for the message (``DIR/manifest.json``).

    Returns:
        The files found, sorted.

    Raises:
        OutputError: naming the link or the foreign file and the way out.
    """
    found: list[Path] = []
    for folder in folders:
        top = Path(root) / folder
        check_no_link(root, top)
        if not top.is_dir():
            continue
        for here, dirs, files in os.walk(top, followlinks=False):
            for name in sorted(dirs + files):
                path = Path(here) / name
                check_no_link(root, path)
                if name in files:
                    rel = path.relative_to(root).as_posix()
                    if rel not in written:
                        raise OutputError(
                            f"{path}: not a file sitbench wrote (not listed in {written_by}); sitbench never "
                            "deletes a file it did not write: move it out of the folder, or choose another --out")
                    found.append(path)
    return sorted(found)


def check_replaceable(path: Path, ours: Callable[[Path], bool], flag: str | None = None) -> None:
    """Refuse to replace ``path`` when it exists and is not a file sitbench wrote.

    Args:
        path: the file about to be written.
        ours: whether an existing regular file is one sitbench wrote (it reads a bounded head of it).
        flag: the option that allows replacing it anyway, named in the message (when there is one).

    Raises:
        OutputError: ``path`` is a link, a special file or a file sitbench did not write.
    """
    if not os.path.lexists(path):
        return
    if Path(path).is_symlink():
        what = f"is a symbolic link (to {os.readlink(path)})"
    elif not Path(path).is_file():
        return  # a folder in the way: the writer's own error names it
    elif ours(Path(path)):
        return
    else:
        what = "already exists and is not a file sitbench wrote"
    way_out = f"move it, pass {flag}, or choose another --out" if flag else "move it or choose another --out"
    raise OutputError(f"{path}: {what}; sitbench never replaces a file it did not write: {way_out}")


def file_head(path: Path, limit: int = 4096) -> bytes:
    """The first ``limit`` bytes of a regular file (``b""`` when it cannot be read): what a recogniser looks at."""
    try:
        with open(path, "rb") as handle:
            return handle.read(limit)
    except OSError:
        return b""
