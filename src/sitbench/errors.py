"""Errors that reach the user as one line and exit code 2."""

from __future__ import annotations


class SitbenchError(Exception):
    """A problem with the user's input or environment that the user can fix.

    The CLI prints ``str(error)`` on one line and exits with code 2; the message
    names the file, the record and the field, and says what to do next.
    """

    exit_code = 2


class InputError(SitbenchError):
    """Malformed, missing or inconsistent input (files, fields, options)."""


class OutputError(SitbenchError):
    """An output that cannot be written: a read-only folder, a full disk, a full standard output.

    The message names the file (or ``standard output``) and the cause, e.g. ``report.html: cannot be
    written: No space left on device (ENOSPC); free space or choose another --out``.
    """
