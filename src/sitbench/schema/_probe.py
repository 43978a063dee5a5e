"""Queries (candidate-visible) and probes with their hidden contracts (Eq. 14)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from sitbench.schema._common import (
    Act,
    CapabilityMode,
    Category,
    ClaimProvenance,
    Frozen,
    IsoDate,
    Tier,
    UncertaintyRule,
)


class Interlocutor(Frozen):
    """Who is speaking to the identity."""

    interlocutor_id: str
    """Id matched against the lineage's relationships; unknown ids are strangers (public clearance)."""
    description: str
    """How the envelope introduces them, e.g. ``your sister Jo``."""


class Turn(Frozen):
    """One user turn of a schedule."""

    session: int = Field(ge=1)
    """Conversation session the turn belongs to; a change of session is a context reset."""
    t: IsoDate
    """Date stamped on this turn's envelope."""
    utterance: str
    """What the interlocutor says."""


class Query(Frozen):
    """A query q = ⟨τ_q, u_q, x_q, C_q⟩ with its schedule (candidate-visible store).

    Single-turn probes have one turn; multi-turn probes (G, H) declare every turn, the
    scored turn, and which event a configuration's declared state-write ingests at a reset.
    """

    query_key: str
    """Opaque key joining this query to its hidden probe. Never serialized into a prompt."""
    subject: str
    """Opaque key of the identity's evidence file. Never serialized into a prompt."""
    tau: IsoDate
    """Evaluation epoch τ_q."""
    interlocutor: Interlocutor
    """Who asks."""
    capability: CapabilityMode
    """Capability mode α shown to governed configurations."""
    turns: list[Turn] = Field(min_length=1)
    """The schedule's user turns in order; the last one is at τ."""
    scored_turn: int = -1
    """Index into ``turns`` of the turn whose response is scored (default: the last)."""
    state_write: str | None = None
    """Description of what a configuration with declared persistent state carries across a reset."""

    @field_validator("scored_turn")
    @classmethod
    def _scored_turn_exists(cls, value: int, info: ValidationInfo) -> int:
        turns = info.data.get("turns")
        if turns is not None and not -len(turns) <= value < len(turns):
            raise ValueError(f"scored_turn {value} is out of range for {len(turns)} turns")
        return value

    @property
    def utterance(self) -> str:
        """Utterance of the scored turn."""
        return self.turns[self.scored_turn].utterance

    @property
    def is_multi_turn(self) -> bool:
        """True when the schedule has more than one turn."""
        return len(self.turns) > 1


class SignedClaim(Frozen):
    """A claim constraint in a contract: proposition, polarity and provenance."""

    prop_id: str
    """Proposition id."""
    polarity: bool = True
    """Required (or prohibited) polarity."""
    provenance: list[ClaimProvenance] = Field(default_factory=list)
    """Required claims: allowed provenances (empty = any). Prohibited claims: the
    provenances under which asserting it is prohibited (empty = any)."""


class Contract(Frozen):
    """The hidden contract of one probe (seed Eq. 14). Never reaches a candidate or the extractor."""

    required_acts: list[Act] = Field(default_factory=list)
    """Y_req: every one must be present."""
    forbidden_acts: list[Act] = Field(default_factory=list)
    """Y_forb: none may be present."""
    required_claims: list[SignedClaim] = Field(default_factory=list)
    """Signed claims that must be asserted, with an allowed provenance."""
    prohibited_claims: list[SignedClaim] = Field(default_factory=list)
    """Signed claims that must not be asserted."""
    uncertainty: UncertaintyRule = UncertaintyRule.PERMITTED
    """Whether uncertainty is permitted, required or forbidden."""
    provenance: list[ClaimProvenance] = Field(default_factory=list)
    """Provenances allowed on personal claims (empty = any personal provenance)."""
    capability: CapabilityMode
    """α of the query."""
    disclosure_tier: Tier = Tier.PUBLIC
    """Clearance the requested content needs."""
    temporal_cutoff: IsoDate
    """τ_q: evidence after it is inadmissible."""


class Probe(Frozen):
    """A probe trial (hidden store): one query for one lineage, with its contract."""

    probe_id: str
    """Id, e.g. ``PR-01-A``."""
    query_key: str
    """Key of the candidate-visible query."""
    lineage_id: str
    """Target lineage."""
    category: Category
    """Probe category A–H."""
    stratum: str | None = None
    """Stratum for experiments that weight strata equally (``pre``/``post``, ``L1``…``L5``,
    ``authorized_disclosure``/``withholding``)."""
    contract: Contract
    """Hidden contract."""
    theorem_qualified: bool = False
    """Member of Q*_disc: the same query is asked of the partner with a certified-disjoint contract."""
    partner_probe_id: str | None = None
    """For theorem-qualified probes: the partner lineage's probe with the identical query."""
    gate_sensitive: bool = False
    """Part of the prespecified gate-sensitive relational set (E8)."""
    pressure_level: Literal["L1", "L2", "L3", "L4", "L5"] | None = None
    """Counterfactual-pressure level for category G."""
    acquisition_event: str | None = None
    """For D probes: the event whose date t_e splits pre from post."""
    note: str = ""
    """Author's note for humans reading the dataset."""


class Envelope(Frozen):
    """Env(q): the byte-identical query envelope every configuration receives (seed C.1).

    It carries the date, the interlocutor description and the utterance — never anything
    from the contract, and never an internal id."""

    date: IsoDate
    """Date of the turn (τ_q for the scored turn)."""
    interlocutor: str
    """Interlocutor description, e.g. ``your sister Jo``."""
    utterance: str
    """What the interlocutor says."""

    def render(self) -> str:
        """The canonical text form inserted into every prompt."""
        return f"[DATE: {self.date.isoformat()}] [SPEAKER: {self.interlocutor}] [MESSAGE: {self.utterance}]"


def envelope_for(query: Query, turn_index: int | None = None) -> Envelope:
    """Env(q) of one turn of a query (default: the scored turn)."""
    turn = query.turns[query.scored_turn if turn_index is None else turn_index]
    return Envelope(date=turn.t, interlocutor=query.interlocutor.description, utterance=turn.utterance)
