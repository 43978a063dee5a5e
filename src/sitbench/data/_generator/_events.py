"""Everyday and work events of a life, composed from typed parts.

An event text is an activity filled with a place, a companion, a time and a detail, each drawn
so that the combination exists:

- places are typed (a walk goes *along* a path, a picnic happens in a park or on a beach, ice
  skating needs a rink), and a coastal place is used only while the identity lives by the sea;
- seasonal activities need a known climate (blackberries in late summer, by hemisphere; no
  outdoor skating in the tropics); shared events, which both members of a pair live, use no
  place that depends on where a member lives;
- the weekday or month a text names is the event's own date;
- every activity, place and detail that depends on its era carries a year window (mixtapes
  before 2000, video calls from 2010), and :data:`ERA_MARKERS` names the words that date a text,
  so that any record can be checked against its date (:func:`era_violations`);
- work events come from the identity's own occupation (nurses work night shifts, chefs run the
  pass) and stage of life (students revise, senior staff interview candidates);
- companions are the people the identity knows at that date.

No text here mentions a registry surface form (a city, an employer, a field, a topic, a plan);
``tests/generator`` checks the parts and the composed texts for that.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum


class Stage(str, Enum):
    """Stage of life at an event's date."""

    STUDENT = "student"
    GRADUATE = "graduate"
    """Between graduation and the first job."""
    WORKING = "working"
    SENIOR = "senior"
    """After the promotion."""


ADULT = (Stage.STUDENT, Stage.GRADUATE, Stage.WORKING, Stage.SENIOR)
EMPLOYED = (Stage.WORKING, Stage.SENIOR)


class Kind(str, Enum):
    """What a place is good for; an activity names the kinds it fits."""

    WALK = "walk"          # a path one walks along
    PICNIC = "picnic"      # grass or sand to sit on
    SKY = "sky"            # an open view of the night sky
    FORAGE = "forage"      # hedgerows and brambles
    EAT = "eat"            # a restaurant
    CAFE = "cafe"
    MUSIC = "music"        # a venue for bands and dancing
    RECITAL = "recital"    # a hall with good acoustics
    CHURCH = "church"
    MARKET = "market"      # second-hand stalls
    WATCH = "watch"        # somewhere to sit and watch people go by
    RINK = "rink"
    POOL = "pool"
    GALLERY = "gallery"
    CINEMA = "cinema"
    BOOKS = "books"
    PUB = "pub"
    VIEW = "view"          # a high or open place to watch fireworks from
    WOODS = "woods"
    WATER = "water"        # a river or lake one can row or fish on
    WETLAND = "wetland"    # reed beds and mudflats for birds
    COAST = "coast"        # the sea itself


SEASON_MONTHS = {"winter": (12, 1, 2), "spring": (3, 4, 5), "summer": (6, 7, 8), "autumn": (9, 10, 11),
                 "late summer": (8, 9)}


@dataclass(frozen=True)
class Place:
    """A place phrase (with its article) and the kinds of activity it suits."""

    phrase: str
    kinds: tuple[Kind, ...]
    coastal: bool = False
    """Exists only where the identity lives by the sea."""
    seasons: tuple[str, ...] = ()
    """Open only in these seasons (an outdoor rink in winter); empty: all year."""


def _p(phrase: str, *kinds: Kind, coastal: bool = False, seasons: tuple[str, ...] = ()) -> Place:
    return Place(phrase, kinds, coastal, seasons)


K = Kind
PLACES: tuple[Place, ...] = (
    _p("the riverside path", K.WALK, K.FORAGE), _p("the canal towpath", K.WALK, K.FORAGE),
    _p("a woodland trail outside town", K.WALK, K.FORAGE), _p("the woods outside town", K.WOODS), _p("the old city walls", K.WALK, K.VIEW),
    _p("the ridge above town", K.WALK, K.SKY, K.VIEW), _p("the seafront promenade", K.WALK, coastal=True),
    _p("the old harbour wall", K.WALK, K.VIEW, coastal=True),
    _p("the botanical gardens", K.PICNIC), _p("a hilltop park", K.PICNIC, K.SKY, K.VIEW),
    _p("the park by the river", K.PICNIC), _p("a quiet beach", K.PICNIC, K.SKY, K.COAST, coastal=True),
    _p("the common at the edge of town", K.SKY, K.PICNIC), _p("a rooftop terrace", K.VIEW, K.WATCH),
    _p("a small Georgian restaurant", K.EAT), _p("a tiny ramen bar", K.EAT), _p("a family-run Lebanese place", K.EAT),
    _p("a tapas bar near the station", K.EAT), _p("a dumpling house in the old town", K.EAT),
    _p("a harbourside fish restaurant", K.EAT, coastal=True), _p("an Ethiopian restaurant", K.EAT),
    _p("a corner café", K.CAFE), _p("a café near the station", K.CAFE), _p("a café with a sunny courtyard", K.CAFE),
    _p("a small concert hall", K.RECITAL), _p("a basement jazz club", K.MUSIC), _p("the old town hall", K.MUSIC),
    _p("a church with good acoustics", K.CHURCH, K.RECITAL), _p("a music bar by the river", K.MUSIC),
    _p("the concert hall", K.RECITAL, K.MUSIC),
    _p("a weekend flea market", K.MARKET), _p("the covered market", K.MARKET, K.WATCH),
    _p("a car-boot sale in a school field", K.MARKET), _p("an antiques fair", K.MARKET),
    _p("the town square", K.WATCH), _p("the cathedral steps", K.WATCH), _p("a pavement café", K.WATCH),
    _p("the indoor ice rink", K.RINK), _p("the outdoor rink in the town square", K.RINK, seasons=("winter",)),
    _p("the public pool", K.POOL), _p("the open-air lido", K.POOL, seasons=("summer",)),
    _p("the city art gallery", K.GALLERY), _p("a small photography gallery", K.GALLERY),
    _p("an old art-house cinema", K.CINEMA), _p("the multiplex by the ring road", K.CINEMA),
    _p("the public library", K.BOOKS), _p("a secondhand bookshop", K.BOOKS),
    _p("a village pub", K.PUB), _p("the local pub", K.PUB), _p("a pub with a big garden", K.PUB),
    _p("the river", K.WATER), _p("a reservoir in the hills", K.WATER), _p("a lake outside town", K.WATER),
    _p("the reed beds by the river", K.WETLAND), _p("a nature reserve", K.WETLAND, K.WOODS),
    _p("the estuary mudflats", K.WETLAND, coastal=True),
)


@dataclass(frozen=True)
class Moment:
    """Where a life stands on an event's date: what may happen to the identity then."""

    t: dt.date
    stage: Stage
    occupation: str
    """The job title of the occupation family (work pools are keyed by it)."""
    student: str
    """The occupation family's student title (student pools are keyed by it)."""
    residence: str | None
    """City or hometown lived in on that date; ``None`` when not one place (events shared by a pair)."""
    people: tuple[str, ...]
    """Named people the identity knows on that date."""
    hobbies: tuple[str, ...] = ()
    coastal_places: frozenset[str] = frozenset()
    southern_places: frozenset[str] = frozenset()
    tropical_places: frozenset[str] = frozenset()

    @property
    def coastal(self) -> bool:
        """True when the residence is known and by the sea."""
        return self.residence is not None and self.residence in self.coastal_places

    def season_ok(self, seasons: tuple[str, ...]) -> bool:
        """True when the date falls in one of ``seasons`` where the identity lives (empty: always)."""
        if not seasons:
            return True
        if self.residence is None:
            return False
        if self.residence in self.tropical_places:
            return "summer" in seasons
        month = self.t.month
        if self.residence in self.southern_places:
            month = (month + 5) % 12 + 1
        return any(month in SEASON_MONTHS[s] for s in seasons)


WEEKEND = (5, 6)
WEEKDAYS = (0, 1, 2, 3, 4)
ALL_DAYS = (0, 1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Activity:
    """One activity template and what it fits.

    ``text`` may hold ``{place}`` (a place of one of ``places``), ``{company}`` (who came along),
    ``{when}`` (a time phrase true of the date, for one of ``times``), ``{detail}`` (one of
    ``details``) and ``{person}`` (a named person the identity knows). Details may hold
    ``{person}`` too.
    """

    text: str
    places: tuple[Kind, ...] = ()
    details: tuple[str, ...] = ("",)
    times: tuple[str, ...] = ("day",)
    days: tuple[int, ...] = ALL_DAYS
    seasons: tuple[str, ...] = ()
    years: tuple[int, int] = (0, 9999)
    stages: tuple[Stage, ...] = ADULT
    once: bool = False
    """At most once per lineage (per person, when the text names one)."""
    on: Callable[[dt.date], bool] | None = field(default=None, compare=False)
    """A date rule beyond days, seasons and years (a meteor shower, New Year's Eve)."""
    group: str = ""
    """Variants of one activity share a group and are drawn as often together as one activity alone."""

    def fits(self, m: Moment) -> bool:
        """True when the activity can happen to the identity at ``m``."""
        if m.stage not in self.stages or not self.years[0] <= m.t.year <= self.years[1]:
            return False
        if m.t.weekday() not in self.days or not m.season_ok(self.seasons):
            return False
        if self.on is not None and not self.on(m.t):
            return False
        if "{person}" in self.text and not m.people:
            return False
        return not self.places or bool(places_for(self, m))


@functools.cache
def _of_kinds(kinds: tuple[Kind, ...]) -> tuple[Place, ...]:
    return tuple(p for p in PLACES if set(p.kinds) & set(kinds))


def places_for(activity: Activity, m: Moment) -> list[Place]:
    """Places of the activity's kinds that exist for the identity at ``m``."""
    coastal = m.coastal
    return [p for p in _of_kinds(activity.places) if (coastal or not p.coastal) and m.season_ok(p.seasons)]


def _a(text: str, *places: Kind, **kw: object) -> Activity:
    return Activity(text, places, **kw)  # type: ignore[arg-type]


def _many(template: str, fillers: tuple[str, ...], *places: Kind, **kw: object) -> tuple[Activity, ...]:
    """One activity per filler (``<>`` in ``template`` marks where it goes)."""
    return tuple(Activity(template.replace("<>", f), places, group=template, **kw)  # type: ignore[arg-type]
                 for f in fillers)


M, A, E, N = "morning", "afternoon", "evening", "night"
EVERYDAY_FOOD = (
    "a big pot of chilli", "a lemon drizzle cake", "homemade dumplings", "a tray of focaccia", "a vegetable curry",
    "an apple pie", "a fish stew", "a batch of flatbreads", "a mushroom risotto", "cinnamon buns",
    "a slow-cooked lamb stew", "a mountain of pancakes", "fresh pasta from scratch", "a spicy noodle soup",
    "a pot of lentil soup", "a tray of roasted vegetables", "a plum crumble", "stuffed peppers")
EVERYDAY_THINGS = (
    "armchair", "record player", "reading lamp", "bookcase", "typewriter", "mirror", "coffee grinder", "rug", "desk",
    "teapot", "sewing machine", "chest of drawers", "set of wine glasses", "bicycle basket", "framed map")
SHOWS = ("a jazz concert", "a folk night", "a gig by an old favourite band", "a brass band concert",
         "a blues night", "a ceilidh")
RECITALS = ("a string quartet recital", "a choir concert", "a piano recital", "an organ recital",
            "a concert of baroque music")
FILMS = ("a subtitled thriller", "a restored silent film", "a documentary about mountaineers",
         "a late showing of an old western", "a much-hyped science fiction film", "a festival of short films")
#: Weekend destinations, with their preposition.
TRIPS = ("in a mountain village", "at a cabin by a lake", "on a small island", "in a wine region two hours away",
         "in an old spa town", "in a walled hill town", "in a fishing village")

EVERYDAY: tuple[Activity, ...] = (
    _a("Took a long walk along {place}{company}{when}{detail}.", K.WALK, times=(M, A, E), details=(
        "", " and stopped for coffee on the way back", " to clear the head after a long week",
        " and got thoroughly rained on", " and ended up at a secondhand bookshop", " and took far too many photographs")),
    _a("Met {person} for a picnic at {place}{when}{detail}.", K.PICNIC, times=(A,), seasons=("spring", "summer"),
       details=("", " with a basket of sandwiches and cold lemonade", " and stayed until the light faded",
                " and played frisbee until dark")),
    *_many("Went to <> at {place}{company}{when}{detail}.", SHOWS, K.MUSIC, times=(E,),
           details=("", " and stayed for the encore", " and danced at the front", " and bought the band's record")),
    *_many("Went to <> at {place}{company}{when}{detail}.", RECITALS, K.RECITAL, times=(E,),
           details=("", " and listened from the cheap seats at the back", " and stayed for the encore")),
    _a("Went to a carol service at {place}{company}{when}.", K.CHURCH, times=(E,),
       on=lambda t: t.month == 12 and t.day >= 8),
    _a("Went to a birthday dinner for {person} at {place}{when}{detail}.", K.EAT, times=(E,), details=(
        "", " and stayed until the staff started stacking chairs", ", and the whole table sang",
        " with a surprise cake at the end")),
    _a("Tried {place} for the first time{company}{when}{detail}.", K.EAT, times=(E,), details=(
        "", " and ordered far too much", " on a neighbour's recommendation", " and booked again on the way out")),
    *_many("Cooked <>{detail}{when}.", EVERYDAY_FOOD, times=(E, "day"), details=(
        " for a few friends", " for {person}'s birthday", " for a neighbour's party", " for a crowded kitchen of friends",
        " to freeze for busy weeks")),
    *_many("Fixed <> with {person}'s toolbox{when}.", ("a dripping kitchen tap", "a squeaking door", "a wobbly table",
                                                        "a broken gate latch", "a leaking radiator valve")),
    *_many("Repainted <> a pale {detail}{company}{when}.", ("the spare room", "the hallway", "the kitchen",
                                                           "the bathroom"),
           details=("green", "yellow", "blue", "grey"), days=WEEKEND),
    _a("Put up shelves in the living room{company}{when}{detail}.", days=WEEKEND,
       details=("", " and drilled only one wrong hole", " with a borrowed drill")),
    _a("Assembled a flat-pack wardrobe{company}{when}{detail}.", details=("", " and had three screws left over")),
    _a("Cleared out the attic{company} over a long weekend{detail}.", days=(4, 5), details=(
        " and found old school reports", " and took four boxes to a charity shop", "")),
    *_many("Bought a second-hand <> at {place}{when}{detail}.", EVERYDAY_THINGS, K.MARKET, days=WEEKEND,
           times=(M, "day"), details=("", " for almost nothing", " after haggling for ten minutes",
                                      " and carried it home on the bus")),
    *_many("Caught <> and stayed home{detail}{when}.", ("a bad cold", "flu", "a stomach bug"), times=("month",),
           details=(
        " for two days", " for three days", " for most of a week")),
    _a("Sat through a long dentist appointment{when}{detail}.", days=WEEKDAYS, times=(M,), details=(
        "", " and came out with a filling", " and had a numb jaw all afternoon")),
    _a("Got a new pair of glasses{when}{detail}.", times=("month",), details=(
        " with thin metal frames", " with heavy dark frames", " after months of squinting at road signs")),
    _a("Took part in a charity quiz night{company} at {place}{when}{detail}.", K.PUB, times=(E,), details=(
        " and came second", " and came last by a long way", " and won a bottle of wine", "")),
    _a("Spent a quiet evening playing board games{company}{detail}.", details=(
        " until well past midnight", "", " and lost every round")),
    _a("Had a long phone catch-up with {person}{when}{detail}.", times=(E,), details=(
        "", " about nothing in particular", " that went on for two hours")),
    _a("Helped {person} move flats across town{when}{detail}.", days=WEEKEND, details=(
        "", " in a borrowed van", " and carried a sofa up four flights of stairs")),
    _a("Attended {person}'s graduation ceremony{when}.", stages=(Stage.STUDENT, Stage.GRADUATE), once=True,
       on=lambda t: t.month in (6, 7, 11, 12)),
    _a("Went to {person}'s wedding{detail}.", days=(5,), once=True, details=(
        " in a barn decorated with fairy lights", " and danced until the band packed up", " and gave a short speech")),
    _a("Went to {person}'s housewarming party{when}{detail}.", times=(E,), days=(4, 5), details=(
        "", " and brought a potted fig tree", " where half the guests ended up in the kitchen")),
    _a("Organised a clothes swap with neighbours{when}.", days=WEEKEND),
    _a("Spent an evening learning card tricks from {person}{detail}.", details=(
        "", " and mastered exactly one", " and practised them on everyone for a week")),
    _a("Went on a day hike{company}{when}{detail}.", days=WEEKEND, details=(
        " and got caught in the rain", " to a ridge with a view over three valleys", " and got lost for an hour",
        " and ate lunch by a waterfall")),
    _a("Watched a meteor shower from {place}{company}.", K.SKY,
       on=lambda t: (t.month == 8 and 10 <= t.day <= 14) or (t.month == 12 and 12 <= t.day <= 15)),
    _a("Went stargazing{company} at {place}{when}{detail}.", K.SKY, times=(N,), details=(
        "", " and spotted a satellite crossing the sky", " with a flask of hot chocolate")),
    _a("Picked blackberries along {place}{company}{when}{detail}.", K.FORAGE, seasons=("late summer",), details=(
        "", " and made jam that evening", " and came home with purple fingers")),
    _a("Went ice skating at {place}{company}{when}{detail}.", K.RINK, details=(
        "", " and fell over only twice", " and held on to the barrier most of the time")),
    _a("Went swimming at {place}{company}{when}{detail}.", K.POOL, times=(M, E), details=(
        "", " and swam forty lengths", " before the crowds arrived")),
    _a("Cycled out to {place} for lunch{company}{when}.", K.PUB, days=WEEKEND),
    _a("Spent the afternoon people-watching at {place}{detail}{when}.", K.WATCH, times=("day",), details=(
        "", " with a coffee", " and sketching passers-by", " with {person}")),
    _a("Planted tomatoes and herbs in window boxes{when}.", seasons=("spring",)),
    _a("Spent a morning weeding a plot at a community garden{company}{when}.", seasons=("spring", "summer", "autumn"),
       days=WEEKEND),
    _a("Went to a summer street festival{company}{when}{detail}.", seasons=("summer",), days=WEEKEND, details=(
        "", " and ate far too much street food", " and danced to a samba band")),
    _a("Watched the New Year fireworks from {place}{company}.", K.VIEW, on=lambda t: t.month == 12 and t.day == 31),
    *_many("Spent a rainy weekend reading <>.", ("detective stories", "a fat Russian novel", "travel memoirs",
                                                 "old science fiction paperbacks", "a biography of a jazz pianist",
                                                 "a history of mapmaking"), days=WEEKEND),
    *_many("Went to see <> at {place}{company}{when}.", FILMS, K.CINEMA, times=(E,)),
    _a("Spent a wet afternoon at {place}{company}{detail}.", K.GALLERY, details=(
        " looking at old maps", "", " and lingered over one painting for an hour")),
    _a("Spent an hour browsing at {place}{when}{detail}.", K.BOOKS, details=(
        " and came away with three paperbacks", "", " and found a signed first edition", " for a birthday present",
        " in the poetry section", " for travel guides")),
    _a("Went to an amateur theatre production{company}{when}{detail}.", times=(E,), details=(
        " of an old farce", " in which a neighbour had a small part", " that ran half an hour over")),
    _a("Started keeping a paper journal{when}.", once=True, times=("month",)),
    *_many("Wrote a long letter to <>{when}.", ("an old schoolfriend", "a great-aunt", "a former teacher",
                                                 "a pen friend abroad"), times=(E, "day")),
    _a("Rearranged the bookshelves by colour{when}.", once=True, days=WEEKEND),
    _a("Spent an evening sorting old photographs{detail}.", details=(" into albums", " from a shoebox", "")),
    _a("Volunteered at a food bank{when}{detail}.", details=(" for a morning", " sorting tins", "")),
    _a("Gave blood at a mobile donor session{when}{detail}.", days=WEEKDAYS, details=(
        "", " and stayed for the free biscuits", " and earned a badge for ten donations", " with {person} for company")),
    *_many("Ran a personal best over <>{when}.", ("five kilometres", "ten kilometres", "a half marathon"),
           days=WEEKEND, times=(M,)),
    _a("Played five-a-side football{company}{when}{detail}.", times=(E,), details=(
        "", " and twisted an ankle", " and scored twice")),
    *_many("Spent a long weekend <>{company}{detail}.", TRIPS, days=(4, 5), details=(
        "", " and did almost nothing", " and came back with a bag of local cheese")),
    _a("Took the night train to visit {person}{detail}.", details=("", " for a long weekend")),
    _a("Went camping by a lake{company}{when}{detail}.", seasons=("summer",), days=WEEKEND, details=(
        "", " and woke to mist over the water", " and forgot the tent pegs")),
    _a("Lost a favourite scarf on the bus{when}.", once=True, seasons=("winter", "autumn")),
    _a("Baked a birthday cake{detail} for {person}{when}.", details=("", " shaped like a steam train")),
    _a("Took {person} to a pottery fair{when}.", days=WEEKEND),
    _a("Spent a lazy Sunday making {detail}.", days=(6,), details=EVERYDAY_FOOD),
    *_many("Mended <> by hand{when}.", ("a torn jacket", "a pair of jeans", "an old quilt", "a rucksack strap"),
           times=(E,)),
    *_many("Replaced <> on an old bicycle{when}.", ("the chain and brake pads", "a worn-out saddle",
                                                    "both tyres", "the gear cables"), days=WEEKEND),
    _a("Helped {person} paint a garden fence{when}.", days=WEEKEND, seasons=("spring", "summer")),
    _a("Bought fresh flowers at the market for no reason{when}.", days=(5,)),
    # Era-bound everyday life.
    _a("Made a mixtape of favourite songs for {person}{when}.", years=(1980, 1999)),
    _a("Spent an evening taping songs off the radio{when}.", years=(1980, 1997), times=("day",)),
    _a("Burned a CD of road-trip songs for {person}{when}.", years=(1999, 2008)),
    _a("Rented a stack of films from the corner video shop for a film night{company}{when}.", years=(1986, 2006),
       days=(4, 5)),
    _a("Watched a whole box set of DVDs{company} over one weekend{detail}.", years=(2001, 2012), days=(5,), details=(
        "", " and regretted nothing")),
    _a("Watched a whole season of a crime drama on a streaming service over one weekend{company}.", years=(2013, 9999),
       days=(5,)),
    *_many("Sent a long email to <>{when}.", ("an old schoolfriend living abroad", "a cousin overseas",
                                              "a former flatmate"), years=(1997, 9999), times=(E,)),
    _a("Wrote emails home from an internet café on a trip abroad{when}.", years=(1997, 2008)),
    _a("Took two rolls of film to be developed{detail}{when}.", years=(1986, 2006), details=(
        "", " and picked out the best prints for an album")),
    *_many("Printed the digital camera photos of a weekend <> for an album{when}.", TRIPS, years=(2003, 2014)),
    _a("Had a long video call with {person}{when}{detail}.", years=(2010, 9999), times=(E,), details=(
        "", " with a terrible connection")),
    *_many("Listened to a whole podcast series about <> on a long train journey{when}.", (
        "a famous shipwreck", "the history of maps", "an unsolved mystery", "old radio comedy"), years=(2007, 9999)),
    _a("Bought a first mobile phone{detail}{when}.", years=(1996, 2003), once=True, details=(
        ", a chunky grey one", ", with a tiny green screen")),
    _a("Switched to a smartphone{detail}{when}.", years=(2009, 9999), once=True, details=(
        " after years with an old flip phone", "")),
    _a("Tried a running app for a month{detail}.", years=(2010, 9999), details=(
        "", " and stopped after the free trial")),
    *_many("Booked a cheap flight online for a weekend <>{when}.", TRIPS, years=(2001, 9999)),
    *_many("Posted photos of a weekend <> online for the family{when}.", TRIPS, years=(2006, 9999)),
    _a("Spent an evening online over a slow dial-up connection{when}.", years=(1996, 2004), times=(E,)),
    *_many("Read <> on an e-reader on a long flight{when}.", ("a whole novel", "two crime novels",
                                                              "a thick biography"), years=(2010, 9999)),
)

#: Hobby activities, by hobby (the invariants' hobbies; the profile lists three).
HOBBY_EVENTS: dict[str, tuple[Activity, ...]] = {
    "bouldering": (_a("Spent {when} bouldering at the climbing wall{company}{detail}.", times=("span",), details=(
        "", " and finally topped a problem that had taken weeks", " until both forearms gave out")),),
    "bicycle repair": (_a("Trued a buckled wheel for {person}{when}.", days=WEEKEND),
                       *_many("Rebuilt <>{when}{detail}.", (
                           "an old three-speed bicycle found in a skip", "a rusty racing bike from a flea market",
                           "a child's bike for a neighbour", "a heavy old delivery bike"), details=(
                           "", " and gave it away", " over two weekends")),
                       _a("Ran a bicycle repair stall at a street fair{company}{when}.", days=WEEKEND)),
    "trail running": (_a("Ran the trails through {place}{company}{when}{detail}.", K.WOODS, times=(M,), details=(
        "", " in thick mud", " and saw a deer at the top of the climb")),),
    "sea swimming": (_a("Went sea swimming off {place}{company}{when}{detail}.", K.COAST, times=(M,), details=(
        "", " in water colder than expected", " and warmed up with a flask of tea")),
        _a("Took an early train to the coast for a sea swim{company}{when}.", days=WEEKEND,
           seasons=("summer",))),
    "choral singing": (_a("Sang with the choir at {place}{when}{detail}.", K.CHURCH, K.RECITAL, times=(E,), details=(
        "", " in a concert of old English songs", " and nearly missed a cue", " in a charity concert",
        " in a programme of sea shanties", " with a visiting orchestra")),
        _a("Spent a long Saturday rehearsing with the choir{when}.", days=(5,))),
    "birdwatching": (_a("Spent {when} birdwatching at {place}{company}{detail}.", K.WETLAND, times=("span",), details=(
        "", " and ticked off a new wader", " through a borrowed telescope")),),
    "woodturning": _many("Turned <> on the lathe{when}.", ("a walnut bowl", "a set of candlesticks", "a pepper mill",
                                                           "a rolling pin for {person}")),
    "pottery": _many("Threw <> at an evening pottery class{when}.", ("a set of mugs", "a lopsided vase",
                                                                     "four small bowls"), times=(E,), days=WEEKDAYS),
    "chess": (_a("Played in a weekend chess tournament and won {detail}.", days=(5,), details=(
        "three of five games", "two of five games", "four of six games")),
        _a("Played a long game of chess against {person}{when}{detail}.", times=(E,), details=(
            "", " and lost on time", " and won with a late attack"))),
    "crossword puzzles": (_a("Finished the weekend prize crossword{company}{when}.", days=WEEKEND),),
    "baking bread": _many("Baked <>{when}.", ("a sourdough loaf", "two rye loaves", "a braided loaf for {person}",
                                              "a batch of bagels"), days=WEEKEND),
    "knitting": _many("Knitted <>{when}.", ("a scarf for {person}", "a pair of thick socks", "a hat for a newborn",
                                            "a jumper that took all winter")),
    "orienteering": (_a("Ran an orienteering course through {place}{company}{when}{detail}.", K.WOODS, days=WEEKEND,
                        details=("", " and missed one control", " in a personal best time")),),
    "amateur astronomy": _many("Set up the telescope at {place} to look at <>{when}.",
                               ("the rings of Saturn", "the moons of Jupiter", "the Orion Nebula",
                                "the craters of a half moon"), K.SKY, times=(N,)),
    "fly fishing": (_a("Spent {when} fly fishing on {place}{company}{detail}.", K.WATER, times=("span",), details=(
        "", " and caught nothing but weed", " and let two trout go")),),
    "salsa dancing": (_a("Went to a salsa night at {place}{company}{when}.", K.MUSIC, times=(E,)),),
    "beekeeping for fun": (_a("Checked the hives{company}{when}{detail}.", seasons=("spring", "summer"), details=(
        "", " and got stung once")),
        _a("Harvested honey from the hives{company}{when}.", seasons=("late summer",))),
    "vinyl collecting": (_a("Found a rare jazz record at {place}{when}.", K.MARKET, days=WEEKEND),
                         _a("Spent {when} flicking through record crates at {place}.", K.MARKET, times=("span",),
                            days=WEEKEND)),
    "watercolour painting": (_a("Painted a watercolour of {place}{when}.", K.WALK, K.PICNIC, K.WATER),),
    "rowing": (_a("Rowed with the club on {place}{when}{detail}.", K.WATER, times=(M,), details=(
        "", " at first light", " in a headwind the whole way")),),
    "geocaching": (_a("Found {detail} geocaches in {place}{company}{when}.", K.WOODS, days=WEEKEND,
                      details=("three", "five", "seven"), years=(2000, 9999)),),
}


def _work(*items: Activity, shifts: bool = False) -> tuple[Activity, ...]:
    """An occupation's work events: on weekdays, unless the work runs in shifts (or the event names its day)."""
    return tuple(a if a.days != ALL_DAYS else replace(a, days=ALL_DAYS if shifts else WEEKDAYS) for a in items)


def _w(text: str, **kw: object) -> Activity:
    kw.setdefault("stages", EMPLOYED)
    kw.setdefault("times", ("work",))
    return Activity(text, (), **kw)  # type: ignore[arg-type]


SENIOR = {"stages": (Stage.SENIOR,)}
#: Work events by occupation (job title); ``{when}`` in a work event is a date phrase for a working day.
WORK_EVENTS: dict[str, tuple[Activity, ...]] = {
    "software engineer": _work(
        _w("Tracked down a stubborn bug{when}{detail}.", details=(
            " that only showed up under heavy load", " that turned out to be a time-zone mistake",
            " after two days of reading logs")),
        _w("Reviewed a long batch of code changes{when}{detail}.", details=(" before a release", " and left pages of "
                                                                             "comments")),
        _w("Stayed up for an overnight release{when}{detail}.", details=("", " and went home at dawn")),
        _w("Spent a week on call for the team's services{detail}.", details=(
            " and got woken twice at night", " without a single alert")),
        *_many("Gave a lunchtime talk to the team on <>{when}.", ("testing habits", "writing clear error messages",
                                                                  "code review etiquette", "reading old code"),
               stages=EMPLOYED, times=("work",)),
        _w("Paired with a new colleague for a week on a tricky feature{detail}.", details=("", " and learned a lot")),
        _w("Rewrote an old build script that nobody understood{when}."),
        _w("Went to a two-day developer conference in another city{detail}.", details=(
            "", " and came back full of ideas")),
        _w("Set up automated tests that run on every change{when}.", years=(2004, 9999), once=True),
        _w("Helped move a service onto rented cloud servers{when}.", years=(2010, 9999), once=True),
        _w("Led a retrospective after a difficult release{when}.", years=(2003, 9999)),
        _w("Interviewed candidates for a junior developer post{when}.", **SENIOR),
        _w("Planned the next quarter's work with the team{when}.", **SENIOR)),
    "civil engineer": _work(
        _w("Walked a muddy construction site in steel-toe boots{when}{detail}.", details=(
            "", " with the site manager", " in driving rain")),
        _w("Checked the records of a concrete pour{when}{detail}.", details=("", " late into the evening")),
        _w("Met a client in a cramped site cabin{when}."),
        _w("Signed off a set of drainage drawings{when}."),
        _w("Took a two-day course on site safety{detail}.", details=("", " and passed the test"), once=True),
        _w("Inspected a riverbank after heavy rain{when}.", details=("",)),
        _w("Sat through a long planning inquiry{when}{detail}.", details=("", " as an expert witness")),
        _w("Wrote a site inspection report{when}{detail}.", details=("", " that ran to forty pages")),
        _w("Measured settlement on an old retaining wall{when}."),
        _w("Gave a talk to engineering students at an old university{when}."),
        _w("Mentored a graduate engineer through a first year on site{detail}.", details=("",), **SENIOR),
        _w("Negotiated a contract variation with a contractor{when}.", **SENIOR)),
    "secondary-school chemistry teacher": _work(
        _w("Marked a stack of mock exam papers{when}{detail}.", details=("", " late into the night")),
        _w("Ran a parents' evening{detail}{when}.", times=("workday",), details=(
            "", " that overran by an hour", " with fourteen back-to-back appointments")),
        _w("Set up a flame test demonstration for a Year 9 class{when}."),
        _w("Invigilated a long exam in the sports hall{when}.", on=lambda t: t.month in (5, 6)),
        _w("Covered a colleague's lessons for a week{detail}.", details=("", " during a flu outbreak")),
        _w("Ran an after-school science club{when}{detail}.", details=(
            "", " where the pupils made slime", " where the pupils grew crystals")),
        _w("Rewrote the safety briefing for the school lab{when}.", once=True),
        _w("Wrote end-of-year reports for two classes{when}.", on=lambda t: t.month in (6, 7)),
        _w("Took a group of pupils on a residential field trip{detail}.", details=("", " to a river valley")),
        _w("Helped pupils through a science fair project{when}."),
        _w("Interviewed candidates for a science teaching post{when}.", **SENIOR),
        _w("Chaired a department meeting about a new syllabus{when}.", **SENIOR)),
    "registered nurse": _work(
        _w("Worked a run of four night shifts{detail}.", details=("", " on a short-staffed ward")),
        _w("Covered an extra weekend shift for a sick colleague{when}.", days=WEEKEND),
        _w("Did a refresher course in basic life support{when}."),
        _w("Sat with a frightened patient through a long night on the ward{when}."),
        _w("Supervised a nursing student on drug rounds{when}{detail}.", details=("", " for a month")),
        _w("Handed over a busy ward at the end of a twelve-hour shift{when}."),
        _w("Took part in a fire drill on the ward{when}."),
        _w("Worked a double shift over a public holiday{detail}.", details=("", " and slept most of the next day")),
        _w("Learned to use a new infusion pump on the ward{when}."),
        _w("Helped a family through a difficult discharge{when}."),
        _w("Drew up the ward's shift rota for the month{when}.", **SENIOR),
        _w("Sat on the interview panel for new staff nurses{when}.", **SENIOR), shifts=True),
    "architect": _work(
        _w("Presented sketch designs to a client{when}{detail}.", details=(
            "", " who wanted everything twice the size", " and got the go-ahead")),
        _w("Built a card model for a competition entry{detail}.", details=("", " over three late nights")),
        _w("Visited a building site to check the window details{when}."),
        _w("Spent a week redrawing plans after comments from the planners{detail}.", details=("",)),
        _w("Went on a study tour of new buildings abroad{detail}.", details=("", " with the whole office")),
        _w("Sat through a long design review with the structural engineers{when}."),
        _w("Sketched facades on a lunchtime walk{when}."),
        _w("Entered an open design competition{detail}.", details=("", " and made the shortlist")),
        _w("Chose brick samples with a client{when}."),
        _w("Learned a new drawing program{detail}.", years=(1990, 9999), details=("", " over a long month"), once=True),
        _w("Led the design team on a new commission{when}.", **SENIOR),
        _w("Reviewed junior colleagues' drawings before a deadline{when}.", **SENIOR)),
    "journalist": _work(
        _w("Chased a source for comment late into the evening{when}{detail}.", details=(
            "", " and got a one-line reply", " and finally got a call back")),
        _w("Filed a story minutes before the deadline{when}{detail}.", details=(
            "", " about a bus route closure", " about a school merger", " about a burst water main",
            " about a row over parking")),
        _w("Covered a late-night town hall meeting{when}{detail}.", details=("", " that ended in a shouting match",
                                                                             " about a new ring road")),
        *_many("Interviewed <> for a feature{when}.", (
            "a retired lighthouse keeper", "a centenarian who still swims daily", "a family of clockmakers",
            "the last cobbler in town", "a volunteer lifeboat crew", "a teenage chess champion"),
            stages=EMPLOYED, times=("work",)),
        _w("Spent a day checking every fact in a long feature{when}{detail}.", details=(
            "", " and found two wrong dates", " before it went to print")),
        _w("Worked the overnight news shift{when}{detail}.", details=("", " on a quiet night", " on a busy night",
                                                                      " and wrote up a warehouse fire")),
        *_many("Attended a crowded press conference <>{when}.", (
            "about a new stadium", "on a hospital merger", "after a big storm", "about rising rents"),
            stages=EMPLOYED, times=("work",)),
        *_many("Travelled to <> to report on the clean-up{when}.", (
            "a flooded valley", "a village hit by a storm", "a coastline after an oil spill"),
            stages=EMPLOYED, times=("work",)),
        _w("Spent a week on a story that was eventually dropped{detail}.", details=(
            "", " for legal reasons", " when the main source went quiet")),
        _w("Transcribed two hours of interview tape{when}.", years=(0, 2008)),
        _w("Sat in the public gallery of a long court case{when}{detail}.", details=("", " for the verdict")),
        _w("Edited the weekend supplement{when}{detail}.", details=("", " with a special on local food"), **SENIOR),
        _w("Commissioned a series of features from freelance writers{when}.", **SENIOR), shifts=True),
    "accountant": _work(
        _w("Worked long evenings through the year-end close{detail}.", details=("", " fuelled by takeaway pizza")),
        _w("Reconciled a tangle of accounts for a client{when}."),
        _w("Sat a professional exam module{when}{detail}.", stages=(Stage.WORKING,), details=("", " and passed")),
        _w("Counted stock at a client's warehouse{when}{detail}.", details=("", " in an unheated building")),
        _w("Prepared year-end accounts for a family firm{when}."),
        _w("Sorted a client's expenses from a shoebox of receipts{when}."),
        _w("Helped a client meet a tax return deadline{when}.", details=("",)),
        _w("Built a cash-flow forecast for a small charity{when}."),
        _w("Explained a set of accounts to a worried client{when}."),
        _w("Moved a client's books onto accounting software{when}.", years=(1995, 9999), once=True),
        _w("Reviewed junior colleagues' working papers{when}.", **SENIOR),
        _w("Presented the annual accounts to a client's board{when}.", **SENIOR)),
    "chef": _work(
        _w("Worked a double shift over a busy bank holiday weekend{detail}.", details=(
            "", " and served three hundred covers")),
        _w("Prepped forty litres of stock before service{when}."),
        _w("Took over the grill section for a month{detail}.", details=("", " while a colleague was away")),
        _w("Tested a new seasonal menu with the kitchen team{when}."),
        _w("Went to the early fish market with the head chef{when}.", stages=(Stage.WORKING,), times=("dawn",)),
        _w("Cooked the staff meal for the whole team{when}{detail}.", details=("", " and got a round of applause")),
        _w("Ran the pass on a fully booked Saturday{detail}.", days=(5,), details=("", " without a single complaint")),
        _w("Trained a new kitchen porter{when}."),
        _w("Deep-cleaned the kitchen before a health inspection{when}."),
        _w("Cooked at a charity dinner on a night off{when}."),
        _w("Wrote the new seasonal menu{when}.", **SENIOR),
        _w("Negotiated prices with a new vegetable supplier{when}.", **SENIOR), shifts=True),
    "graphic designer": _work(
        _w("Pitched three logo concepts to a client{when}{detail}.", details=("", " who chose the first one")),
        _w("Spent a day checking print proofs at the printer's{when}."),
        _w("Redesigned a charity's annual report{detail}.", details=("", " against a tight deadline")),
        _w("Made a poster for a local theatre season{when}."),
        _w("Sat through a long feedback call about colours{when}."),
        _w("Ran a workshop for design students{when}."),
        _w("Built a mood board for a festival campaign{when}."),
        _w("Redrew a set of icons for a client{when}."),
        _w("Learned a new layout program{detail}.", years=(1990, 9999), details=("", " over a long month"), once=True),
        _w("Designed a wedding invitation for {person} as a favour{when}."),
        _w("Art-directed a photo shoot{when}.", **SENIOR),
        _w("Reviewed a junior designer's portfolio{when}.", **SENIOR)),
    "marine biologist": _work(
        _w("Spent a week at sea on a survey vessel{detail}.", details=("", " in rough weather", " and was seasick "
                                                                                                "twice")),
        _w("Sorted samples under a microscope all afternoon{when}."),
        _w("Wrote up a grant report{when}{detail}.", details=("", " two days before the deadline")),
        _w("Gave a public talk at an aquarium{when}."),
        _w("Calibrated instruments before a research cruise{when}."),
        _w("Counted seabirds from the deck of a survey ship{when}."),
        _w("Presented results at a conference{detail}.", details=("", " and fielded tough questions")),
        _w("Entered a season's field data into spreadsheets{when}."),
        _w("Tagged shore crabs on a low tide survey{when}."),
        _w("Took a boat-handling course{detail}.", details=("", " and passed first time"), once=True),
        _w("Supervised a student's summer project{when}.", **SENIOR),
        _w("Reviewed a colleague's paper for a journal{when}.", **SENIOR)),
}

#: Study events by student title (first occupation of the family).
STUDENT_EVENTS: dict[str, tuple[Activity, ...]] = {
    "computer science student": _many("Stayed up late finishing <>{when}.", (
        "a programming assignment", "a group project", "an algorithms problem sheet"), stages=(Stage.STUDENT,)),
    "civil engineering student": _many("Spent {when} on <>.", (
        "a surveying practical in the rain", "a concrete lab session", "a design project for a footpath"),
        stages=(Stage.STUDENT,), times=("span",)),
    "chemistry student": _many("Spent {when} <>.", (
        "in a titration practical", "writing up a lab report", "revising organic reactions"),
        stages=(Stage.STUDENT,), times=("span",)),
    "nursing student": _many("Finished <>{when}.", (
        "a placement on a surgical ward", "a community nursing placement", "a week of clinical skills sessions"),
        stages=(Stage.STUDENT,)),
    "architecture student": _many("Pinned up <> for a crit{when}.", (
        "a set of drawings", "a balsa model", "a sketchbook of site studies"), stages=(Stage.STUDENT,)),
    "journalism student": _many("Wrote <> for the student newspaper{when}.", (
        "a short news story", "a review of a student play", "an interview with a groundskeeper"),
        stages=(Stage.STUDENT,)),
    "accounting student": _many("Revised for <>{when}.", (
        "a financial reporting exam", "a management accounting test", "a business law exam"),
        stages=(Stage.STUDENT,)),
    "culinary student": _many("Practised <> for a practical exam{when}.", (
        "knife skills", "classic sauces", "filleting fish"), stages=(Stage.STUDENT,)),
    "design student": _many("Pinned up <> for a crit{when}.", (
        "a set of posters", "a hand-lettered alphabet", "a magazine layout"), stages=(Stage.STUDENT,)),
    "marine biology student": _many("Spent {when} <>.", (
        "on a field course at a coastal station", "identifying shore creatures in rock pools",
        "in a lab sorting samples"), stages=(Stage.STUDENT,), times=("span",)),
}
STUDENT_LIFE: tuple[Activity, ...] = (
    _a("Pulled an all-nighter before an exam{when}.", stages=(Stage.STUDENT,), on=lambda t: t.month in (1, 5, 6)),
    _a("Moved into a shared student house{detail}.", stages=(Stage.STUDENT,), once=True, on=lambda t: t.month == 9,
       details=(" with four others", " with two old schoolfriends")),
    _a("Worked a summer job in a garden centre{detail}.", stages=(Stage.STUDENT,), once=True,
       on=lambda t: t.month in (7, 8), details=("", " and saved most of the wages")),
    _a("Went to a student party that ran until sunrise{when}.", stages=(Stage.STUDENT,), days=(4, 5)),
    _a("Sat in the library revising{company}{when}.", stages=(Stage.STUDENT,), days=WEEKDAYS),
    _a("Applied for a dozen jobs in one week{detail}.", stages=(Stage.GRADUATE,), details=(
        "", " and heard back from two")),
)

#: Words that date a record: (pattern, first year, last year). :func:`era_violations` checks a record against them.
ERA_MARKERS: tuple[tuple[str, int, int], ...] = (
    (r"\bmixtape", 1975, 2005), (r"taping songs off the radio", 1965, 2000), (r"\bCDs?\b", 1985, 2015),
    (r"\bDVDs?\b", 1998, 2016), (r"video shop", 1980, 2010), (r"\bstreaming\b", 2008, 9999),
    (r"\bemails?\b", 1993, 9999), (r"internet café", 1994, 2012), (r"rolls of film", 0, 2012),
    (r"digital camera", 1997, 9999), (r"video call", 2006, 9999), (r"\bpodcast", 2005, 9999),
    (r"mobile phone", 1990, 9999), (r"smartphone", 2007, 9999), (r"\bapps?\b", 2008, 9999),
    (r"\bonline\b", 1995, 9999), (r"dial-up", 1992, 2008), (r"e-reader", 2007, 9999), (r"geocach", 2000, 9999),
    (r"cloud servers", 2006, 9999), (r"automated tests that run on every change", 2000, 9999),
    (r"retrospective", 2001, 9999), (r"CD-ROM", 1990, 2007), (r"simulator program on the home computer", 1982, 9999),
    (r"accounting software", 1985, 9999), (r"drawing program|layout program", 1985, 9999),
    (r"interview tape", 0, 2012), (r"\bsocial media\b", 2005, 9999), (r"\belectric cars\b", 2008, 9999),
    (r"\bhybrid rhythm\b", 2020, 9999), (r"\bremote work\b", 1998, 9999),
    (r"phones are fine for structured lab tasks", 2010, 9999), (r"\bphones\b", 2000, 9999),
)
_ERA = [(re.compile(p), lo, hi) for p, lo, hi in ERA_MARKERS]


def era_violations(text: str, year: int) -> list[str]:
    """The era markers in ``text`` that a record dated in ``year`` could not carry.

    Returns:
        The offending marker patterns (empty when the text fits its year).
    """
    return [rx.pattern for rx, lo, hi in _ERA if rx.search(text) and not lo <= year <= hi]


# ------------------------------------------------------------------ composition

_SPAN = {M: "a morning", A: "an afternoon", E: "an evening"}


def _when(rng: random.Random, slot_times: tuple[str, ...], m: Moment) -> str:
    """A time phrase that is true of the date, for one of ``slot_times``."""
    wd, month = calendar.day_name[m.t.weekday()], calendar.month_name[m.t.month]
    kind = rng.choice(slot_times)
    weekday = m.t.weekday() < 5
    if kind == "span":
        part = rng.choice((M, A))
        return rng.choice((f"{_SPAN[part]}", f"a {wd} {part}", f"a long {wd}" if not weekday else f"a {wd} {part}"))
    options: list[str] = [""]
    if kind in (M, A, E):
        options += [f" on a {wd} {kind}", f" one {kind} in {month}"]
        if kind == E and weekday and m.stage in EMPLOYED:
            options.append(" after work")
        if kind == E and weekday and m.stage is Stage.STUDENT:
            options.append(" after lectures")
    elif kind == N:
        options += [f" on a clear {month} night", f" late one {wd} night"]
    elif kind == "month":
        options += [f" in {month}", f" one week in {month}"]
    elif kind == "dawn":
        options += [f" before dawn one {wd}", f" at dawn one {month} morning"]
    elif kind in ("work", "workday"):
        options += [f" on a {wd}", f" one {wd} in {month}", f" during a busy week in {month}"]
    else:  # day
        options += [f" on a {wd}", f" one {wd} in {month}", f" in {month}"]
    return rng.choice(options)


def _company(rng: random.Random, m: Moment, exclude: str | None) -> str:
    names = [p for p in m.people if p != exclude]
    generic = [" with a neighbour", " with two old schoolfriends"]
    if m.stage is Stage.STUDENT:
        generic += [" with a few classmates", " with two flatmates"]
    if m.stage in EMPLOYED:
        generic += [" with a couple of colleagues"]
    roll = rng.random()
    if roll < 0.45 and names:
        return f" with {rng.choice(names)}"
    if roll < 0.7:
        return rng.choice(generic)
    return ""


def pool(m: Moment, work: bool) -> list[Activity]:
    """The activities that fit ``m``: work events of the occupation, else everyday, hobby and study events."""
    return [a for a in _items(work, m.occupation, m.student, m.hobbies) if a.fits(m)]


@functools.cache
def _items(work: bool, occupation: str, student: str, hobbies: tuple[str, ...]) -> tuple[Activity, ...]:
    if work:
        return WORK_EVENTS[occupation]
    items = EVERYDAY + STUDENT_LIFE + STUDENT_EVENTS.get(student, ())
    for hobby in hobbies:
        items += HOBBY_EVENTS.get(hobby, ())
    return items


def realize(rng: random.Random, activity: Activity, m: Moment) -> str:
    """Fill one activity for ``m`` (the activity must fit it)."""
    text = activity.text.replace("{detail}", rng.choice(activity.details))
    person = rng.choice(m.people) if m.people and "{person}" in text else None
    place = rng.choice(places_for(activity, m)).phrase if "{place}" in text else ""
    out = text.format(place=place, person=person, when=_when(rng, activity.times, m) if "{when}" in text else "",
                      company=_company(rng, m, person) if "{company}" in text else "")
    return out[0].upper() + out[1:]


def compose(rng: random.Random, m: Moment, work: bool, seen: set[str], once: set[str]) -> str | None:
    """One event text for ``m`` that is not in ``seen``, or None when the pools have nothing left.

    ``seen`` (texts already in the lineage) and ``once`` (keys of one-off activities already used)
    are updated.
    """
    groups: dict[str, list[Activity]] = {}
    for a in pool(m, work):
        groups.setdefault(a.group or a.text, []).append(a)
    # A hobby is a large part of a life: its activities come up three times as often as any other.
    hobby = {a.group or a.text for h in m.hobbies for a in HOBBY_EVENTS.get(h, ())}
    names = sorted(groups)
    weights = [3 if g in hobby else 1 for g in names]
    for _attempt in range(40):
        if not names:
            return None
        activity = rng.choice(groups[rng.choices(names, weights)[0]])
        text = realize(rng, activity, m)
        key = activity.text + "|" + next((p for p in m.people if p in text), "")
        if text in seen or (activity.once and key in once):
            continue
        seen.add(text)
        if activity.once:
            once.add(key)
        return text
    return None


def all_parts() -> list[str]:
    """Every fixed string the compositions are made of (for the pool checks)."""
    acts = list(EVERYDAY) + list(STUDENT_LIFE) + [a for v in STUDENT_EVENTS.values() for a in v]
    acts += [a for v in HOBBY_EVENTS.values() for a in v] + [a for v in WORK_EVENTS.values() for a in v]
    out = [a.text for a in acts] + [d for a in acts for d in a.details] + [p.phrase for p in PLACES]
    return out

