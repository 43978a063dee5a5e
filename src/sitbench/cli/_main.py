"""The ``sitbench`` command line.

Sub-command groups live in modules of their own in this package (``sitbench.cli._runs``,
``sitbench.cli._chi``…) and are loaded lazily, so ``sitbench --help`` stays fast
and a heavy optional dependency is imported only by the command that needs it.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import importlib
import importlib.util
import io
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator

import click

from sitbench._urls import redact_text
from sitbench._version import __version__
from sitbench.errors import OutputError, SitbenchError

# name -> "module:attribute" of a click command or group.
_COMMANDS: dict[str, str] = {
    "generate": "sitbench.cli._data:generate",
    "validate": "sitbench.cli._lineage:validate",
    "show": "sitbench.data._show:show",
    "schema": "sitbench.cli._schema:schema",
    "extract": "sitbench.cli._verify:extract",
    "judge": "sitbench.cli._verify:judge",
    "run": "sitbench.cli._runs:run",
    "score": "sitbench.cli._runs:score",
    "rescore": "sitbench.cli._runs:rescore",
    "merge": "sitbench.cli._runs:merge",
    "observe": "sitbench.cli._runs:observe",
    "agreement": "sitbench.cli._runs:agreement",
    "cache": "sitbench.cli._runs:cache",
    "metrics": "sitbench.cli._metrics:metrics",
    "demo": "sitbench.cli._runs:demo",
    "analyze": "sitbench.cli._stats:analyze",
    "compare": "sitbench.cli._compare:compare",
    "stats": "sitbench.cli._stats:stats",
    "seeds": "sitbench.cli._data:seeds",
    "report": "sitbench.cli._report:report",
    "chi": "sitbench.cli._chi:chi",
    "res": "sitbench.cli._res:res",
    "serve": "sitbench.cli._serve:serve",
    "audit": "sitbench.cli._audit:audit",
    "import-inspect": "sitbench.cli._inspect:import_inspect",
}


def _module_exists(target: str) -> bool:
    module = target.split(":", 1)[0]
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


class _LazyGroup(click.Group):
    """A click group whose sub-commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, target in _COMMANDS.items() if _module_exists(target))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None or not _module_exists(target):
            return None
        module_name, attribute = target.split(":", 1)
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{target} is not a click command")
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sitbench")
@click.option("--debug", is_flag=True, help="Show full tracebacks instead of one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """sitbench: test whether a persistent LLM agent behaves according to its own
    recorded history rather than improvising from a persona.

    \b
    Examples (the typical flow):
      sitbench generate --suite pilot --out data/pilot   build a dataset (3 stores)
      sitbench validate data/pilot                       run the 19 integrity checks
      sitbench show data/pilot PR-01                     one probe as the evaluator sees it
      sitbench run data/pilot --config all --model mock/oracle --out runs/r1
      sitbench score runs/r1 && sitbench metrics runs/r1 --json
      sitbench demo                                      all of the above, offline
      sitbench chi memory demo                           CHI memory axis: a good and a poor system
      sitbench res demo                                  RES: a good and a poor reference agent

    Every symbol and acronym the outputs use is defined in docs/concepts.md.
    Every command explains itself with --help. Errors print one line naming the
    file, record and field; --debug shows the traceback. What configurations
    A–I show the model: `sitbench run --help`; what categories A–H test and
    what FMR, TL, UEL, LAA, IC and Macro SIT count: `sitbench metrics --help`
    (and the glossary of every report).
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


_NO_ARGS_IS_HELP: type | tuple[()] = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _one_line(message: str) -> str:
    # The contract is one line per error: a message that wraps would read as several problems. A URL's
    # credentials (an --agent http://user:password@…) are never printed.
    return " ".join(redact_text(message).split())


def _click_message(exc: click.ClickException) -> str:
    """Click's message with the help command that explains the option (usage errors only)."""
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        message += f" (see {ctx.command_path} --help)"
    return message


# What a write to a full or failing standard output raises (the OSError names no file). A closed pipe
# (EPIPE: `sitbench ... | head`) is not an error: click ends such a command quietly with code 1, and so
# does main() when the last flush finds it.
_STDOUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _stdout_error(exc: OSError) -> SitbenchError:
    from sitbench.stores import describe_write_error

    _silence_stdout()
    return OutputError(describe_write_error("standard output", exc, "redirect it elsewhere"))


def _silence_stdout() -> None:
    """Point the standard output at the null device: what is still buffered would fail again when the
    interpreter flushes it at exit ("Exception ignored ..." on stderr after the one error line)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a file (captured in a test): nothing is flushed at exit
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def _os_error(exc: OSError) -> SitbenchError | None:
    """The one line for an OSError no command turned into its own message, or None (a bug: traceback).

    A writer names its own file; this is the last resort: the file the error names, or the standard
    output when a write error names none."""
    from sitbench.stores import os_error_cause

    if exc.filename is not None:
        names = f"{exc.filename}" + (f" -> {exc.filename2}" if exc.filename2 is not None else "")
        return OutputError(f"{names}: {os_error_cause(exc)}")
    if exc.errno in _STDOUT_ERRNOS:
        return _stdout_error(exc)
    return None


# What a character the output's encoding lacks is printed as (PYTHONIOENCODING=ascii, a C locale): the
# symbols sitbench's own texts use get words, anything else a \uXXXX escape. Printing never raises.
_ASCII_FALLBACK = {"—": "-", "–": "-", "…": "...", "τ": "tau", "Γ": "Gamma", "\u0302": "-hat", "×": "x",
                   "≥": ">=", "≤": "<=", "±": "+/-", "→": "->", "←": "<-", "‘": "'", "’": "'", "“": '"', "”": '"',
                   "·": ".", "≈": "~", "∞": "inf", "α": "alpha", "β": "beta", "κ": "kappa", "ρ": "rho",
                   "σ": "sigma", "μ": "mu", "Δ": "Delta", "δ": "delta", "²": "^2", "√": "sqrt", "°": " deg",
                   "✓": "ok", "✗": "x", "│": "|", "─": "-", "━": "-", "┃": "|", "•": "*", "≠": "!="}
FALLBACK_ERRORS = "sitbench-fallback"
"""The codec error handler of the CLI's standard streams (:data:`_ASCII_FALLBACK`, else ``\\uXXXX``)."""


def _fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start:exc.end]
    words = "".join(_ASCII_FALLBACK.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}")
                    for c in text)
    return words, exc.end


codecs.register_error(FALLBACK_ERRORS, _fallback)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the main thread is: every clean-up an interrupt runs (temporary files removed,
    forked workers stopped, finished trials kept) runs for it too."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` while a command runs (only where nothing else asked for the
    signal, in the main thread); the handler before is put back after."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _safe_streams() -> None:
    """Make standard output and error print every character, in their own encoding or as a fallback."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors in ("strict", None):
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors=FALLBACK_ERRORS)


def _terminated() -> int:
    click.echo("terminated (SIGTERM); what was finished is kept, and the temporary files are removed", err=True)
    return 143


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``sitbench`` script; returns the process exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    _safe_streams()
    with _sigterm_as_interrupt():
        return _main(args)


def _main(args: list[str]) -> int:
    debug = "--debug" in args
    try:
        try:
            result = cli.main(args=args, prog_name="sitbench", standalone_mode=False)
            sys.stdout.flush()  # a full standard output is reported here, not as noise at exit
        except OSError as exc:
            if exc.errno == errno.EPIPE and exc.filename is None:
                _silence_stdout()
                return 1
            error = _os_error(exc)
            if error is None:
                raise
            if debug:
                traceback.print_exc()
            raise error from None
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort as exc:
        if isinstance(exc.__context__, Terminated):  # click turns an interrupt into Abort
            return _terminated()
        click.echo("aborted", err=True)
        return 130
    except click.ClickException as exc:
        if isinstance(exc, _NO_ARGS_IS_HELP):
            # A group given no sub-command answers with its help page, not an error line.
            exc.show()
            return exc.exit_code
        if debug:
            traceback.print_exc()
        click.echo(f"error: {_one_line(_click_message(exc))}", err=True)
        return exc.exit_code
    except SitbenchError as exc:
        if debug:
            traceback.print_exc()
        click.echo(f"error: {_one_line(str(exc))}", err=True)
        return exc.exit_code
    except Terminated:
        return _terminated()
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    return result if isinstance(result, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
