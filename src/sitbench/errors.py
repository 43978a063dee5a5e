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


EXIT_INCOMPLETE = 4
"""Exit code of a command that finished its work but left trials it could not score (the verifier could not
read them, or the run stored only a torn line for them): what it wrote is kept, and the same command (or
``--resume``) finishes the job."""


class ReadingUnavailable(SitbenchError):
    """The verifier could not read a response: its extractor failed (a model that did not answer, or never
    answered in the required form). The trial is unscored, never failed: a reader's outage is not the
    candidate's error.

    Raised by an extractor for one response; scoring records the trial as ``unscored`` with this message
    as the reason. Reaching the command line alone (``sitbench judge``), it exits with
    :data:`EXIT_INCOMPLETE`.
    """

    exit_code = EXIT_INCOMPLETE
