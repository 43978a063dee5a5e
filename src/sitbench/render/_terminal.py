"""Tables on a terminal that never cut a figure: split into tables that fit, or one figure a line.

rich shrinks a table wider than its console and ends the cells it shrinks with "…", which turns
``100.0`` into ``1…``. A table printed through :func:`print_table` keeps every cell at its natural
width instead: when it is wider than the width to fit, its value columns are split over several
tables that each repeat the first (key) column, and when even one value column beside the key does
not fit, it is printed in a long form, one (key, figure, value) a line.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

UNLIMITED_WIDTH = 100_000
"""The width of a console that writes to a file or a pipe: nothing printed to it is wrapped or cut."""

LONG_FORM_HEADERS = ("figure", "value")
"""The headers of the long form's second and third columns."""


def fit_width(console: Console | None = None) -> int | None:
    """The width tables must fit on ``console``'s output: ``COLUMNS`` when it is set, else the terminal's
    width; ``None`` (no limit) for a file or a pipe, which is never wrapped.

    Args:
        console: the console to print to (default: a new one on stdout).

    Returns:
        A width in columns, or None when nothing is to be wrapped.
    """
    console = console or Console()
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return console.width if console.is_terminal else None


def output_console(stderr: bool = False) -> Console:
    """A console that fits tables and text to the terminal, and writes a file or a pipe unwrapped.

    Args:
        stderr: write to standard error instead of standard output.

    Returns:
        A :class:`rich.console.Console` whose width is :func:`fit_width`, or :data:`UNLIMITED_WIDTH`.
    """
    probe = Console(stderr=stderr)
    width = fit_width(probe)
    return Console(stderr=stderr, width=width or UNLIMITED_WIDTH)


def print_table(console: Console, table: Table, width: int | None = None) -> None:
    """Print ``table`` so that every cell reads whole (see :func:`fit_table`).

    Args:
        console: where to print.
        table: the table; its first column is the key repeated in every part.
        width: the width to fit; default :func:`fit_width` of ``console``.
    """
    limit = fit_width(console) if width is None else width
    for part in fit_table(table, limit):
        console.print(part)


def fit_table(table: Table, width: int | None) -> list[RenderableType]:
    """``table`` as one or more tables no wider than ``width``, each cell at its natural width.

    Args:
        table: a table whose first column is the key (a configuration, a contrast id).
        width: the width to fit; None keeps the table whole.

    Returns:
        The table itself when it fits; else its value columns split in order over as few tables as fit, of
        similar widths, each repeating the key column (titled "TITLE (i/n)"); else, when one value column beside
        the key is already too wide, the long form: one row per (key, figure, value). A split or long table's
        caption follows it as text, wrapped to the width rather than to the narrower table.
    """
    for column in table.columns:
        column.no_wrap = True
    if width is None or _width(table) <= width:
        return [table]
    values = list(range(1, len(table.columns)))
    if any(_width(_part(table, [index])) > width for index in values):
        return _with_caption(_long_form(table), table.caption)
    groups = _groups(table, values, width)
    # The fewest tables that fit, then the narrowest limit that still needs no more of them: parts of
    # similar widths rather than full ones and a last one with a single column.
    low = max(_width(_part(table, [index])) for index in values)
    high = width
    while low < high:
        middle = (low + high) // 2
        if len(_groups(table, values, middle)) <= len(groups):
            high = middle
        else:
            low = middle + 1
    parts = [_part(table, group) for group in _groups(table, values, high)]
    for number, part in enumerate(parts, start=1):
        part.title = f"{table.title or ''} ({number}/{len(parts)})".lstrip()
        part.caption = None
    return [*parts, *_caption(table.caption)]


def _groups(table: Table, values: list[int], width: int) -> list[list[int]]:
    """The value columns packed in order into groups whose tables are at most ``width`` wide."""
    groups: list[list[int]] = []
    for index in values:
        if groups and _width(_part(table, [*groups[-1], index])) <= width:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


def _with_caption(table: Table, caption: RenderableType | None) -> list[RenderableType]:
    table.caption = None
    return [table, *_caption(caption)]


def _caption(caption: RenderableType | None) -> list[RenderableType]:
    if caption is None:
        return []
    return [Text(caption, style="table.caption") if isinstance(caption, str) else caption]


def _width(table: Table) -> int:
    console = Console(width=UNLIMITED_WIDTH)
    return console.measure(table).maximum


def _part(table: Table, indices: list[int]) -> Table:
    """The key column and the columns at ``indices``, with every row."""
    part = Table(title=table.title, caption=table.caption, show_header=table.show_header, box=table.box)
    chosen = [table.columns[0], *(table.columns[i] for i in indices)]
    for column in chosen:
        part.add_column(column.header, justify=column.justify, no_wrap=True, style=column.style)
    for row in range(table.row_count):
        part.add_row(*(list(column.cells)[row] for column in chosen))
    return part


def _long_form(table: Table) -> Table:
    """One row per (key, figure, value); a value too long for the terminal folds, it is never cut."""
    key = table.columns[0]
    long = Table(title=table.title, caption=table.caption, show_header=table.show_header, box=table.box)
    long.add_column(key.header, justify=key.justify, no_wrap=True)
    long.add_column(LONG_FORM_HEADERS[0], justify="left", no_wrap=True)
    long.add_column(LONG_FORM_HEADERS[1], justify="right", overflow="fold")
    keys = list(key.cells)
    for row in range(table.row_count):
        for position, column in enumerate(table.columns[1:]):
            long.add_row(keys[row] if position == 0 else "", column.header, list(column.cells)[row],
                         end_section=position == len(table.columns) - 2)
    return long


def say(text: str = "", err: bool = False) -> None:
    """Print one line of text for a person on standard output (or error).

    Unlike ``click.echo``, which writes UTF-8 bytes past a stream whose encoding cannot hold them, this goes
    through the stream itself, so the CLI's ASCII fallbacks apply (``…`` as ``...``) where the terminal's
    encoding lacks a symbol. Machine output (JSON) is not text for a person: write it with ``click.echo``."""
    print(text, file=sys.stderr if err else sys.stdout, flush=True)
