"""Suites (dev, heldout, full, e6), seeds and commitments, rejection and regeneration, the datasheet."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from sitbench.data._generator._events import era_violations
from sitbench.data._generator._probes import FULL_COUNTS, ProbeBuilder, Spec
from sitbench.data._generator._registry import RegistryBuilder, Rejected
from sitbench.data._generator._symbolic import (
    PairPlan,
    Scale,
    check_plan,
    check_profiles,
    plan_pair,
    realize,
)
from sitbench.data._generator._text import article_errors
from sitbench.data._write import DatasetContent, certify_pair
from sitbench.schema import Category, DatasetManifest, Lineage, Pair, Probe, Query, Turn

GENERATOR_ID = "sitbench-generator/3"
"""Version of the generation algorithm; part of every derived seed, so a change of algorithm changes ids."""
ID_PREFIX = "SB-"
"""Every generated identifier starts with this prefix. The isolation checks match identifiers with one
alternation; a common literal prefix lets the regular-expression engine skip every position of the text
where no identifier can start, which keeps them linear at full scale."""
MAX_ATTEMPTS = 50
MIN_DISTINCT = 0.95
"""Least share of distinct record texts in a lineage."""
E6_HORIZONS = (50, 100, 250, 500)
E6_COUNTS = {"A": 5, "B": 5, "C": 5, "D": 4, "E": 4, "F": 4, "G": 5, "H": 4}
_NEGATOR = re.compile(r"(?<![\w'])(?:not|no|never|neither|nor|none|nothing|nowhere|cannot)(?![\w'])|n't", re.I)


@dataclass(frozen=True)
class SuiteSpec:
    """What a suite holds."""

    parts: tuple[tuple[str, int], ...]
    """(split, number of pairs) in order."""
    description: str


SUITES: dict[str, SuiteSpec] = {
    "dev": SuiteSpec((("dev", 5),), "5 development pairs (10 lineages, 2,000 probes)"),
    "heldout": SuiteSpec((("heldout", 20),), "20 held-out pairs (40 lineages, 8,000 probes)"),
    "full": SuiteSpec((("dev", 5), ("heldout", 20)), "5 development + 20 held-out pairs (50 lineages, 10,000 probes)"),
    "e6": SuiteSpec((("e6", 5),), "5 pairs, each at T = 50, 100, 250 and 500 events, with one fixed query set"),
}


def derive_seed(seed: int, *parts: object) -> int:
    """A 64-bit seed for one purpose, derived from the suite seed (recorded in the datasheet)."""
    text = ":".join([GENERATOR_ID, str(seed), *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def seed_commitment(seed: int) -> str:
    """SHA-256 commitment to a seed, publishable before the seed is revealed.

    Use a large random seed (``sitbench seeds new``) for held-out data: a small integer can be
    recovered from its commitment by trying every value.
    """
    return hashlib.sha256(f"{GENERATOR_ID}:commitment:{seed}".encode()).hexdigest()


@dataclass
class _BuiltPair:
    split: str
    index: int
    seed: int
    attempts: int
    plan: PairPlan
    lineages: list[Lineage]
    specs: list[Spec]
    horizon: int | None = None


def _check_texts(lineages: list[Lineage]) -> None:
    """Record-level checks after realization: no negators in records that assert something, no
    partner-only record that is a substring of one of the member's own records, every a/an chosen
    by sound, no record dated outside the era its words belong to, session ids in date order, and
    at least 95 % distinct record texts per lineage."""
    for lin in lineages:
        for e in lin.events:
            # The confiding formula's "no one else" is the one negator a record may carry (the reference
            # oracle drops it when it speaks in the first person).
            if e.asserts and _NEGATOR.search(e.text.replace(", and no one else,", ",")):
                raise Rejected("realization", f"negator in {e.text!r}")
            if wrong := article_errors(e.text):
                raise Rejected("realization", f"article {wrong[0]!r} in {e.text!r}")
            if era := era_violations(e.text, e.t.year):
                raise Rejected("anachronism", f"{era[0]!r} in a record dated {e.t}: {e.text!r}")
        sessions = sorted((e.t, int(e.session_id[1:])) for e in lin.events if e.session_id)
        if [k for _, k in sessions] != sorted(k for _, k in sessions):
            raise Rejected("realization", "session ids out of date order")
        if len({e.text for e in lin.events}) < MIN_DISTINCT * len(lin.events):
            raise Rejected("realization", f"fewer than {MIN_DISTINCT:.0%} distinct record texts")
    a, b = lineages
    for own, other in ((a, b), (b, a)):
        own_texts = {e.text for e in own.events}
        joined = "\n".join(own_texts)
        for e in other.events:
            if e.text not in own_texts and e.text in joined:
                raise Rejected("realization", f"partner record {e.text!r} is inside an own record")


def _build_pair(seed: int, split: str, index: int, reg: RegistryBuilder, used: dict[str, set[str]],
                rejections: Counter[str], scale: Scale, counts: dict[str, int], fillers: tuple[int, int],
                horizons: tuple[int, ...] | None = None) -> list[_BuiltPair]:
    for attempt in range(MAX_ATTEMPTS):
        pair_seed = derive_seed(seed, split, index, attempt)
        mark = reg.mark()
        snapshot = {k: set(v) for k, v in used.items()}
        try:
            plan = plan_pair(random.Random(pair_seed), reg, used, scale)
            check_plan(plan)

            def rng_for(key: str, pair_seed: int = pair_seed) -> random.Random:
                return random.Random(derive_seed(pair_seed, "text", key))

            out = []
            for horizon in horizons or (None,):
                window = (horizon, horizon) if horizon else fillers
                shared = 0 if horizon else 40
                lineages = realize(plan, rng_for, window, shared)
                if horizon and any(len(lin.events) != horizon for lin in lineages):
                    raise Rejected("horizon", f"core history longer than T={horizon}")
                check_profiles(*lineages)
                _check_texts(lineages)
                specs = ProbeBuilder(plan, lineages, reg, random.Random(derive_seed(pair_seed, "probes")),
                                     counts).build()
                out.append(_BuiltPair(split, index, pair_seed, attempt + 1, plan, lineages, specs, horizon))
            return out
        except Rejected as exc:
            rejections[exc.reason] += 1
            reg.rollback(mark)
            used.clear()
            used.update(snapshot)
    raise RuntimeError(f"pair {split}-{index}: no acceptable pair after {MAX_ATTEMPTS} attempts")


def generate_content(suite: str, seed: int, on_pair: Callable[[int, int], None] | None = None) -> DatasetContent:
    """Build a generated suite deterministically from ``seed``.

    Args:
        suite: ``dev``, ``heldout``, ``full`` or ``e6``.
        seed: Any non-negative integer; recorded in the manifest.
        on_pair: called with (pairs built, pairs in the suite) before the first pair and after each one, for
            progress; the content does not depend on it.

    Returns:
        The dataset content, ready for :func:`sitbench.data.write_dataset`.
    """
    spec = SUITES[suite]
    reg = RegistryBuilder(ID_PREFIX)
    used: dict[str, set[str]] = {"first": set(), "last": set(), "hometown": set()}
    rejections: Counter[str] = Counter()
    built: list[_BuiltPair] = []
    total = sum(n for _, n in spec.parts)
    done = 0
    if on_pair is not None:
        on_pair(0, total)
    for split, n in spec.parts:
        for index in range(1, n + 1):
            if suite == "e6":
                built += _build_pair(seed, split, index, reg, used, rejections,
                                     Scale(topics=4, beliefs=3, secrets=2, sessions=3), E6_COUNTS, (0, 0),
                                     E6_HORIZONS)
            else:
                built += _build_pair(seed, split, index, reg, used, rejections, Scale(), FULL_COUNTS, (260, 480))
            done += 1
            if on_pair is not None:
                on_pair(done, total)
    return _assemble(suite, seed, reg, built, rejections)


def _assemble(suite: str, seed: int, reg: RegistryBuilder, built: list[_BuiltPair],
              rejections: Counter[str]) -> DatasetContent:
    rng = random.Random(derive_seed(seed, suite, "assembly"))
    lineages: list[Lineage] = []
    pairs: list[Pair] = []
    entries: list[tuple[Lineage, Spec, str]] = []
    subjects: set[str] = set()
    for k, bp in enumerate(built, start=1):
        pair_id = f"{ID_PREFIX}PAIR{k:02d}"
        # Which member becomes "A" is drawn from the seed, once per base pair (all E6 horizons agree).
        order = [0, 1] if random.Random(derive_seed(seed, bp.split, bp.index, "order")).random() < 0.5 else [1, 0]
        named = {}
        for slot, m in zip("AB", order, strict=True):
            while (subject := f"{ID_PREFIX}S{rng.getrandbits(32):08x}") in subjects:
                pass
            subjects.add(subject)
            named[m] = bp.lineages[m].model_copy(update={"lineage_id": f"{ID_PREFIX}L{k:02d}{slot}", "subject": subject})
        members = [named[order[0]], named[order[1]]]
        lineages += members
        note = (f"{bp.plan.invariants.alias}, {bp.plan.occupation.title} from {bp.plan.invariants.hometown}; "
                f"pair seed {bp.seed} (attempt {bp.attempts})" + (f"; T = {bp.horizon} events" if bp.horizon else ""))
        pairs.append(certify_pair(pair_id, members[0], members[1], bp.split, note))
        entries += [(named[s.member], s, f"{k}:{s.group}") for s in bp.specs]
    rng.shuffle(entries)
    probes: list[Probe] = []
    queries: list[Query] = []
    ids = {id(spec): f"{ID_PREFIX}PR{i:05d}" for i, (_, spec, _) in enumerate(entries, start=1)}
    groups: dict[str, list[Spec]] = {}
    for _, spec, group in entries:
        if spec.group:
            groups.setdefault(group, []).append(spec)
    for i, (lineage, spec, group) in enumerate(entries, start=1):
        key = f"{ID_PREFIX}Q{i:05d}"
        partner = None
        if spec.group:
            partner = ids[id(next(s for s in groups[group] if s is not spec))]
        queries.append(Query(query_key=key, subject=lineage.subject, tau=spec.tau, interlocutor=spec.who,
                             capability=spec.capability,
                             turns=[Turn(session=s, t=t, utterance=u) for s, t, u in spec.turns],
                             state_write=spec.state_write))
        stratum = spec.stratum
        probes.append(Probe(probe_id=ids[id(spec)], query_key=key, lineage_id=lineage.lineage_id, category=spec.category,
                            stratum=stratum, contract=spec.contract(), theorem_qualified=partner is not None,
                            partner_probe_id=partner, gate_sensitive=spec.gate, pressure_level=spec.pressure,
                            acquisition_event=spec.acquisition_event, note=spec.note))
    registry = reg.registry()
    content = DatasetContent(suite=suite, seed=seed, registry=registry, lineages=lineages, pairs=pairs, probes=probes,
                             queries=queries, rejections=dict(sorted(rejections.items())),
                             datasheet=lambda manifest: datasheet(suite, seed, built, content, manifest, rejections))
    return content


def _category_table(content: DatasetContent, lineage_of: dict[str, Lineage]) -> list[str]:
    """Probes per category and checkpoint, as table rows."""
    lines: list[str] = []
    table: dict[str, Counter[int]] = {c.value: Counter() for c in Category}
    for p in content.probes:
        lin = lineage_of[p.lineage_id]
        table[p.category.value][lin.checkpoints.index(p.contract.temporal_cutoff)] += 1
    for cat, row in table.items():
        lines.append(f"| {cat} | " + " | ".join(str(row[i]) for i in range(5)) + f" | {sum(row.values())} |")
    return lines


def _vocabulary_section(content: DatasetContent) -> list[str]:
    """Vocabulary sizes of the records, queries and registry."""
    lines: list[str] = []
    texts = [e.text for lin in content.lineages for e in lin.events]
    words = {w for t in texts for w in re.findall(r"[a-z]+", t.lower())}
    by_pred = Counter(p.predicate for p in content.registry.propositions)
    lines += ["", "## Vocabulary", "",
              f"- distinct public aliases: {len({lin.invariants.alias for lin in content.lineages})}",
              f"- distinct hometowns: {len({lin.invariants.hometown for lin in content.lineages})}",
              f"- distinct record texts: {len(set(texts))} of {len(texts)}",
              f"- distinct words in record texts: {len(words)}",
              f"- distinct query utterances: {len({q.utterance for q in content.queries})}"]
    lines += [f"- registry propositions with predicate `{k}`: {v}" for k, v in sorted(by_pred.items())]
    return lines


def _writing_section(content: DatasetContent) -> list[str]:
    """How the histories are written, with the measured facts, and what the suite does not model."""
    lines: list[str] = []
    ratios = [len({e.text for e in lin.events}) / len(lin.events) for lin in content.lineages]
    era = sum(1 for lin in content.lineages for e in lin.events if era_violations(e.text, e.t.year))
    articles = sum(len(article_errors(e.text)) for lin in content.lineages for e in lin.events)
    lines += ["", "## How the histories are written", "",
              "Each lineage is planned symbolically first (dates, propositions, provenance, relationships, belief "
              "histories, sessions) and written afterwards. Core records (birth, graduation, moves, jobs, "
              "acquisitions and their sources, skills, beliefs, confidences, sessions, promotions) use fixed "
              "formulas whose variable parts come from the pools. Everyday and work records, the bulk of every "
              "lineage, are composed from parts: an activity, a place, a companion, a time and a detail.",
              "",
              "- Activities come from pools by stage of life and occupation: everyday life, each of the profile's "
              "hobbies, study events for the occupation's degree (before graduation), and work events of the "
              "occupation itself (after the first job; some only after the promotion). A nurse works night shifts "
              "and a chef runs the pass; office events (code reviews, retrospectives) belong to the occupations "
              "that have them.",
              "- Places are typed by what they suit (a path to walk along, a park for a picnic, a rink for "
              "skating); an activity names the types it fits. Places on the sea are used only while the identity "
              "lives in a coastal city; seasonal activities (blackberries, outdoor skating, sea swims) follow the "
              "climate and hemisphere of the place lived in; events shared by both members of a pair use no "
              "place that depends on where a member lives.",
              "- A weekday or month named in a record is the record's own date; companions are people the "
              "identity knows on that date (colleagues only after the first job).",
              "- Core records say what their questions ask: every move gives its reason (a new role only when a "
              "job starts within months of it), and the first job ends in its own record the day the second "
              "begins (\"Left X after six years there\"), so the record says which employer is current.",
              "- Era rules: every activity, source template and belief stance that depends on its time carries "
              "a year window (mixtapes before 2000, video calls from 2010, views on social media for teenagers "
              "from 2005, on a hybrid work rhythm from 2020); belief topics are drawn only among those that "
              "existed when the first view is formed, and hobbies only among those that existed at the first "
              "record.",
              "- No record repeats another of its lineage word for word; one-off events (a first mobile phone, a "
              "friend's wedding) happen at most once; a/an is chosen by sound (an hour, a university, an MRI).",
              "",
              "Questions follow the record too: a known person speaks only once the record has them met, in the "
              "relation the record has at τ (an acquaintance before the friendship, sibling words that fit the "
              "name); a confidant asks whether a confided plan is still held, never how it is going; pressure "
              "claims are values neither member of the pair holds.",
              "",
              f"Measured on this suite: distinct record texts per lineage min {min(ratios):.1%} (construction "
              f"requires at least {MIN_DISTINCT:.0%}); records dated outside the era of their words: {era}; "
              f"a/an errors in records: {articles}. Session ids increase with session dates in every lineage.",
              "", "## What the suite does not model", "",
              "- Lives are built around the probed facts: a lineage has one occupation family, two employers, a few "
              "moves and a fixed cast (a sibling or cousin, one friend who becomes close, two colleagues); there "
              "are no partners, children, deaths, illnesses beyond a cold or flu, or changes of career.",
              "- Everyday records are self-contained: one record never refers to another, a trip has no "
              "before and after, and nothing in an everyday record bears on a probe (everyday records assert no "
              "proposition and mention no registry surface form).",
              "- World events are absent except through era words (no elections, pandemics or wars), and places "
              "are generic (\"the canal towpath\"), never named streets or landmarks of the city lived in.",
              "- Climate is by hemisphere and tropics only; weather on a given date is not modelled beyond "
              "season-bound activities.",
              "- English only, British spelling, one register (short past-tense records without a subject).",
              ]
    return lines


def _seeds_section(content: DatasetContent, built: list[_BuiltPair], rejections: Counter[str]) -> list[str]:
    """The pair seeds and the construction rejections."""
    lines: list[str] = []
    lines += ["", "## Seeds", "", "| pair | split | pair seed | attempts |", "|---|---|---|---|"]
    for pair, bp in zip(content.pairs, built, strict=True):
        lines.append(f"| {pair.pair_id} | {bp.split} | {bp.seed} | {bp.attempts} |")
    lines += ["", "## Rejections", "",
              "Pairs failing a construction check (profile equality, history inequality, chronology, "
              "contract satisfiability, evidence guards, pool exhaustion) are regenerated from the next attempt seed.",
              ""]
    lines += [f"- {k}: {v}" for k, v in sorted(rejections.items())] or ["- none"]
    return lines


def _calibration_section(content: DatasetContent) -> list[str]:
    """The category C world facts to calibrate a model on."""
    lines: list[str] = []
    world = {c.prop_id for p in content.probes if p.category is Category.C
             for c in p.contract.prohibited_claims + p.contract.required_claims}
    lines += ["", "## Substrate calibration (category C world facts)", "",
              "World-knowledge propositions used by category C probes; each is never acquired by a lineage "
              "whose C probe treats it as unacquired. Calibrate the tested model on them (seed §8.1, Eq. 49).", "",
              "| prop | topic | fact |", "|---|---|---|"]
    for prop in content.registry.propositions:
        if prop.world_fact and prop.prop_id in world:
            lines.append(f"| {prop.prop_id} | {prop.value} | {prop.gloss} |")
    return lines


def datasheet(suite: str, seed: int, built: list[_BuiltPair], content: DatasetContent, manifest: DatasetManifest,
              rejections: Counter[str]) -> str:
    """DATASHEET.md: counts per category and checkpoint, vocabulary sizes, seeds, hashes, calibration facts."""
    lines = [f"# Datasheet: SITBench suite `{suite}`", "",
             f"Generated by {GENERATOR_ID} (package {manifest.generator_version}, schema {manifest.schema_version}) "
             f"from seed `{seed}` (commitment `{seed_commitment(seed)}`). The same seed always gives byte-identical "
             "store files.", "", f"{SUITES[suite].description}.", "", "## Counts", ""]
    lines += [f"- {k}: {v}" for k, v in manifest.counts.items()]
    lineage_of = {lin.lineage_id: lin for lin in content.lineages}
    events = [len(lin.events) for lin in content.lineages]
    lines += ["", f"Events per lineage: min {min(events)}, max {max(events)}, mean {sum(events) / len(events):.1f}.",
              "", "## Probes per category and checkpoint", "",
              "| category | t0 | t1 | t2 | t3 | t4 | total |", "|---|---|---|---|---|---|---|"]
    lines += _category_table(content, lineage_of)
    lines += _vocabulary_section(content)
    lines += _writing_section(content)
    lines += _seeds_section(content, built, rejections)
    lines += _calibration_section(content)
    lines += ["", "## File hashes (SHA-256)", ""]
    lines += [f"- `{path}`: `{digest}`" for path, digest in manifest.files.items()]
    return "\n".join(lines) + "\n"


_ = dt
