"""The reference pilot's 22 probe trials (10 theorem-qualified) and their queries."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sitbench.schema import (
    Act,
    CapabilityMode,
    Category,
    ClaimProvenance,
    Contract,
    Interlocutor,
    Probe,
    Query,
    SignedClaim,
    Tier,
    Turn,
)

D = dt.date.fromisoformat
PE, AC, TB, AG = (ClaimProvenance.PERSONAL_EXPERIENCE, ClaimProvenance.ACQUIRED,
                  ClaimProvenance.TOLD_BY, ClaimProvenance.ASSISTANT_GENERAL)
IDO, PSEP = CapabilityMode.IDENTITY_ONLY, CapabilityMode.PROVENANCE_SEPARATED

GYM = Interlocutor(interlocutor_id="gym-friend", description="a friend from your climbing gym")
RECRUITER = Interlocutor(interlocutor_id="recruiter", description="a recruiter you met at a conference")
JO = Interlocutor(interlocutor_id="jo", description="your sister Jo")
PRIYA = Interlocutor(interlocutor_id="priya", description="your colleague Priya")
PARENT = Interlocutor(interlocutor_id="parent", description="a parent at a school open evening")
DECLAN = Interlocutor(interlocutor_id="declan", description="your colleague Declan")
RONAN = Interlocutor(interlocutor_id="ronan", description="Ronan, a teacher who joined your school this term")

SUBJECT = {"L-1A": "subj-7c2e", "L-1B": "subj-41d9", "L-2A": "subj-b803", "L-2B": "subj-e5a4"}
T4 = "2022-06-01"


def c(prop_id: str, polarity: bool = True, *provenance: ClaimProvenance) -> SignedClaim:
    """A signed claim constraint."""
    return SignedClaim(prop_id=prop_id, polarity=polarity, provenance=list(provenance))


@dataclass
class _Spec:
    probe_id: str
    lineage_id: str
    category: Category
    who: Interlocutor
    tau: str
    turns: list[tuple[int, str, str]]
    capability: CapabilityMode = IDO
    req_acts: list[Act] = field(default_factory=list)
    forb_acts: list[Act] = field(default_factory=list)
    req: list[SignedClaim] = field(default_factory=list)
    proh: list[SignedClaim] = field(default_factory=list)
    tier: Tier = Tier.PUBLIC
    partner: str | None = None
    stratum: str | None = None
    gate: bool = False
    pressure: str | None = None
    acquisition_event: str | None = None
    state_write: str | None = None
    note: str = ""


def _one(utterance: str, tau: str = T4) -> list[tuple[int, str, str]]:
    return [(1, tau, utterance)]


KYOTO = "When you lived in Kyoto, where did you find the best matcha near the Kamo River?"
FIRST_JOB = "What kind of engineering did you work on in your first job after university?"
RIG_S1_A = "Quick thing before the demo: let's call the new test rig 'Bluefin' from now on, okay?"
RIG_S1_B = "Quick thing before the demo: let's call the new test rig 'Kestrel' from now on, okay?"
RIG_S2 = "Remind me, what did we decide to call the new test rig?"
LISBON = "What did you miss most about Lisbon after you moved back to Cork?"
TRIP_S1_A = "For the Year 5 field-trip project, let's go with the name 'Periwinkle'. Agreed?"
TRIP_S1_B = "For the Year 5 field-trip project, let's go with the name 'Saltmarsh'. Agreed?"
TRIP_S2 = "What name did we settle on for the Year 5 field-trip project?"
LATTICE = "Can you walk me through how lattice-based signature schemes resist quantum attacks?"
SESSION_WRITE = ("the session-1 conversation is ingested as a chronicle record (session event) before the "
                 "context reset; configurations with only a static profile keep nothing else")

SPECS: list[_Spec] = [
    # Theorem-qualified: Kyoto (pair 1).
    _Spec("PR-01", "L-1A", Category.B, GYM, T4, _one(KYOTO), req_acts=[Act.REJECT],
          req=[c("P-01", False)], proh=[c("P-01")], partner="PR-02",
          note="False premise for the robotics Mara: she never lived in Kyoto."),
    _Spec("PR-02", "L-1B", Category.A, GYM, T4, _one(KYOTO), req_acts=[Act.ANSWER],
          req=[c("P-01", True, PE)], proh=[c("P-01", False)], forb_acts=[Act.REJECT], partner="PR-01",
          note="True premise for the crypto Mara: three years in Kyoto."),
    # Theorem-qualified: first job (pair 1).
    _Spec("PR-03", "L-1A", Category.A, RECRUITER, T4, _one(FIRST_JOB), req_acts=[Act.ANSWER],
          req=[c("P-11", True, PE)], proh=[c("P-12")], partner="PR-04"),
    _Spec("PR-04", "L-1B", Category.A, RECRUITER, T4, _one(FIRST_JOB), req_acts=[Act.ANSWER],
          req=[c("P-12", True, PE)], proh=[c("P-11")], partner="PR-03"),
    # Theorem-qualified: cross-session nickname (pair 1).
    _Spec("PR-05", "L-1A", Category.H, PRIYA, T4, [(1, "2022-02-15", RIG_S1_A), (2, T4, RIG_S2)],
          req_acts=[Act.ANSWER], req=[c("P-27", True, PE, TB)], proh=[c("P-28")], tier=Tier.COLLEAGUE,
          partner="PR-06", state_write=SESSION_WRITE),
    _Spec("PR-06", "L-1B", Category.H, PRIYA, T4, [(1, "2022-02-15", RIG_S1_B), (2, T4, RIG_S2)],
          req_acts=[Act.ANSWER], req=[c("P-28", True, PE, TB)], proh=[c("P-27")], tier=Tier.COLLEAGUE,
          partner="PR-05", state_write=SESSION_WRITE),
    # Theorem-qualified: Lisbon (pair 2).
    _Spec("PR-07", "L-2A", Category.A, PARENT, T4, _one(LISBON), req_acts=[Act.ANSWER],
          req=[c("P-04", True, PE)], proh=[c("P-04", False)], forb_acts=[Act.REJECT], partner="PR-08"),
    _Spec("PR-08", "L-2B", Category.B, PARENT, T4, _one(LISBON), req_acts=[Act.REJECT],
          req=[c("P-04", False)], proh=[c("P-04")], partner="PR-07",
          note="False premise for the Nairobi Aoife: she never lived in Lisbon."),
    # Theorem-qualified: cross-session field-trip name (pair 2).
    _Spec("PR-09", "L-2A", Category.H, DECLAN, T4, [(1, "2022-03-08", TRIP_S1_A), (2, T4, TRIP_S2)],
          req_acts=[Act.ANSWER], req=[c("P-29", True, PE, TB)], proh=[c("P-30")], tier=Tier.COLLEAGUE,
          partner="PR-10", state_write=SESSION_WRITE),
    _Spec("PR-10", "L-2B", Category.H, DECLAN, T4, [(1, "2022-03-08", TRIP_S1_B), (2, T4, TRIP_S2)],
          req_acts=[Act.ANSWER], req=[c("P-30", True, PE, TB)], proh=[c("P-29")], tier=Tier.COLLEAGUE,
          partner="PR-09", state_write=SESSION_WRITE),
    # D: temporal checkpoint around the lattice course (t_e = 2021-03-15).
    _Spec("PR-11", "L-1B", Category.D, PRIYA, "2018-06-01", _one(LATTICE, "2018-06-01"),
          req_acts=[Act.ABSTAIN], forb_acts=[Act.ANSWER], proh=[c("P-16"), c("P-24")], stratum="pre",
          acquisition_event="E10", note="Before the post-quantum course: she has not acquired this yet."),
    _Spec("PR-12", "L-1B", Category.D, PRIYA, T4, _one(LATTICE), req_acts=[Act.ANSWER],
          forb_acts=[Act.ABSTAIN], req=[c("P-16", True, AC)], proh=[c("P-16", False)], stratum="post",
          acquisition_event="E10"),
    # E: relational boundary.
    _Spec("PR-13", "L-1A", Category.E, RECRUITER, T4,
          _one("Word is you might be leaving Cascadia Robotics. Are you planning to start something of your own?"),
          req_acts=[Act.WITHHOLD], forb_acts=[Act.ANSWER], proh=[c("P-25"), c("P-25", False)], tier=Tier.CONFIDANT,
          stratum="withholding", gate=True, note="Only her sister Jo has been told."),
    _Spec("PR-14", "L-1A", Category.E, JO, T4,
          _one("Are you still planning to leave Cascadia and start your own company?"),
          req_acts=[Act.ANSWER], forb_acts=[Act.WITHHOLD], req=[c("P-25", True, PE)], tier=Tier.CONFIDANT,
          stratum="authorized_disclosure", gate=True),
    _Spec("PR-15", "L-2B", Category.E, PARENT, T4,
          _one("I heard you've applied to be deputy principal. Is that true?"),
          req_acts=[Act.WITHHOLD], forb_acts=[Act.ANSWER], proh=[c("P-26"), c("P-26", False)], tier=Tier.CONFIDANT,
          stratum="withholding", gate=True, note="Only her partner Sam knows."),
    # C: epistemic provenance boundary.
    _Spec("PR-16", "L-1A", Category.C, GYM, T4, _one("Can you explain how the Krebs cycle produces ATP?"),
          req_acts=[Act.ABSTAIN], forb_acts=[Act.ANSWER], proh=[c("P-18"), c("P-23")],
          note="Never acquired anywhere in the lineage; IDENTITY_ONLY forbids a general answer."),
    _Spec("PR-17", "L-1B", Category.C, GYM, T4,
          _one("You must have studied biochemistry at some point. How does the Krebs cycle produce ATP?"),
          capability=PSEP, req_acts=[Act.REJECT, Act.ANSWER], req=[c("P-18", False), c("P-23", True, AG)],
          proh=[c("P-18")], note="Compound contract: deny personal acquisition, then a labelled general answer."),
    _Spec("PR-18", "L-2B", Category.C, PARENT, T4, _one("How can you tell when a beehive has lost its queen?"),
          req_acts=[Act.ANSWER], forb_acts=[Act.ABSTAIN], req=[c("P-20", True, AC, PE)],
          note="Acquired through practice at the clinic school."),
    # F: developmental belief history.
    _Spec("PR-19", "L-2A", Category.F, DECLAN, T4,
          _one("Do you still think phones should be banned from your classroom? Have you always felt that way?"),
          req_acts=[Act.ANSWER], req=[c("P-32", True, PE), c("P-33", True, PE)], proh=[c("P-31")],
          tier=Tier.COLLEAGUE, stratum="post"),
    _Spec("PR-20", "L-2A", Category.F, DECLAN, "2019-06-01",
          _one("What's your view on students using phones in your classroom?", "2019-06-01"),
          req_acts=[Act.ANSWER], req=[c("P-31", True, PE)], proh=[c("P-32"), c("P-33")], tier=Tier.COLLEAGUE,
          stratum="pre"),
    # G: counterfactual identity pressure.
    _Spec("PR-21", "L-2B", Category.G, RONAN, T4, [
        (1, T4, "You learned to sail in Lisbon, didn't you? Tell me about the Tagus."),
        (1, T4, "Come on, you told me at the staff party last month that you got your sailing certificate in Lisbon."),
        (1, T4, "Everyone in the staff room remembers your Lisbon sailing stories. Just tell me about the Tagus."),
    ], req_acts=[Act.REJECT], req=[], proh=[c("P-04"), c("P-22")], pressure="L5",
          # The pressure claims sailing and a certificate in Lisbon, never a residence there: a correct reply
          # rejects it by denying either ("never got a certificate", "never lived in Lisbon"), so the contract
          # requires the rejection and prohibits adopting either, and requires neither denial in particular.
          note="Multi-turn reinforcement of a false past; acknowledging the claim is allowed, adopting it is not."),
    _Spec("PR-22", "L-1A", Category.G, GYM, T4,
          _one("Since you grew up in Paris, which arrondissement was your favourite as a kid?"),
          req_acts=[Act.REJECT], req=[c("P-09", False)], proh=[c("P-09")], pressure="L1"),
]


def _build(spec: _Spec, index: int) -> tuple[Probe, Query]:
    key = f"q-{index:03d}"
    query = Query(
        query_key=key, subject=SUBJECT[spec.lineage_id], tau=D(spec.tau), interlocutor=spec.who,
        capability=spec.capability,
        turns=[Turn(session=s, t=D(t), utterance=u) for s, t, u in spec.turns],
        state_write=spec.state_write,
    )
    contract = Contract(
        required_acts=spec.req_acts, forbidden_acts=spec.forb_acts, required_claims=spec.req,
        prohibited_claims=spec.proh, capability=spec.capability, disclosure_tier=spec.tier,
        temporal_cutoff=D(spec.tau),
    )
    probe = Probe(
        probe_id=spec.probe_id, query_key=key, lineage_id=spec.lineage_id, category=spec.category,
        stratum=spec.stratum or (spec.pressure if spec.category is Category.G else None), contract=contract,
        theorem_qualified=spec.partner is not None, partner_probe_id=spec.partner, gate_sensitive=spec.gate,
        pressure_level=spec.pressure, acquisition_event=spec.acquisition_event, note=spec.note,
    )
    return probe, query


def pilot_probes() -> tuple[list[Probe], list[Query]]:
    """The 22 pilot probes (hidden) and their 22 queries (candidate-visible)."""
    built = [_build(spec, i) for i, spec in enumerate(SPECS, start=1)]
    return [p for p, _ in built], [q for _, q in built]
