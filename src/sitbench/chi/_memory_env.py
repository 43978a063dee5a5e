"""Seeded item generators for the memory panel M1–M8 (*CHI/CHIS Specification v0.1*, §3 and §11).

Every generator returns a :class:`MemoryEnvironment`: one or more *arms* (an arm is one fresh
agent: M7's clean and interference corpora, M8's fresh corpus per load, M5's no-consolidation
condition), each a schedule of steps (ingest sessions, intervening events, neutral scheduler
ticks, probe checkpoints) and the probes asked at each checkpoint with their exact answer keys.

Memory units (§3). A unit is an independently generated proposition with a unique
entity/attribute key, an arbitrary value (two capital letters, a hyphen and five digits: about
26 bits, drawn without replacement inside a corpus), an opaque source id with an authority
level, an event date, a validity interval and a version. Updates add versions of a key; a
lower-authority contradiction adds a record but never a version; duplicates add records but no
units. The record text every system receives is fixed by :func:`render_record` and announced by
the registered policy (:data:`MEMORY_POLICY`), which is ingested before any history (M3's
control: the authority policy precedes history).

Decisions where the specification leaves room (each is recorded in the run manifest):

* Entities are nonce two-word names (syllable grammar), attributes are 60 two-word phrases in
  30 confusable pairs (``locker code`` / ``locker number``), so that semantically similar
  interference can be built by pairing a target with a confusable attribute of the same entity,
  or with the same attribute of an entity whose name is one letter away.
* Event dates lie in 2010–2019; histories are ingested from 2024-01-01 on, one session per
  day, so ingestion time, event time and wall time are three different clocks.
* M8's strata are six disjoint sets of 40 probes. Keys are drawn without replacement across
  strata while the corpus has enough keys of the needed kind and are reused (in a different
  question, on its own clone) only when it has not: at N = 100 the corpus has 20 updated keys
  for 20 + 10 update probes and 20 source probes, for example. ``key_reuse`` reports how many.
* M8's u stratum: 20 current-value probes on updated keys, 10 as-of probes dated between an
  update's two versions, 10 current-value probes on keys with a lower-authority contradiction.
  s: 20 updated keys (current value + the source of the current version) and 20 contradicted
  keys (the authoritative value + its source). t: 20 event-date and 20 ordering probes.
  i: 40 keys each with two interfering distractors (same entity, confusable attribute; same
  attribute, entity one letter away); the paired clean corpus ``N=…/clean`` replaces exactly
  those 80 records with byte-identical-length unrelated ones and probes the same 40 keys.
  f: 20 near-name lures (an unstored entity one letter from a stored one, same attribute) and
  20 unseen-attribute lures (a stored entity with an attribute it never had).
* Ingestion sessions hold 50 records; the M8 delay is 10 neutral scheduler ticks.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import inspect
import json
import math
import random
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from sitbench.errors import InputError

GENERATOR_VERSION = "chi-memory-items-0.1"
"""Version of these generators; part of the generator hash."""

M8_GRID: tuple[int, ...] = (100, 300, 1000, 3000, 10000)
"""The v0.1 load panel: target keys per fresh corpus."""

STRATUM_SIZE = 40
"""Probes per M8 stratum and load (the registered pilot's allocation)."""

M8_STRATA: tuple[str, ...] = ("r", "t", "s", "u", "i", "f")
"""The six disjoint M8 strata."""

PANELS: tuple[str, ...] = ("m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8")
"""The memory panel's tests."""

SESSION_SIZE = 50
"""Records per ingestion session (``end_session`` after each)."""

M8_DELAY_TICKS = 10
"""Neutral scheduler ticks between the end of ingestion and the M8 probes."""

EVENT_START = dt.date(2010, 1, 1)
EVENT_DAYS = 3652
INGEST_START = dt.date(2024, 1, 1)

SOURCE_CLASSES: dict[str, int] = {"registry": 3, "memo": 2, "hearsay": 1}
"""Source classes and their authority under the registered policy."""

MEMORY_POLICY = """MEMORY POLICY v1 (registered before any history).
Each history item is one line: RECORD <id> | event <YYYY-MM-DD> | source <source id> (<class>, authority <level>) | version <n>[ correction of <id>] | valid <from>..<to or open> | <observed or hypothesis> | The <attribute> of <entity> is <value>.
A REVOKE line names a record that must be erased.
Authority: registry 3 > memo 2 > hearsay 1.
1. A record with a higher version whose source has at least the authority of the key's current version supersedes it from its event date.
2. A record from a source with lower authority than the key's current version never changes the key; it is a contradicted claim, kept only as provenance.
3. Two records of one key with the same version and the same authority but different values are an unresolved conflict: answer that the value is unresolved.
4. A record holds only inside its validity interval: after its end date the key has no current value, but as-of questions inside the interval still use it.
5. A REVOKE record erases the record it names: never use an erased record, for current or historical questions.
6. A record marked hypothesis was generated by the assistant and not observed: report its status as hypothesis.
Answer only from records you hold. If you hold no record for the asked key, abstain.
Reply with one JSON object and nothing else. Fields: "abstain" (true when you hold no record for the asked key; then "answer" is null), "answer" (the exact value, a date as YYYY-MM-DD, or the letter A or B), "source" (the source id), "sources" (list of source ids), "status" ("observed" or "hypothesis"), "unresolved" (true when the records are an unresolved conflict). Give exactly the fields the question lists."""
"""The registered policy text, ingested first by every agent (store-1 record of the preamble)."""

_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "kr", "tr", "st", "gl")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou")
_CODAS = ("", "", "n", "r", "l", "s", "k", "m", "th")
_NEAR_LETTERS = "bdfgklmnprstvz"

ATTRIBUTE_PAIRS: tuple[tuple[str, str], ...] = (
    ("locker code", "locker number"), ("gate pin", "gate code"), ("badge number", "badge serial"),
    ("desk number", "desk code"), ("parking bay", "parking spot"), ("radio channel", "radio band"),
    ("backup phrase", "backup word"), ("project codename", "project nickname"), ("meeting room", "meeting hall"),
    ("mailbox slot", "mailbox tag"), ("tram pass", "tram card"), ("cabinet key", "cabinet tag"),
    ("alarm code", "alarm word"), ("ledger page", "ledger sheet"), ("storage unit", "storage cell"),
    ("pager number", "pager code"), ("bike rack", "bike stand"), ("lab bench", "lab table"),
    ("vault code", "vault key"), ("shelf mark", "shelf label"), ("ticket serial", "ticket code"),
    ("access token", "access pass"), ("route number", "route code"), ("crate label", "crate mark"),
    ("file reference", "file number"), ("ward number", "ward code"), ("seat row", "seat number"),
    ("dock slot", "dock bay"), ("permit number", "permit code"), ("account alias", "account handle"),
)
"""Thirty confusable attribute pairs (60 attributes)."""

ATTRIBUTES: tuple[str, ...] = tuple(a for pair in ATTRIBUTE_PAIRS for a in pair)
CONFUSABLE: dict[str, str] = {a: b for x, y in ATTRIBUTE_PAIRS for a, b in ((x, y), (y, x))}

VALUE_ALPHABET_BITS = math.log2(26**2 * 10**5)
"""Entropy of one value drawn uniformly from the code space (two letters, five digits)."""

Role = Literal[
    "target", "update", "contradiction", "conflict", "correction", "distractor", "interference", "filler",
    "repeat", "cross_source", "hypothesis", "instance", "exception", "revocation", "expired",
]


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One history record: a memory unit, a version of one, or a control record."""

    record_id: str
    role: str
    entity: str
    attribute: str
    value: str
    source_id: str
    source_class: str
    authority: int
    event_time: dt.date
    valid_from: dt.date
    valid_to: dt.date | None
    version: int
    status: str = "observed"
    group: str | None = None
    corrects: str | None = None
    revokes: str | None = None
    text: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """The entity/attribute key."""
        return (self.entity, self.attribute)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for k in ("event_time", "valid_from", "valid_to"):
            out[k] = None if out[k] is None else out[k].isoformat()
        return out


@dataclass(frozen=True, slots=True)
class AnswerKey:
    """The exact answer a probe accepts."""

    abstain: bool = False
    """The only passing response is a valid explicit abstention (absent lures, erased or expired facts)."""
    unresolved: bool = False
    """The passing response is an explicit ``unresolved`` (M3's equally authoritative conflicts)."""
    answer: str | None = None
    """Value, ISO date or letter."""
    source: str | None = None
    """Required source id (s probes)."""
    sources: tuple[str, ...] | None = None
    """Required source set (M4), sorted."""
    status: str | None = None
    """Required status ``observed`` / ``hypothesis`` (M4)."""


@dataclass(frozen=True, slots=True)
class Probe:
    """One blind question on a checkpoint clone, with its key and the evidence that supports it."""

    probe_id: str
    checkpoint: str
    stratum: str
    kind: str
    question: str
    fields: tuple[str, ...]
    key: AnswerKey
    evidence: tuple[str, ...] = ()
    """Ids of the records that support the keyed answer, the answer's own record first (what the
    oracle-evidence baseline shows; empty when the passing response is an abstention)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Evaluator-side diagnostics (never sent to an agent)."""

    @property
    def utterance(self) -> str:
        """What the agent is asked: the question and the fields to reply with."""
        return f"{self.question}\nFIELDS: {', '.join(self.fields)}"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["key"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self.key).items()}
        out["fields"] = list(self.fields)
        out["evidence"] = list(self.evidence)
        return out


@dataclass(frozen=True, slots=True)
class Ingest:
    """Deliver records as session turns, ``end_session`` after every ``session_size``."""

    records: tuple[MemoryRecord, ...]
    label: str = "history"
    session_size: int = SESSION_SIZE


@dataclass(frozen=True, slots=True)
class Ticks:
    """Neutral scheduler ticks; ``ops_per_tick`` None = the condition's background budget."""

    n: int
    ops_per_tick: int | None = None
    label: str = "delay"


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Clear transient context, then probe this checkpoint's probes on clones."""

    name: str


Step = Ingest | Ticks | Checkpoint


@dataclass
class Arm:
    """One fresh agent's schedule and probes."""

    name: str
    steps: list[Step]
    probes: list[Probe]
    load: int | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def records(self) -> list[MemoryRecord]:
        return [r for s in self.steps if isinstance(s, Ingest) for r in s.records]

    def probes_at(self, checkpoint: str) -> list[Probe]:
        return [p for p in self.probes if p.checkpoint == checkpoint]


@dataclass
class MemoryEnvironment:
    """A generated panel instance: arms, probes, answer keys and the declared protocol."""

    panel: str
    seed: int
    arms: list[Arm]
    params: dict[str, Any]
    grid: tuple[int, ...] | None = None

    def arm(self, name: str) -> Arm:
        for a in self.arms:
            if a.name == name:
                return a
        raise KeyError(name)


# -- rendering and parsing ---------------------------------------------------------------------


def render_record(r: MemoryRecord) -> str:
    """The record's line, exactly as every system receives it (see :data:`MEMORY_POLICY`)."""
    head = (f"RECORD {r.record_id} | event {r.event_time.isoformat()} | source {r.source_id} "
            f"({r.source_class}, authority {r.authority})")
    if r.revokes is not None:
        return f"{head} | REVOKE {r.revokes}: erase this record at the owner's request; do not use it."
    version = f"version {r.version}" + (f" correction of {r.corrects}" if r.corrects else "")
    valid = f"valid {r.valid_from.isoformat()}..{'open' if r.valid_to is None else r.valid_to.isoformat()}"
    who = f"{r.entity} (group {r.group})" if r.group else r.entity
    return f"{head} | {version} | {valid} | {r.status} | The {r.attribute} of {who} is {r.value}."


_RECORD_RE = re.compile(
    r"^RECORD (?P<id>\S+) \| event (?P<event>\d{4}-\d{2}-\d{2}) \| source (?P<source>\S+) "
    r"\((?P<cls>[a-z]+), authority (?P<auth>\d+)\) \| (?:"
    r"REVOKE (?P<revokes>\S+?):.*"
    r"|version (?P<version>\d+)(?: correction of (?P<corrects>\S+))? \| valid (?P<vfrom>\d{4}-\d{2}-\d{2})\.\."
    r"(?P<vto>open|\d{4}-\d{2}-\d{2}) \| (?P<status>observed|hypothesis) \| The (?P<attr>.+?) of (?P<entity>.+?)"
    r"(?: \(group (?P<group>[^)]+)\))? is (?P<value>\S+)\.)$"
)


@dataclass(frozen=True, slots=True)
class ParsedRecord:
    """A record line read back from text (what a system can know about it)."""

    record_id: str
    event_time: str
    source_id: str
    source_class: str
    authority: int
    revokes: str | None
    version: int
    corrects: str | None
    valid_from: str | None
    valid_to: str | None
    status: str | None
    attribute: str | None
    entity: str | None
    group: str | None
    value: str | None
    text: str

    @property
    def key(self) -> tuple[str, str] | None:
        return None if self.entity is None or self.attribute is None else (self.entity, self.attribute)


def parse_record(text: str) -> ParsedRecord | None:
    """Parse one record line of the declared format; ``None`` when it is not one."""
    m = _RECORD_RE.match(text.strip())
    if m is None:
        return None
    g = m.groupdict()
    return ParsedRecord(
        record_id=g["id"], event_time=g["event"], source_id=g["source"], source_class=g["cls"],
        authority=int(g["auth"]), revokes=g["revokes"], version=int(g["version"] or 0), corrects=g["corrects"],
        valid_from=g["vfrom"], valid_to=None if g["vto"] in (None, "open") else g["vto"], status=g["status"],
        attribute=g["attr"], entity=g["entity"], group=g["group"], value=g["value"], text=text.strip(),
    )


# Question templates (frozen; part of the prompts hash).
Q_VALUE = "What is the {attribute} of {entity}?"
Q_ASOF = "As of {date}, what was the {attribute} of {entity}?"
Q_WHEN = "On what event date was the {attribute} of {entity} recorded?"
Q_ORDER = "Which was recorded earlier by event date: (A) the {a1} of {e1}, or (B) the {a2} of {e2}?"
Q_ORDER_STATES = ("Which was recorded earlier by event date: (A) the {a1} of {e1} being {v1}, or (B) the {a2} of {e2} "
                  "being {v2}?")
Q_SOURCE = "What is the {attribute} of {entity}, and which source reported it?"
Q_SOURCE_STATUS = ("What is the {attribute} of {entity}, which source or sources reported it, and was it observed "
                   "or a hypothesis?")
Q_RULE = "What {attribute} do the members of group {group} share as a rule?"
QUESTION_TEMPLATES = (Q_VALUE, Q_ASOF, Q_WHEN, Q_ORDER, Q_ORDER_STATES, Q_SOURCE, Q_SOURCE_STATUS, Q_RULE)

_Q_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("order", re.compile(r"^Which was recorded earlier by event date: \(A\) the (?P<a1>.+?) of (?P<e1>.+?)"
                         r"(?: being (?P<v1>\S+))?, or \(B\) the (?P<a2>.+?) of (?P<e2>.+?)(?: being (?P<v2>\S+))?\?$")),
    ("source_status", re.compile(r"^What is the (?P<attribute>.+?) of (?P<entity>.+?), which source or sources "
                                 r"reported it, and was it observed or a hypothesis\?$")),
    ("source", re.compile(r"^What is the (?P<attribute>.+?) of (?P<entity>.+?), and which source reported it\?$")),
    ("asof", re.compile(r"^As of (?P<date>\d{4}-\d{2}-\d{2}), what was the (?P<attribute>.+?) of (?P<entity>.+?)\?$")),
    ("when", re.compile(r"^On what event date was the (?P<attribute>.+?) of (?P<entity>.+?) recorded\?$")),
    ("rule", re.compile(r"^What (?P<attribute>.+?) do the members of group (?P<group>.+?) share as a rule\?$")),
    ("value", re.compile(r"^What is the (?P<attribute>.+?) of (?P<entity>.+?)\?$")),
)


def parse_question(utterance: str) -> tuple[str, dict[str, str], tuple[str, ...]] | None:
    """Read a probe utterance back: ``(kind, slots, fields)``; ``None`` when it is no probe question."""
    lines = [ln.strip() for ln in utterance.strip().splitlines() if ln.strip()]
    if not lines:
        return None
    fields: tuple[str, ...] = ()
    if lines[-1].startswith("FIELDS:"):
        fields = tuple(f.strip() for f in lines[-1][len("FIELDS:"):].split(",") if f.strip())
        lines = lines[:-1]
    question = " ".join(lines)
    for kind, pattern in _Q_PATTERNS:
        m = pattern.match(question)
        if m:
            return kind, m.groupdict(), fields
    return None


def keys_in_question(utterance: str) -> list[tuple[str, str]]:
    """Entity/attribute keys a question names (one, or two for an ordering question)."""
    parsed = parse_question(utterance)
    if parsed is None:
        return []
    kind, slots, _ = parsed
    if kind == "order":
        return [(slots["e1"], slots["a1"]), (slots["e2"], slots["a2"])]
    if "entity" in slots:
        return [(slots["entity"], slots["attribute"])]
    return []


# -- seeded building blocks ----------------------------------------------------------------------


def derive_seed(*parts: object) -> int:
    """A 63-bit seed derived from the parts (stable across platforms and Python versions)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class _Builder:
    """Draws names, values, sources and dates without replacement inside one corpus."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.names: set[str] = set()
        self.reserved: set[str] = set()
        self.values: set[str] = set()
        self.keys: set[tuple[str, str]] = set()
        self.source_ids: set[str] = set()
        self.next_id = 1
        self.sources: dict[str, list[str]] = {c: [] for c in SOURCE_CLASSES}

    def _word(self, syllables: int) -> str:
        r = self.rng
        return ("".join(r.choice(_ONSETS) + r.choice(_VOWELS) for _ in range(syllables)) + r.choice(_CODAS)).capitalize()

    def name(self, length: int | None = None) -> str:
        for _ in range(100000):
            n = f"{self._word(self.rng.choice((2, 3)))} {self._word(self.rng.choice((1, 2)))}"
            if (length is None or len(n) == length) and n not in self.names and n not in self.reserved:
                self.names.add(n)
                return n
        raise RuntimeError("name space exhausted")

    def near_name(self, base: str) -> str:
        """An unused name one letter from ``base`` (last consonant of the surname changed or added)."""
        given, surname = base.split(" ", 1)
        options = []
        for pos in range(len(surname) - 1, 0, -1):
            if surname[pos].lower() in _NEAR_LETTERS:
                for c in _NEAR_LETTERS:
                    if c != surname[pos].lower():
                        options.append(f"{given} {surname[:pos]}{c}{surname[pos + 1:]}")
                break
        options += [f"{given} {surname}{c}" for c in _NEAR_LETTERS]
        self.rng.shuffle(options)
        for o in options:
            if o not in self.names and o not in self.reserved:
                self.reserved.add(o)
                return o
        raise RuntimeError(f"no near name for {base}")

    def value(self) -> str:
        r = self.rng
        while True:
            v = f"{chr(65 + r.randrange(26))}{chr(65 + r.randrange(26))}-{r.randrange(100000):05d}"
            if v not in self.values:
                self.values.add(v)
                return v

    def source(self, cls: str) -> str:
        """A source of class ``cls``: a new opaque id a third of the time, else one already used."""
        pool = self.sources[cls]
        if pool and self.rng.random() < 0.67:
            return self.rng.choice(pool)
        while True:
            sid = f"S-{self.rng.randrange(16**4):04x}"
            if sid not in self.source_ids:
                self.source_ids.add(sid)
                pool.append(sid)
                return sid

    def date(self, lo: int = 0, hi: int = EVENT_DAYS - 1) -> dt.date:
        return EVENT_START + dt.timedelta(days=self.rng.randint(lo, hi))

    def key(self, entity: str | None = None, attribute: str | None = None) -> tuple[str, str]:
        for _ in range(100000):
            e = entity or self.name()
            a = attribute or self.rng.choice(ATTRIBUTES)
            if (e, a) not in self.keys:
                self.keys.add((e, a))
                return e, a
        raise RuntimeError("key space exhausted")

    def record(self, role: str, entity: str, attribute: str, *, value: str | None = None,
               cls: str | None = None, source_id: str | None = None, event: dt.date | None = None,
               valid_to: dt.date | None = None, version: int = 1, status: str = "observed",
               group: str | None = None, corrects: str | None = None) -> MemoryRecord:
        cls = cls or self.rng.choice(("registry", "memo"))
        event = event or self.date()
        return MemoryRecord(
            record_id="", role=role, entity=entity, attribute=attribute, value=value or self.value(),
            source_id=source_id or self.source(cls), source_class=cls, authority=SOURCE_CLASSES[cls],
            event_time=event, valid_from=event, valid_to=valid_to, version=version, status=status,
            group=group, corrects=corrects,
        )

    def revocation(self, target: MemoryRecord, event: dt.date) -> MemoryRecord:
        cls = target.source_class
        return MemoryRecord(
            record_id="", role="revocation", entity=target.entity, attribute=target.attribute, value="",
            source_id=target.source_id, source_class=cls, authority=SOURCE_CLASSES[cls], event_time=event,
            valid_from=event, valid_to=None, version=0, revokes=target.record_id,
        )


def _number(records: Iterable[MemoryRecord], prefix: str = "r", start: int = 1) -> list[MemoryRecord]:
    """Assign record ids in ingestion order (text is rendered by :func:`_finish`)."""
    return [replace(r, record_id=f"{prefix}{start + k:06d}") for k, r in enumerate(records)]


_Link = tuple[Literal["corrects", "revokes"], int]
"""A ``corrects`` or ``revokes`` link to the record at a position."""


def _finish(records: list[MemoryRecord], links: dict[int, _Link] | None = None) -> list[MemoryRecord]:
    """Resolve ``corrects``/``revokes`` links (given as positions) and render every record's text."""
    out = []
    for k, r in enumerate(records):
        if links and k in links:
            kind, target = links[k]
            target_id = records[target].record_id
            r = replace(r, corrects=target_id) if kind == "corrects" else replace(r, revokes=target_id)
        object.__setattr__(r, "text", render_record(r))  # a fresh copy made by _number: safe to fill in
        out.append(r)
    return out


def _numbered(records: Iterable[MemoryRecord]) -> list[MemoryRecord]:
    """Ids in ingestion order and rendered text, in one pass."""
    return _finish(_number(records))


def _sessions(records: Sequence[MemoryRecord], label: str) -> Ingest:
    return Ingest(records=tuple(records), label=label)


def _value_probe(pid: str, cp: str, stratum: str, rec: MemoryRecord, *, fields: tuple[str, ...] = ("abstain", "answer"),
                 meta: dict[str, Any] | None = None, evidence: Sequence[str] | None = None) -> Probe:
    return Probe(pid, cp, stratum, "value", Q_VALUE.format(attribute=rec.attribute, entity=rec.entity), fields,
                 AnswerKey(answer=rec.value), tuple(evidence or (rec.record_id,)), meta or {})


def _lure_probe(pid: str, cp: str, stratum: str, entity: str, attribute: str, meta: dict[str, Any]) -> Probe:
    return Probe(pid, cp, stratum, "value", Q_VALUE.format(attribute=attribute, entity=entity),
                 ("abstain", "answer"), AnswerKey(abstain=True), (), meta)


# -- M1 Retention ------------------------------------------------------------------------------

M1_ITEMS = 40
M1_DELAYS: tuple[int, ...] = (0, 10, 100, 1000)


def generate_m1(seed: int) -> MemoryEnvironment:
    """M1: 40 random associations; probe disjoint 10-item subsets after 0, 10, 100, 1000 intervening events."""
    b = _Builder(derive_seed("m1", seed))
    study = [b.record("target", *b.key()) for _ in range(M1_ITEMS)]
    fillers = [b.record("filler", *b.key()) for _ in range(M1_DELAYS[-1])]
    b.rng.shuffle(study)
    recs = _numbered([*study, *fillers])
    study, fillers = recs[:M1_ITEMS], recs[M1_ITEMS:]
    order = list(range(M1_ITEMS))
    b.rng.shuffle(order)
    per = M1_ITEMS // len(M1_DELAYS)
    steps: list[Step] = [_sessions(study, "study"), Ticks(1, label="reset")]
    probes: list[Probe] = []
    done = 0
    for j, delay in enumerate(M1_DELAYS):
        if delay > done:
            steps.append(_sessions(fillers[done:delay], f"intervening events {done}..{delay}"))
            steps.append(Ticks(1, label="reset"))
            done = delay
        cp = f"delay_{delay}"
        steps.append(Checkpoint(cp))
        for k in order[j * per:(j + 1) * per]:
            probes.append(_value_probe(f"m1-{cp}-{k:02d}", cp, cp, study[k], meta={"delay_events": delay}))
    arm = Arm("main", steps, probes)
    return MemoryEnvironment("m1", seed, [arm], {"items": M1_ITEMS, "delays": list(M1_DELAYS),
                                                  "probes_per_delay": per, "intervening_events": len(fillers)})


# -- M2 Temporal memory ------------------------------------------------------------------------

M2_EVENTS = 40
M2_ORDER = 20
M2_ASOF = 20


def generate_m2(seed: int) -> MemoryEnvironment:
    """M2: 40 dated events (20 keys x 2 dated states), ingested out of event order; 20 before/after, 20 as-of."""
    b = _Builder(derive_seed("m2", seed))
    pairs: list[tuple[MemoryRecord, MemoryRecord]] = []
    for _ in range(M2_EVENTS // 2):
        e, a = b.key()
        d1 = b.rng.randint(0, EVENT_DAYS - 800)
        d2 = d1 + b.rng.randint(120, 700)
        cls = b.rng.choice(("registry", "memo"))
        r1 = b.record("target", e, a, cls=cls, event=EVENT_START + dt.timedelta(days=d1), version=1)
        r2 = b.record("update", e, a, cls=cls, event=EVENT_START + dt.timedelta(days=d2), version=2)
        pairs.append((r1, r2))
    # Ingestion order differs from event order: shuffle, then put the later state first for half the keys.
    flat = [r for p in pairs for r in p]
    b.rng.shuffle(flat)
    conflict_keys = set(b.rng.sample(range(len(pairs)), len(pairs) // 2))
    pos = {id(r): i for i, r in enumerate(flat)}
    for k, (r1, r2) in enumerate(pairs):
        first_is_v1 = pos[id(r1)] < pos[id(r2)]
        if (k in conflict_keys) == first_is_v1:
            i, j = pos[id(r1)], pos[id(r2)]
            flat[i], flat[j] = flat[j], flat[i]
            pos[id(r1)], pos[id(r2)] = j, i
    recs = _numbered(flat)
    by_id = {(r.entity, r.attribute, r.version): r for r in recs}
    pairs = [(by_id[(p[0].entity, p[0].attribute, 1)], by_id[(p[0].entity, p[0].attribute, 2)]) for p in pairs]
    ingest_pos = {r.record_id: i for i, r in enumerate(recs)}
    cp = "after_reset"
    probes: list[Probe] = []
    # 20 before/after: pairs of events of different keys, 10 with (A) earlier and 10 with (B) earlier,
    # half of them with ingestion order opposite to event order.
    events = list(recs)
    made = 0
    attempts = 0
    want_conflict = [True] * (M2_ORDER // 2) + [False] * (M2_ORDER // 2)
    b.rng.shuffle(want_conflict)
    used: set[frozenset[str]] = set()
    while made < M2_ORDER:
        attempts += 1
        if attempts > 100000:
            raise RuntimeError("M2: cannot balance ordering probes")
        x, y = b.rng.sample(events, 2)
        if x.key == y.key or x.event_time == y.event_time or frozenset((x.record_id, y.record_id)) in used:
            continue
        early, late = (x, y) if x.event_time < y.event_time else (y, x)
        conflict = ingest_pos[early.record_id] > ingest_pos[late.record_id]
        if conflict != want_conflict[made]:
            continue
        a_first = made % 2 == 0
        first, second = (early, late) if a_first else (late, early)
        used.add(frozenset((x.record_id, y.record_id)))
        lag = (late.event_time - early.event_time).days
        q = Q_ORDER_STATES.format(a1=first.attribute, e1=first.entity, v1=first.value, a2=second.attribute,
                                  e2=second.entity, v2=second.value)
        probes.append(Probe(f"m2-order-{made:02d}", cp, "order", "order", q, ("abstain", "answer"),
                            AnswerKey(answer="A" if a_first else "B"), (first.record_id, second.record_id),
                            {"lag_days": lag, "ingestion_conflict": conflict, "direction": "A" if a_first else "B",
                             "recency": "recent" if late.event_time.year >= 2016 else "remote"}))
        made += 1
    # 20 as-of: 10 dated inside the first state's interval, 10 after the second state began.
    order = list(range(len(pairs)))
    b.rng.shuffle(order)
    for n, k in enumerate(order[:M2_ASOF]):
        r1, r2 = pairs[k]
        if n % 2 == 0:
            day = r1.event_time + dt.timedelta(days=b.rng.randint(1, (r2.event_time - r1.event_time).days - 1))
            gold, state = r1, "earlier_state"
        else:
            day = r2.event_time + dt.timedelta(days=b.rng.randint(1, 400))
            gold, state = r2, "later_state"
        conflict = ingest_pos[r1.record_id] > ingest_pos[r2.record_id]
        probes.append(Probe(f"m2-asof-{n:02d}", cp, "asof", "asof",
                            Q_ASOF.format(date=day.isoformat(), attribute=r1.attribute, entity=r1.entity),
                            ("abstain", "answer"), AnswerKey(answer=gold.value),
                            (gold.record_id, (r2 if gold is r1 else r1).record_id),
                            {"state": state, "ingestion_conflict": conflict,
                             "recency": "recent" if day.year >= 2016 else "remote",
                             "other_value": (r2 if gold is r1 else r1).value}))
    arm = Arm("main", [_sessions(recs, "dated events"), Ticks(1, label="reset"), Checkpoint(cp)], probes)
    return MemoryEnvironment("m2", seed, [arm], {"events": M2_EVENTS, "keys": M2_EVENTS // 2, "order_probes": M2_ORDER,
                                                  "asof_probes": M2_ASOF})


# -- M3 Contradiction resolution ---------------------------------------------------------------

M3_GROUP = 10


def generate_m3(seed: int) -> MemoryEnvironment:
    """M3: 30 facts: 10 valid corrections, 10 lower-authority contradictions, 10 unresolved equal-authority conflicts."""
    b = _Builder(derive_seed("m3", seed))
    stream: list[tuple[MemoryRecord, str]] = []
    facts: list[dict[str, Any]] = []
    for kind in ("correction", "lower_authority", "unresolved"):
        for _ in range(M3_GROUP):
            e, a = b.key()
            d1 = b.rng.randint(0, EVENT_DAYS - 900)
            d2 = d1 + b.rng.randint(60, 800)
            t1, t2 = EVENT_START + dt.timedelta(days=d1), EVENT_START + dt.timedelta(days=d2)
            if kind == "correction":
                cls1 = b.rng.choice(("memo", "hearsay"))
                cls2 = b.rng.choice([c for c, v in SOURCE_CLASSES.items() if v >= SOURCE_CLASSES[cls1]])
                first = b.record("target", e, a, cls=cls1, event=t1, version=1)
                second = b.record("correction", e, a, cls=cls2, event=t2, version=2)
            elif kind == "lower_authority":
                cls1 = b.rng.choice(("registry", "memo"))
                cls2 = b.rng.choice([c for c, v in SOURCE_CLASSES.items() if v < SOURCE_CLASSES[cls1]])
                first = b.record("target", e, a, cls=cls1, event=t1, version=1)
                # The later, less authoritative record even claims a higher version: recency and version
                # numbers alone decide this one wrongly.
                second = b.record("contradiction", e, a, cls=cls2, event=t2, version=2)
            else:
                cls = b.rng.choice(("registry", "memo", "hearsay"))
                first = b.record("target", e, a, cls=cls, event=t1, version=1)
                second = b.record("conflict", e, a, cls=cls, event=t2, version=1)
                while second.source_id == first.source_id:
                    second = replace(second, source_id=b.source(cls))
            facts.append({"kind": kind, "first": first, "second": second})
            stream += [(first, kind), (second, kind)]
    # Chronological within each key; keys interleaved; a random number of other facts' records
    # between a key's two records gives the revision-latency spread.
    b.rng.shuffle(facts)
    firsts = [f["first"] for f in facts]
    seconds = [f["second"] for f in facts]
    order = [*firsts]
    for s in seconds:
        order.insert(b.rng.randint(order.index(next(f["first"] for f in facts if f["second"] is s)) + 1, len(order)), s)
    numbered = _number(order)
    links: dict[int, _Link] = {}
    idx = {id(r): k for k, r in enumerate(order)}
    for f in facts:
        if f["kind"] == "correction":
            links[idx[id(f["second"])]] = ("corrects", idx[id(f["first"])])
    recs = _finish(numbered, links)
    by_pos = {id(order[k]): recs[k] for k in range(len(order))}
    pos = {r.record_id: k for k, r in enumerate(recs)}
    cp = "after_reset"
    probes: list[Probe] = []
    for n, f in enumerate(facts):
        first, second = by_pos[id(f["first"])], by_pos[id(f["second"])]
        kind = f["kind"]
        gap = len(recs) - 1 - pos[second.record_id]
        fields = ("abstain", "unresolved", "answer")
        q = Q_VALUE.format(attribute=first.attribute, entity=first.entity)
        evidence: tuple[str, ...]
        if kind == "correction":
            key, evidence = AnswerKey(answer=second.value), (second.record_id, first.record_id)
        elif kind == "lower_authority":
            key, evidence = AnswerKey(answer=first.value), (first.record_id,)
        else:
            key, evidence = AnswerKey(unresolved=True), (first.record_id, second.record_id)
        meta = {"fact": kind, "events_since_second": gap, "first_value": first.value, "second_value": second.value}
        probes.append(Probe(f"m3-current-{n:02d}", cp, f"{kind}_current", "value", q, fields, key, evidence, meta))
        if kind in ("correction", "lower_authority"):
            if kind == "correction":
                span = (second.event_time - first.event_time).days
                day = first.event_time + dt.timedelta(days=b.rng.randint(1, span - 1))
                gold = first.value
            else:
                day = second.event_time + dt.timedelta(days=b.rng.randint(1, 300))
                gold = first.value
            probes.append(Probe(f"m3-historical-{n:02d}", cp, f"{kind}_historical", "asof",
                                Q_ASOF.format(date=day.isoformat(), attribute=first.attribute, entity=first.entity),
                                fields, AnswerKey(answer=gold), (first.record_id,), dict(meta)))
    arm = Arm("main", [_sessions(recs, "facts and revisions"), Ticks(1, label="reset"), Checkpoint(cp)], probes)
    return MemoryEnvironment("m3", seed, [arm], {"facts": 3 * M3_GROUP, "corrections": M3_GROUP,
                                                  "lower_authority": M3_GROUP, "unresolved": M3_GROUP,
                                                  "current_probes": 3 * M3_GROUP, "historical_probes": 2 * M3_GROUP})


# -- M4 Source memory --------------------------------------------------------------------------

M4_GROUP = 10


def generate_m4(seed: int) -> MemoryEnvironment:
    """M4: 40 claims with opaque source ids: 10 single-source, 10 repeated by the same source,
    10 with the same wording from two sources, 10 model-generated hypotheses."""
    b = _Builder(derive_seed("m4", seed))
    stream: list[MemoryRecord] = []
    claims: list[dict[str, Any]] = []
    for kind in ("single", "repeated", "cross_source", "hypothesis"):
        for _ in range(M4_GROUP):
            e, a = b.key()
            value = b.value()
            if kind == "hypothesis":
                sid = f"H-{b.rng.randrange(16**4):04x}"
                recs = [b.record("hypothesis", e, a, value=value, cls="hearsay", source_id=sid, status="hypothesis")]
            else:
                first = b.record("target", e, a, value=value)
                recs = [first]
                if kind == "repeated":
                    recs.append(b.record("repeat", e, a, value=value, cls=first.source_class,
                                         source_id=first.source_id, event=b.date()))
                elif kind == "cross_source":
                    other = b.record("cross_source", e, a, value=value, cls=first.source_class,
                                     event=b.date())
                    while other.source_id == first.source_id:
                        other = replace(other, source_id=b.source(first.source_class))
                    recs.append(other)
            claims.append({"kind": kind, "records": recs})
            stream += recs
    b.rng.shuffle(stream)
    numbered = _numbered(stream)
    back = {id(stream[k]): numbered[k] for k in range(len(stream))}
    cp = "after_reset"
    probes: list[Probe] = []
    order = list(range(len(claims)))
    b.rng.shuffle(order)
    for n, k in enumerate(order):
        c = claims[k]
        recs = [back[id(r)] for r in c["records"]]
        first = recs[0]
        key = AnswerKey(answer=first.value, sources=tuple(sorted({r.source_id for r in recs})),
                        status="hypothesis" if c["kind"] == "hypothesis" else "observed")
        probes.append(Probe(f"m4-{n:02d}", cp, c["kind"], "source_status",
                            Q_SOURCE_STATUS.format(attribute=first.attribute, entity=first.entity),
                            ("abstain", "answer", "sources", "status"), key, tuple(r.record_id for r in recs),
                            {"claim": c["kind"], "records": len(recs)}))
    arm = Arm("main", [_sessions(numbered, "claims"), Ticks(1, label="reset"), Checkpoint(cp)], probes)
    return MemoryEnvironment("m4", seed, [arm], {"claims": 4 * M4_GROUP, "repeated": M4_GROUP,
                                                  "cross_source": M4_GROUP, "hypotheses": M4_GROUP,
                                                  "records": len(numbered)})


# -- M5 Consolidation --------------------------------------------------------------------------

M5_RULES = 10
M5_INSTANCES = 3
M5_EXCEPTIONS = 10
M5_BUDGET_OPS = 20


def generate_m5(seed: int) -> MemoryEnvironment:
    """M5: 40 records: 10 regularities (3 instances each) and 10 explicit exceptions; 20-op consolidation budget."""
    b = _Builder(derive_seed("m5", seed))
    groups: list[dict[str, Any]] = []
    stream: list[MemoryRecord] = []
    for _ in range(M5_RULES):
        gname = b._word(2)
        while any(x["group"] == gname for x in groups):
            gname = b._word(2)
        attr = b.rng.choice(ATTRIBUTES)
        shared = b.value()
        cls = b.rng.choice(("registry", "memo"))
        inst = [b.record("instance", *b.key(attribute=attr), value=shared, cls=cls, group=gname)
                for _ in range(M5_INSTANCES)]
        exc = b.record("exception", *b.key(attribute=attr), cls=cls, group=gname)
        groups.append({"group": gname, "attribute": attr, "value": shared, "instances": inst, "exception": exc})
        stream += [*inst, exc]
    b.rng.shuffle(stream)
    numbered = _numbered(stream)
    back = {id(stream[k]): numbered[k] for k in range(len(stream))}
    probes: list[Probe] = []
    for cp in ("pre", "post"):
        for n, g in enumerate(groups):
            inst = [back[id(r)] for r in g["instances"]]
            exc = back[id(g["exception"])]
            probes.append(Probe(f"m5-{cp}-rule-{n:02d}", cp, "rule", "rule",
                                Q_RULE.format(attribute=g["attribute"], group=g["group"]), ("abstain", "answer"),
                                AnswerKey(answer=g["value"]), tuple(r.record_id for r in inst), {"group": g["group"]}))
            probes.append(_value_probe(f"m5-{cp}-exception-{n:02d}", cp, "exception", exc,
                                       meta={"group": g["group"], "rule_value": g["value"]}))
    main = Arm("main", [_sessions(numbered, "records"), Checkpoint("pre"),
                        Ticks(1, ops_per_tick=M5_BUDGET_OPS, label="consolidation (20 operations)"),
                        Checkpoint("post")], probes)
    control = Arm("no_consolidation", [_sessions(numbered, "records"), Ticks(1, ops_per_tick=0, label="no consolidation"),
                                       Checkpoint("post")], [p for p in probes if p.checkpoint == "post"])
    return MemoryEnvironment("m5", seed, [main, control], {"records": len(numbered), "rules": M5_RULES,
                                                           "instances_per_rule": M5_INSTANCES,
                                                           "exceptions": M5_EXCEPTIONS,
                                                           "consolidation_budget_ops": M5_BUDGET_OPS})


# -- M6 Adaptive forgetting --------------------------------------------------------------------

M6_VALID = 40
M6_EXPIRED = 10
M6_REVOKED = 10
M6_MAINTENANCE_TICKS = 5


def generate_m6(seed: int) -> MemoryEnvironment:
    """M6: 60 records, 20 expired (10) or revoked (10); query all three groups after scheduled maintenance."""
    b = _Builder(derive_seed("m6", seed))
    valid = [b.record("target", *b.key()) for _ in range(M6_VALID)]
    expired = []
    for _ in range(M6_EXPIRED):
        start = b.rng.randint(0, EVENT_DAYS - 1200)
        end = start + b.rng.randint(200, 900)
        expired.append(b.record("expired", *b.key(), event=EVENT_START + dt.timedelta(days=start),
                                valid_to=EVENT_START + dt.timedelta(days=end)))
    revoked = [b.record("target", *b.key()) for _ in range(M6_REVOKED)]
    stream = [*valid, *expired, *revoked]
    b.rng.shuffle(stream)
    revocations = [b.revocation(r, b.date(lo=(r.event_time - EVENT_START).days + 1)) for r in revoked]
    order = [*stream, *revocations]
    numbered = _number(order)
    idx = {id(r): k for k, r in enumerate(order)}
    links: dict[int, _Link] = {idx[id(rv)]: ("revokes", idx[id(r)]) for rv, r in zip(revocations, revoked, strict=True)}
    recs = _finish(numbered, links)
    back = {id(order[k]): recs[k] for k in range(len(order))}
    cp = "after_maintenance"
    probes: list[Probe] = []
    for n, r in enumerate(valid):
        probes.append(_value_probe(f"m6-valid-{n:02d}", cp, "valid", back[id(r)]))
    for n, r in enumerate(expired):
        rec = back[id(r)]
        assert rec.valid_to is not None, "an expired record has an end date by construction"
        probes.append(Probe(f"m6-expired-current-{n:02d}", cp, "expired_current", "value",
                            Q_VALUE.format(attribute=rec.attribute, entity=rec.entity), ("abstain", "answer"),
                            AnswerKey(abstain=True), (), {"valid_to": rec.valid_to.isoformat(),
                                                          "expired_value": rec.value}))
        day = rec.valid_from + dt.timedelta(days=b.rng.randint(1, (rec.valid_to - rec.valid_from).days - 1))
        probes.append(Probe(f"m6-expired-historical-{n:02d}", cp, "expired_historical", "asof",
                            Q_ASOF.format(date=day.isoformat(), attribute=rec.attribute, entity=rec.entity),
                            ("abstain", "answer"), AnswerKey(answer=rec.value), (rec.record_id,), {}))
    for n, r in enumerate(revoked):
        rec = back[id(r)]
        rv = next(x for x in recs if x.revokes == rec.record_id)
        probes.append(Probe(f"m6-revoked-{n:02d}", cp, "revoked", "value",
                            Q_VALUE.format(attribute=rec.attribute, entity=rec.entity), ("abstain", "answer"),
                            AnswerKey(abstain=True), (rv.record_id,), {"revoked_value": rec.value}))
    arm = Arm("main", [_sessions(recs, "records and revocations"),
                       Ticks(M6_MAINTENANCE_TICKS, label="scheduled maintenance interval"), Checkpoint(cp)], probes)
    return MemoryEnvironment("m6", seed, [arm], {"records": M6_VALID + M6_EXPIRED + M6_REVOKED,
                                                  "valid": M6_VALID, "expired": M6_EXPIRED, "revoked": M6_REVOKED,
                                                  "revocation_records": len(revocations),
                                                  "maintenance_ticks": M6_MAINTENANCE_TICKS})


# -- M7 Interference resistance ----------------------------------------------------------------

M7_ITEMS = 40


def _interferers(b: _Builder, target: MemoryRecord) -> list[MemoryRecord]:
    """Two semantically similar conflicting distractors: confusable attribute, near-identical entity."""
    e1, a1 = b.key(entity=target.entity, attribute=CONFUSABLE[target.attribute])
    near = b.near_name(target.entity)
    b.names.add(near)
    e2, a2 = b.key(entity=near, attribute=target.attribute)
    return [b.record("interference", e1, a1, cls=target.source_class, event=b.date()),
            b.record("interference", e2, a2, cls=target.source_class, event=b.date())]


def _unrelated_like(b: _Builder, d: MemoryRecord) -> MemoryRecord:
    """An unrelated distractor whose line has exactly the byte length of ``d``'s."""
    entity = b.name(length=len(d.entity))
    e, a = b.key(entity=entity, attribute=d.attribute)
    return replace(d, role="distractor", entity=e, attribute=a, value=b.value())


def generate_m7(seed: int) -> MemoryEnvironment:
    """M7: paired 40-item corpora, unrelated vs semantically similar conflicting distractors, bytes and events matched."""
    b = _Builder(derive_seed("m7", seed))
    targets = [b.record("target", *b.key()) for _ in range(M7_ITEMS)]
    inter = [d for t in targets for d in _interferers(b, t)]
    clean = [_unrelated_like(b, d) for d in inter]
    order = list(range(len(targets) + len(inter)))
    b.rng.shuffle(order)
    arms = []
    for name, distractors in (("clean", clean), ("interference", inter)):
        pool = [*targets, *distractors]
        stream = [pool[k] for k in order]
        recs = _numbered(stream)
        back = {id(stream[k]): recs[k] for k in range(len(stream))}
        probes = [_value_probe(f"m7-{name}-{n:02d}", "after_reset", name, back[id(t)]) for n, t in enumerate(targets)]
        arms.append(Arm(name, [_sessions(recs, f"{name} corpus"), Ticks(1, label="reset"), Checkpoint("after_reset")],
                        probes, notes={"bytes": sum(len(r.text.encode()) for r in recs), "events": len(recs)}))
    if arms[0].notes != arms[1].notes:
        raise RuntimeError(f"M7 arms are not byte/event matched: {arms[0].notes} vs {arms[1].notes}")
    return MemoryEnvironment("m7", seed, arms, {"items": M7_ITEMS, "distractors_per_item": 2, **arms[0].notes})


# -- M8 Effective indexed memory capacity ------------------------------------------------------


def _m8_corpus(seed: int, n: int) -> tuple[Arm, Arm, dict[str, Any]]:
    b = _Builder(derive_seed("m8", seed, n))
    rng = b.rng
    n_upd = n_con = round(0.2 * n)
    targets = [b.record("target", *b.key(), event=b.date(0, EVENT_DAYS - 1000)) for _ in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    upd_idx = order[:n_upd]
    con_idx = order[n_upd:n_upd + n_con]
    plain_idx = order[n_upd + n_con:]
    # The i stratum's keys get two interfering distractors each; they come from the plain keys.
    i_idx = plain_idx[:STRATUM_SIZE] if len(plain_idx) >= STRATUM_SIZE else (plain_idx + upd_idx)[:STRATUM_SIZE]
    updates: dict[int, MemoryRecord] = {}
    for k in upd_idx:
        t = targets[k]
        cls = rng.choice([c for c, v in SOURCE_CLASSES.items() if v >= t.authority])
        updates[k] = b.record("update", t.entity, t.attribute, cls=cls,
                              event=t.event_time + dt.timedelta(days=rng.randint(30, 900)), version=2)
    contradictions: dict[int, MemoryRecord] = {}
    for k in con_idx:
        t = targets[k]
        cls = rng.choice([c for c, v in SOURCE_CLASSES.items() if v < t.authority])
        contradictions[k] = b.record("contradiction", t.entity, t.attribute, cls=cls,
                                     event=t.event_time + dt.timedelta(days=rng.randint(30, 900)), version=2)
    interfering = {k: _interferers(b, targets[k]) for k in i_idx}
    n_inter = sum(len(v) for v in interfering.values())
    if n_inter > n:
        raise RuntimeError(f"M8 N={n}: {n_inter} interfering distractors exceed the N distractor keys")
    unrelated = [b.record("distractor", *b.key()) for _ in range(n - n_inter)]
    inter_flat = [d for k in i_idx for d in interfering[k]]
    clean_swap = [_unrelated_like(b, d) for d in inter_flat]
    # Lures: keys never stored in either corpus.
    lure_pool = [targets[k] for k in plain_idx] or targets
    lures: list[tuple[str, str, str]] = []
    lure_src = rng.sample(range(len(lure_pool)), min(len(lure_pool), STRATUM_SIZE))
    for k in lure_src[: STRATUM_SIZE // 2]:
        t = lure_pool[k]
        near = b.near_name(t.entity)
        lures.append((near, t.attribute, "near_name"))
    for k in lure_src[STRATUM_SIZE // 2:]:
        t = lure_pool[k]
        for attr in rng.sample(ATTRIBUTES, len(ATTRIBUTES)):
            if (t.entity, attr) not in b.keys and attr != CONFUSABLE[t.attribute]:
                lures.append((t.entity, attr, "unseen_attribute"))
                break
    while len(lures) < STRATUM_SIZE:  # tiny corpora only
        lures.append((b.name(), rng.choice(ATTRIBUTES), "unseen_entity"))

    def corpus(distractors: list[MemoryRecord]) -> list[MemoryRecord]:
        pool = [*targets, *updates.values(), *contradictions.values(), *distractors]
        return sorted(pool, key=lambda r: (r.event_time, r.version, r.entity, r.attribute))

    main_pool = corpus([*unrelated, *inter_flat])
    clean_pool = corpus([*unrelated, *clean_swap])
    main_recs = _numbered(main_pool)
    clean_recs = _numbered(clean_pool)
    main_of = {id(main_pool[k]): main_recs[k] for k in range(len(main_pool))}
    clean_of = {id(clean_pool[k]): clean_recs[k] for k in range(len(clean_pool))}

    used: Counter[int] = Counter()

    def take(pool: list[int], count: int, avoid: frozenset[int] = frozenset()) -> list[int]:
        """``count`` distinct keys for one stratum: unused keys first, then (small corpora) the least used.

        Keys in ``avoid`` (already used in the same stratum) are taken last, so a stratum never asks
        the same question twice."""
        if count > len(set(pool)):
            raise RuntimeError(f"M8 N={n}: a stratum needs {count} distinct keys, the pool has {len(set(pool))}")
        fresh = [k for k in pool if used[k] == 0 and k not in avoid]
        chosen = rng.sample(fresh, min(count, len(fresh)))
        if len(chosen) < count:
            rest = sorted((k for k in set(pool) if k not in chosen), key=lambda k: (k in avoid, used[k], k))
            chosen += rest[: count - len(chosen)]
        for k in chosen:
            used[k] += 1
        return chosen

    cp = f"N={n}"
    probes: list[Probe] = []

    def t_of(k: int) -> MemoryRecord:
        return main_of[id(targets[k])]

    # i first (its keys are fixed by construction), then u, s, t, r.
    for j, k in enumerate(i_idx):
        used[k] += 1
        probes.append(_value_probe(f"m8-{n}-i-{j:02d}", cp, "i", t_of(k), meta={"interferers": [
            main_of[id(d)].record_id for d in interfering[k]]}))
    u_cur = take(upd_idx, 20)
    u_hist = take(upd_idx, 10, frozenset(u_cur))
    u_con = take(con_idx, 10)
    for j, k in enumerate(u_cur):
        t, v2 = t_of(k), main_of[id(updates[k])]
        probes.append(_value_probe(f"m8-{n}-u-cur-{j:02d}", cp, "u", v2, evidence=(v2.record_id,),
                                   meta={"u_kind": "updated_current", "stale_value": t.value}))
    for j, k in enumerate(u_hist):
        t, v2 = t_of(k), main_of[id(updates[k])]
        day = t.event_time + dt.timedelta(days=rng.randint(1, (v2.event_time - t.event_time).days - 1))
        probes.append(Probe(f"m8-{n}-u-hist-{j:02d}", cp, "u", "asof",
                            Q_ASOF.format(date=day.isoformat(), attribute=t.attribute, entity=t.entity),
                            ("abstain", "answer"), AnswerKey(answer=t.value), (t.record_id,),
                            {"u_kind": "updated_historical", "later_value": v2.value}))
    for j, k in enumerate(u_con):
        t, c = t_of(k), main_of[id(contradictions[k])]
        probes.append(_value_probe(f"m8-{n}-u-con-{j:02d}", cp, "u", t, evidence=(t.record_id,),
                                   meta={"u_kind": "contradicted_current", "contradiction_value": c.value}))
    s_upd = take(upd_idx, 20)
    s_con = take(con_idx, 20)
    for j, k in enumerate(s_upd):
        t, v2 = t_of(k), main_of[id(updates[k])]
        probes.append(Probe(f"m8-{n}-s-upd-{j:02d}", cp, "s", "source",
                            Q_SOURCE.format(attribute=t.attribute, entity=t.entity), ("abstain", "answer", "source"),
                            AnswerKey(answer=v2.value, source=v2.source_id), (v2.record_id,),
                            {"s_kind": "updated", "stale_value": t.value, "stale_source": t.source_id}))
    for j, k in enumerate(s_con):
        t, c = t_of(k), main_of[id(contradictions[k])]
        probes.append(Probe(f"m8-{n}-s-con-{j:02d}", cp, "s", "source",
                            Q_SOURCE.format(attribute=t.attribute, entity=t.entity), ("abstain", "answer", "source"),
                            AnswerKey(answer=t.value, source=t.source_id), (t.record_id,),
                            {"s_kind": "contradicted", "contradiction_value": c.value,
                             "contradiction_source": c.source_id}))
    # Plain keys (no update, no contradiction); those with interferers come last when others remain.
    plain_pool = plain_idx
    i_set = frozenset(i_idx)
    t_when = take(plain_pool, 20, i_set)
    for j, k in enumerate(t_when):
        t = t_of(k)
        probes.append(Probe(f"m8-{n}-t-when-{j:02d}", cp, "t", "when",
                            Q_WHEN.format(attribute=t.attribute, entity=t.entity), ("abstain", "answer"),
                            AnswerKey(answer=t.event_time.isoformat()), (t.record_id,), {"t_kind": "when"}))
    pair_keys = take(plain_pool, 40, frozenset(t_when) | i_set)
    for j in range(20):
        x, y = t_of(pair_keys[2 * j]), t_of(pair_keys[2 * j + 1])
        if x.event_time == y.event_time or x.key == y.key:
            # equal dates cannot be ordered: pick another plain key
            taken = {t_of(q).key for q in pair_keys}
            for k in plain_pool:
                z = t_of(k)
                if z.event_time != x.event_time and z.key != x.key and z.key not in taken:
                    y = z
                    break
        early, late = (x, y) if x.event_time < y.event_time else (y, x)
        a_first = j % 2 == 0
        first, second = (early, late) if a_first else (late, early)
        probes.append(Probe(f"m8-{n}-t-order-{j:02d}", cp, "t", "order",
                            Q_ORDER.format(a1=first.attribute, e1=first.entity, a2=second.attribute, e2=second.entity),
                            ("abstain", "answer"), AnswerKey(answer="A" if a_first else "B"),
                            (first.record_id, second.record_id), {"t_kind": "order"}))
    r_keys = take(plain_pool, STRATUM_SIZE, i_set)
    for j, k in enumerate(r_keys):
        probes.append(_value_probe(f"m8-{n}-r-{j:02d}", cp, "r", t_of(k)))
    for j, (e, a, kind) in enumerate(lures):
        probes.append(_lure_probe(f"m8-{n}-f-{j:02d}", cp, "f", e, a, {"lure_kind": kind}))
    counts = Counter(p.stratum for p in probes)
    if any(counts[s] != STRATUM_SIZE for s in M8_STRATA):
        raise RuntimeError(f"M8 N={n}: strata sizes {dict(counts)}")
    # The clean twin: the same keys, the 80 interfering records swapped for unrelated ones.
    clean_probes = []
    for p in probes:
        if p.stratum == "i":
            k = i_idx[int(p.probe_id.rsplit("-", 1)[1])]
            rec = clean_of[id(targets[k])]
            clean_probes.append(replace(p, probe_id=p.probe_id.replace("-i-", "-clean-"), stratum="clean_i",
                                        checkpoint=f"{cp}/clean", evidence=(rec.record_id,), meta={}))
    steps_main: list[Step] = [_sessions(main_recs, f"corpus N={n}"),
                              Ticks(M8_DELAY_TICKS, label="neutral scheduler ticks"), Checkpoint(cp)]
    steps_clean: list[Step] = [_sessions(clean_recs, f"clean twin N={n}"),
                               Ticks(M8_DELAY_TICKS, label="neutral scheduler ticks"), Checkpoint(f"{cp}/clean")]
    reuse = sum(c - 1 for c in used.values() if c > 1)
    same_question = sum(c - 1 for c in Counter(p.question for p in probes).values() if c > 1)
    info = {"targets": n, "distractors": n, "interfering_distractors": n_inter, "updates": n_upd,
            "contradictions": n_con, "records": len(main_recs), "key_reuse": reuse,
            "identical_questions_across_strata": same_question}
    main = Arm(cp, steps_main, probes, load=n, notes=info)
    clean = Arm(f"{cp}/clean", steps_clean, clean_probes, load=n,
                notes={"records": len(clean_recs), "bytes": sum(len(r.text.encode()) for r in clean_recs),
                       "pairs_with": cp})
    main.notes["bytes"] = sum(len(r.text.encode()) for r in main_recs)
    if main.notes["bytes"] != clean.notes["bytes"]:
        raise RuntimeError(f"M8 N={n}: the clean twin is not byte-matched")
    return main, clean, info


def generate_m8(seed: int, grid: Sequence[int] = M8_GRID, clean_pair: bool = True) -> MemoryEnvironment:
    """M8: a fresh corpus per load N (N targets, N distractors, 0.2N updates, 0.2N lower-authority contradictions)."""
    arms: list[Arm] = []
    loads: dict[str, Any] = {}
    for n in grid:
        if n < 100:
            raise InputError(f"--grid: load {n} is below 100; the six 40-probe strata need at least 100 target keys")
        main, clean, info = _m8_corpus(seed, n)
        arms.append(main)
        if clean_pair:
            arms.append(clean)
        loads[str(n)] = info
    return MemoryEnvironment("m8", seed, arms, {"grid": list(grid), "strata": list(M8_STRATA),
                                                 "probes_per_stratum": STRATUM_SIZE, "loads": loads,
                                                 "delay_ticks": M8_DELAY_TICKS, "clean_pair": clean_pair},
                             grid=tuple(grid))


GENERATORS = {"m1": generate_m1, "m2": generate_m2, "m3": generate_m3, "m4": generate_m4,
              "m5": generate_m5, "m6": generate_m6, "m7": generate_m7, "m8": generate_m8}


def generate(panel: str, seed: int, **options: Any) -> MemoryEnvironment:
    """Generate one panel instance (``m1`` … ``m8``)."""
    if panel not in GENERATORS:
        raise InputError(f"--panel {panel!r}: use one of {', '.join(PANELS)}")
    return GENERATORS[panel](seed, **options)


# -- the §3 generator report --------------------------------------------------------------------


def generator_hash() -> str:
    """SHA-256 of this module's source and version: identifies the generator, not an instance."""
    import sys

    src = inspect.getsource(sys.modules[__name__])
    return hashlib.sha256(f"{GENERATOR_VERSION}\n{src}".encode()).hexdigest()


def prompts_hash() -> str:
    """SHA-256 of the policy and the question templates."""
    return hashlib.sha256("\n".join((MEMORY_POLICY, *QUESTION_TEMPLATES)).encode("utf-8")).hexdigest()


def _dist(xs: Sequence[int]) -> dict[str, float]:
    if not xs:
        return {}
    s = sorted(xs)

    def q(p: float) -> float:
        return float(s[min(len(s) - 1, int(p * (len(s) - 1) + 0.5))])

    return {"min": float(s[0]), "p10": q(0.1), "p50": q(0.5), "p90": q(0.9), "max": float(s[-1]),
            "mean": statistics.fmean(s)}


def _char_entropy(values: Sequence[str]) -> float:
    chars = Counter(c for v in values for c in v)
    total = sum(chars.values())
    return -sum(c / total * math.log2(c / total) for c in chars.values()) if total else 0.0


def corpus_stats(records: Sequence[MemoryRecord], token_counts: Sequence[int] | None = None) -> dict[str, Any]:
    """§3 statistics of one corpus: objects, bytes, tokens, keys, versions, redundancy, relationships."""
    units = [r for r in records if r.revokes is None]
    values = [r.value for r in units]
    keys = {r.key for r in units}
    versions = {(r.key, r.version) for r in units if r.role not in ("contradiction", "conflict")}
    props = Counter((r.key, r.value) for r in units)
    bytes_ = [len(r.text.encode("utf-8")) for r in records]
    out: dict[str, Any] = {
        "stored_objects": len(records),
        "bytes": sum(bytes_),
        "byte_length": _dist(bytes_),
        "keys": len(keys),
        "versions": len(versions),
        "roles": dict(sorted(Counter(r.role for r in records).items())),
        "sources": len({r.source_id for r in records}),
        "value_entropy_bits": {
            "per_value_generator": VALUE_ALPHABET_BITS,
            "distinct_values": len(set(values)),
            "empirical_distribution": math.log2(len(set(values))) if values else 0.0,
            "per_character_empirical": _char_entropy(values),
        },
        "redundancy": {"duplicate_records": sum(c - 1 for c in props.values() if c > 1),
                       "note": "duplicate copies add records, not independent units"},
        "relationships": {
            "updates": sum(1 for r in records if r.role in ("update", "correction")),
            "lower_authority_contradictions": sum(1 for r in records if r.role == "contradiction"),
            "equal_authority_conflicts": sum(1 for r in records if r.role == "conflict"),
            "revocations": sum(1 for r in records if r.revokes is not None),
            "interfering_distractors": sum(1 for r in records if r.role == "interference"),
        },
    }
    if token_counts is not None:
        out["tokens"] = int(sum(token_counts))
        out["token_length"] = _dist(list(token_counts))
    return out


def environment_report(env: MemoryEnvironment, counter: Any | None = None) -> dict[str, Any]:
    """The generator report of §3 for one instance: hashes, value entropy, length distributions, totals.

    Args:
        env: The instance.
        counter: A token counter with ``count_many`` (the WordPiece counter); ``None`` skips tokens.
    """
    arms: dict[str, Any] = {}
    total_objects = total_bytes = total_tokens = 0
    for arm in env.arms:
        recs = arm.records
        counts = counter.count_many([r.text for r in recs]) if counter is not None else None
        st = corpus_stats(recs, counts)
        st["probes"] = dict(sorted(Counter(p.stratum for p in arm.probes).items()))
        st["schedule"] = [_step_json(s) for s in arm.steps]
        arms[arm.name] = st
        total_objects += st["stored_objects"]
        total_bytes += st["bytes"]
        total_tokens += st.get("tokens", 0)
    return {
        "panel": env.panel,
        "seed": env.seed,
        "generator_version": GENERATOR_VERSION,
        "generator_sha256": generator_hash(),
        "prompts_sha256": prompts_hash(),
        "items_sha256": items_hash(env),
        "answer_key_sha256": answer_key_hash(env),
        "params": env.params,
        "arms": arms,
        "totals": {"stored_objects": total_objects, "bytes": total_bytes,
                   "tokens": total_tokens if counter is not None else None},
        "tokenizer": None if counter is None else getattr(counter, "name", str(counter)),
    }


def _step_json(s: Step) -> dict[str, Any]:
    if isinstance(s, Ingest):
        return {"step": "ingest", "label": s.label, "records": len(s.records), "session_size": s.session_size}
    if isinstance(s, Ticks):
        return {"step": "ticks", "label": s.label, "n": s.n, "ops_per_tick": s.ops_per_tick}
    return {"step": "checkpoint", "name": s.name}


def items_hash(env: MemoryEnvironment) -> str:
    """SHA-256 of every record line and probe utterance, in schedule order."""
    h = hashlib.sha256()
    for arm in env.arms:
        h.update(f"arm {arm.name}\n".encode())
        for s in arm.steps:
            if isinstance(s, Ingest):
                for r in s.records:
                    h.update(r.text.encode("utf-8") + b"\n")
            else:
                h.update(json.dumps(_step_json(s), sort_keys=True).encode() + b"\n")
        for p in arm.probes:
            h.update(p.utterance.encode("utf-8") + b"\n")
    return h.hexdigest()


def answer_key_hash(env: MemoryEnvironment) -> str:
    """SHA-256 of every probe's answer key."""
    keys = [[arm.name, p.probe_id, p.to_json()["key"]] for arm in env.arms for p in arm.probes]
    return hashlib.sha256(json.dumps(keys, sort_keys=True).encode("utf-8")).hexdigest()
