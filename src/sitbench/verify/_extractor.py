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
from typing import Protocol, runtime_checkable

from sitbench.errors import InputError
from sitbench.registry import Registry
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


def rules_extractor(argument: str | None) -> Extractor:
    """``--extractor rules``: the rule reader (it takes no argument)."""
    if argument:
        raise InputError(f"--extractor rules:{argument}: the rule extractor takes no argument; use --extractor rules")
    return RuleExtractor()


def llm_extractor(argument: str | None) -> Extractor:
    """``--extractor llm:MODEL``: the LLM reader over any candidate."""
    if not argument:
        raise InputError("--extractor llm: name the model, e.g. --extractor llm:openai/gpt-4o-mini "
                         "or --extractor llm:local/smollm2")
    from sitbench.verify._llm import LLMExtractor  # imports the candidate layer lazily

    return LLMExtractor(argument)


def _is_factory(obj: object) -> str | None:
    return None if callable(obj) else f"is not a factory (got {type(obj).__name__}); it must be factory(ARG) -> Extractor"


EXTRACTORS: Registry[ExtractorFactory] = Registry("extractor", ENTRY_POINT_GROUP, option="--extractor",
                                                  check=_is_factory)
"""Extractor factories by name; sitbench's ``rules`` and ``llm`` are entry points of its own package."""


def register_extractor(name: str, factory: ExtractorFactory) -> None:
    """Make ``--extractor NAME[:ARG]`` build an extractor with ``factory(ARG)`` in this process.

    Raises:
        ValueError: ``name`` is one of sitbench's own extractors.
    """
    if name in ("rules", "llm"):
        raise ValueError(f"extractor name {name!r} is built in")
    EXTRACTORS.register(name, factory)


def extractor_names() -> list[str]:
    """Names ``--extractor`` accepts: sitbench's own, registered in this process and installed."""
    return sorted(EXTRACTORS.names())


class ReaderPair:
    """Two readers of every response (``--extractor FIRST+SECOND``): the first is the primary reader.

    As an :class:`Extractor` it reads with the primary reader only (what a command that needs one
    reading, such as ``sitbench extract``, gets); a :class:`~sitbench.verify.Judge` given a pair reads
    every response with both and keeps both verdicts, ``agreed`` or ``contested``.
    """

    def __init__(self, primary: Extractor, secondary: Extractor) -> None:
        """Pair two readers; the primary's verdict is the point estimate."""
        self.primary = primary
        """The reader whose verdict is the point estimate."""
        self.secondary = secondary
        """The second reader: where its verdict differs, the verdict is contested."""

    @property
    def id(self) -> str:
        """``FIRST+SECOND``."""
        return f"{self.primary.id}+{self.secondary.id}"

    @property
    def version(self) -> str:
        """Both versions, so a change of either changes the pair's."""
        return f"{self.primary.version}+{self.secondary.version}"

    def extract(self, response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
        """Γ̂ by the primary reader."""
        return self.primary.extract(response, envelope, vocabulary)

    def close(self) -> None:
        """Release what either reader holds."""
        close_extractor(self.primary)
        close_extractor(self.secondary)


def _split_pair(spec: str) -> tuple[str, str] | None:
    # A model name may hold "+" ("llm:org/a+b" stays one reader): the pair's "+" is the first one
    # followed by a registered extractor name and ":" or the end.
    start = 0
    while (at := spec.find("+", start)) >= 0:
        tail = spec[at + 1:]
        if tail.partition(":")[0] in EXTRACTORS.names():
            return spec[:at], tail
        start = at + 1
    return None


def get_extractor(spec: str | None = None) -> Extractor:
    """The extractor a spec names: ``rules`` (default), ``llm:MODEL``, a registered ``NAME[:ARG]``, or two of
    them joined by ``+`` (``rules+llm:MODEL``: a :class:`ReaderPair`, the first named the primary reader).

    Raises:
        InputError: the name is unknown (the message lists the known ones), or a pair names one reader twice
            or more than two readers.
    """
    pair = _split_pair(spec or "rules")
    if pair is not None:
        first, second = pair
        if _split_pair(second) is not None or _split_pair(first) is not None:
            raise InputError(f"--extractor {spec!r}: name at most two readers, e.g. --extractor rules+llm:MODEL")
        if first == second:
            raise InputError(f"--extractor {spec!r}: the two readers are the same; name two different ones, "
                             "e.g. --extractor rules+llm:MODEL")
        return ReaderPair(get_extractor(first), get_extractor(second))
    name, _, argument = (spec or "rules").partition(":")
    factory = EXTRACTORS.find(name)
    if factory is None:
        raise InputError(f"--extractor {spec!r}: unknown extractor; choose one of {', '.join(extractor_names())}")
    return factory(argument or None)


def close_extractor(extractor: Extractor) -> None:
    """Release what an extractor holds, when it holds anything (a model client, its event-loop thread, a cache).

    A command calls it when it is done reading, so no reader thread outlives the command (a process forked
    later, such as a scoring worker, never inherits one)."""
    close = getattr(extractor, "close", None)
    if callable(close):
        close()


def stamp(extractor: Extractor) -> str:
    """``id@version``: what every verdict and score record names as its extractor (``A@x+B@y`` for a pair)."""
    if isinstance(extractor, ReaderPair):
        return f"{stamp(extractor.primary)}+{stamp(extractor.secondary)}"
    return f"{extractor.id}@{extractor.version}"


def primary_reader(extractor: Extractor) -> Extractor:
    """The reader whose verdict is the point estimate: the pair's first, or the extractor itself."""
    return extractor.primary if isinstance(extractor, ReaderPair) else extractor


def verifier_label(extractor: Extractor) -> str:
    """What a run manifest records as its verifier: the version, plus the extractor when not the default."""
    if extractor.id == RuleExtractor.id and extractor.version == RULES_VERSION:
        return VERIFIER_VERSION
    return f"{VERIFIER_VERSION}+{stamp(extractor)}"
