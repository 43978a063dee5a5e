"""The extractor seam: one protocol, one observation type, one registry of extractors.

Every extractor receives exactly what the two-stage design allows (seed §3.3, C.10; SPEC
§2.12): the response, the query envelope Env(q) and the compiled vocabulary (X_q and D_CW).
It returns the one :class:`~sitbench.schema.Observation` type, stamped with its id and version.
The contract scorer is shared. Third-party extractors register under the ``sitbench.extractors``
entry-point group: the entry point names a factory taking the spec's argument (the text after
``:``, or None) and returning an :class:`Extractor`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from sitbench.errors import InputError
from sitbench.schema import Envelope, Observation
from sitbench.verify._extract import RULES_VERSION, Vocabulary, extract
from sitbench.verify._score import VERIFIER_VERSION

ENTRY_POINT_GROUP = "sitbench.extractors"
"""Entry-point group for extractors shipped by other packages."""


@runtime_checkable
class Extractor(Protocol):
    """A gold-blind reader of responses: (response, Env(q), vocabulary) → Γ̂."""

    @property
    def id(self) -> str:
        """Stable id, stamped on every observation (``rules``, ``llm``…)."""
        ...

    @property
    def version(self) -> str:
        """Version; it changes whenever a reading (and so possibly a verdict) does."""
        ...

    def extract(self, response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
        """Γ̂ of one response. Must never raise on any string; must not see anything but its arguments."""
        ...


class RuleExtractor:
    """The deterministic offline default (:func:`sitbench.verify.extract`)."""

    id = "rules"
    version = RULES_VERSION

    def extract(self, response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
        """Γ̂ by the staged rule reader."""
        return extract(response, envelope, vocabulary)


ExtractorFactory = Callable[[str | None], Extractor]


def _rules(argument: str | None) -> Extractor:
    if argument:
        raise InputError(f"--extractor rules:{argument}: the rule extractor takes no argument; use --extractor rules")
    return RuleExtractor()


def _llm(argument: str | None) -> Extractor:
    if not argument:
        raise InputError("--extractor llm: name the model, e.g. --extractor llm:openai/gpt-4o-mini "
                         "or --extractor llm:local/smollm2")
    from sitbench.verify._llm import LLMExtractor  # noqa: PLC0415  (imports the candidate layer lazily)

    return LLMExtractor(argument)


_BUILTIN: dict[str, ExtractorFactory] = {"rules": _rules, "llm": _llm}
_REGISTERED: dict[str, ExtractorFactory] = {}


def register_extractor(name: str, factory: ExtractorFactory) -> None:
    """Make ``--extractor NAME[:ARG]`` build an extractor with ``factory(ARG)``."""
    if name in _BUILTIN:
        raise ValueError(f"extractor name {name!r} is built in")
    _REGISTERED[name] = factory


def _plugins() -> dict[str, ExtractorFactory]:
    found: dict[str, ExtractorFactory] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.load())
    return found


def extractor_names() -> list[str]:
    """Names ``--extractor`` accepts: built-in, registered and entry-point extractors."""
    return sorted({*_BUILTIN, *_REGISTERED, *_plugins()})


def get_extractor(spec: str | None = None) -> Extractor:
    """The extractor a spec names: ``rules`` (default), ``llm:MODEL`` or a registered ``NAME[:ARG]``.

    Raises:
        InputError: the name is unknown (the message lists the known ones).
    """
    name, _, argument = (spec or "rules").partition(":")
    factory = _BUILTIN.get(name) or _REGISTERED.get(name)
    if factory is None:
        factory = _plugins().get(name)
    if factory is None:
        raise InputError(f"--extractor {spec!r}: unknown extractor; choose one of {', '.join(extractor_names())}")
    return factory(argument or None)


def stamp(extractor: Extractor) -> str:
    """``id@version``: what every verdict and score record names as its extractor."""
    return f"{extractor.id}@{extractor.version}"


def verifier_label(extractor: Extractor) -> str:
    """What a run manifest records as its verifier: the version, plus the extractor when not the default."""
    if extractor.id == RuleExtractor.id and extractor.version == RULES_VERSION:
        return VERIFIER_VERSION
    return f"{VERIFIER_VERSION}+{stamp(extractor)}"
