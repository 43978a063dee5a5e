"""Algorithm 1 (seed B.2): both members of a collision pair built from shared exposed invariants.

Construction is symbolic first: dates, propositions, provenance, relationships, belief
histories and sessions are fixed and checked (profile equality at every checkpoint,
history inequality, chronology, acquisition sources) before any text is written. Only
profile-level transitions change profile fields, and they are applied to both members at
the same epoch, as identical shared events.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from sitbench.data._generator import _events as EV
from sitbench.data._generator import _realize as say
from sitbench.data._generator import _vocab as V
from sitbench.data._generator._registry import RegistryBuilder, Rejected
from sitbench.data._generator._text import overlap, tokens
from sitbench.lineage import profile_at, serialize_profile
from sitbench.schema import (
    AcquisitionEdge,
    Belief,
    BeliefVersion,
    Event,
    EventKind,
    Invariants,
    Lineage,
    ProfileVersion,
    Provenance,
    Relationship,
    RelationshipVersion,
    SignedProp,
    Tier,
)

ROLE_MOVE_DAYS = 120
"""A move's record may give a new role as its reason only when a job starts within this many days after it."""
SKILLS = (("dinghy sailing", "dinghy"), ("scuba diving", "scuba"), ("welding", "welding"),
          ("sign language", "sign language"), ("falconry", "falconry"), ("archery", "archery"))


def _day(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    if end <= start:
        raise Rejected("chronology", f"empty date window {start}..{end}")
    return start + dt.timedelta(days=rng.randrange((end - start).days))


@dataclass
class SymEvent:
    """A symbolic event; ``text`` is filled in by the realization step."""

    key: str
    t: dt.date
    kind: EventKind
    asserts: list[SignedProp] = field(default_factory=list)
    retracts: list[str] = field(default_factory=list)
    participants: list[str] = field(default_factory=list)
    place: str | None = None
    provenance: Provenance = Provenance.EXPERIENCED
    disclosure: Tier = Tier.PUBLIC
    source: str | None = None
    session_id: str | None = None
    shared: bool = False
    text: str = ""


@dataclass
class Acquired:
    """One acquisition: topic, proposition ids, dates and the two event keys."""

    topic: V.Topic
    knows: str
    world: str
    t: dt.date
    source_t: dt.date
    provenance: str
    source_key: str
    key: str


@dataclass
class BeliefPlan:
    """One member's history on one belief topic."""

    topic: V.BeliefTopic
    stances: list[str]
    """Stance prop ids in order."""
    dates: list[dt.date]
    keys: list[str]
    change: str


@dataclass
class Secret:
    """A plan confided to one confidant."""

    plan: V.Plan
    prop: str
    t: dt.date
    confidant: str
    key: str


@dataclass
class Session:
    """A shared session slot: date, colleague, object; each member agrees a different nickname."""

    t: dt.date
    colleague: str
    obj: str
    nick: tuple[str, str]
    props: tuple[str, str]
    session_id: str


@dataclass
class Member:
    """The private side of one member."""

    cities: list[tuple[str, str, dt.date, str]] = field(default_factory=list)
    """(city, prop id, move date, event key)."""
    jobs: list[tuple[str, str, str, str, dt.date, str]] = field(default_factory=list)
    """(employer, employer prop, field value, field prop, start date, event key)."""
    acquired: list[Acquired] = field(default_factory=list)
    beliefs: list[BeliefPlan] = field(default_factory=list)
    secrets: list[Secret] = field(default_factory=list)
    skill: tuple[str, str, dt.date, str] | None = None
    close_friend_t: dt.date | None = None
    events: list[SymEvent] = field(default_factory=list)


@dataclass
class PairPlan:
    """Everything both lineages of a pair are built from, before realization."""

    invariants: Invariants
    occupation: V.Occupation
    occupations: list[ProfileVersion]
    checkpoints: list[dt.date]
    hometown: str
    hometown_prop: str
    sibling: tuple[str, str]
    """(name, relation)."""
    friend: str
    colleagues: list[str]
    sessions: list[Session]
    members: tuple[Member, Member]
    unacquired: list[tuple[V.Topic, str, str]]
    """Topics neither member ever acquires: (topic, knows prop, world prop)."""
    confounder_cities: list[tuple[str, str]]
    confounder_hometowns: list[tuple[str, str]]
    confounder_employers: list[tuple[str, str]]
    shared_events: list[SymEvent]


@dataclass
class Scale:
    """How much private history each member gets (the full suite and E6 use different scales)."""

    topics: int = 8
    beliefs: int = 4
    secrets: int = 3
    sessions: int = 5
    cities: int = 3


def _topic_tokens(topic: V.Topic) -> set[str]:
    return tokens(f"{topic.topic} {topic.discipline}")


_Item = TypeVar("_Item")


def _pick_disjoint(rng: random.Random, pool: list[_Item], n: int, key: Callable[[_Item], set[str]],
                   taken: set[str]) -> list[_Item]:
    """Greedy pick of ``n`` items whose token sets are pairwise disjoint and disjoint from ``taken``."""
    out = []
    items = list(pool)
    rng.shuffle(items)
    for item in items:
        toks = key(item)
        if overlap(toks, taken):
            continue
        out.append(item)
        taken |= toks
        if len(out) == n:
            return out
    raise Rejected("pool_exhausted", f"needed {n} token-disjoint items, found {len(out)}")


class _Keys:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"


def _plan_sessions(rng: random.Random, reg: RegistryBuilder, objects: list[str], colleagues: list[str],
                   checkpoints: list[dt.date]) -> list[Session]:
    """The shared session slots (same colleague, date and object for both members), each with two nicknames,
    numbered in the order they happened."""
    t0, t1, t2, t3, t4 = checkpoints
    windows = [(t0 + dt.timedelta(days=90), t1), (t0 + dt.timedelta(days=90), t1), (t1, t2), (t2, t3),
               (t3, t4 - dt.timedelta(days=20))]
    sessions = []
    for i, obj in enumerate(objects):
        lo, hi = windows[i % len(windows)]
        nicks = []
        for _ in range(2):
            for _attempt in range(200):
                nick = f"{rng.choice(V.NICKNAME_HEADS)} {rng.choice(V.NICKNAME_TAILS)}"
                if reg.form_owner(nick) is None and nick not in nicks:
                    break
            else:
                raise Rejected("pool_exhausted", "no unused nickname")
            nicks.append(nick)
        props = tuple(reg.add("project", "project_nickname", "project.nickname", obj, n,
                              f"The {obj} is nicknamed {n}.", [n]) for n in nicks)
        sessions.append(Session(_day(rng, lo + dt.timedelta(days=1), hi - dt.timedelta(days=10)),
                                colleagues[i % 2], obj, (nicks[0], nicks[1]), props, ""))  # type: ignore[arg-type]
    # Session ids count the sessions in the order they happened.
    sessions.sort(key=lambda s: (s.t, s.obj))
    for i, session in enumerate(sessions):
        session.session_id = f"S{i + 1}"

    return sessions


def _plan_beliefs(rng: random.Random, reg: RegistryBuilder, key: _Keys, belief_topics: list[V.BeliefTopic],
                  members: tuple[Member, Member], checkpoints: list[dt.date], first_view: dt.date) -> None:
    """Beliefs: the same topics for both members, different histories; every member changes its mind at least
    once."""
    t0, t1, _t2, t3, _t4 = checkpoints
    for belief in belief_topics:
        stance_props = [reg.add("belief", "stance", f"belief.{belief.keyword.replace(' ', '-')}", "self", text,
                                f"The identity holds that {text}.", [f"{belief.keyword} + {cue}"])
                        for text, cue in belief.stances]
        change = reg.add("belief", "stance_change", f"belief.{belief.keyword.replace(' ', '-')}.change", "self",
                         f"changed mind about {belief.topic}", f"The identity changed its mind about {belief.topic}.",
                         [f"used to think + {belief.keyword}", f"changed my mind about + {belief.keyword}"])
        # Both first views must exist when they are formed; a later stance may only be changed to.
        change_from = t1 + dt.timedelta(days=10)
        early = [i for i in range(len(stance_props)) if belief.stance_since(i) <= first_view.year]
        later = [i for i in range(len(stance_props)) if i not in early and belief.stance_since(i) <= change_from.year]
        if len(early) < 2:
            raise Rejected("anachronism", f"fewer than two stances on {belief.topic} existed by {first_view.year}")
        rng.shuffle(early)
        rng.shuffle(later)
        order = early + later
        seqs = [[order[0], order[1]], [order[1], order[0]]]
        if len(order) > 2 and rng.random() < 0.5:
            seqs[1] = [order[0], order[2]]
        for m, member in enumerate(members):
            first_t = _day(rng, first_view, t0 - dt.timedelta(days=20))
            change_t = _day(rng, change_from, t3 - dt.timedelta(days=10))
            k0, k1 = key("B"), key("B")
            stances = [stance_props[i] for i in seqs[m]]
            member.beliefs.append(BeliefPlan(belief, stances, [first_t, change_t], [k0, k1], change))
            member.events.append(SymEvent(k0, first_t, EventKind.BELIEF, [SignedProp(prop_id=stances[0])],
                                          text=f"belief:first:{belief.stances[seqs[m][0]][0]}"))
            member.events.append(SymEvent(k1, change_t, EventKind.BELIEF,
                                          [SignedProp(prop_id=stances[1]), SignedProp(prop_id=change)],
                                          retracts=[stances[0]], source=k0,
                                          text=f"belief:change:{belief.stances[seqs[m][1]][0]}"))



@dataclass(frozen=True)
class _PairDraws:
    """What a pair's plan drew for both members, from which each member's private history is built."""

    checkpoints: list[dt.date]
    start: dt.date
    scale: Scale
    cities: list[str]
    city_props: list[str]
    employers: list[str]
    emp_props: list[str]
    fields: list[V.Field]
    field_props: list[str]
    topics: list[V.Topic]
    topic_props: Callable[[V.Topic], tuple[str, str]]
    skills: list[tuple[str, str]]
    plans: list[V.Plan]
    sessions: list[Session]
    sibling: tuple[str, str]
    friend: str


def _plan_member(rng: random.Random, reg: RegistryBuilder, key: _Keys, m: int, member: Member,
                 draws: _PairDraws) -> None:
    """One member's private history: moves, jobs, acquisitions, a skill, the close friend, secrets and sessions."""
    t0, t1, t2, t3, t4 = draws.checkpoints
    start, scale, cities, city_props = draws.start, draws.scale, draws.cities, draws.city_props
    employers, emp_props, fields, field_props = draws.employers, draws.emp_props, draws.fields, draws.field_props
    topics, topic_props, skills, plans = draws.topics, draws.topic_props, draws.skills, draws.plans
    sessions, sibling, friend = draws.sessions, draws.sibling, draws.friend
    own_cities = cities[m * scale.cities:(m + 1) * scale.cities]
    move_windows = [(t0 + dt.timedelta(days=5), start - dt.timedelta(days=2)), (t1, t2), (t2, t3)]
    for c, city in enumerate(own_cities):
        lo, hi = move_windows[c % 3]
        member.cities.append((city, city_props[cities.index(city)], _day(rng, lo, hi), key("R")))
    job_dates = [start, _day(rng, member.cities[-1][2] + dt.timedelta(days=3), t3 - dt.timedelta(days=2))
                 if len(member.cities) > 2 else _day(rng, t2, t3)]
    for j in range(2):
        e = 2 * m + j
        f = fields[2 * m + (j if rng.random() < 0.6 else 0)]
        fp = field_props[fields.index(f)]
        k = key("J")
        member.jobs.append((employers[e], emp_props[e], f.value, fp, job_dates[j], k))
        member.events.append(SymEvent(k, job_dates[j], EventKind.EPISODIC,
                                      [SignedProp(prop_id=emp_props[e]), SignedProp(prop_id=fp)],
                                      text=f"job:{j}:{employers[e]}:{f.phrase}"))
    _end_first_job_and_give_reasons(rng, key, member)
    own_topics = topics[m * scale.topics:(m + 1) * scale.topics]
    span = (t4 - dt.timedelta(days=40) - (t0 + dt.timedelta(days=100))).days
    for i, topic in enumerate(own_topics):
        knows, world = topic_props(topic)
        t = t0 + dt.timedelta(days=100 + (span * (i + rng.random())) // len(own_topics))
        source_t = t - dt.timedelta(days=rng.randrange(20, 90))
        prov = say.PROVENANCES[(i + m * 3 + rng.randrange(8)) % 8]
        sk, ak = key("Q"), key("A")
        member.acquired.append(Acquired(topic, knows, world, t, source_t, prov, sk, ak))
        member.events.append(SymEvent(sk, source_t, EventKind.EPISODIC, provenance=_PROV[prov],
                                      text=f"source:{prov}:{topic.discipline}"))
        member.events.append(SymEvent(ak, t, EventKind.ACQUISITION, [SignedProp(prop_id=knows)],
                                      provenance=_PROV[prov], source=sk,
                                      text=f"acq:{prov}:{topic.discipline}:{topic.topic}"))
    skill_name, skill_form = skills[m]
    sp = reg.add("skill", "has_skill", "skill.practical", "self", skill_name,
                 f"The identity is qualified in {skill_name}.", [skill_form], eq=skill_form.replace(" ", "-"))
    st = _day(rng, t0, t4 - dt.timedelta(days=10))
    k = key("K")
    member.skill = (skill_name, sp, st, k)
    member.events.append(SymEvent(k, st, EventKind.SKILL, [SignedProp(prop_id=sp)], provenance=Provenance.TRAINING,
                                  text=f"skill:{skill_name}"))
    member.close_friend_t = _day(rng, t1 + dt.timedelta(days=10), t2 - dt.timedelta(days=10))
    member.events.append(SymEvent(key("T"), member.close_friend_t, EventKind.RELATIONSHIP, participants=[_id(friend)],
                                  disclosure=Tier.ACQUAINTANCE, text=f"transition:{friend}"))
    for s, plan in enumerate(plans[m * scale.secrets:(m + 1) * scale.secrets]):
        prop = reg.add("plans", "plans", f"plans.{plan.forms[0].replace(' ', '-')}", "self", plan.value,
                       f"The identity is privately considering this: {plan.value}.", list(plan.forms))
        confidant = sibling[0] if s % 2 == 0 else friend
        lo = t1 + dt.timedelta(days=20) if confidant == sibling[0] else member.close_friend_t + dt.timedelta(days=5)
        t = _day(rng, lo, t4 - dt.timedelta(days=15))
        k = key("C")
        member.secrets.append(Secret(plan, prop, t, confidant, k))
        member.events.append(SymEvent(k, t, EventKind.RELATIONSHIP, [SignedProp(prop_id=prop)],
                                      participants=[_id(confidant)], disclosure=Tier.CONFIDANT,
                                      text=f"secret:{confidant}:{plan.confided}"))
    for session in sessions:
        k = key("H")
        member.events.append(SymEvent(k, session.t, EventKind.SESSION, [SignedProp(prop_id=session.props[m])],
                                      participants=[_id(session.colleague)], provenance=Provenance.CONVERSATION,
                                      disclosure=Tier.COLLEAGUE, session_id=session.session_id,
                                      text=f"session:{session.colleague}:{session.obj}:{session.nick[m]}"))


def plan_pair(rng: random.Random, reg: RegistryBuilder, used: dict[str, set[str]], scale: Scale) -> PairPlan:
    """Draw a pair's shared invariants and both private histories (symbolic; no text yet)."""
    key = _Keys()
    occ = rng.choice(V.OCCUPATIONS)
    first = rng.choice([n for n in V.FIRST_NAMES if n not in used["first"]] or list(V.FIRST_NAMES))
    last = rng.choice([n for n in V.SURNAMES if n not in used["last"]] or list(V.SURNAMES))
    town, region = rng.choice([h for h in V.HOMETOWNS if h[0] not in used["hometown"]] or list(V.HOMETOWNS))
    birth = dt.date(rng.randrange(1966, 1985), rng.randrange(1, 13), rng.randrange(1, 29))
    y0 = birth.year + 23 + rng.randrange(0, 3)
    gap = rng.choice((3, 4))
    checkpoints = [dt.date(y0 + k * gap, 6, 1) for k in range(5)]
    t0, _t1, t2, t3, _t4 = checkpoints
    grad = dt.date(y0, 5, rng.randrange(5, 28))
    start = t0 + dt.timedelta(days=rng.randrange(25, 60))
    promotion = _day(rng, t2 + dt.timedelta(days=30), t3 - dt.timedelta(days=30))
    occupations = [ProfileVersion(t=dt.date(birth.year + 18, 9, 1), occupation=occ.student),
                   ProfileVersion(t=start, occupation=occ.title),
                   ProfileVersion(t=promotion, occupation=occ.senior)]
    invariants = Invariants(
        alias=f"{first} {last}", birth_date=birth, hometown=f"{town}, {region}",
        education=f"{occ.degree}, University of {town} ({grad.year})",
        hobbies=rng.sample([h for h in V.HOBBIES if V.HOBBY_SINCE.get(h, 0) <= (t0 - dt.timedelta(days=900)).year], 3),
        traits=rng.sample(V.TRAITS, 3))
    used["first"].add(first)
    used["last"].add(last)
    used["hometown"].add(town)

    hometown_prop = reg.add("residence", "grew_up_in", "hometown", "self", town, f"The identity grew up in {town}.",
                            [town])
    shared = [
        SymEvent(key("S"), birth, EventKind.EPISODIC, [SignedProp(prop_id=hometown_prop)], place=town, shared=True),
        SymEvent(key("S"), grad, EventKind.EPISODIC, place=town, shared=True),
        SymEvent(key("S"), start, EventKind.PROFILE, shared=True),
        SymEvent(key("S"), promotion, EventKind.PROFILE, shared=True),
    ]
    shared[0].text = "birth"
    shared[1].text = "graduation"
    shared[2].text = "profile-start"
    shared[3].text = "profile-senior"

    friends = [n for n in V.FRIEND_NAMES]
    rng.shuffle(friends)
    sibling = (friends[0], rng.choice(V.sibling_words(friends[0])))
    friend = friends[1]
    colleagues = friends[2:4]

    cities = rng.sample(V.CITIES, 2 * scale.cities + 4)
    stems = rng.sample(V.EMPLOYER_STEMS, 8)
    fields = rng.sample(occ.fields, 4)
    employers = [f"{s} {rng.choice(occ.suffixes)}" for s in stems]
    emp_props = [reg.add("employment", "worked_at", "employment.employer", "self", e,
                         f"The identity has worked at {e}.", [e]) for e in employers]
    field_props = [reg.add("employment", "worked_on", "work.field", "self", f.value,
                           f"The identity has worked on {f.value}.", list(f.forms)) for f in fields]
    city_props = [reg.add("residence", "lived_in", "residence.city", "self", c, f"The identity has lived in {c}.", [c])
                  for c in cities]

    topic_taken: set[str] = set()
    topics = _pick_disjoint(rng, list(V.TOPICS), 2 * scale.topics + 4, _topic_tokens, topic_taken)

    def topic_props(topic: V.Topic) -> tuple[str, str]:
        eq = topic.forms[0].replace(" ", "-")
        knows = reg.add("technical_knowledge", "knows", "knowledge.topic", "self", topic.topic,
                        f"The identity has acquired knowledge of {topic.topic}.", list(topic.forms), eq=eq)
        world = reg.add(topic.discipline, "fact", f"world.{eq}", "world", topic.topic, topic.fact,
                        list(topic.world_forms), world=True, eq=eq)
        return knows, world

    # A view is first formed up to 700 days before t0: only topics that existed by then.
    first_view = t0 - dt.timedelta(days=700)
    belief_topics = _pick_disjoint(rng, [b for b in V.BELIEFS if b.earliest_year <= first_view.year], scale.beliefs,
                                   lambda b: tokens(b.topic + " " + " ".join(s for s, _ in b.stances)), set())
    plans = rng.sample(V.PLANS, 2 * scale.secrets)
    skills = rng.sample(SKILLS, 2)
    objects = _pick_disjoint(rng, list(V.PROJECT_OBJECTS), scale.sessions, tokens, set())

    sessions = _plan_sessions(rng, reg, objects, colleagues, checkpoints)

    members = (Member(), Member())
    draws = _PairDraws(checkpoints, start, scale, cities, city_props, employers, emp_props, fields, field_props, topics,
                       topic_props, skills, plans, sessions, sibling, friend)
    for m, member in enumerate(members):
        _plan_member(rng, reg, key, m, member, draws)

    _plan_beliefs(rng, reg, key, belief_topics, members, checkpoints, first_view)

    unacquired = [(t, *topic_props(t)) for t in topics[2 * scale.topics:]]
    conf_cities = [(c, city_props[cities.index(c)]) for c in cities[2 * scale.cities:]]
    other_towns = [h for h in V.HOMETOWNS if h[0] != town]
    conf_towns = []
    for h, _region in rng.sample(other_towns, 3):
        conf_towns.append((h, reg.add("residence", "grew_up_in", "hometown", "self", h, f"The identity grew up in {h}.",
                                      [h])))
    conf_emps = [(employers[e], emp_props[e]) for e in range(4, len(employers))]
    return PairPlan(invariants, occ, occupations, checkpoints, town, hometown_prop, sibling, friend, colleagues,
                    sessions, members, unacquired, conf_cities, conf_towns, conf_emps, shared)


def _end_first_job_and_give_reasons(rng: random.Random, key: _Keys, member: Member) -> None:
    """The records that say what the questions ask: a leaving record, and a reason for every move.

    The first job ends, in its own record, the day the next begins (so the record says which employer is
    current); every move gives a reason, none twice in a life, and a new role only when a job starts soon
    after the move.
    """
    (employer, employer_prop, *_rest, first_t, _k), (*_next, next_t, _k2) = member.jobs
    years = round((next_t - first_t).days / 365.25)
    member.events.append(SymEvent(key("L"), next_t, EventKind.EPISODIC, [SignedProp(prop_id=employer_prop)],
                                  text=f"leave:{employer}:{years}"))
    reasons = rng.sample(say.MOVE_REASONS, len(member.cities))
    for (city, prop, t, k), reason in zip(member.cities, reasons, strict=True):
        chosen = reason
        if any(t <= start <= t + dt.timedelta(days=ROLE_MOVE_DAYS) for start in (first_t, next_t)) and rng.random() < 0.5:
            chosen = rng.choice(say.ROLE_REASONS)
        member.events.append(SymEvent(k, t, EventKind.EPISODIC, [SignedProp(prop_id=prop)], place=city,
                                      text=f"move:{city}:{chosen}"))


_PROV = {p.value: p for p in Provenance}


def _id(name: str) -> str:
    return name.lower()


# ------------------------------------------------------------------ symbolic checks


def check_plan(plan: PairPlan) -> None:
    """Symbolic checks before realization: chronology, acquisition sources, private divergence."""
    t4 = plan.checkpoints[-1]
    for m, member in enumerate(plan.members):
        keys = {e.key: e for e in member.events + plan.shared_events}
        for e in member.events + plan.shared_events:
            if e.t > t4:
                raise Rejected("chronology", f"member {m} event {e.key} after the last checkpoint")
            if e.source is not None and (e.source not in keys or keys[e.source].t > e.t):
                raise Rejected("chronology", f"member {m} event {e.key} precedes its source")
        for a in member.acquired:
            if a.source_t > a.t:
                raise Rejected("chronology", "acquisition before its source")
    a_hist = sorted((e.t, tuple(s.prop_id for s in e.asserts)) for e in plan.members[0].events)
    b_hist = sorted((e.t, tuple(s.prop_id for s in e.asserts)) for e in plan.members[1].events)
    if a_hist == b_hist:
        raise Rejected("history_equal", "members have identical private histories")


# ------------------------------------------------------------------ realization


def realize(plan: PairPlan, rng_for: Callable[[str], random.Random], fillers: tuple[int, int],
            shared_fillers: int) -> list[Lineage]:
    """Write every text (after the symbolic checks) and assemble both lineages.

    ``rng_for(key)`` gives a private random stream per event key, so a core record reads the
    same whatever the number of everyday events around it.
    """
    occ = plan.occupation

    def title_at(t: dt.date) -> str:
        return next((v.occupation for v in reversed(plan.occupations) if v.t <= t), occ.title)

    lineages = []
    everyday_rng = rng_for("everyday-shared")
    shared_seen: set[str] = set()
    shared_once: set[str] = set()
    shared_everyday = [_everyday(everyday_rng, plan, None, f"F{i}", shared_seen, shared_once)
                       for i in range(shared_fillers)]
    for m, member in enumerate(plan.members):
        events: list[SymEvent] = []
        for e in plan.shared_events + member.events:
            r = rng_for(e.key + ("" if e.shared else f"/{m}"))
            kind, _, rest = e.text.partition(":")
            if kind == "birth":
                text = say.birth(r, plan.hometown, plan.invariants.hometown.split(", ", 1)[1])
            elif kind == "graduation":
                text = say.graduation(r, occ.degree, plan.hometown)
            elif kind == "profile-start":
                text = say.profile(occ.title, False)
            elif kind == "profile-senior":
                text = say.profile(occ.senior, True)
            elif kind == "move":
                city, reason = rest.split(":", 1)
                text = say.move(r, city, reason)
            elif kind == "leave":
                employer, years = rest.split(":", 1)
                text = say.leaving(employer, int(years))
            elif kind == "job":
                j, employer, phrase = rest.split(":", 2)
                text = (say.first_job if j == "0" else say.later_job)(employer, title_at(e.t), phrase)
            elif kind == "source":
                prov, discipline = rest.split(":", 1)
                text = say.source_event(r, prov, discipline, e.t.year)
            elif kind == "acq":
                prov, discipline, topic = rest.split(":", 2)
                text = say.acquisition(prov, discipline, topic)
            elif kind == "skill":
                text = say.skill(r, rest)
            elif kind == "transition":
                text = say.transition(r, rest)
            elif kind == "secret":
                name, confided = rest.split(":", 1)
                text = say.secret(name, confided)
            elif kind == "session":
                colleague, obj, nick = rest.split(":", 2)
                text = say.session(colleague, obj, nick)
            elif kind == "belief":
                which, stance = rest.split(":", 1)
                text = say.belief(r, stance, which == "first")
            else:
                raise AssertionError(kind)
            events.append(SymEvent(**{**e.__dict__, "text": text}))
        r = rng_for(f"everyday/{m}")
        target = r.randrange(fillers[0], fillers[1] + 1) - len(events) - len(shared_everyday)
        # No everyday record repeats one the lineage already has (a life does not repeat word for word).
        seen = {e.text for e in events} | shared_seen
        once = set(shared_once)
        events += shared_everyday + [_everyday(r, plan, m, f"P{i}", seen, once) for i in range(max(0, target))]
        lineages.append(_assemble(plan, member, events))
    return lineages


def moment(plan: PairPlan, m: int | None, t: dt.date) -> EV.Moment:
    """Where member ``m`` (``None``: both members, for shared events) stands on ``t``."""
    grad, start, promotion = (e.t for e in plan.shared_events[1:4])
    stage = (EV.Stage.STUDENT if t < grad else EV.Stage.GRADUATE if t < start
             else EV.Stage.WORKING if t < promotion else EV.Stage.SENIOR)
    members = plan.members if m is None else (plan.members[m],)
    residences = set()
    for member in members:
        moves = [(when, city) for city, _, when, _ in member.cities if when <= t]
        residences.add(max(moves)[1] if moves else plan.hometown)
    t0 = plan.checkpoints[0]
    people = [plan.sibling[0]]
    if t >= t0 - dt.timedelta(days=300):
        people.append(plan.friend)
    if t >= t0 + dt.timedelta(days=60):
        people += plan.colleagues
    return EV.Moment(t=t, stage=stage, occupation=plan.occupation.title, student=plan.occupation.student,
                     residence=residences.pop() if len(residences) == 1 else None, people=tuple(people),
                     hobbies=tuple(plan.invariants.hobbies), coastal_places=V.COASTAL, southern_places=V.SOUTHERN,
                     tropical_places=V.TROPICAL)


def _everyday(rng: random.Random, plan: PairPlan, m: int | None, key: str, seen: set[str], once: set[str]) -> SymEvent:
    """One everyday (or work) event on a random date, in a text the lineage does not have yet."""
    t0, t4 = plan.checkpoints[0], plan.checkpoints[-1]
    for _attempt in range(20):
        t = _day(rng, t0 - dt.timedelta(days=900), t4 - dt.timedelta(days=1))
        at = moment(plan, m, t)
        work = at.stage in EV.EMPLOYED and rng.random() < 0.2
        text = EV.compose(rng, at, work, seen, once)
        if text is not None:
            break
    else:
        raise Rejected("pool_exhausted", "no unused everyday event text")
    tier = rng.choice((Tier.PUBLIC, Tier.PUBLIC, Tier.PUBLIC, Tier.ACQUAINTANCE))
    participants = [_id(p) for p in at.people if re.search(rf"\b{re.escape(p)}\b", text)]
    return SymEvent(key, t, EventKind.EPISODIC, participants=participants, disclosure=tier, shared=True, text=text)


def _assemble(plan: PairPlan, member: Member, events: list[SymEvent]) -> Lineage:
    order = {"S": 0, "R": 1, "L": 2, "J": 3, "Q": 4, "A": 5, "K": 6, "T": 7, "C": 8, "H": 9, "B": 10, "F": 11, "P": 12}
    events.sort(key=lambda e: (e.t, order.get(e.key[0], 13), e.key))
    ids = {e.key: f"E{i + 1:03d}" for i, e in enumerate(events)}
    out = [Event(event_id=ids[e.key], t=e.t, kind=e.kind, asserts=e.asserts, retracts=e.retracts,
                 participants=e.participants, place=e.place, provenance=e.provenance, disclosure=e.disclosure,
                 source_event=ids.get(e.source) if e.source else None, session_id=e.session_id, text=e.text)
           for e in events]
    acquisitions = [AcquisitionEdge(prop_id=a.knows, t=a.t, source_event=ids[a.source_key],
                                    provenance=_PROV[a.provenance]) for a in member.acquired]
    assert member.skill is not None
    _, sp, st, sk = member.skill
    acquisitions.append(AcquisitionEdge(prop_id=sp, t=st, source_event=ids[sk], provenance=Provenance.TRAINING))
    acquisitions.sort(key=lambda a: (a.t, a.prop_id))
    sib, relation = plan.sibling
    birth = plan.invariants.birth_date
    relationships = [
        Relationship(interlocutor_id=_id(sib), name=sib, versions=[RelationshipVersion(
            t=birth + dt.timedelta(days=400), relation=relation, clearance=Tier.CONFIDANT)],
            shared_events=[ids[s.key] for s in member.secrets if s.confidant == sib]),
        Relationship(interlocutor_id=_id(plan.friend), name=plan.friend, versions=[
            RelationshipVersion(t=plan.checkpoints[0] - dt.timedelta(days=300), relation="acquaintance",
                                clearance=Tier.ACQUAINTANCE),
            RelationshipVersion(t=member.close_friend_t, relation="close friend", clearance=Tier.CONFIDANT,
                                event_id=next(ids[e.key] for e in events if e.key.startswith("T")))],
            shared_events=[ids[s.key] for s in member.secrets if s.confidant == plan.friend]),
    ]
    for c in plan.colleagues:
        relationships.append(Relationship(
            interlocutor_id=_id(c), name=c, versions=[RelationshipVersion(
                t=plan.checkpoints[0] + dt.timedelta(days=60), relation="colleague", clearance=Tier.COLLEAGUE)],
            shared_events=[ids[e.key] for e in events if e.session_id and _id(c) in e.participants]))
    beliefs = [Belief(belief_id=f"B-{b.topic.keyword.replace(' ', '-')}", topic=b.topic.topic,
                      versions=[BeliefVersion(t=t, prop_id=p, event_id=ids[k])
                                for t, p, k in zip(b.dates, b.stances, b.keys, strict=True)],
                      change_prop_id=b.change) for b in member.beliefs]
    return Lineage(lineage_id="?", subject="?", invariants=plan.invariants, occupations=plan.occupations,
                   checkpoints=plan.checkpoints, events=out, acquisitions=acquisitions, relationships=relationships,
                   beliefs=beliefs)


def check_profiles(a: Lineage, b: Lineage) -> None:
    """Exact profile collision at every checkpoint (inv7) — checked on the built lineages too."""
    for t in a.checkpoints:
        if serialize_profile(profile_at(a, t)) != serialize_profile(profile_at(b, t)):
            raise Rejected("profile_mismatch", f"profiles differ at {t}")
