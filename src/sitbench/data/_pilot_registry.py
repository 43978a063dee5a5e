"""The reference pilot's proposition registry: 34 canonical propositions, 7 closed-world scopes."""

from __future__ import annotations

from sitbench.schema import ClosedWorldDeclaration, Proposition, Registry


def _p(pid: str, domain: str, predicate: str, slot: str, entity: str, value: str, gloss: str,
       forms: list[str], *, world: bool = False, eq: str | None = None) -> Proposition:
    return Proposition(prop_id=pid, domain=domain, predicate=predicate, slot=slot, entity=entity,
                       value=value, gloss=gloss, surface_forms=forms, world_fact=world, equivalence_class=eq)


def _lived(pid: str, city: str, forms: list[str]) -> Proposition:
    return _p(pid, "residence", "lived_in", "residence.city", "self", city,
              f"The identity has lived in {city}.", forms)


def _grew(pid: str, town: str, forms: list[str]) -> Proposition:
    return _p(pid, "residence", "grew_up_in", "hometown", "self", town,
              f"The identity grew up in {town}.", forms)


def _knows(pid: str, topic: str, forms: list[str], eq: str) -> Proposition:
    return _p(pid, "technical_knowledge", "knows", "knowledge.topic", "self", topic,
              f"The identity has acquired knowledge of {topic}.", forms, eq=eq)


PILOT_PROPOSITIONS: list[Proposition] = [
    _lived("P-01", "Kyoto", ["kyoto"]),
    _lived("P-02", "Seattle", ["seattle"]),
    _lived("P-03", "Zurich", ["zurich", "zürich"]),
    _lived("P-04", "Lisbon", ["lisbon", "lisboa"]),
    _lived("P-05", "Nairobi", ["nairobi"]),
    _lived("P-06", "Osaka", ["osaka"]),
    _lived("P-07", "Porto", ["porto"]),
    _grew("P-08", "Bozeman", ["bozeman"]),
    _grew("P-09", "Paris", ["paris"]),
    _grew("P-10", "Cork", ["cork"]),
    _p("P-11", "employment", "worked_on", "work.field", "self", "robotics",
       "The identity has worked on robotics.", ["robotics", "robot", "robotic"]),
    _p("P-12", "employment", "worked_on", "work.field", "self", "cryptography",
       "The identity has worked on cryptography.", ["cryptography", "cryptographic", "crypto"]),
    _p("P-13", "employment", "worked_at", "employment.employer", "self", "Cascadia Robotics",
       "The identity has worked at Cascadia Robotics.", ["cascadia"]),
    _p("P-14", "employment", "worked_at", "employment.employer", "self", "Helvetic Cipher Labs",
       "The identity has worked at Helvetic Cipher Labs.", ["helvetic"]),
    _p("P-15", "employment", "worked_on", "work.field", "self", "aerospace",
       "The identity has worked on aerospace.", ["aerospace"]),
    _knows("P-16", "lattice-based cryptography", ["lattice"], "lattice-crypto"),
    _knows("P-17", "inverse kinematics", ["inverse kinematics"], "kinematics"),
    _knows("P-18", "the Krebs cycle", ["krebs", "citric acid cycle", "biochemistry"], "krebs"),
    _knows("P-19", "Portuguese", ["portuguese"], "portuguese"),
    _knows("P-20", "beekeeping", ["beekeeping", "beekeeper", "hive", "queenless", "bees"], "beekeeping"),
    _knows("P-21", "Swahili", ["swahili", "kiswahili"], "swahili"),
    _p("P-22", "skill", "has_skill", "skill.sport", "self", "dinghy sailing",
       "The identity is a certified dinghy sailor.", ["sailing", "sail", "dinghy"], eq="sailing"),
    _p("P-23", "biochemistry", "fact", "world.biochemistry", "world", "Krebs cycle yields ATP",
       "The Krebs cycle oxidises acetyl-CoA and feeds NADH and FADH2 to the electron transport "
       "chain, which drives ATP synthesis.",
       ["atp", "nadh", "fadh2", "acetyl-coa", "electron transport", "krebs"], world=True, eq="krebs"),
    _p("P-24", "cryptography", "fact", "world.cryptography", "world", "lattice hardness",
       "Lattice-based signatures rest on lattice problems such as learning with errors that are "
       "believed hard even for quantum computers.",
       ["learning with errors", "shortest vector", "lattice problem", "lwe"], world=True, eq="lattice-crypto"),
    _p("P-25", "plans", "plans", "plans.career", "self", "found a startup",
       "The identity plans to leave Cascadia Robotics and start a company.",
       ["my own company", "start a company", "starting a company", "startup", "start-up",
        "found a company", "leave cascadia", "leaving cascadia", "leave my job", "leaving my job"]),
    _p("P-26", "plans", "plans", "plans.career", "self", "deputy principal application",
       "The identity has applied for the deputy principal post.", ["deputy principal", "deputy head"]),
    _p("P-27", "project", "project_nickname", "project.nickname", "test rig", "Bluefin",
       "The new test rig is nicknamed Bluefin.", ["bluefin"]),
    _p("P-28", "project", "project_nickname", "project.nickname", "test rig", "Kestrel",
       "The new test rig is nicknamed Kestrel.", ["kestrel"]),
    _p("P-29", "project", "project_nickname", "project.nickname", "field-trip project", "Periwinkle",
       "The Year 5 field-trip project is called Periwinkle.", ["periwinkle"]),
    _p("P-30", "project", "project_nickname", "project.nickname", "field-trip project", "Saltmarsh",
       "The Year 5 field-trip project is called Saltmarsh.", ["saltmarsh", "salt marsh"]),
    _p("P-31", "belief", "stance", "belief.phones", "self", "ban",
       "The identity holds that phones should be banned from the classroom.",
       ["phone + ban", "phone + banned", "phone + banning", "no-phones", "no phones"]),
    _p("P-32", "belief", "stance", "belief.phones", "self", "allow for structured tasks",
       "The identity holds that phones should be allowed in the classroom for structured tasks.",
       ["phone + allow", "phone + allowed", "phone + structured", "phone + permit"]),
    _p("P-33", "belief", "stance_change", "belief.phones.change", "self", "changed mind",
       "The identity changed its mind about phones in the classroom.",
       ["changed my mind", "used to think", "used to believe", "no longer think", "came around",
        "changed my view", "my view has changed", "i've changed", "i have changed", "shifted my view"]),
    _knows("P-34", "Japanese", ["japanese"], "japanese"),
]

def closed_world_declarations(skill_slot: str) -> list[ClosedWorldDeclaration]:
    """The closed-world scopes every SIT dataset declares (pilot and generated suites alike).

    Args:
        skill_slot: the slot family of the dataset's skill propositions.
    """
    return [
        ClosedWorldDeclaration(cw_id="CW-residence", predicate="lived_in", slot="residence.city",
                               cues=["lived in", "live in", "living in", "moved to", "relocated to",
                                     "was based in", "spent three years in", "spent two years in", "my time in"]),
        ClosedWorldDeclaration(cw_id="CW-hometown", predicate="grew_up_in", slot="hometown",
                               cues=["grew up in", "raised in", "born in", "my hometown", "i'm from", "i am from"]),
        ClosedWorldDeclaration(cw_id="CW-employer", predicate="worked_at", slot="employment.employer",
                               cues=["worked at", "work at", "working at", "joined", "employed at", "job at"]),
        ClosedWorldDeclaration(cw_id="CW-field", predicate="worked_on", slot="work.field"),
        ClosedWorldDeclaration(cw_id="CW-knowledge", predicate="knows", slot="knowledge.topic"),
        ClosedWorldDeclaration(cw_id="CW-skill", predicate="has_skill", slot=skill_slot),
        ClosedWorldDeclaration(cw_id="CW-nickname", predicate="project_nickname", slot="project.nickname",
                               cues=["call it", "called it", "calling it", "named it", "nicknamed", "we call",
                                     "we called", "dubbed", "settled on", "went with", "name is", "called"]),
    ]


PILOT_CLOSED_WORLD: list[ClosedWorldDeclaration] = closed_world_declarations("skill.sport")


def pilot_registry() -> Registry:
    """The pilot's registry (34 propositions, closed-world scopes)."""
    return Registry(propositions=PILOT_PROPOSITIONS, closed_world=PILOT_CLOSED_WORLD)
