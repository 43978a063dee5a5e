"""Vocabulary shared by every SIT record: enums and small value types."""

from __future__ import annotations

import datetime as dt
from enum import Enum, StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict


def _iso_date(value: Any) -> Any:
    # Lax pydantic would read 42 as a Unix timestamp; a dataset date must be written as a date.
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"expected an ISO date like 2022-06-01, got {value!r}") from None
    raise ValueError(f"expected an ISO date string like 2022-06-01, got {type(value).__name__} {value!r}")


IsoDate = Annotated[dt.date, BeforeValidator(_iso_date)]
"""A calendar date written as ``YYYY-MM-DD`` (numbers and datetimes are rejected)."""


class Frozen(BaseModel):
    """Base for immutable, strictly-validated records (unknown fields are errors)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class EventKind(str, Enum):
    """What an event in a lineage records (seed Eq. 3)."""

    EPISODIC = "episodic"
    ACQUISITION = "acquisition"
    RELATIONSHIP = "relationship"
    BELIEF = "belief"
    SKILL = "skill"
    PROFILE = "profile"
    SESSION = "session"


class Provenance(str, Enum):
    """How the identity came to hold what an event asserts."""

    EXPERIENCED = "experienced"
    COURSE = "course"
    READING = "reading"
    PRACTICE = "practice"
    OBSERVATION = "observation"
    CONVERSATION = "conversation"
    TRAINING = "training"
    TRAVEL = "travel"
    TOOL_USE = "tool_use"
    TOLD_BY = "told_by"


class ClaimProvenance(str, Enum):
    """Provenance a response attaches to a claim (docs/concepts.md: provenance labels)."""

    PERSONAL_EXPERIENCE = "personal_experience"
    ACQUIRED = "acquired"
    TOLD_BY = "told_by"
    ASSISTANT_GENERAL = "assistant_general"
    UNSPECIFIED = "unspecified"


#: Claim provenances that present content as the identity's own.
PERSONAL_PROVENANCES: frozenset[ClaimProvenance] = frozenset(
    {ClaimProvenance.PERSONAL_EXPERIENCE, ClaimProvenance.ACQUIRED, ClaimProvenance.TOLD_BY}
)


class Act(str, Enum):
    """Response acts (docs/concepts.md: acts)."""

    ANSWER = "ANSWER"
    ABSTAIN = "ABSTAIN"
    REJECT = "REJECT"
    WITHHOLD = "WITHHOLD"
    QUALIFY = "QUALIFY"
    ACKNOWLEDGE_ASSERTION = "ACKNOWLEDGE_ASSERTION"


class UncertaintyRule(str, Enum):
    """Contract rule on expressed uncertainty."""

    PERMITTED = "permitted"
    REQUIRED = "required"
    FORBIDDEN = "forbidden"


class UncertaintyLevel(str, Enum):
    """Uncertainty a response expresses (the extractor's û)."""

    NONE = "none"
    HEDGED = "hedged"
    NOT_KNOWING = "not_knowing"


class CapabilityMode(str, Enum):
    """Assistant capability modes (seed Appendix C.2)."""

    IDENTITY_ONLY = "IDENTITY_ONLY"
    PROVENANCE_SEPARATED = "PROVENANCE_SEPARATED"
    GENERAL_ALLOWED = "GENERAL_ALLOWED"


class Tier(str, Enum):
    """Disclosure / clearance tiers, ordered from most public to most private."""

    PUBLIC = "public"
    ACQUAINTANCE = "acquaintance"
    COLLEAGUE = "colleague"
    CONFIDANT = "confidant"
    SELF = "self"

    @property
    def rank(self) -> int:
        """Position in the order public < acquaintance < colleague < confidant < self."""
        return _TIER_ORDER.index(self)

    def covers(self, needed: Tier) -> bool:
        """True when a holder of this clearance may receive content needing ``needed``."""
        return self.rank >= needed.rank


_TIER_ORDER = [Tier.PUBLIC, Tier.ACQUAINTANCE, Tier.COLLEAGUE, Tier.CONFIDANT, Tier.SELF]


class Configuration(StrEnum):
    """What a trial shows the candidate (seed §6): configurations A–I, budgeted G (E6), or an agent's own state.

    Written by the runner into every trial and score record and read by metrics, the analysis and the report,
    always by value (``"A"``, ``"G_budget"``, ``"agent"``).
    """

    A = "A"
    B = "B"
    C = "C"
    D = "D"
    E = "E"
    F = "F"
    G = "G"
    H = "H"
    I = "I"  # noqa: E741 - the seed's letter
    G_budget = "G_budget"
    """Configuration G under an enforced input-token budget (E6)."""
    agent = "agent"
    """An agent that keeps its own state (``sitbench run --agent``)."""


class Category(str, Enum):
    """Probe categories A–H (seed §4.2) with their primary metric names."""

    A = "A"
    B = "B"
    C = "C"
    D = "D"
    E = "E"
    F = "F"
    G = "G"
    H = "H"

    @property
    def metric(self) -> str:
        """Name of this category's primary validity metric."""
        return CATEGORY_METRICS[self]


CATEGORY_METRICS: dict[Category, str] = {
    Category.A: "A_pos",
    Category.B: "A_neg",
    Category.C: "A_epi",
    Category.D: "A_temp",
    Category.E: "A_rel",
    Category.F: "A_belief",
    Category.G: "A_cf",
    Category.H: "A_session",
}


class SignedProp(Frozen):
    """A canonical proposition with a polarity: what an event asserts."""

    prop_id: str
    """Id in the proposition registry."""
    polarity: bool = True
    """True asserts the proposition, False its negation."""
