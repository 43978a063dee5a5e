"""Resolve an ``--agent`` value into a factory of fresh agents."""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitbench._limits import DEFAULT_MAX_RESPONSE_CHARS
from sitbench._urls import redact_url
from sitbench.agents._http import HttpAgentClient, body_limit, check_agent_url
from sitbench.agents._models import AgentInfo, Transport
from sitbench.agents._protocol import agent_info
from sitbench.errors import InputError
from sitbench.registry import Registry

#: Entry-point group under which installed packages register agent factories by name.
AGENT_ENTRY_POINTS = "sitbench.agents"


def exit_text(exc: SystemExit) -> str:
    """What an agent that exits did, in the words of its code: ``called sys.exit(3)``."""
    return f"called sys.exit({exc.code!r})" if exc.code is not None else "called sys.exit()"


def _is_factory(obj: object) -> str | None:
    return None if callable(obj) else f"is not a factory (got {type(obj).__name__}); it must return an agent"


AGENTS: Registry[Callable[..., Any]] = Registry("agent", AGENT_ENTRY_POINTS, option="--agent", check=_is_factory)
"""Agent factories by name (``--agent NAME``)."""

_METHODS = ("ingest", "respond", "end_session")


@dataclass
class LoadedAgent:
    """A resolved ``--agent``: how to make fresh agents, and what they said about themselves."""

    spec: str
    """The ``--agent`` value."""
    transport: Transport
    """In process or over HTTP."""
    factory: Callable[[], Any]
    """Called with no argument for every fresh agent (may return an awaitable)."""
    info: AgentInfo
    """``describe()`` of a first agent (or ``GET /info``)."""
    aclose: Callable[[], Awaitable[None]] | None = None
    """Releases shared resources at the end of a run."""
    options: dict[str, str] = field(default_factory=dict)
    """Keyword arguments given to the factory."""


def _import_target(spec: str) -> Any:
    target, sep, attribute = spec.rpartition(":")
    if not sep or not target or not attribute:
        raise InputError(f"--agent {spec!r}: use package.module:factory, path/to/file.py:factory, "
                         "http://HOST:PORT or the name of an installed agent")
    if target.endswith(".py") or "/" in target or Path(target).suffix == ".py":
        path = Path(target)
        if not path.is_file():
            raise InputError(f"--agent {spec!r}: {path} is not a file; give the path of the Python file that "
                             "defines the factory")
        # A stable, unique module name per file, so two example files may share a stem.
        name = f"_sitbench_agent_{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]}"
        if name in sys.modules:
            # Imported once per process: an agent module may hold a store that allows one instance.
            module = sys.modules[name]
            factory = getattr(module, attribute, None)
            if factory is None or not callable(factory):
                raise InputError(f"--agent {spec!r}: {target} has no callable {attribute!r}; name the function "
                                 "that returns an agent")
            return factory
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise InputError(f"--agent {spec!r}: {path} cannot be imported as Python")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - any failure in the user's file is reported as bad input
            sys.modules.pop(name, None)
            raise InputError(f"--agent {spec!r}: importing {path} failed: {exc!r}"[:400]) from None
        except SystemExit as exc:
            # An agent's exit is not the harness's: it never becomes sitbench's exit code.
            sys.modules.pop(name, None)
            raise InputError(f"--agent {spec!r}: importing {path} {exit_text(exc)}; an agent module must not exit "
                             "the process (raise an exception instead)") from None
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise InputError(f"--agent {spec!r}: cannot import {target} ({exc}); install the package or put "
                             "it on PYTHONPATH") from None
        except SystemExit as exc:
            raise InputError(f"--agent {spec!r}: importing {target} {exit_text(exc)}; an agent module must not "
                             "exit the process (raise an exception instead)") from None
    factory = getattr(module, attribute, None)
    if factory is None or not callable(factory):
        raise InputError(f"--agent {spec!r}: {target} has no callable {attribute!r}; name the function that "
                         "returns an agent")
    return factory


async def make_agent(factory: Callable[[], Any]) -> Any:
    """One fresh agent from ``factory`` (sync or async)."""
    agent = factory()
    if inspect.isawaitable(agent):
        agent = await agent
    return agent


def check_agent(spec: str, agent: Any) -> None:
    """Raise InputError naming the missing methods when ``agent`` is not an :class:`Agent`."""
    missing = [m for m in _METHODS if not callable(getattr(agent, m, None))]
    if missing:
        raise InputError(f"--agent {spec!r}: the factory returned {type(agent).__name__}, which lacks "
                         f"{', '.join(missing)}; an agent needs ingest(subject), respond(turn) and end_session()")


def load_agent(spec: str, timeout_s: float = 120.0, options: dict[str, str] | None = None,
               max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS) -> LoadedAgent:
    """Resolve ``spec``: ``http(s)://…``, ``package.module:factory``, ``path/file.py:factory``, or
    the name of a factory registered under the ``sitbench.agents`` entry-point group.

    Args:
        options: keyword arguments for the factory (``--agent-option KEY=VALUE``), as strings.
        max_response_chars: the answer cap; an HTTP agent's reply body is read up to :func:`body_limit` of it.

    An HTTP agent's ``spec`` of the result is the URL without its credentials (:func:`redact_url`).

    Raises:
        InputError: the spec cannot be resolved, or what it names is not an agent factory.
    """
    if spec.startswith(("http://", "https://")):
        check_agent_url(spec)
        if options:
            raise InputError(f"--agent-option {', '.join(options)}: an HTTP agent takes no options; configure "
                             "the server instead")
        client = HttpAgentClient(spec, timeout_s=timeout_s, max_body_bytes=body_limit(max_response_chars))
        # The client connects with the URL given; what is recorded (manifest, responses) never holds its credentials.
        return LoadedAgent(redact_url(spec), Transport.HTTP, client, client.info(), client.aclose)
    factory = AGENTS.find(spec) if ":" not in spec else None
    if factory is None:
        if ":" not in spec:
            names = AGENTS.names()
            raise InputError(f"--agent {spec!r}: no installed agent has that name (installed: "
                             f"{', '.join(names) or 'none'}); or use package.module:factory, "
                             "path/to/file.py:factory or http://HOST:PORT")
        factory = _import_target(spec)
    if options:
        factory = functools.partial(factory, **options)
    try:
        first = factory()
    except InputError as exc:
        raise InputError(f"--agent {spec!r}: {exc}") from None
    except TypeError as exc:
        raise InputError(f"--agent {spec!r}: the factory does not take these arguments ({exc}); check "
                         "--agent-option") from None
    except Exception as exc:  # noqa: BLE001 - the user's factory may raise anything; report it as bad input
        raise InputError(f"--agent {spec!r}: calling the factory failed: {exc!r}"[:400]) from None
    except SystemExit as exc:
        # KeyboardInterrupt is not caught: it is the user's Ctrl-C as often as the agent's, and it stops the run.
        raise InputError(f"--agent {spec!r}: the factory {exit_text(exc)} while the agent was loaded; a factory "
                         "must return an agent (or raise an exception), never exit the process") from None
    if inspect.isawaitable(first):
        close = getattr(first, "close", None)
        if callable(close):
            close()
        return LoadedAgent(spec, Transport.PYTHON, factory, AgentInfo(name=spec), options=dict(options or {}))
    check_agent(spec, first)
    try:
        info = agent_info(first)
    except Exception as exc:  # noqa: BLE001 - the user's describe() may raise or return anything
        raise InputError(f"--agent {spec!r}: describe() must return an AgentInfo or a dict of its fields "
                         f"(name, version, model, supports_fork): {exc!r}"[:400]) from None
    except SystemExit as exc:
        raise InputError(f"--agent {spec!r}: describe() {exit_text(exc)} while the agent was loaded; it must "
                         "return an AgentInfo, never exit the process") from None
    return LoadedAgent(spec, Transport.PYTHON, factory, info, options=dict(options or {}))
