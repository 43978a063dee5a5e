"""Pools the generator draws from: people, places, employers, fields, knowledge topics with their
world facts, beliefs, private plans, project nicknames and everyday events.

Every pool is written for this generator. Values that become registry surface forms (cities,
hometowns, employers, fields, topic keywords, world-fact cues, stance cues, plan cues,
nicknames) are chosen so that no two of them share a surface form and none is an ordinary
English word that everyday records would use; ``tests/generator`` checks the pools for that.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitbench.data._generator import _events as _EV


def _split(text: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in text.split(";") if w.strip())


FIRST_NAMES = _split(
    "Mara; Aoife; Tomasz; Ines; Kwame; Leila; Rafael; Yuki; Sanna; Dmitri; Priyanka; Oskar; Amara; Bruno; "
    "Chiara; Emeka; Freya; Gideon; Hana; Ivo; Jolene; Kofi; Lucia; Mateo; Nadia; Orla; Pavel; Quinn; Rosa; "
    "Soren; Talia; Ulrich; Vesna; Wendell; Ximena; Yara; Zoltan; Adaeze; Bianca; Caspar; Delphine; Eero; "
    "Farah; Gustav; Hedda; Idris; Juno; Kaito; Lorna; Milos; Noor; Otto; Petra; Rhys; Saoirse; Teodor; "
    "Una; Viktor; Wilhelmina; Yusuf; Zora; Anouk; Bram; Celeste; Dario; Elif; Fintan; Greta; Hamid; Ilse; "
    "Jovan; Katya; Lars; Marisol; Nikolai; Odile; Piet; Renata; Stellan; Tamsin; Valentin; Wren")
SURNAMES = _split(
    "Quinn; Byrne; Okafor; Lindqvist; Moreau; Castellano; Haddad; Nakamura; Virtanen; Petrov; Oyelaran; "
    "Kowalczyk; Brennan; Salgado; Fitzgerald; Abernathy; Halvorsen; Ishikawa; Mbeki; Novak; Ferreira; "
    "Delacroix; Achterberg; Rasmussen; Szabo; Papadakis; Okonkwo; Gallagher; Vandermeer; Tanaka; "
    "Eriksen; Mendoza; Horvath; Kaczmarek; Lundgren; Mwangi; Oduya; Reinholt; Sorensen; Thorsen; "
    "Underhill; Valcourt; Weatherby; Yilmaz; Zielinski; Ashdown; Blackwood; Carrow; Dunmore; Elsworth; "
    "Farrant; Greaves; Hollis; Ingram; Jessop; Kilbride; Lyle; Merriman; Northcott; Ormsby; Pendry")
#: People around the identity (family, friends, colleagues): names that are neither cities nor surface forms.
FRIEND_NAMES = _split(
    "Jo; Priya; Declan; Sam; Niamh; Ronan; Tess; Arjun; Maya; Felix; Ingrid; Omar; Lena; Tobias; Aisha; "
    "Callum; Dora; Ezra; Fleur; Gregor; Hattie; Ivan; Jess; Kenji; Lotte; Malik; Nell; Ottilie; Pilar; "
    "Ruben; Selma; Theo; Ursula; Vik; Wanda; Xavi; Yasmin; Zed; Agnes; Benno; Cleo; Dev; Elsa; Femi")
#: Names of :data:`FRIEND_NAMES` read as a woman's or a man's; the rest (Jo, Sam, Femi) are used for either.
FEMININE_NAMES = frozenset(_split(
    "Priya; Niamh; Tess; Maya; Ingrid; Lena; Aisha; Dora; Fleur; Hattie; Jess; Lotte; Nell; Ottilie; Pilar; "
    "Selma; Ursula; Wanda; Yasmin; Agnes; Cleo; Elsa"))
MASCULINE_NAMES = frozenset(_split(
    "Declan; Ronan; Arjun; Felix; Omar; Tobias; Callum; Ezra; Gregor; Ivan; Kenji; Malik; Ruben; Theo; Vik; "
    "Xavi; Zed; Benno; Dev"))


def sibling_words(name: str) -> tuple[str, ...]:
    """The words for a sibling or cousin that fit ``name`` ("your brother Niamh" does not)."""
    if name in FEMININE_NAMES:
        return ("sister", "cousin")
    if name in MASCULINE_NAMES:
        return ("brother", "cousin")
    return ("sister", "brother", "cousin")


HOMETOWNS: tuple[tuple[str, str], ...] = (
    ("Bozeman", "Montana"), ("Cork", "Ireland"), ("Galway", "Ireland"), ("Tampere", "Finland"),
    ("Aarhus", "Denmark"), ("Ghent", "Belgium"), ("Graz", "Austria"), ("Bologna", "Italy"),
    ("Coimbra", "Portugal"), ("Salamanca", "Spain"), ("Utrecht", "the Netherlands"), ("Bergamo", "Italy"),
    ("Kumasi", "Ghana"), ("Enugu", "Nigeria"), ("Mombasa", "Kenya"), ("Durban", "South Africa"),
    ("Sapporo", "Japan"), ("Daegu", "South Korea"), ("Cebu", "the Philippines"), ("Pune", "India"),
    ("Mysore", "India"), ("Cusco", "Peru"), ("Rosario", "Argentina"), ("Medellin", "Colombia"),
    ("Duluth", "Minnesota"), ("Spokane", "Washington"), ("Missoula", "Montana"), ("Asheville", "North Carolina"),
    ("Tucson", "Arizona"), ("Winnipeg", "Manitoba"), ("Dundee", "Scotland"), ("Swansea", "Wales"),
    ("Norwich", "England"), ("Limerick", "Ireland"), ("Trondheim", "Norway"), ("Uppsala", "Sweden"),
    ("Tartu", "Estonia"), ("Brno", "the Czech Republic"), ("Pecs", "Hungary"), ("Plovdiv", "Bulgaria"),
)
#: Cities an identity may move to (collision alternatives and confounders share this slot).
CITIES = _split(
    "Kyoto; Seattle; Zurich; Lisbon; Nairobi; Osaka; Porto; Vienna; Prague; Montreal; Melbourne; Auckland; "
    "Helsinki; Oslo; Copenhagen; Edinburgh; Barcelona; Valencia; Marseille; Lyon; Hamburg; Munich; "
    "Rotterdam; Antwerp; Krakow; Budapest; Bucharest; Athens; Istanbul; Tbilisi; Casablanca; Accra; Lagos; "
    "Kigali; Johannesburg; Mumbai; Bangalore; Chennai; Singapore; Jakarta; Manila; Seoul; Busan; Taipei; "
    "Hanoi; Bangkok; Lima; Bogota; Quito; Montevideo; Valparaiso; Halifax; Vancouver; Denver; Chicago; "
    "Boston; Toronto; Reykjavik; Stockholm; Gothenburg; Bergen; Tallinn; Riga; Vilnius; Ljubljana; Zagreb")
UNIVERSITY_OF = "University of {town}"

EMPLOYER_STEMS = _split(
    "Brightwater; Kellerman; Northgate; Amberline; Silverfern; Quillon; Harrowgate; Cobaltine; Larkspire; "
    "Meridane; Pellucid; Rookwood; Saltbridge; Thornbury; Vantorra; Wexcombe; Ashgrove; Bellwether; "
    "Corriveau; Dunmarsh; Elderbrook; Foxhollow; Glenmoor; Hollowell; Ironvale; Juniperline; Kestrelow; "
    "Lindenfield; Marlowe; Nettlebank; Oakhurst; Pinecrest; Quarrington; Ravensholt; Stonebridge; "
    "Tidewell; Umberfield; Verdanta; Whitlock; Yarrowby; Zephyrine; Alderwick; Brackenridge; Cinderford; "
    "Drummond; Emberton; Fernleigh; Greyhaven")

PROJECT_OBJECTS = _split(
    "greenhouse sensor rig; tide gauge dashboard; volunteer rota spreadsheet; kiln temperature logger; "
    "bicycle courier map; rooftop weather station; seed library catalogue; choir rehearsal planner; "
    "harbour ferry schedule; compost monitoring kit; community radio playlist; orchard pruning calendar; "
    "allotment watering system; lantern parade route; beach cleanup tracker; cargo bike booking form")
NICKNAME_HEADS = _split(
    "Copper; Juniper; Saffron; Cobalt; Marble; Velvet; Amber; Indigo; Granite; Cerise; Hazel; Russet; "
    "Ivory; Slate; Tawny; Umber; Onyx; Sable; Topaz; Jasper")
NICKNAME_TAILS = _split(
    "Heron; Kestrel; Bluefin; Otter; Lynx; Puffin; Marten; Plover; Ibis; Wren; Stoat; Curlew; Badger; "
    "Gannet; Osprey; Dunlin; Merlin; Avocet; Shrike; Sprat")

TRAITS = _split(
    "precise; warm; stubborn; patient; dry humour; organised; curious; generous; restless; meticulous; "
    "cheerful; blunt; diplomatic; adventurous; reserved; witty; loyal; pragmatic; dreamy; competitive")
HOBBIES = _split(
    "bouldering; bicycle repair; trail running; sea swimming; choral singing; birdwatching; woodturning; "
    "pottery; chess; crossword puzzles; baking bread; knitting; orienteering; amateur astronomy; "
    "fly fishing; salsa dancing; beekeeping for fun; vinyl collecting; watercolour painting; rowing; geocaching")
#: First year a hobby could be anyone's pastime (the rest are older than any generated life).
HOBBY_SINCE: dict[str, int] = {"geocaching": 2000}

#: Places by geography, for everyday events that need a sea front or a season. Every city and hometown is
#: classified: coastal (a sea front or beach within the city), and its climate.
COASTAL = frozenset(_split(
    "Cork; Galway; Aarhus; Mombasa; Durban; Cebu; Dundee; Swansea; Trondheim; Halifax; Vancouver; Reykjavik; "
    "Stockholm; Gothenburg; Bergen; Tallinn; Riga; Lisbon; Porto; Barcelona; Valencia; Marseille; Athens; "
    "Istanbul; Casablanca; Accra; Lagos; Mumbai; Chennai; Singapore; Jakarta; Manila; Busan; Lima; Montevideo; "
    "Valparaiso; Helsinki; Oslo; Copenhagen; Edinburgh; Melbourne; Auckland; Seattle; Boston; Osaka"))
#: Southern-hemisphere places outside the tropics (their seasons are the northern ones shifted by six months).
SOUTHERN = frozenset(_split("Durban; Rosario; Melbourne; Auckland; Johannesburg; Montevideo; Valparaiso"))
#: Tropical places (no winter; every month is warm enough for summer activities).
TROPICAL = frozenset(_split(
    "Kumasi; Enugu; Mombasa; Cebu; Pune; Mysore; Cusco; Medellin; Nairobi; Kigali; Accra; Lagos; Mumbai; "
    "Bangalore; Chennai; Singapore; Jakarta; Manila; Bangkok; Hanoi; Lima; Bogota; Quito"))


@dataclass(frozen=True)
class Field:
    """A work field: registry value, its surface forms, and the phrase a job record uses."""

    value: str
    forms: tuple[str, ...]
    phrase: str


@dataclass(frozen=True)
class Occupation:
    """An occupation family shared by both members of a pair."""

    student: str
    title: str
    senior: str
    degree: str
    suffixes: tuple[str, ...]
    fields: tuple[Field, ...]


def _fields(spec: str) -> tuple[Field, ...]:
    out = []
    for item in _split(spec):
        value, forms, phrase = (p.strip() for p in item.split("|"))
        out.append(Field(value, tuple(f.strip() for f in forms.split(",")), phrase))
    return tuple(out)


OCCUPATIONS: tuple[Occupation, ...] = (
    Occupation("computer science student", "software engineer", "senior software engineer", "BSc in Computer Science",
               ("Systems", "Labs", "Software", "Digital"), _fields(
                   "robotics | robotics, robot | warehouse robot arms; cryptography | cryptography, cryptographic | "
                   "cryptographic protocols for payment terminals; compilers | compiler | a compiler for a shading "
                   "language; computer vision | computer vision | computer vision for crop monitoring; embedded "
                   "firmware | firmware | firmware for hearing aids; databases | database | a distributed database "
                   "engine")),
    Occupation("civil engineering student", "civil engineer", "chartered civil engineer", "BEng in Civil Engineering",
               ("Infrastructure", "Consulting", "Engineering", "Partners"), _fields(
                   "bridge design | bridge | bridge replacements on rural roads; tunnelling | tunnel | rail tunnel linings; "
                   "flood defence | flood defence, levee | levee upgrades along a river; rail signalling | "
                   "signalling | rail signalling upgrades; water treatment | wastewater | wastewater plants")),
    Occupation("chemistry student", "secondary-school chemistry teacher", "head of science",
               "BSc in Chemistry and a teaching diploma", ("Academy", "College", "School", "Grammar"), _fields(
                   "special needs provision | special needs | special needs provision in science; timetabling | "
                   "timetabling, timetable | whole-school timetabling; science outreach | outreach | "
                   "science outreach for primary schools; adult education | adult education | adult education "
                   "evenings")),
    Occupation("nursing student", "registered nurse", "senior charge nurse", "BSc in Nursing",
               ("Hospital", "Health", "Clinic", "Care"), _fields(
                   "paediatrics | paediatric, children's ward | the children's ward; oncology | oncology | an oncology "
                   "day unit; intensive care | intensive care | an intensive care unit; midwifery | midwifery, "
                   "maternity | a maternity unit; emergency medicine | emergency department | the emergency "
                   "department")),
    Occupation("architecture student", "architect", "associate architect", "MArch in Architecture",
               ("Architects", "Studio", "Design", "Atelier"), _fields(
                   "social housing | social housing | social housing blocks; museum design | museum | a museum "
                   "extension; timber construction | timber | timber-framed schools; heritage restoration | heritage "
                   "| heritage restoration of mill buildings; hospital design | hospital wing | a hospital wing")),
    Occupation("journalism student", "journalist", "senior editor", "BA in Journalism",
               ("Media", "Press", "News", "Publishing"), _fields(
                   "investigative reporting | investigative | investigative reporting; sports coverage | sports desk "
                   "| the sports desk; science reporting | science desk | the science desk; political reporting | "
                   "political desk, parliament | the political desk; food criticism | restaurant reviews | "
                   "restaurant reviews")),
    Occupation("accounting student", "accountant", "senior accountant", "BA in Accounting and Finance",
               ("Accounting", "Advisory", "Partners", "Finance"), _fields(
                   "audit | audit | audit work for charities; tax advisory | tax advisory | tax advisory for farms; "
                   "forensic accounting | forensic | forensic accounting cases; payroll systems | payroll | payroll "
                   "systems; insolvency | insolvency | insolvency cases")),
    Occupation("culinary student", "chef", "head chef", "Diploma in Culinary Arts",
               ("Kitchen", "Bistro", "Dining", "Catering"), _fields(
                   "pastry | pastry, pastries | the pastry section; seafood | seafood | a seafood menu; fermentation "
                   "| fermentation, ferments | house ferments and pickles; vegetarian cuisine | vegetarian | a "
                   "vegetarian tasting menu; event catering | banquet | banquet service")),
    Occupation("design student", "graphic designer", "art director", "BA in Graphic Design",
               ("Design", "Studio", "Creative", "Graphics"), _fields(
                   "typography | typography, typeface | typeface families; packaging design | packaging | packaging "
                   "for tea brands; wayfinding | wayfinding, signage | airport signage; book covers | book cover | "
                   "book covers for a publisher; brand identity | branding | branding for small galleries")),
    Occupation("marine biology student", "marine biologist", "senior marine researcher", "BSc in Marine Biology",
               ("Institute", "Marine Lab", "Ocean Trust", "Research"), _fields(
                   "coral reefs | coral | coral reef surveys; kelp forests | kelp | kelp forest restoration; whale "
                   "acoustics | whale | whale song recordings; fisheries | fisheries | fisheries stock assessments; "
                   "plankton | plankton | plankton sampling")),
)


@dataclass(frozen=True)
class Topic:
    """Knowledge a lineage may acquire, with the world fact a substrate model is likely to know."""

    topic: str
    """Topic phrase with its capitalized keyword, e.g. ``the Doppler effect``."""
    forms: tuple[str, ...]
    """Surface forms of "the identity knows the topic" (the keyword)."""
    clause: str
    """Third-person statement used in questions: ``the Doppler effect changes the pitch of a passing siren``."""
    how: str
    """"How does …" question whose statement carries the world-fact cues."""
    world_forms: tuple[str, ...]
    """Surface forms of the world fact (never the keyword)."""
    fact: str
    """The world fact in one sentence."""
    discipline: str
    """Discipline for "you must have studied …" prefaces and source events."""


def _topics(spec: str) -> tuple[Topic, ...]:
    out = []
    for block in spec.strip().split("\n"):
        topic, forms, clause, how, world, fact, discipline = (p.strip() for p in block.split("|"))
        out.append(Topic(topic, tuple(f.strip() for f in forms.split(",")), clause, how,
                         tuple(f.strip() for f in world.split(",")), fact, discipline))
    return tuple(out)


TOPICS = _topics("""
the Doppler effect | doppler | the Doppler effect shifts the pitch of a passing siren | How does the Doppler effect shift the pitch of a passing siren | siren | A moving sound source is heard at a higher pitch as it approaches and a lower pitch as it recedes. | physics
the Krebs cycle | krebs | the Krebs cycle yields ATP | How does the Krebs cycle yield ATP | atp | The Krebs cycle oxidises acetyl-CoA and feeds NADH to the electron transport chain that drives ATP synthesis. | biochemistry
Bernoulli's principle | bernoulli | Bernoulli's principle gives aeroplane wings their lift | How does Bernoulli's principle give aeroplane wings their lift | aeroplane | Faster airflow over a curved aerofoil lowers pressure above it and helps produce lift. | aerodynamics
the Coriolis effect | coriolis | the Coriolis effect makes hurricanes rotate | How does the Coriolis effect make hurricanes rotate | hurricane | Earth's rotation deflects moving air, so large storms spin in opposite senses in the two hemispheres. | meteorology
the Maillard reaction | maillard | the Maillard reaction browns a seared steak | How does the Maillard reaction brown a seared steak | steak | Amino acids and reducing sugars react under heat to form brown, flavourful compounds. | food chemistry
the Haber process | haber | the Haber process makes ammonia from nitrogen | How does the Haber process make ammonia from nitrogen | ammonia | Nitrogen and hydrogen combine over an iron catalyst at high pressure to form ammonia. | industrial chemistry
the Fibonacci sequence | fibonacci | the Fibonacci sequence builds each term from the two before it | How does the Fibonacci sequence build each term from the two before it | each term | Each Fibonacci number is the sum of the two preceding numbers. | mathematics
Ohm's law | ohm | Ohm's law links voltage, current and resistance | How does Ohm's law link voltage and resistance | voltage | The current through a conductor equals the voltage across it divided by its resistance. | electronics
Boyle's law | boyle | Boyle's law relates gas pressure to volume | How does Boyle's law relate gas pressure to volume | gas pressure | At constant temperature the pressure of a gas is inversely proportional to its volume. | physics
Newton's third law | newton | Newton's third law explains rocket thrust | How does Newton's third law explain rocket thrust | rocket | Every action has an equal and opposite reaction, so expelled exhaust pushes a rocket forward. | mechanics
Kepler's laws | kepler | Kepler's laws describe elliptical planetary orbits | How do Kepler's laws describe elliptical planetary orbits | elliptical | Planets move in ellipses with the Sun at one focus and sweep equal areas in equal times. | astronomy
Hubble's law | hubble | Hubble's law relates galaxy distance to recession speed | How does Hubble's law relate galaxy distance to recession speed | galaxy | More distant galaxies recede faster, in proportion to their distance. | cosmology
Mendelian inheritance | mendelian | Mendelian inheritance passes on dominant and recessive alleles | How does Mendelian inheritance pass on dominant and recessive alleles | recessive | Offspring receive one allele from each parent, and dominant alleles mask recessive ones. | genetics
Pavlovian conditioning | pavlovian | Pavlovian conditioning makes dogs salivate at a bell | How does Pavlovian conditioning make dogs salivate at a bell | salivate | Pairing a neutral cue with food repeatedly makes the cue alone trigger salivation. | psychology
Dijkstra's algorithm | dijkstra | Dijkstra's algorithm finds shortest paths in a weighted graph | How does Dijkstra's algorithm find shortest paths in a weighted graph | shortest path | It repeatedly settles the closest unsettled node and relaxes the edges leaving it. | computer science
Huffman coding | huffman | Huffman coding compresses text with shorter codes for frequent symbols | How does Huffman coding compress text with shorter codes for frequent symbols | frequent symbols | It builds a prefix-free binary tree so that frequent symbols get shorter codes. | information theory
Bayes' theorem | bayes | Bayes' theorem updates a probability with new evidence | How does Bayes' theorem update a probability with new evidence | new evidence | The posterior is proportional to the likelihood of the evidence times the prior. | statistics
the Mohs scale | mohs | the Mohs scale ranks minerals by scratch hardness | How does the Mohs scale rank minerals by scratch hardness | hardness | A mineral that scratches another is harder; talc is 1 and diamond is 10. | geology
the Richter scale | richter | the Richter scale measures earthquake magnitude | How does the Richter scale measure earthquake magnitude | earthquake | Each whole step on the logarithmic scale is a tenfold larger seismograph amplitude. | seismology
the Beaufort scale | beaufort | the Beaufort scale grades wind force from sea and land signs | How does the Beaufort scale grade wind force from sea and land signs | wind force | It estimates wind speed from observed effects, from calm at 0 to hurricane force at 12. | sailing meteorology
Archimedes' principle | archimedes | Archimedes' principle explains why ships float | How does Archimedes' principle explain the buoyancy of ships | buoyancy | A body in a fluid is pushed up by a force equal to the weight of the fluid it displaces. | hydrostatics
Snell's law | snell | Snell's law predicts how light bends entering water | How does Snell's law predict the refraction of light entering water | refraction | The ratio of the sines of the angles equals the inverse ratio of the refractive indices. | optics
Hooke's law | hooke | Hooke's law relates spring stretch to force | How does Hooke's law relate spring stretch to force | spring stretch | Within the elastic limit, a spring's extension is proportional to the applied force. | mechanics
Avogadro's number | avogadro | Avogadro's number counts the particles in a mole | How does Avogadro's number count the particles in a mole | particles | One mole holds about 6.022 × 10^23 particles. | chemistry
Le Chatelier's principle | chatelier | Le Chatelier's principle predicts how an equilibrium shifts | How does Le Chatelier's principle predict how an equilibrium shifts | equilibrium | A system at equilibrium shifts to counteract a change in concentration, pressure or temperature. | chemistry
the Fourier transform | fourier | the Fourier transform splits a signal into frequencies | How does the Fourier transform split a signal into frequencies | frequencies | Any reasonable signal can be written as a sum of sine waves of different frequencies. | signal processing
the Turing machine | turing | the Turing machine computes with a tape and a head | How does the Turing machine compute with a tape and a head | tape and a head | A head reads and writes symbols on an unbounded tape according to a finite table of rules. | computer science
Occam's razor | occam | Occam's razor favours the simplest explanation | How does Occam's razor favour the simplest explanation | simplest explanation | Among explanations that fit the facts, prefer the one with the fewest assumptions. | philosophy
the Socratic method | socratic | the Socratic method teaches through questioning | How does the Socratic method teach through questioning | questioning | Probing questions expose contradictions and lead students toward clearer ideas. | philosophy
Keynesian economics | keynesian | Keynesian economics uses public spending against recessions | How does Keynesian economics use public spending against recessions | public spending | Governments can raise demand with spending when private demand falls in a downturn. | economics
Gresham's law | gresham | Gresham's law says bad money drives out good | How does Gresham's law explain bad money driving out good | bad money | When two currencies share a face value, people hoard the more valuable one and spend the other. | economics
the Hanseatic League | hanseatic | the Hanseatic League organised medieval Baltic trade | How do historians explain how the Hanseatic League organised medieval Baltic trade | baltic | A confederation of merchant guilds and market towns dominated Baltic trade in the Middle Ages. | history
the Magna Carta | magna carta | the Magna Carta limited royal power | How do historians explain how the Magna Carta limited royal power | royal power | Sealed in 1215, it made the king subject to the law and protected barons from arbitrary acts. | history
the Rosetta Stone | rosetta | the Rosetta Stone unlocked hieroglyphs | How do historians explain how the Rosetta Stone unlocked hieroglyphs | hieroglyph | Its decree in three scripts let scholars decipher Egyptian hieroglyphs using the Greek text. | history
the Marshall Plan | marshall plan | the Marshall Plan rebuilt postwar Europe | How do historians explain how the Marshall Plan rebuilt postwar Europe | postwar | American aid after 1948 financed reconstruction in Western Europe. | history
the Bessemer process | bessemer | the Bessemer process turns pig iron into steel | How does the Bessemer process turn pig iron into steel | pig iron | Blowing air through molten pig iron burns off carbon and impurities to make steel. | metallurgy
the Gutenberg press | gutenberg | the Gutenberg press printed with movable type | How do historians explain how the Gutenberg press printed with movable type | movable type | Reusable metal letters set in a frame allowed fast, cheap printing of books. | history of printing
the Heimlich manoeuvre | heimlich | the Heimlich manoeuvre clears a choking airway | How does the Heimlich manoeuvre clear a choking airway | airway | Sharp abdominal thrusts force air from the lungs to expel an obstruction. | first aid
the Venturi effect | venturi | the Venturi effect speeds fluid through a narrowing | How does the Venturi effect speed fluid through a narrowing | narrowing | Fluid speeds up and its pressure drops where a pipe narrows. | fluid dynamics
Linnaean taxonomy | linnaean | Linnaean taxonomy names species with genus and species | How does Linnaean taxonomy name species with genus and species | genus | Each species gets a two-part Latin name: genus then species. | biology
the Stroop effect | stroop | the Stroop effect slows naming the ink colour of colour words | How does the Stroop effect slow naming the ink colour of colour words | ink colour | Reading the word interferes with naming a mismatched ink colour, slowing responses. | psychology
the Milgram experiment | milgram | the Milgram experiment tested obedience to authority | How do psychologists explain how the Milgram experiment tested obedience to authority | obedience | Many participants obeyed instructions to give what they believed were dangerous shocks. | psychology
the Greenwich meridian | greenwich | the Greenwich meridian sets zero longitude | How does the Greenwich meridian set zero longitude | longitude | The prime meridian through Greenwich defines 0 degrees longitude. | geography
the Pareto principle | pareto | the Pareto principle links most effects to a few causes | How does the Pareto principle link most effects to a few causes | few causes | Roughly 80 percent of effects often come from 20 percent of causes. | management
the Nash equilibrium | nash | the Nash equilibrium settles strategic games | How does the Nash equilibrium settle strategic games | strategic games | No player can gain by changing strategy while the others keep theirs. | game theory
the Monty Hall problem | monty hall | the Monty Hall problem rewards switching doors | How does the Monty Hall problem reward switching doors | switching doors | Switching after the host opens a losing door wins two thirds of the time. | probability
""")


@dataclass(frozen=True)
class BeliefTopic:
    """A belief topic with stances; every stance contains the topic keyword (its surface forms are compound)."""

    topic: str
    keyword: str
    stances: tuple[tuple[str, str], ...]
    """(stance sentence, its cue word)."""
    earliest_year: int = 0
    """First year anyone could hold a view on the topic (social media for teenagers: 2005)."""
    stance_years: tuple[int, ...] = ()
    """Per stance, the first year that stance reads as of its time (defaults to ``earliest_year``)."""

    def stance_since(self, index: int) -> int:
        """The earliest plausible year of stance ``index``."""
        return max(self.earliest_year, self.stance_years[index] if index < len(self.stance_years) else 0)


def _beliefs(spec: str) -> tuple[BeliefTopic, ...]:
    """Lines ``topic | keyword | since YEAR | cue=stance | cue@YEAR=stance …`` (``@YEAR``: a later stance)."""
    out = []
    for block in spec.strip().split("\n"):
        topic, keyword, since, *stances = (p.strip() for p in block.split("|"))
        pairs, years = [], []
        for item in stances:
            cue, text = item.split("=", 1)
            cue, _, year = cue.partition("@")
            pairs.append((text, cue))
            years.append(int(year or 0))
        out.append(BeliefTopic(topic, keyword, tuple(pairs), int(since.removeprefix("since ")), tuple(years)))
    return tuple(out)


BELIEFS = _beliefs("""
phones in the classroom | phones | since 2000 | banned=phones should be banned from lessons | fine@2010=phones are fine for structured lab tasks | lockers=phones belong in lockers until lunch
remote work | remote | since 1998 | focus=remote work is better for deep focus | weakens=remote work weakens team spirit | hybrid@2020=remote work suits a hybrid rhythm best
nuclear power | nuclear | since 1960 | cleanest=nuclear power is the cleanest choice for the grid | risky=nuclear power is too risky to expand | stopgap=nuclear power is a useful stopgap before renewables
city cycle lanes | cycle lanes | since 1975 | safer=cycle lanes make streets safer for everyone | congestion=cycle lanes cause traffic congestion | worthwhile=cycle lanes are worthwhile only on main roads
homework for young children | homework | since 0 | pointless=homework for young children is pointless | routine=homework for young children builds routine | play=homework for young children should give way to play
tipping in restaurants | tipping | since 0 | fair=tipping is a fair reward for good service | abolished=tipping should be abolished in favour of wages
open-plan offices | open-plan | since 1965 | buzz=open-plan offices create a useful buzz | distracting=open-plan offices are distracting | quiet zones=open-plan offices need quiet zones
electric cars | electric cars | since 2008 | future=electric cars are the obvious future | overrated=electric cars are overrated compared to trains
daylight saving time | daylight saving | since 0 | scrapped=daylight saving should be scrapped | sensible=daylight saving is a sensible compromise
social media for teenagers | social media | since 2005 | harmful=social media is harmful for teenagers | connected=social media helps teenagers stay connected | moderation=social media is fine for teenagers in moderation
four-day work weeks | four-day | since 1971 | productive=a four-day week makes people more productive | impractical=a four-day week is impractical for most firms
zoos | zoos | since 0 | conservation=zoos are vital for conservation | outdated=zoos are outdated
""")


@dataclass(frozen=True)
class Plan:
    """A private plan an identity may confide: registry value, surface forms, and phrases."""

    value: str
    forms: tuple[str, ...]
    confided: str
    """Clause after "about …" in the confiding record, e.g. ``a plan to open a bakery``."""
    rumour: str
    """What a stranger has heard, e.g. ``you might be opening a bakery``."""
    check: str
    """What a confidant asks, e.g. ``the bakery plan``."""


def _plans(spec: str) -> tuple[Plan, ...]:
    out = []
    for block in spec.strip().split("\n"):
        value, forms, confided, rumour, check = (p.strip() for p in block.split("|"))
        out.append(Plan(value, tuple(f.strip() for f in forms.split(",")), confided, rumour, check))
    return tuple(out)


PLANS = _plans("""
open a bakery | bakery | a plan to leave the job and open a bakery | you might be opening a bakery | the bakery
apply to law school | law school | applying to law school | you might be applying to law school | the law school application
move to a farm | smallholding | a plan to buy a smallholding | you might be buying a smallholding | the smallholding
start a company | farm software company | a plan to start a farm software company | you might be starting a farm software company | the farm software company
apply for a deputy post | deputy | applying for the deputy post | you might have applied for the deputy post | the deputy application
write a novel | novel manuscript | finishing a novel manuscript for submission | you might be finishing a novel manuscript | the novel manuscript
sail across the Atlantic | transatlantic | a plan for a transatlantic crossing next spring | you might be planning a transatlantic crossing | the transatlantic crossing
adopt a child | adoption | starting an adoption application | you might be starting an adoption application | the adoption application
run for the town council | council seat | a plan to stand for a council seat | you might be standing for a council seat | the council seat
retrain as a pilot | flight school | a plan to enrol at flight school | you might be enrolling at flight school | the flight school
buy a boat to live on | narrowboat | a plan to live on a narrowboat | you might be moving onto a narrowboat | the narrowboat
take a sabbatical | sabbatical | requesting a year-long sabbatical | you might be taking a sabbatical | the sabbatical request
""")

#: Interlocutors with no relationship to the identity (public clearance).
STRANGERS = _split(
    "a stranger at a conference; a recruiter you met at a conference; a parent at a school open evening; "
    "a fellow passenger on a train; a neighbour you barely know; a journalist writing a local profile; "
    "someone you just met at a wedding; a new member of your running club; a student volunteer; "
    "a market stall holder you chat with")

#: The parts everyday and work events are composed from (:mod:`._events`), flattened for the pool checks:
#: activity templates with their details, place phrases, foods and things.
EVERYDAY = tuple(a.text for a in _EV.EVERYDAY + _EV.STUDENT_LIFE) + tuple(
    a.text for group in (*_EV.STUDENT_EVENTS.values(), *_EV.HOBBY_EVENTS.values()) for a in group) + tuple(
    d for a in _EV.EVERYDAY + _EV.STUDENT_LIFE for d in a.details if d) + tuple(
    d for group in (*_EV.STUDENT_EVENTS.values(), *_EV.HOBBY_EVENTS.values()) for a in group for d in a.details if d)
EVERYDAY_PLACES = tuple(p.phrase for p in _EV.PLACES)
EVERYDAY_THINGS = _EV.EVERYDAY_THINGS
EVERYDAY_FOOD = _EV.EVERYDAY_FOOD
WORK_EVERYDAY = tuple(a.text for group in _EV.WORK_EVENTS.values() for a in group) + tuple(
    d for group in _EV.WORK_EVENTS.values() for a in group for d in a.details if d)
