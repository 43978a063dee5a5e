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
