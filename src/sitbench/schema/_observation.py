"""The extractor's gold-blind observation Γ̂(a) (Eq. 18) and the scorer's verdict."""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from sitbench.schema._common import Act, ClaimProvenance, Frozen, UncertaintyLevel

STATED_DATE_PATTERN = r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"
"""A date a response states, at the precision it states it: ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``."""


class ExtractedClaim(Frozen):
    """A canonical claim found in a response (an element of Ĝ)."""

    prop_id: str
    """Registry proposition."""
    polarity: bool
    """True if asserted, False if denied."""
    provenance: ClaimProvenance
    """Provenance the response attaches to it."""
    span: tuple[int, int]
    """Character offsets of the clause in the response."""
    when: str | None = Field(default=None, pattern=STATED_DATE_PATTERN)
    """The date the response gives for it (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``); None when it gives none.
    A stated date that contradicts the record fails grounding; no date is neutral."""


class UnmappedAssertion(Frozen):
    """A personal assertion with no proposition id (an element of Û)."""

    span: tuple[int, int]
    """Character offsets of the clause."""
    text: str
    """The clause."""
    polarity: bool
    """True if asserted, False if denied."""
    provenance: ClaimProvenance
    """Provenance the response attaches to it."""
    slot: str | None = None
    """Closed-world slot the clause fills, when a cue identifies one; None = unresolved."""
    value: str | None = None
    """Value the clause gives the slot, when identifiable."""


class DisclosureSignals(Frozen):
    """ŵ: what content was shared, and whether the response frames something as withheld."""

    shared: list[str] = Field(default_factory=list)
    """Prop ids the response asserts positively about the identity."""
    framed_as_withheld: bool = False
    """The response declines to share something with this interlocutor."""


class ConfidenceLevel(str, Enum):
    """How sure the extractor is of its reading (for audit stratification and report flags)."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Confidence(Frozen):
    """The extractor's confidence in one observation, with the signals behind it."""

    level: ConfidenceLevel = ConfidenceLevel.HIGH
    """Overall level. For the rule extractor, thresholds of :attr:`score` (``sitbench.verify``'s
    ``CONFIDENCE_HIGH_AT`` and ``CONFIDENCE_MEDIUM_AT``); other readers set it by their own rule."""
    signals: list[str] = Field(default_factory=list)
    """Why: unresolved references, conflicting cues, indirect readings and the rules that decided
    the reading (e.g. ``premise_adopted``, ``no_engagement``, ``self_correction``, ``negation``)."""
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    """How likely the verdict from this reading agrees with a careful human reading, in [0, 1]: for the
    rule extractor a fixed logistic function of :attr:`signals` whose weights were fitted once on the
    development slice of the annotated corpus (``sitbench.verify.CONFIDENCE_WEIGHTS``); adding a signal
    never raises it. None where the reader gives no score (the LLM extractor, imported readings, records
    written before the score existed). It ranks readings by risk; it is not part of any verdict."""


class Observation(Frozen):
    """Γ̂(a) = ⟨Ŷ, Ĝ, Û, û, ŵ⟩."""

    acts: list[Act]
    """Ŷ: acts present, in canonical order."""
    claims: list[ExtractedClaim] = Field(default_factory=list)
    """Ĝ: canonical claims."""
    unmapped: list[UnmappedAssertion] = Field(default_factory=list)
    """Û: unmapped personal assertions."""
    uncertainty: UncertaintyLevel = UncertaintyLevel.NONE
    """û: uncertainty expressed."""
    disclosure: DisclosureSignals = Field(default_factory=DisclosureSignals)
    """ŵ: disclosure signals."""
    engaged: bool = True
    """ê: the response takes up the question asked (answers, declines, corrects its premise, says it does not
    know, or continues within it). False for a reply that does not address it at all (off-topic, nonsense, an
    echo, stock assistant text): such a reply adopts no presupposition and supplies no requested content."""
    verifier_version: str
    """Version of the extractor that produced this observation (changes whenever a reading does)."""
    extractor: str = "rules"
    """Id of the extractor that produced this observation (``rules``, ``llm``, ``human``…)."""
    confidence: Confidence = Field(default_factory=Confidence)
    """How sure the extractor is, and why."""


class CheckResult(Frozen):
    """One of the seven checks of seed Eq. 20."""

    passed: bool
    """Whether the check holds."""
    reason: str = ""
    """Why it failed (empty when it passed)."""


class Verdict(Frozen):
    """SValid with its per-check breakdown."""

    valid: bool
    """Conjunction of the seven checks."""
    checks: dict[str, CheckResult]
    """Keys: act, required, forbidden, uncertainty, provenance, disclosure, grounding."""
    verifier_version: str
    """Scorer version."""
    extractor: str | None = None
    """``id@version`` of the extractor whose observation was scored."""
