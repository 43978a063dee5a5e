"""Builds ``src/sitbench/verify/compatibility.json``, the packaged compatibility vocabulary (scorer v3).

The vocabulary is data: equivalents and a small hierarchy for the values of the built-in domains (the
generator's pools and the reference pilot), so that it applies to every dataset they produce, including
datasets generated before it existed. The generator's pools supply the values; the geography, the role
and agent nouns of each occupation and the disciplines of each topic are written here.
``tests/verify/test_compatibility.py`` checks that the committed file is what this script writes.

    python tests/verify/make_compatibility.py            # rewrite the file
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from sitbench.data._generator import _vocab as V

OUT = Path(__file__).resolve().parents[2] / "src" / "sitbench" / "verify" / "compatibility.json"

SLOTS = {"residence.city": "place", "hometown": "place", "work.field": "subject", "knowledge.topic": "subject",
         "skill.*": "subject", "employment.employer": "organization", "project.nickname": "name"}
IMPLIES = {
    # A hometown is a place the identity lived in.
    "hometown": ["residence.city"],
    # An employer's name carries its field ("… Architects"), as the profile's occupation does.
    "employment.employer": ["work.field"],
    "profile.occupation": ["work.field", "knowledge.topic"],
    # A degree carries its discipline, for knowledge and for the field of work.
    "profile.education": ["knowledge.topic", "work.field"],
    # A hobby the profile lists is a skill the identity practises, and knowledge of it.
    "profile.hobbies": ["skill.*", "knowledge.topic"],
}

# ----------------------------------------------------------------------------------------------- places

CONTINENTS = {"Europe": [], "Asia": [], "Africa": [], "North America": ["americas"], "South America": ["americas"],
              "Oceania": ["australasia"]}
#: country: (forms, continent)
COUNTRIES: dict[str, tuple[list[str], str]] = {
    "Japan": (["japanese"], "Asia"), "United States": (["usa", "us", "u s", "u s a", "america", "the states",
                                                        "united states of america", "american"], "North America"),
    "Switzerland": (["swiss"], "Europe"), "Portugal": (["portuguese"], "Europe"), "Kenya": (["kenyan"], "Africa"),
    "Austria": (["austrian"], "Europe"), "Czech Republic": (["czechia", "czech"], "Europe"),
    "Canada": (["canadian"], "North America"), "Australia": (["australian", "oz"], "Oceania"),
    "New Zealand": (["kiwi", "aotearoa"], "Oceania"), "Finland": (["finnish", "suomi"], "Europe"),
    "Norway": (["norwegian"], "Europe"), "Denmark": (["danish"], "Europe"),
    "United Kingdom": (["uk", "u k", "britain", "great britain", "british"], "Europe"),
    "Spain": (["spanish"], "Europe"), "France": (["french"], "Europe"), "Germany": (["german"], "Europe"),
    "Netherlands": (["holland", "dutch", "the netherlands"], "Europe"), "Belgium": (["belgian"], "Europe"),
    "Poland": (["polish"], "Europe"), "Hungary": (["hungarian"], "Europe"), "Romania": (["romanian"], "Europe"),
    "Greece": (["greek"], "Europe"), "Turkey": (["turkish", "turkiye"], "Asia"),
    "Georgia": (["georgian"], "Asia"), "Morocco": (["moroccan"], "Africa"), "Ghana": (["ghanaian"], "Africa"),
    "Nigeria": (["nigerian"], "Africa"), "Rwanda": (["rwandan"], "Africa"),
    "South Africa": (["south african"], "Africa"), "India": (["indian"], "Asia"),
    "Singapore": (["singaporean"], "Asia"), "Indonesia": (["indonesian"], "Asia"),
    "Philippines": (["the philippines", "filipino"], "Asia"), "South Korea": (["korea", "korean"], "Asia"),
    "Taiwan": (["taiwanese"], "Asia"), "Vietnam": (["viet nam", "vietnamese"], "Asia"),
    "Thailand": (["thai"], "Asia"), "Peru": (["peruvian"], "South America"),
    "Colombia": (["colombian"], "South America"), "Ecuador": (["ecuadorian"], "South America"),
    "Uruguay": (["uruguayan"], "South America"), "Chile": (["chilean"], "South America"),
    "Iceland": (["icelandic"], "Europe"), "Sweden": (["swedish"], "Europe"), "Estonia": (["estonian"], "Europe"),
    "Latvia": (["latvian"], "Europe"), "Lithuania": (["lithuanian"], "Europe"),
    "Slovenia": (["slovenian"], "Europe"), "Croatia": (["croatian"], "Europe"), "Ireland": (["irish", "eire"], "Europe"),
    "Italy": (["italian"], "Europe"), "Argentina": (["argentinian", "argentine"], "South America"),
    "Bulgaria": (["bulgarian"], "Europe"),
}
#: region: (forms, parents)
REGIONS: dict[str, tuple[list[str], list[str]]] = {
    "Kansai": (["kansai region", "kinki"], ["Japan"]), "Hokkaido": ([], ["Japan"]),
    "Washington": (["washington state"], ["United States", "Pacific Northwest"]),
    "Pacific Northwest": (["the pacific northwest", "pnw"], ["United States"]),
    "Montana": ([], ["United States"]), "Minnesota": ([], ["United States"]),
    "North Carolina": ([], ["United States"]), "Arizona": ([], ["United States"]),
    "Colorado": ([], ["United States"]), "Illinois": ([], ["United States"]),
    "Massachusetts": (["new england"], ["United States"]), "Quebec": (["québec"], ["Canada"]),
    "Ontario": ([], ["Canada"]), "British Columbia": (["bc"], ["Canada"]), "Nova Scotia": ([], ["Canada"]),
    "Manitoba": ([], ["Canada"]), "Victoria": ([], ["Australia"]), "Scotland": (["scottish"], ["United Kingdom"]),
    "Wales": (["welsh"], ["United Kingdom"]), "England": (["english"], ["United Kingdom"]),
    "Catalonia": (["catalunya"], ["Spain"]), "Castile and Leon": (["castilla y leon"], ["Spain"]),
    "Provence": ([], ["France"]), "Bavaria": (["bayern"], ["Germany"]), "Flanders": (["flemish"], ["Belgium"]),
    "Lombardy": (["lombardia"], ["Italy"]), "Emilia-Romagna": (["emilia romagna"], ["Italy"]),
    "Styria": (["steiermark"], ["Austria"]), "Maharashtra": ([], ["India"]), "Karnataka": ([], ["India"]),
    "Tamil Nadu": ([], ["India"]), "Gauteng": ([], ["South Africa"]), "KwaZulu-Natal": (["kwazulu natal"], ["South Africa"]),
    "Scandinavia": (["the nordics", "nordic countries"], ["Europe"]), "Munster": ([], ["Ireland"]),
    "Connacht": ([], ["Ireland"]), "Moravia": ([], ["Czech Republic"]),
}
_SCANDINAVIA = {"Norway", "Sweden", "Denmark"}
#: city: (other names, parents)
CITIES: dict[str, tuple[list[str], list[str]]] = {
    "Kyoto": (["kyoto city"], ["Kansai"]), "Osaka": (["osaka city"], ["Kansai"]), "Seattle": ([], ["Washington"]),
    "Zurich": (["zuerich"], ["Switzerland"]), "Lisbon": (["lisboa"], ["Portugal"]), "Nairobi": ([], ["Kenya"]),
    "Porto": (["oporto"], ["Portugal"]), "Vienna": (["wien"], ["Austria"]), "Prague": (["praha"], ["Czech Republic"]),
    "Montreal": ([], ["Quebec"]), "Melbourne": ([], ["Victoria"]), "Auckland": ([], ["New Zealand"]),
    "Helsinki": ([], ["Finland"]), "Oslo": ([], ["Norway"]), "Copenhagen": (["kobenhavn"], ["Denmark"]),
    "Edinburgh": ([], ["Scotland"]), "Barcelona": ([], ["Catalonia"]), "Valencia": ([], ["Spain"]),
    "Marseille": (["marseilles"], ["Provence"]), "Lyon": (["lyons"], ["France"]), "Hamburg": ([], ["Germany"]),
    "Munich": (["munchen", "muenchen"], ["Bavaria"]), "Rotterdam": ([], ["Netherlands"]),
    "Antwerp": (["antwerpen", "anvers"], ["Flanders"]), "Krakow": (["cracow"], ["Poland"]),
    "Budapest": ([], ["Hungary"]), "Bucharest": (["bucuresti"], ["Romania"]), "Athens": (["athina"], ["Greece"]),
    "Istanbul": ([], ["Turkey"]), "Tbilisi": ([], ["Georgia"]), "Casablanca": ([], ["Morocco"]),
    "Accra": ([], ["Ghana"]), "Lagos": ([], ["Nigeria"]), "Kigali": ([], ["Rwanda"]),
    "Johannesburg": (["joburg", "jozi"], ["Gauteng"]), "Mumbai": (["bombay"], ["Maharashtra"]),
    "Bangalore": (["bengaluru"], ["Karnataka"]), "Chennai": (["madras"], ["Tamil Nadu"]),
    "Singapore": (["singapore city"], ["Singapore"]), "Jakarta": ([], ["Indonesia"]), "Manila": ([], ["Philippines"]),
    "Seoul": ([], ["South Korea"]), "Busan": (["pusan"], ["South Korea"]), "Taipei": ([], ["Taiwan"]),
    "Hanoi": (["ha noi"], ["Vietnam"]), "Bangkok": (["krung thep"], ["Thailand"]), "Lima": ([], ["Peru"]),
    "Bogota": ([], ["Colombia"]), "Quito": ([], ["Ecuador"]), "Montevideo": ([], ["Uruguay"]),
    "Valparaiso": ([], ["Chile"]), "Halifax": ([], ["Nova Scotia"]), "Vancouver": ([], ["British Columbia"]),
    "Denver": ([], ["Colorado"]), "Chicago": ([], ["Illinois"]), "Boston": ([], ["Massachusetts"]),
    "Toronto": ([], ["Ontario"]), "Reykjavik": ([], ["Iceland"]), "Stockholm": ([], ["Sweden"]),
    "Gothenburg": (["goteborg"], ["Sweden"]), "Bergen": ([], ["Norway"]), "Tallinn": ([], ["Estonia"]),
    "Riga": ([], ["Latvia"]), "Vilnius": ([], ["Lithuania"]), "Ljubljana": ([], ["Slovenia"]),
    "Zagreb": ([], ["Croatia"]),
    # Hometowns.
    "Bozeman": ([], ["Montana"]), "Cork": ([], ["Munster"]), "Galway": ([], ["Connacht"]),
    "Tampere": ([], ["Finland"]), "Aarhus": (["arhus"], ["Denmark"]), "Ghent": (["gent"], ["Flanders"]),
    "Graz": ([], ["Styria"]), "Bologna": ([], ["Emilia-Romagna"]), "Coimbra": ([], ["Portugal"]),
    "Salamanca": ([], ["Castile and Leon"]), "Utrecht": ([], ["Netherlands"]), "Bergamo": ([], ["Lombardy"]),
    "Kumasi": ([], ["Ghana"]), "Enugu": ([], ["Nigeria"]), "Mombasa": ([], ["Kenya"]),
    "Durban": ([], ["KwaZulu-Natal"]), "Sapporo": ([], ["Hokkaido"]), "Daegu": ([], ["South Korea"]),
    "Cebu": (["cebu city"], ["Philippines"]), "Pune": (["poona"], ["Maharashtra"]),
    "Mysore": (["mysuru"], ["Karnataka"]), "Cusco": (["cuzco"], ["Peru"]), "Rosario": ([], ["Argentina"]),
    "Medellin": ([], ["Colombia"]), "Duluth": ([], ["Minnesota"]), "Spokane": ([], ["Washington"]),
    "Missoula": ([], ["Montana"]), "Asheville": ([], ["North Carolina"]), "Tucson": ([], ["Arizona"]),
    "Winnipeg": ([], ["Manitoba"]), "Dundee": ([], ["Scotland"]), "Swansea": ([], ["Wales"]),
    "Norwich": ([], ["England"]), "Limerick": ([], ["Munster"]), "Trondheim": ([], ["Norway"]),
    "Uppsala": ([], ["Sweden"]), "Tartu": ([], ["Estonia"]), "Brno": ([], ["Moravia"]), "Pecs": ([], ["Hungary"]),
    "Plovdiv": ([], ["Bulgaria"]), "Paris": ([], ["France"]),
}

# ---------------------------------------------------------------------------------------------- subjects

#: occupation title → (node value, role and agent nouns, activity and workplace nouns, disciplines)
OCCUPATIONS: dict[str, tuple[str, list[str], list[str]]] = {
    "software engineer": ("software engineering", [
        "software engineer", "software developer", "developer", "programmer", "coder", "engineer", "programming",
        "coding", "software", "software development", "writing code", "systems", "labs", "digital", "tech",
        "computer science student"], ["computer science", "engineering"]),
    "civil engineer": ("civil engineering", [
        "civil engineer", "structural engineer", "site engineer", "chartered civil engineer", "chartered engineer",
        "engineer", "infrastructure", "consulting", "consultancy", "civil engineering student"], ["engineering"]),
    "secondary-school chemistry teacher": ("chemistry teaching", [
        "chemistry teacher", "science teacher", "teacher", "teaching", "teach", "taught", "head of science",
        "head of department", "secondary school", "secondary-school", "high school", "school", "classroom",
        "lessons", "pupils", "academy", "college", "grammar", "grammar school", "teaching diploma",
        "chemistry student", "teaching chemistry", "teaching science", "chemistry teaching", "science teaching"],
        ["chemistry", "education"]),
    "registered nurse": ("nursing", [
        "nurse", "registered nurse", "charge nurse", "senior charge nurse", "staff nurse", "ward", "wards",
        "hospital", "health", "clinic", "care", "patients", "clinical", "nursing student"], ["healthcare"]),
    "architect": ("architecture", [
        "architect", "associate architect", "architectural", "architects", "studio", "atelier", "design",
        "architecture student", "practice"], ["design"]),
    "journalist": ("journalism", [
        "journalist", "reporter", "reporting", "editor", "senior editor", "newsroom", "news", "press", "media",
        "publishing", "newspaper", "paper", "writing", "journalism student"], ["media"]),
    "accountant": ("accountancy", [
        "accountant", "accounting", "chartered accountant", "senior accountant", "bookkeeping", "advisory",
        "partners", "finance", "financial", "numbers", "accounting student"], ["finance"]),
    "chef": ("cooking", [
        "chef", "head chef", "sous chef", "line cook", "cook", "cooking", "kitchen", "kitchens", "culinary",
        "culinary arts", "restaurant", "restaurants", "bistro", "dining", "catering", "cuisine", "food",
        "culinary student", "culinary diploma"], ["hospitality"]),
    "graphic designer": ("graphic design", [
        "graphic designer", "designer", "design", "art director", "art direction", "creative", "graphics",
        "studio", "illustration", "design student"], ["design"]),
    "marine biologist": ("marine biology", [
        "marine biologist", "marine researcher", "senior marine researcher", "biologist", "marine research",
        "marine science", "ocean", "oceanography", "institute", "marine lab", "ocean trust", "research",
        "researcher", "scientist", "marine biology student"], ["biology"]),
}
#: discipline → (forms, broader disciplines)
DISCIPLINES: dict[str, tuple[list[str], list[str]]] = {
    "science": (["sciences", "stem", "natural sciences"], []),
    "computer science": (["cs", "comp sci", "computing", "informatics", "computer sciences"], ["science"]),
    "engineering": (["engineer", "engineers"], ["science"]),
    "chemistry": (["chemist", "chem", "chemical"], ["science"]),
    "education": (["teaching", "pedagogy", "schooling"], []),
    "healthcare": (["health care", "health", "medicine", "medical", "nhs"], []),
    "design": (["designer"], []), "media": (["journalism"], []), "finance": (["financial"], []),
    "hospitality": (["food", "restaurants"], []), "biology": (["biologist", "life sciences", "bio"], ["science"]),
    "physics": (["physicist"], ["science"]), "mathematics": (["maths", "math", "mathematician"], ["science"]),
    "biochemistry": (["biochemist", "biochem"], ["chemistry", "biology"]),
    "food chemistry": (["food science"], ["chemistry"]), "industrial chemistry": ([], ["chemistry"]),
    "aerodynamics": (["aeronautics"], ["physics", "engineering"]), "meteorology": (["weather science"], ["science"]),
    "mechanics": (["classical mechanics"], ["physics"]), "astronomy": (["astronomer", "astrophysics"], ["physics"]),
    "cosmology": (["cosmologist"], ["astronomy"]), "genetics": (["geneticist"], ["biology"]),
    "psychology": (["psychologist"], ["science"]), "information theory": ([], ["computer science", "mathematics"]),
    "statistics": (["stats", "statistician"], ["mathematics"]), "probability": ([], ["mathematics"]),
    "geology": (["geologist", "earth science"], ["science"]), "seismology": ([], ["geology"]),
    "sailing meteorology": ([], ["meteorology"]), "hydrostatics": ([], ["physics"]), "optics": ([], ["physics"]),
    "electronics": (["electrical engineering"], ["physics", "engineering"]),
    "signal processing": ([], ["electronics", "computer science"]), "philosophy": (["philosopher"], []),
    "economics": (["economist", "econ"], []), "history": (["historian"], []),
    "history of printing": ([], ["history"]), "metallurgy": (["materials science"], ["chemistry", "engineering"]),
    "first aid": (["first-aid"], ["healthcare"]), "fluid dynamics": ([], ["physics"]),
    "geography": (["geographer"], []), "management": (["business"], []),
    "game theory": ([], ["economics", "mathematics"]), "cryptography": (["crypto", "cryptographic"], ["computer science", "mathematics"]),
    "robotics": (["robot", "robots", "robotic"], ["computer science", "engineering"]),
    "languages": (["language", "linguistics"], []), "apiculture": (["bees"], []),
    "aerospace engineering": (["aerospace"], ["engineering"]),
}
#: pilot topics (value → disciplines); the generator's topics come with their own discipline.
PILOT_TOPICS = {"lattice-based cryptography": ["cryptography"], "inverse kinematics": ["robotics"],
                "the Krebs cycle": ["biochemistry"], "Portuguese": ["languages"], "beekeeping": ["apiculture"],
                "Swahili": ["languages"], "Japanese": ["languages"]}
#: pilot fields of work (value → occupation node)
PILOT_FIELDS = {"robotics": "software engineering", "cryptography": "software engineering",
                "aerospace": "aerospace engineering"}
#: skills: value → (equivalents, including the qualifications that imply the skill)
SKILLS: dict[str, list[str]] = {
    "dinghy sailing": ["dinghy", "dinghies", "sailing", "sail", "sailor", "dinghy sailor", "certified dinghy sailor",
                       "sailing certificate", "sailing qualification", "rya", "sailing instructor"],
    "scuba diving": ["scuba", "diving", "diver", "scuba diver", "padi", "open water", "open water diver",
                     "dive certificate", "certified diver"],
    "sign language": ["signing", "bsl", "asl", "isl", "signer", "sign language interpreter", "sign"],
    "falconry": ["falconer", "hawking", "birds of prey", "falconry licence", "falconry license"],
    "welding": ["welder", "mig", "tig", "arc welding", "welding certificate", "weld"],
    "archery": ["archer", "bow", "bowman", "longbow", "recurve"],
}


def _node(nodes: dict[tuple[str, str], dict[str, Any]], namespace: str, value: str, forms: list[str] | tuple[str, ...],
          parents: list[str]) -> None:
    key = (namespace, value.lower())
    node = nodes.setdefault(key, {"namespace": namespace, "value": value, "forms": [], "parents": []})
    node["forms"] = sorted({*node["forms"], *(f.lower() for f in forms if f.lower() != value.lower())})
    node["parents"] = sorted({*node["parents"], *parents})


def build() -> dict[str, Any]:
    """The vocabulary as JSON-ready data, in a fixed order."""
    nodes: dict[tuple[str, str], dict[str, Any]] = {}
    for name, alt in CONTINENTS.items():
        _node(nodes, "place", name, alt, [])
    for name, (forms, continent) in COUNTRIES.items():
        _node(nodes, "place", name, forms, [continent] + (["Scandinavia"] if name in _SCANDINAVIA else []))
    for name, (forms, parents) in REGIONS.items():
        _node(nodes, "place", name, forms, parents)
    for name, (forms, parents) in CITIES.items():
        _node(nodes, "place", name, forms, parents)
    for town, _where in V.HOMETOWNS:
        if town not in CITIES:
            raise SystemExit(f"hometown {town} has no place in CITIES")
    for city in V.CITIES:
        if city not in CITIES:
            raise SystemExit(f"city {city} has no place in CITIES")
    for name, (forms, parents) in DISCIPLINES.items():
        _node(nodes, "subject", name, forms, parents)
    for occupation in V.OCCUPATIONS:
        value, forms, disciplines = OCCUPATIONS[occupation.title]
        _node(nodes, "subject", value, [occupation.title, occupation.senior, occupation.student, occupation.degree,
                                        *forms, *occupation.suffixes], disciplines)
        for f in occupation.fields:
            _node(nodes, "subject", f.value, [*f.forms, f.phrase], [value])
    for topic in V.TOPICS:
        plain = topic.topic.removeprefix("the ")
        _node(nodes, "subject", topic.topic, [plain, *topic.forms], [topic.discipline])
        if topic.discipline not in DISCIPLINES:
            raise SystemExit(f"topic {topic.topic}: discipline {topic.discipline} has no entry in DISCIPLINES")
    for value, parents in PILOT_TOPICS.items():
        _node(nodes, "subject", value, [value.removeprefix("the ")], parents)
    for value, parent in PILOT_FIELDS.items():
        _node(nodes, "subject", value, [], [parent])
    for value, forms in SKILLS.items():
        _node(nodes, "subject", value, forms, [])
    ordered = [nodes[k] for k in sorted(nodes)]
    # A neighbourhood a dataset declares under a city the identity lived in is a place it lived in.
    # Fields, topics and skills are common nouns: a value the data does not name is unrecorded. An employer is
    # often named by part of its name ("Saltbridge" for Saltbridge Digital).
    return {"slots": SLOTS, "implies": IMPLIES, "nodes": ordered, "inclusive": ["place"], "open": ["subject"],
            "partial": ["organization"]}


def render() -> str:
    """The file's text."""
    return json.dumps(build(), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT.relative_to(Path.cwd()) if OUT.is_relative_to(Path.cwd()) else OUT.name}", file=sys.stderr)
