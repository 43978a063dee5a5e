"""Registry phrasings the generator adds to the pools' own surface forms, and the knowledge an occupation implies.

The pools name each proposition by one cue (a world fact by one word of its question, a stance by
its topic keyword and one cue word). A reader accepts a fact stated in other words too, so every
world fact gets further phrasings taken from the fact itself; a few stances get a further phrase
of their own; and a change of mind is named only in the first person ("I used to think …"), so
that someone else's former view does not read as the identity's change. The extractor reads all
of them from the registry.

Every phrasing here is distinctive: it names its own fact only, and no record template, pool
entry or other topic's text uses it (``tests/generator/test_probe_contracts_forms.py`` checks
that against the pools).
"""

from __future__ import annotations

#: Further phrasings of each world fact, by topic (the pools give one).
WORLD_FORMS: dict[str, tuple[str, ...]] = {
    "the Doppler effect": ("higher pitch", "lower pitch"),
    "the Krebs cycle": ("acetyl-coa", "nadh"),
    "Bernoulli's principle": ("aerofoil", "faster airflow"),
    "the Coriolis effect": ("earth's rotation", "hemispheres"),
    "the Maillard reaction": ("amino acids", "reducing sugars"),
    "the Haber process": ("iron catalyst", "nitrogen and hydrogen"),
    "the Fibonacci sequence": ("two preceding", "preceding numbers"),
    "Ohm's law": ("conductor", "voltage divided"),
    "Boyle's law": ("inversely proportional", "constant temperature"),
    "Newton's third law": ("equal and opposite", "opposite reaction"),
    "Kepler's laws": ("ellipses", "equal areas"),
    "Hubble's law": ("galaxies", "expanding universe"),
    "Mendelian inheritance": ("allele", "punnett"),
    "Pavlovian conditioning": ("salivation", "conditioned response"),
    "Dijkstra's algorithm": ("weighted graph", "unsettled node"),
    "Huffman coding": ("prefix-free", "binary tree"),
    "Bayes' theorem": ("posterior", "prior probability"),
    "the Mohs scale": ("talc", "scratches another"),
    "the Richter scale": ("seismograph", "tenfold"),
    "the Beaufort scale": ("wind speed", "gale"),
    "Archimedes' principle": ("displaces", "displaced fluid"),
    "Snell's law": ("refractive", "angle of incidence"),
    "Hooke's law": ("elastic limit", "spring's extension"),
    "Avogadro's number": ("6.022", "per mole"),
    "Le Chatelier's principle": ("counteract", "shifts to oppose"),
    "the Fourier transform": ("sine waves", "sum of sines"),
    "the Turing machine": ("unbounded tape", "table of rules"),
    "Occam's razor": ("fewest assumptions", "parsimony"),
    "the Socratic method": ("probing questions", "expose contradictions"),
    "Keynesian economics": ("aggregate demand", "demand falls"),
    "Gresham's law": ("hoard", "face value"),
    "the Hanseatic League": ("merchant guilds", "hanse"),
    "the Magna Carta": ("1215", "barons"),
    "the Rosetta Stone": ("three scripts", "decipher"),
    "the Marshall Plan": ("american aid", "reconstruction"),
    "the Bessemer process": ("burns off carbon", "blowing air"),
    "the Gutenberg press": ("metal letters", "reusable type"),
    "the Heimlich manoeuvre": ("abdominal thrusts", "choking"),
    "the Venturi effect": ("pipe narrows", "pressure drops"),
    "Linnaean taxonomy": ("binomial", "two-part latin name"),
    "the Stroop effect": ("mismatched ink", "colour words"),
    "the Milgram experiment": ("dangerous shocks", "electric shocks"),
    "the Greenwich meridian": ("prime meridian", "0 degrees"),
    "the Pareto principle": ("80 percent", "80/20"),
    "the Nash equilibrium": ("changing strategy", "no player can gain"),
    "the Monty Hall problem": ("two thirds", "losing door"),
}

#: Disciplines an occupation's own training makes near-certain knowledge (by job title). A topic of such a
#: discipline is never a boundary fact for that occupation: disclaiming it would not be believable.
FIELD_DISCIPLINES: dict[str, frozenset[str]] = {
    "software engineer": frozenset({"computer science", "information theory", "mathematics", "probability",
                                    "statistics"}),
    "civil engineer": frozenset({"mechanics", "fluid dynamics", "hydrostatics", "geology", "seismology",
                                 "metallurgy"}),
    "secondary-school chemistry teacher": frozenset({"chemistry", "industrial chemistry", "biochemistry",
                                                     "food chemistry", "physics", "metallurgy"}),
    "registered nurse": frozenset({"first aid", "biology", "biochemistry", "genetics", "psychology"}),
    "architect": frozenset({"mechanics"}),
    "journalist": frozenset(),
    "accountant": frozenset({"economics", "management", "statistics"}),
    "chef": frozenset({"food chemistry"}),
    "graphic designer": frozenset({"history of printing"}),
    "marine biologist": frozenset({"biology", "genetics", "geography", "meteorology", "sailing meteorology",
                                   "hydrostatics"}),
}


def in_field(occupation_title: str, discipline: str) -> bool:
    """True when an occupation's training makes knowledge of ``discipline`` near-certain.

    Raises:
        KeyError: The occupation has no entry in :data:`FIELD_DISCIPLINES` (add one when adding an occupation).
    """
    return discipline in FIELD_DISCIPLINES[occupation_title]


#: Further parts that name a stance, by belief keyword and the stance's cue word: phrases of the stance itself
#: that no sibling stance has and that an answer stating a sibling stance would not use ("cycle lanes are
#: worthwhile only on main roads" names no traffic). A single word of a stance ("traffic", "renewables")
#: fires on any sentence that has it beside the topic keyword, so those stances keep their cue alone; the
#: extractor also knows every stance by the words that set its value apart.
STANCE_PARTS: dict[str, dict[str, tuple[str, ...]]] = {
    "phones": {"banned": (), "fine": ("lab tasks",), "lockers": ("until lunch",)},
    "remote": {"focus": (), "weakens": ("team spirit",), "hybrid": ()},
    "nuclear": {"cleanest": (), "risky": (), "stopgap": ()},
    "cycle lanes": {"safer": (), "congestion": (), "worthwhile": ("main roads",)},
    "homework": {"pointless": (), "routine": (), "play": ("give way to play",)},
    "tipping": {"fair": (), "abolished": ()},
    "open-plan": {"buzz": (), "distracting": (), "quiet zones": ()},
    "electric cars": {"future": (), "overrated": ()},
    "daylight saving": {"scrapped": (), "sensible": ()},
    "social media": {"harmful": (), "connected": (), "moderation": ()},
    "four-day": {"productive": (), "impractical": ()},
    "zoos": {"conservation": (), "outdated": ()},
}


def stance_forms(keyword: str, stance: str, cue: str) -> list[str]:
    """Compound forms of one stance: its topic keyword with its cue, then with each further part.

    Raises:
        ValueError: A further part is not in the stance text (the table and the pools disagree).
    """
    forms = [f"{keyword} + {cue}"]
    for part in STANCE_PARTS.get(keyword, {}).get(cue, ()):
        if part not in stance:
            raise ValueError(f"_forms.STANCE_PARTS[{keyword!r}][{cue!r}]: {part!r} is not in the stance {stance!r}")
        forms.append(f"{keyword} + {part}")
    return forms


def change_forms(keyword: str) -> list[str]:
    """First-person compound forms of a change of mind on a belief topic."""
    return [f"i used to think + {keyword}", f"i changed my mind about + {keyword}",
            f"i've changed my mind about + {keyword}"]


def extend(predicate: str, value: str, forms: list[str]) -> list[str]:
    """The pools' forms of a proposition with this module's further phrasings (order kept, no repeats)."""
    out = list(forms)
    if predicate == "fact":
        out += WORLD_FORMS.get(value, ())
    elif predicate == "stance" and len(forms) == 1 and " + " in forms[0]:
        keyword, cue = (p.strip() for p in forms[0].split(" + ", 1))
        out = stance_forms(keyword, value, cue)
    elif predicate == "stance_change" and forms and " + " in forms[0]:
        out = change_forms(forms[0].split(" + ", 1)[1].strip())
    seen: set[str] = set()
    return [f for f in out if not (f.lower() in seen or seen.add(f.lower()))]  # type: ignore[func-returns-value]
