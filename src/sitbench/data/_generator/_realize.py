"""Natural-language realizations, written after the symbolic checks.

Record texts follow the pilot's conventions: subject-less past-tense verb phrases ("Moved to
Kyoto for …"), proper names capitalized, no pronouns for the identity, no negators, and no
words that would read as a hedge, a refusal or a learning cue where the record states an
experience. Confiding records read "Told NAME, and no one else, about …"; session records
carry the agreed name in single quotes and no other apostrophe.
"""

from __future__ import annotations

import random

from sitbench.data._generator._text import with_article

CHILDHOOD = (
    "fixing bicycle chains in the family barn", "spending long summers by a lake", "collecting fossils on the shore",
    "playing in a youth brass band", "climbing trees in a big back garden", "helping on an uncle's fishing boat",
    "building dens in the woods with cousins", "singing in a church choir every Sunday",
)
#: Why a move happened: every residence record gives a reason, so "What took you there?" has a recorded answer.
MOVE_REASONS = (
    "for a fresh start", "to be closer to old friends", "after falling for the city on a long visit the year before",
    "for a change of scene", "to live somewhere new for a while",
)
#: Reasons true only of a move shortly before a new job starts (the record's next job says which).
ROLE_REASONS = ("for a new role", "to take up a new job")
#: How the move went, after its reason (empty: the reason alone).
MOVE_SETTLING = (
    "", "", ", with two suitcases and a bicycle", " and found a flat with a tiny balcony",
    " and rented a room above a bookshop", " and settled into a flat near the old town",
)
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
TRANSITION_REASONS = (
    "a long walk together after a hard week", "months of Sunday lunches", "a shared holiday that went wrong",
    "helping each other through a house move", "a winter of early-morning swims",
)
BELIEF_OPENINGS = ("Settled on a view after a long debate with friends", "Formed a firm opinion after a town meeting",
                   "Wrote down a considered view in a journal")
BELIEF_CHANGES = ("Changed position after seeing the results first-hand", "Changed position after a long conversation "
                  "with a friend", "Changed position after a year of watching it up close")

SOURCE_TEMPLATES = {
    "course": ("Enrolled in an evening course on {discipline}.", "Signed up for a weekend course in {discipline}."),
    "reading": ("Borrowed a thick book on {discipline} from the library.", "Bought a used textbook on {discipline}."),
    "practice": ("Started practising {discipline} exercises every evening.",
                 "Began a weekly practice group for {discipline}."),
    "observation": ("Spent a season volunteering alongside {a_discipline} researcher.",
                    "Shadowed {a_discipline} specialist for a month."),
    "conversation": ("Had long lunches with a retired {discipline} lecturer next door.",
                     "Met {a_discipline} enthusiast at a friend's party and kept in touch."),
    "training": ("Signed up for a workplace training day on {discipline}.",
                 "Attended a two-day training session on {discipline}."),
    "travel": ("Took a two-week study tour abroad devoted to {discipline}.",
               "Travelled to a week of open lectures on {discipline} in another country."),
    "tool_use": ("Started using {a_discipline} simulator program on the home computer.",
                 "Installed {a_discipline} app and used it daily.",
                 "Worked through an interactive {discipline} CD-ROM at home."),
}
#: Years a source template can be dated in (templates not listed fit any year of a generated life).
SOURCE_YEARS = {
    "Installed {a_discipline} app and used it daily.": (2009, 9999),
    "Worked through an interactive {discipline} CD-ROM at home.": (1993, 2005),
}
ACQUIRED_TEMPLATES = {
    "course": "Finished the {discipline} course and can now explain {topic}.",
    "reading": "Read the chapter on {topic} twice and took careful notes.",
    "practice": "After months of practice, came to understand {topic}.",
    "observation": "Watched the work up close until {topic} made sense.",
    "conversation": "Learned about {topic} over those conversations.",
    "training": "Completed the training module covering {topic}.",
    "travel": "On that trip, a guide explained {topic} on site.",
    "tool_use": "Daily sessions with that software taught the basics of {topic}.",
}
PROVENANCES = tuple(SOURCE_TEMPLATES)


def birth(rng: random.Random, town: str, region: str) -> str:
    """The birth record (shared by both members)."""
    return f"Born in {town}, {region}; grew up {rng.choice(CHILDHOOD)}."


def graduation(rng: random.Random, degree: str, town: str) -> str:
    """The graduation record (shared)."""
    return rng.choice((f"Graduated with {with_article(degree)} from the University of {town}.",
                       f"Completed {with_article(degree)} at the University of {town}."))


def move(rng: random.Random, city: str, reason: str) -> str:
    """A residence record: the move, its reason (one of :data:`MOVE_REASONS` or :data:`ROLE_REASONS`, chosen
    with the plan) and how it went."""
    return f"Moved to {city} {reason}{rng.choice(MOVE_SETTLING)}."


def leaving(employer: str, years: int) -> str:
    """The record that ends a job (dated the day the next one starts), so the record says which job is current."""
    span = "a year" if years <= 1 else f"{NUMBER_WORDS[min(years, len(NUMBER_WORDS) - 1)]} years"
    return f"Left {employer} after {span} there, to take a new job."


def first_job(employer: str, title: str, phrase: str) -> str:
    """The first job record: carries "first job" so a first-job question finds it."""
    return f"Started a first job at {employer} as {with_article(title)}, on {phrase}."


def later_job(employer: str, title: str, phrase: str) -> str:
    """A later job record."""
    return f"Joined {employer} as {with_article(title)}, focusing on {phrase}."


def source_event(rng: random.Random, provenance: str, discipline: str, year: int) -> str:
    """The event an acquisition derives from, in a form that existed in ``year``."""
    fits = [t for t in SOURCE_TEMPLATES[provenance] if SOURCE_YEARS.get(t, (0, 9999))[0] <= year
            <= SOURCE_YEARS.get(t, (0, 9999))[1]]
    return rng.choice(fits).format(discipline=discipline, a_discipline=with_article(discipline))


def acquisition(provenance: str, discipline: str, topic: str) -> str:
    """The acquisition record."""
    return ACQUIRED_TEMPLATES[provenance].format(discipline=discipline, topic=topic)


def belief(rng: random.Random, stance: str, first: bool) -> str:
    """A belief record ending in ": <stance>" (how a chronicle states a stance)."""
    return f"{rng.choice(BELIEF_OPENINGS if first else BELIEF_CHANGES)}: {stance}."


def transition(rng: random.Random, friend: str) -> str:
    """A relationship transition record."""
    return f"Grew close to {friend} after {rng.choice(TRANSITION_REASONS)}."


def secret(name: str, confided: str) -> str:
    """A confiding record (the mock oracle drops ", and no one else," when it speaks in the first person)."""
    return f"Told {name}, and no one else, about {confided}."


def session(colleague: str, obj: str, nickname: str) -> str:
    """A session record: the agreed name in single quotes."""
    return f"In a chat with {colleague}, agreed that the {obj} goes by '{nickname}'."


def skill(rng: random.Random, name: str) -> str:
    """A skill record."""
    return rng.choice((f"Earned {with_article(name)} certificate after a summer of lessons.",
                       f"Qualified in {name} after an intensive month of lessons."))


def profile(title: str, senior: bool) -> str:
    """A profile-level transition record (identical in both members)."""
    return f"Promoted to {title}." if senior else f"Started work as {with_article(title)}."
