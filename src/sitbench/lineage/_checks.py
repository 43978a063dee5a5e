"""The integrity checks: inv1–inv14 (seed Appendix B.4) and the mechanical realism checks inv15–inv19.

inv15–inv19 go beyond the seed's list: they reject data a careful reader would not accept
as a life or as a fair question (repeated event texts, sessions out of date order, a
question whose tense contradicts the residence record, an authorized disclosure asked by
someone who was never told, a/an slips).

Each check is a pure function of the loaded dataset and returns the problems it found,
each naming the file, the record and the field. Checks are written to be independent:
a defect of one kind makes exactly its own check fail.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel

from sitbench.lineage._articles import ArticleSlip, article_slips
from sitbench.lineage._disclosure import told_to
from sitbench.lineage._projection import (
    SituatedState,
    profile_at,
    profile_sha256,
    serialize_profile,
    situated_state,
)
from sitbench.lineage._residence import (
    CityMention,
    Residence,
    Tense,
    city_mentions,
    residence_at,
    residence_timeline,
)
from sitbench.registry import Registry
from sitbench.schema import (
    PERSONAL_PROVENANCES,
    Act,
    CapabilityMode,
    Category,
    ClaimProvenance,
    Contract,
    Event,
    EventKind,
    Lineage,
    Predicate,
    Probe,
    Proposition,
    Provenance,
    SignedClaim,
    provenance_satisfies,
)
from sitbench.stores import (
    LINEAGES_DIR,
    MANIFEST,
    PROBES,
    QUERIES,
    SUBJECTS_DIR,
    LoadedDataset,
    sha256_file,
)


class CheckRow(BaseModel):
    """One row of ``sitbench validate``."""

    id: str
    """``inv1`` … ``inv19``."""
    name: str
    """What the check establishes."""
    passed: bool
    """True when no problem was found."""
    details: str
    """Summary, or the first problems found (file, record, field)."""
    problems: list[str] = []
    """Every problem found."""


@dataclass
class _Problems:
    items: list[str] = field(default_factory=list)

    def add(self, where: str, message: str) -> None:
        self.items.append(f"{where}: {message}")


CheckFn = Callable[[LoadedDataset], tuple[list[str], str]]
"""An integrity check: the dataset → (problems, each ``"file: message"``; a one-line summary)."""


@dataclass(frozen=True)
class IntegrityCheck:
    """One integrity check of ``sitbench validate``; a plug-in declares one in the ``sitbench.checks`` group."""

    id: str
    """Short id shown in the table (``inv1`` … ``inv19`` for sitbench's own)."""
    name: str
    """What the check establishes."""
    fn: CheckFn
    """The check itself."""


def _is_check(obj: object) -> str | None:
    return None if isinstance(obj, IntegrityCheck) else (
        f"is not an IntegrityCheck (got {type(obj).__name__}); declare IntegrityCheck(id, name, fn)")


CHECKS: Registry[IntegrityCheck] = Registry("integrity check", "sitbench.checks", option="sitbench validate:",
                                            check=_is_check)
"""The integrity checks in the order they run: inv1–inv19, then any installed plug-in's."""


def _check(check_id: str, name: str) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        CHECKS.register(check_id, IntegrityCheck(check_id, name, fn))
        return fn

    return register


def _lineage_file(lineage_id: str) -> str:
    return f"{LINEAGES_DIR}/{lineage_id}.json"


def _probe_where(ds: LoadedDataset, probe: Probe) -> str:
    return f"{PROBES} line {ds.hidden.probe_lines.get(probe.probe_id, '?')} ({probe.probe_id})"


# id(queries dict) -> (the dict itself, key -> line): the store is immutable once loaded, and a
# linear search per query made the query checks quadratic in the suite size.
_QUERY_LINES: dict[int, tuple[object, dict[str, int]]] = {}


def _query_line(ds: LoadedDataset, key: str) -> str:
    queries = ds.visible.queries
    cached = _QUERY_LINES.get(id(queries))
    if cached is None or cached[0] is not queries:
        _QUERY_LINES.clear()
        cached = (queries, {k: n for n, k in enumerate(queries, start=1)})
        _QUERY_LINES[id(queries)] = cached
    number = cached[1].get(key)
    return f"{QUERIES} line {number} ({key})" if number is not None else f"{QUERIES} ({key})"


def _lineage_for_probe(ds: LoadedDataset, probe: Probe) -> Lineage | None:
    return ds.hidden.lineages.get(probe.lineage_id)


def _contract_props(contract: Contract) -> Iterable[tuple[str, SignedClaim]]:
    for i, claim in enumerate(contract.required_claims):
        yield f"contract.required_claims[{i}].prop_id", claim
    for i, claim in enumerate(contract.prohibited_claims):
        yield f"contract.prohibited_claims[{i}].prop_id", claim


# ---------------------------------------------------------------- inv1


@_check("inv1", "schema validity and cross-store integrity")
def inv1_schema(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    subjects = {lin.subject: lin for lin in ds.hidden.lineages.values()}
    for lin in ds.hidden.lineages.values():
        id_counts = Counter(e.event_id for e in lin.events)
        for dup in sorted(i for i, k in id_counts.items() if k > 1):
            p.add(_lineage_file(lin.lineage_id), f"events: event_id {dup!r} is duplicated")
        if lin.subject not in ds.visible.subjects:
            p.add(_lineage_file(lin.lineage_id), f"subject {lin.subject!r} has no file in {SUBJECTS_DIR}/")
    for subject in ds.visible.subjects:
        if subject not in subjects:
            p.add(f"{SUBJECTS_DIR}/{subject}.json", "subject has no hidden lineage")
    used_queries: set[str] = set()
    for probe in ds.hidden.probes.values():
        where = _probe_where(ds, probe)
        query = ds.visible.queries.get(probe.query_key)
        if query is None:
            p.add(where, f"query_key {probe.query_key!r} is not in {QUERIES}")
            continue
        used_queries.add(probe.query_key)
        lineage = _lineage_for_probe(ds, probe)
        if lineage is None:
            p.add(where, f"lineage_id {probe.lineage_id!r} has no file in {LINEAGES_DIR}/")
        elif query.subject != lineage.subject:
            p.add(where, f"query {probe.query_key!r} belongs to subject {query.subject!r}, not this lineage's")
        if probe.contract.temporal_cutoff != query.tau:
            p.add(where, "contract.temporal_cutoff differs from the query's tau")
        scored_index = query.scored_turn % len(query.turns)
        if query.turns[scored_index].t != query.tau:
            p.add(_query_line(ds, query.query_key), f"turns[{scored_index}].t {query.turns[scored_index].t} "
                                                    f"is not the query's tau {query.tau} (the scored turn is at τ)")
        if probe.contract.capability != query.capability:
            p.add(where, "contract.capability differs from the query's capability")
        if probe.partner_probe_id is not None and probe.partner_probe_id not in ds.hidden.probes:
            p.add(where, f"partner_probe_id {probe.partner_probe_id!r} does not exist")
        if probe.theorem_qualified != (probe.partner_probe_id is not None):
            p.add(where, "theorem_qualified requires a partner_probe_id (and only then)")
    for key in ds.visible.queries:
        if key not in used_queries:
            p.add(_query_line(ds, key), "query has no probe")
    in_pairs: dict[str, str] = {}
    for pair in ds.pairs.values():
        for member in pair.members:
            if member not in ds.hidden.lineages:
                p.add(f"pairs/pairs.json ({pair.pair_id})", f"members: {member!r} has no lineage file")
            if member in in_pairs:
                p.add(f"pairs/pairs.json ({pair.pair_id})", f"members: {member!r} is also in {in_pairs[member]}")
            in_pairs[member] = pair.pair_id
    for lineage_id in ds.hidden.lineages:
        if lineage_id not in in_pairs:
            p.add(_lineage_file(lineage_id), "lineage belongs to no pair")
    if ds.manifest is None:
        p.add(MANIFEST, "missing")
    else:
        for rel, digest in sorted(ds.manifest.files.items()):
            path = ds.root / rel
            if not path.is_file():
                p.add(MANIFEST, f"files[{rel!r}]: file is missing")
            elif sha256_file(path) != digest:
                p.add(MANIFEST, f"files[{rel!r}]: SHA-256 does not match the file (regenerate the dataset)")
    n = len(ds.hidden.probes)
    return p.items, f"{len(ds.hidden.lineages)} lineages, {n} probes, {len(ds.visible.queries)} queries parse and link"


# ---------------------------------------------------------------- inv2


@_check("inv2", "chronological order")
def inv2_chronology(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    for lin in ds.hidden.lineages.values():
        for i in range(1, len(lin.events)):
            prev, cur = lin.events[i - 1], lin.events[i]
            if cur.t < prev.t:
                p.add(_lineage_file(lin.lineage_id),
                      f"events[{i}] ({cur.event_id}).t {cur.t} is before events[{i - 1}] ({prev.event_id}).t {prev.t}")
        for rel in lin.relationships:
            for i in range(1, len(rel.versions)):
                if rel.versions[i].t < rel.versions[i - 1].t:
                    p.add(_lineage_file(lin.lineage_id), f"relationships[{rel.interlocutor_id}].versions[{i}].t out of order")
        for belief in lin.beliefs:
            for i in range(1, len(belief.versions)):
                if belief.versions[i].t < belief.versions[i - 1].t:
                    p.add(_lineage_file(lin.lineage_id), f"beliefs[{belief.belief_id}].versions[{i}].t out of order")
    return p.items, "events, relationship and belief versions are non-decreasing in time"


# ---------------------------------------------------------------- inv3


@_check("inv3", "acquisition-source consistency")
def inv3_acquisition(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    n = 0
    for lin in ds.hidden.lineages.values():
        for i, edge in enumerate(lin.acquisitions):
            n += 1
            where = _lineage_file(lin.lineage_id)
            source = lin.event(edge.source_event)
            if source is None:
                p.add(where, f"acquisitions[{i}].source_event {edge.source_event!r} is not an event of this lineage")
            elif edge.t < source.t:
                p.add(where, f"acquisitions[{i}] ({edge.prop_id}).t {edge.t} is before its source event "
                             f"{source.event_id} ({source.t})")
        for event in lin.events:
            if event.source_event is not None:
                source = lin.event(event.source_event)
                if source is None:
                    p.add(_lineage_file(lin.lineage_id), f"event {event.event_id}.source_event "
                                                         f"{event.source_event!r} does not exist")
                elif event.t < source.t:
                    p.add(_lineage_file(lin.lineage_id), f"event {event.event_id}.t is before its source event "
                                                         f"{source.event_id}")
    return p.items, f"{n} acquisition edges dated on or after their source events"


# ---------------------------------------------------------------- inv4


@_check("inv4", "valid proposition references and closed-world declarations")
def inv4_references(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    props = ds.hidden.registry.by_id()
    n_props = len(props)

    def unknown(pid: str) -> str:
        return f"prop_id {pid!r} is not in the registry (registry has {n_props} ids)"

    if len(props) != len(ds.hidden.registry.propositions):
        p.add("hidden/registry.json", "propositions: duplicated prop_id")
    for lin in ds.hidden.lineages.values():
        where = _lineage_file(lin.lineage_id)
        for event in lin.events:
            for signed in event.asserts:
                if signed.prop_id not in props:
                    p.add(where, f"event {event.event_id}.asserts: {unknown(signed.prop_id)}")
            for pid in event.retracts:
                if pid not in props:
                    p.add(where, f"event {event.event_id}.retracts: {unknown(pid)}")
        for i, edge in enumerate(lin.acquisitions):
            if edge.prop_id not in props:
                p.add(where, f"acquisitions[{i}].prop_id: {unknown(edge.prop_id)}")
        for belief in lin.beliefs:
            for i, version in enumerate(belief.versions):
                if version.prop_id not in props:
                    p.add(where, f"beliefs[{belief.belief_id}].versions[{i}].prop_id: {unknown(version.prop_id)}")
    cw = ds.hidden.registry.closed_world
    for probe in ds.hidden.probes.values():
        for fld, claim in _contract_props(probe.contract):
            if claim.prop_id not in props:
                p.add(_probe_where(ds, probe), f"{fld}: {unknown(claim.prop_id)}")
        # A required negative autobiographical claim is closed-world inference: it needs a declaration. A change
        # of mind needs none: every change is an explicit transition event (inv5), so "not changed" is recorded.
        for i, claim in enumerate(probe.contract.required_claims):
            prop = props.get(claim.prop_id)
            if prop is None or claim.polarity or prop.world_fact or prop.predicate is Predicate.STANCE_CHANGE:
                continue
            if not any(d.predicate == prop.predicate and d.slot == prop.slot for d in cw):
                p.add(_probe_where(ds, probe), f"contract.required_claims[{i}]: negative claim on "
                      f"{prop.predicate}/{prop.slot} has no closed-world declaration")
    return p.items, f"all references resolve in a registry of {n_props} propositions"


# ---------------------------------------------------------------- inv5

_PREDICATES_A_TELLING_MAY_ESTABLISH = {"knows", "fact"}


@_check("inv5", "explicit belief transitions; AssertedBy does not imply the claim")
def inv5_transitions(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    props = ds.hidden.registry.by_id()
    n = 0
    for lin in ds.hidden.lineages.values():
        where = _lineage_file(lin.lineage_id)
        for belief in lin.beliefs:
            for i, version in enumerate(belief.versions):
                n += 1
                event = lin.event(version.event_id)
                if event is None or event.kind is not EventKind.BELIEF:
                    p.add(where, f"beliefs[{belief.belief_id}].versions[{i}].event_id {version.event_id!r} "
                                 "is not a belief event")
                    continue
                if event.t != version.t:
                    p.add(where, f"beliefs[{belief.belief_id}].versions[{i}].t differs from event {event.event_id}")
                if not any(s.prop_id == version.prop_id and s.polarity for s in event.asserts):
                    p.add(where, f"beliefs[{belief.belief_id}].versions[{i}]: event {event.event_id} does not "
                                 f"assert {version.prop_id}")
                if i > 0:
                    previous = belief.versions[i - 1].prop_id
                    if previous != version.prop_id and previous not in event.retracts:
                        p.add(where, f"beliefs[{belief.belief_id}].versions[{i}]: transition event "
                                     f"{event.event_id} does not retract the former stance {previous}")
                    if belief.change_prop_id and not any(s.prop_id == belief.change_prop_id for s in event.asserts):
                        p.add(where, f"beliefs[{belief.belief_id}].versions[{i}]: transition event "
                                     f"{event.event_id} does not record the change ({belief.change_prop_id})")
        stance_props = {v.prop_id for b in lin.beliefs for v in b.versions}
        for event in lin.events:
            if event.kind is EventKind.BELIEF:
                for signed in event.asserts:
                    prop = props.get(signed.prop_id)
                    if prop and prop.predicate == "stance" and signed.prop_id not in stance_props:
                        p.add(where, f"event {event.event_id} changes stance {signed.prop_id} without a belief version")
            if event.provenance is Provenance.TOLD_BY:
                for signed in event.asserts:
                    prop = props.get(signed.prop_id)
                    if (prop and signed.polarity and prop.entity == "self"
                            and prop.predicate not in _PREDICATES_A_TELLING_MAY_ESTABLISH):
                        p.add(where, f"event {event.event_id}: a told_by assertion makes {signed.prop_id} "
                                     "true of the identity (AssertedBy(u, χ, t) must not imply χ)")
    return p.items, f"{n} belief versions backed by explicit transition events"


# ---------------------------------------------------------------- inv6


@_check("inv6", "reconstructible checkpoints")
def inv6_checkpoints(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    for lin in ds.hidden.lineages.values():
        where = _lineage_file(lin.lineage_id)
        cps = lin.checkpoints
        if any(cps[i] >= cps[i + 1] for i in range(len(cps) - 1)):
            p.add(where, f"checkpoints {', '.join(map(str, cps))} are not strictly increasing")
            continue
        previous: set[str] | None = None
        for i, tau in enumerate(cps):
            try:
                situated_state(lin, tau)
            except Exception as exc:  # noqa: BLE001 - a projection that cannot be built is exactly this defect
                p.add(where, f"checkpoints[{i}] {tau}: projection failed: {exc}")
                continue
            seen = {e.event_id for e in lin.events if e.t <= tau}
            if previous is not None and not previous <= seen:
                p.add(where, f"checkpoints[{i}]: projection is not monotone")
            previous = seen
            if not seen and i > 0:
                p.add(where, f"checkpoints[{i}] {tau}: empty projection")
    for probe in ds.hidden.probes.values():
        lineage = _lineage_for_probe(ds, probe)
        query = ds.visible.queries.get(probe.query_key)
        if lineage and query and query.tau not in lineage.checkpoints:
            p.add(_probe_where(ds, probe), f"query tau {query.tau} is not one of the lineage's five checkpoints")
    return p.items, "five strictly increasing checkpoints with monotone projections I_t0 ≺ … ≺ I_t4"


# ---------------------------------------------------------------- inv7


@_check("inv7", "exact profile collision")
def inv7_collision(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    for pair in ds.pairs.values():
        where = f"pairs/pairs.json ({pair.pair_id})"
        a, b = (ds.hidden.lineages.get(m) for m in pair.members)
        if a is None or b is None:
            continue
        if a.checkpoints != b.checkpoints:
            p.add(where, "members have different checkpoint dates")
            continue
        for i, tau in enumerate(a.checkpoints):
            pa, pb = serialize_profile(profile_at(a, tau)), serialize_profile(profile_at(b, tau))
            if pa != pb:
                at = next(k for k in range(min(len(pa), len(pb)) + 1) if k >= min(len(pa), len(pb)) or pa[k] != pb[k])
                p.add(where, f"checkpoint t{i} {tau}: serialized profiles of {a.lineage_id} and {b.lineage_id} "
                             f"differ at byte {at} ({pa[max(0, at - 15):at + 15]!r} vs {pb[max(0, at - 15):at + 15]!r})")
            elif i < len(pair.profile_sha256) and profile_sha256(profile_at(a, tau)) != pair.profile_sha256[i]:
                p.add(where, f"profile_sha256[{i}] does not match the checkpoint profile")
        if len(pair.profile_sha256) != len(a.checkpoints):
            p.add(where, "profile_sha256 must have one hash per checkpoint")
        sa, sb = ds.visible.subjects.get(a.subject), ds.visible.subjects.get(b.subject)
        if sa and sb and (sa.invariants != sb.invariants or sa.occupations != sb.occupations):
            p.add(where, "candidate-visible profile fields differ between the members' evidence files")
    return p.items, f"{len(ds.pairs)} pairs have byte-identical profiles at every checkpoint"


# ---------------------------------------------------------------- inv8


@_check("inv8", "private-history divergence")
def inv8_divergence(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()

    def history(lin: Lineage) -> list[tuple[str, str, tuple[tuple[str, bool], ...]]]:
        return [(e.t.isoformat(), e.kind.value, tuple((s.prop_id, s.polarity) for s in e.asserts)) for e in lin.events]

    for pair in ds.pairs.values():
        a, b = (ds.hidden.lineages.get(m) for m in pair.members)
        if a is not None and b is not None and history(a) == history(b):
            p.add(f"pairs/pairs.json ({pair.pair_id})", f"{a.lineage_id} and {b.lineage_id} have identical histories")
    return p.items, "the members of every pair have different private chronicles"


# ---------------------------------------------------------------- inv9


def satisfiability_problems(contract: Contract, lineage: Lineage, registry_ids: set[str]) -> list[str]:
    """Why a contract cannot be satisfied by any response for this lineage (empty if it can)."""
    out = []
    overlap = set(contract.required_acts) & set(contract.forbidden_acts)
    if overlap:
        out.append(f"acts {sorted(a.value for a in overlap)} are both required and forbidden")
    for i, req in enumerate(contract.required_claims):
        if req.prop_id not in registry_ids:
            continue
        for proh in contract.prohibited_claims:
            same = proh.prop_id == req.prop_id and proh.polarity == req.polarity
            if same and (not proh.provenance or not req.provenance or set(req.provenance) <= set(proh.provenance)):
                out.append(f"required_claims[{i}] ({req.prop_id}) is also prohibited")
        if req.provenance and contract.provenance and not (set(req.provenance) & (set(contract.provenance) | {
                p for p in req.provenance if p not in PERSONAL_PROVENANCES})):
            out.append(f"required_claims[{i}] allows no provenance the contract permits")
    if contract.uncertainty.value == "required" and Act.QUALIFY in contract.forbidden_acts:
        out.append("uncertainty is required but QUALIFY is forbidden")
    if Act.WITHHOLD in contract.required_acts and contract.required_claims and any(
            c.polarity for c in contract.required_claims):
        out.append("WITHHOLD is required but so is disclosing a claim")
    return out


@_check("inv9", "contract satisfiability")
def inv9_satisfiable(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    props = ds.hidden.registry.by_id()
    ids = set(props)
    states: dict[tuple[str, object], SituatedState] = {}
    for probe in ds.hidden.probes.values():
        lineage = _lineage_for_probe(ds, probe)
        if lineage is None:
            continue
        for problem in satisfiability_problems(probe.contract, lineage, ids):
            p.add(_probe_where(ds, probe), f"contract: {problem}")
        # A required personal claim must be supported by the lineage at τ (or, negated, not contradicted).
        key = (lineage.lineage_id, probe.contract.temporal_cutoff)
        if key not in states:
            states[key] = situated_state(lineage, probe.contract.temporal_cutoff)
        state = states[key]
        for i, claim in enumerate(probe.contract.required_claims):
            prop = props.get(claim.prop_id)
            if prop is None or prop.world_fact:
                continue
            if claim.polarity and not state.supports(claim.prop_id):
                p.add(_probe_where(ds, probe), f"contract.required_claims[{i}]: {claim.prop_id} is not supported by "
                                               f"{lineage.lineage_id} at {state.tau}")
            if not claim.polarity and state.supports(claim.prop_id):
                p.add(_probe_where(ds, probe), f"contract.required_claims[{i}]: denies {claim.prop_id}, which "
                                               f"{lineage.lineage_id} supports at {state.tau}")
    return p.items, f"{len(ds.hidden.probes)} contracts are individually satisfiable"


# ---------------------------------------------------------------- inv10


def _satisfying(allowed: list[ClaimProvenance]) -> frozenset[ClaimProvenance]:
    # Every provenance that meets a list, whether or not provenance is at issue for the claim's predicate: the
    # certificate holds for either reading of the scorer's rule.
    return frozenset(g for g in ClaimProvenance for at_issue in (False, True)
                     if provenance_satisfies(g, allowed, at_issue=at_issue))


def _satisfying_always(allowed: list[ClaimProvenance]) -> frozenset[ClaimProvenance]:
    return frozenset(g for g in ClaimProvenance if all(provenance_satisfies(g, allowed, at_issue=at_issue)
                                                       for at_issue in (False, True)))


_GENERAL = frozenset({ClaimProvenance.ASSISTANT_GENERAL, ClaimProvenance.UNSPECIFIED})


def _general_answer_only(contract: Contract) -> bool:
    # GENERAL_ALLOWED with only general answers required: the scorer also accepts a truthful refusal, so
    # neither its ANSWER nor those claims can certify an exclusion.
    return contract.capability is CapabilityMode.GENERAL_ALLOWED and bool(contract.required_claims) and all(
        r.polarity and r.provenance and set(r.provenance) <= _GENERAL for r in contract.required_claims)


def _covered(req: SignedClaim, proh: SignedClaim) -> bool:
    # Every claim that meets the requirement also meets the prohibition (the scorer's provenance rule).
    return (req.prop_id == proh.prop_id and req.polarity == proh.polarity
            and _satisfying(req.provenance) <= _satisfying_always(proh.provenance))


def _fixed_requirements(contract: Contract) -> tuple[list[SignedClaim], list[Act]]:
    """The claims and acts every valid response must carry as written: a general-answer-only contract's
    (GENERAL_ALLOWED: a truthful refusal also passes) and a held-knowledge requirement (the scorer also
    accepts the world fact used as the identity's own, a proposition the contract does not name) are not."""
    if _general_answer_only(contract):
        return [], [a for a in contract.required_acts if a is not Act.ANSWER]
    claims = [r for r in contract.required_claims if not (r.polarity and ClaimProvenance.ACQUIRED in r.provenance)]
    return claims, list(contract.required_acts)


def _excludes(a: Contract, b: Contract) -> bool:
    """True when every response valid for ``a`` is necessarily invalid for ``b`` by an explicit exclusion.

    Either ``a`` requires what ``b`` prohibits (a claim, or an act ``b`` forbids), or ``b`` requires what ``a``
    prohibits: a response valid for ``a`` carries none of ``a``'s prohibited claims or forbidden acts, so it
    lacks what ``b`` requires. Claims compare by the scorer's own provenance rule
    (:func:`sitbench.schema.provenance_satisfies`, the same for both sides); only requirements that every valid
    response carries as written count."""
    a_claims, a_acts = _fixed_requirements(a)
    b_claims, b_acts = _fixed_requirements(b)
    return (any(_covered(req, proh) for req in a_claims for proh in b.prohibited_claims)
            or any(act in _firmly_forbidden(b) for act in a_acts)
            or any(_covered(req, proh) for req in b_claims for proh in a.prohibited_claims)
            or any(act in _firmly_forbidden(a) for act in b_acts))


def _firmly_forbidden(contract: Contract) -> list[Act]:
    """The forbidden acts no valid response carries: a forbidden REJECT of a contract whose requirements are all
    positive claims can be waived by the scorer (a reply that answers and corrects a detail of the premise,
    scorer 3.3), so it certifies no exclusion."""
    waivable = bool(contract.required_claims) and all(c.polarity for c in contract.required_claims)
    return [a for a in contract.forbidden_acts if not (a is Act.REJECT and waivable)]


def certified_disjoint(a: Contract, b: Contract) -> bool:
    """A*(H_A, q) ∩ A*(H_B, q) = ∅, certified by an explicit claim or act exclusion (seed inv10, App. B).

    :func:`_excludes` looks for one from either contract's side, and is asked both ways."""
    return _excludes(a, b) and _excludes(b, a)


@_check("inv10", "theorem-qualified disjointness")
def inv10_disjoint(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    partners = {m: pair for pair in ds.pairs.values() for m in pair.members}
    n = 0
    for probe in ds.hidden.probes.values():
        if not probe.theorem_qualified or probe.partner_probe_id is None:
            continue
        n += 1
        where = _probe_where(ds, probe)
        partner = ds.hidden.probes.get(probe.partner_probe_id)
        if partner is None:
            continue
        pair = partners.get(probe.lineage_id)
        if pair is None or partner.lineage_id not in pair.members or partner.lineage_id == probe.lineage_id:
            p.add(where, f"partner_probe_id {partner.probe_id} does not target the pair partner")
        if partner.partner_probe_id != probe.probe_id or not partner.theorem_qualified:
            p.add(where, f"partner {partner.probe_id} does not point back")
        qa, qb = ds.visible.queries.get(probe.query_key), ds.visible.queries.get(partner.query_key)
        if qa and qb:
            scored_a = (qa.tau, qa.interlocutor, qa.capability, qa.turns[qa.scored_turn])
            scored_b = (qb.tau, qb.interlocutor, qb.capability, qb.turns[qb.scored_turn])
            if scored_a != scored_b:
                p.add(where, f"the scored turn differs from partner {partner.probe_id}'s (the query must be identical)")
        if not certified_disjoint(probe.contract, partner.contract):
            p.add(where, f"contract is not certified disjoint from partner {partner.probe_id}'s (needs an explicit "
                         "claim or act exclusion both ways)")
    return p.items, f"{n} theorem-qualified probes have certified-disjoint partner contracts"


# ---------------------------------------------------------------- inv11 / inv12


# The evidence records last scanned (frozen models, held so that identity means same content) and their
# [(where, words of the serialised evidence)]: inv11 and inv12 both scan every evidence file whole, and
# serialising and splitting the large files is most of their cost.
_SUBJECT_WORDS: list[tuple[list[tuple[str, object]], list[tuple[str, SplitText]]]] = []


def _subject_words(ds: LoadedDataset) -> list[tuple[str, SplitText]]:
    records: list[tuple[str, object]] = [*ds.visible.subjects.items()]
    if _SUBJECT_WORDS:
        held, words = _SUBJECT_WORDS[0]
        if len(held) == len(records) and all(
                ka == kb and va is vb for (ka, va), (kb, vb) in zip(held, records, strict=True)):
            return words
    words = [(where, TokenSet.split(text)) for where, text in _subject_texts(ds)]
    _SUBJECT_WORDS[:] = [(records, words)]
    return words


def _subject_texts(ds: LoadedDataset) -> Iterable[tuple[str, str]]:
    # The JSON of the record as serialised (the words are those of json.dumps of its model_dump: structural
    # characters are not word characters), built by pydantic's serialiser rather than through Python dicts.
    for subject, evidence in ds.visible.subjects.items():
        yield f"{SUBJECTS_DIR}/{subject}.json", evidence.model_dump_json(exclude={"subject"})  # the file's own key


# ASCII characters that are not ``[\w-]`` become spaces; bytes from 128 up are left alone (only ASCII text,
# or text whose other characters were first replaced by "?", is translated with it).
_ASCII_SEPARATORS = bytes(c if chr(c).isalnum() or chr(c) in "_-" or c >= 128 else 32 for c in range(256))


@dataclass(frozen=True)
class SplitText:
    """A text cut into candidate tokens once, for looking up several :class:`TokenSet` in it."""

    text: str
    """The text as given."""
    words: list[str]
    """Its ``[\\w-]+`` tokens in order when :attr:`exact`; otherwise the tokens of the text with every
    non-ASCII character read as a separator (each ASCII token of the text is among them)."""
    exact: bool
    """Whether the text is ASCII, so that :attr:`words` are exactly its tokens."""


class TokenSet:
    """Whole-token lookup: finds the first ``[\\w-]+`` token of a text that is in the set.

    Linear in the text whatever the number of tokens (a regex alternation of tens of
    thousands of ids is not)."""

    _SPLIT = re.compile(r"[\w-]+")

    def __init__(self, tokens: Iterable[str]) -> None:
        self.tokens = frozenset(t for t in tokens if t)
        self._ascii = all(t.isascii() for t in self.tokens)

    def find(self, text: str) -> str | None:
        """The first token of ``text`` that is in the set, or None."""
        if not self.tokens:
            return None
        return self.find_in(self.split(text))

    @staticmethod
    def split(text: str) -> SplitText:
        """``text`` cut into tokens (for :meth:`find_in`)."""
        # Translating bytes and splitting at spaces is several times faster than the regex's findall; a
        # non-ASCII character is read as a separator first ("?"), so an ASCII token is never lost.
        exact = text.isascii()
        ascii_text = text.encode("ascii", "replace").translate(_ASCII_SEPARATORS).decode("ascii")
        return SplitText(text=text, words=ascii_text.split(), exact=exact)

    def find_in(self, split: SplitText) -> str | None:
        """The first token of ``split.text`` that is in the set, or None (``find`` of an already split text)."""
        if not self.tokens:
            return None
        if not split.exact and not self._ascii:
            words = self._SPLIT.findall(split.text)  # a token with a non-ASCII character may be wanted
        elif self.tokens.isdisjoint(split.words):
            return None  # almost every text: one set test over all its words
        else:
            words = split.words if split.exact else self._SPLIT.findall(split.text)
        return next((w for w in words if w in self.tokens), None)


def isolation_tokens(ds: LoadedDataset) -> list[str]:
    """Identifiers that must never appear in candidate-visible content or a prompt."""
    tokens = list(ds.pairs) + list(ds.hidden.lineages) + list(ds.hidden.registry.by_id())
    tokens += list(ds.hidden.probes) + [lin.subject for lin in ds.hidden.lineages.values()]
    tokens += list(ds.visible.queries)
    return tokens


@_check("inv11", "lineage payload isolation")
def inv11_isolation(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    ids = TokenSet(isolation_tokens(ds))
    for where, words in _subject_words(ds):
        if found := ids.find_in(words):
            p.add(where, f"candidate-visible content contains the internal identifier {found!r}")
    for key, query in ds.visible.queries.items():
        # A query's own key and its subject's store key name the record; they are not prompt content.
        if found := ids.find(query.model_dump_json(exclude={"query_key", "subject"})):
            p.add(_query_line(ds, key), f"candidate-visible content contains the internal identifier {found!r}")
    # Partner records: no subject's evidence may carry its partner's private chronicle.
    for pair in ds.pairs.values():
        a, b = (ds.hidden.lineages.get(m) for m in pair.members)
        if a is None or b is None:
            continue
        for own, other in ((a, b), (b, a)):
            evidence = ds.visible.subjects.get(own.subject)
            if evidence is None:
                continue
            own_texts = {e.text for e in own.events}
            leaked = [r.text for r in evidence.records if r.text not in own_texts and r.text in {e.text for e in other.events}]
            if leaked:
                p.add(f"{SUBJECTS_DIR}/{own.subject}.json", f"records include the partner's record {leaked[0][:60]!r}")
    # Matched target orientations must see identical queries (and so identical extractor vocabularies).
    for probe in ds.hidden.probes.values():
        if probe.partner_probe_id and probe.partner_probe_id in ds.hidden.probes:
            qa = ds.visible.queries.get(probe.query_key)
            qb = ds.visible.queries.get(ds.hidden.probes[probe.partner_probe_id].query_key)
            if qa and qb and qa.turns[qa.scored_turn].utterance != qb.turns[qb.scored_turn].utterance:
                p.add(_probe_where(ds, probe), "matched orientations have different scored utterances")
    return p.items, "no pair id, lineage id, proposition id or partner record in candidate-visible content"


CONTRACT_FIELD_TOKENS = [
    "required_acts", "forbidden_acts", "required_claims", "prohibited_claims", "temporal_cutoff",
    "disclosure_tier", "theorem_qualified", "partner_probe_id", "gate_sensitive", "SValid", "v_T", "v_P",
    "IC_wrong", "IC_none", "expected_act", "expected_acts", "gold_label", "verifier_label",
]


@_check("inv12", "contract field isolation")
def inv12_contract_fields(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    fields = TokenSet(CONTRACT_FIELD_TOKENS)
    act_pattern = re.compile(r"(?<![\w-])(" + "|".join(a.value for a in Act) + r")(?![\w-])")
    # Utterances, descriptions and state writes repeat across queries (and per turn): scan each text once.
    scanned: dict[str, tuple[str | None, str | None]] = {}
    for key, query in ds.visible.queries.items():
        where = _query_line(ds, key)
        for i, turn in enumerate(query.turns):
            for text in (turn.utterance, query.interlocutor.description, query.state_write or ""):
                if text not in scanned:
                    m = act_pattern.search(text)
                    scanned[text] = (fields.find(text), m.group(1) if m else None)
                found, act = scanned[text]
                if found:
                    p.add(where, f"turns[{i}] envelope contains the verifier field {found!r}")
                if act:
                    p.add(where, f"turns[{i}] envelope contains the act label {act!r}")
    # Only the evidence files are scanned whole here (the query envelopes were read field by field above).
    for where, words in _subject_words(ds):
        if found := fields.find_in(words):
            p.add(where, f"evidence contains the verifier field {found!r}")
    return p.items, "envelopes and evidence carry no acts, contract claim lists or verifier labels"


# ---------------------------------------------------------------- inv13


@_check("inv13", "taxonomy coverage")
def inv13_coverage(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    counts = {c: 0 for c in Category}
    for probe in ds.hidden.probes.values():
        counts[probe.category] += 1
    for category, n in counts.items():
        if n == 0:
            p.add(PROBES, f"category {category.value} ({category.metric}) has no probe")
    if not any(pr.category is Category.G and ds.visible.queries.get(pr.query_key) is not None
               and ds.visible.queries[pr.query_key].is_multi_turn for pr in ds.hidden.probes.values()):
        p.add(PROBES, "no multi-turn counterfactual-pressure (G) schedule")
    if ds.manifest is not None:
        for category, n in counts.items():
            declared = ds.manifest.counts.get(f"category_{category.value}")
            if declared is not None and declared != n:
                p.add(MANIFEST, f"counts.category_{category.value} is {declared} but the store has {n}")
    summary = ", ".join(f"{c.value}={n}" for c, n in counts.items())
    return p.items, f"all eight categories present ({summary})"


# ---------------------------------------------------------------- inv14


@_check("inv14", "persistence provenance of cross-session facts")
def inv14_sessions(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    n = 0
    # lineage id -> prop id -> the events asserting it, in event order (one pass per lineage, not per claim).
    asserting: dict[str, dict[str, list[Event]]] = {}
    for probe in ds.hidden.probes.values():
        if probe.category is not Category.H:
            continue
        n += 1
        where = _probe_where(ds, probe)
        lineage = _lineage_for_probe(ds, probe)
        query = ds.visible.queries.get(probe.query_key)
        if lineage is None or query is None:
            continue
        sessions = sorted({t.session for t in query.turns})
        if len(sessions) < 2 or query.turns[query.scored_turn].session == sessions[0]:
            p.add(where, "cross-session probe must score a turn in a later session than the acquiring one")
        positives = [c for c in probe.contract.required_claims if c.polarity]
        if not positives:
            p.add(where, "contract.required_claims: a cross-session probe must require the persisted fact")
        first_session_dates = {t.t for t in query.turns if t.session == sessions[0]}
        for claim in positives:
            if lineage.lineage_id not in asserting:
                index: dict[str, list[Event]] = {}
                for e in lineage.events:
                    for pid in dict.fromkeys(s.prop_id for s in e.asserts if s.polarity):
                        index.setdefault(pid, []).append(e)
                asserting[lineage.lineage_id] = index
            sources = asserting[lineage.lineage_id].get(claim.prop_id, [])
            valid = [e for e in sources if e.kind is EventKind.SESSION and e.session_id
                     and e.provenance is Provenance.CONVERSATION and e.t <= query.tau]
            if not valid:
                p.add(where, f"{claim.prop_id} is not established by a session event with conversation provenance")
            elif not any(e.t in first_session_dates for e in valid):
                p.add(where, f"the acquiring session's turns are not dated on the session event ({valid[0].event_id})")
    return p.items, f"{n} cross-session probes persist facts with session-ingestion provenance"


# ---------------------------------------------------------------- inv15

#: A lineage this long must read like a life, not a loop: at most 5 % of its event texts may be repeats.
MIN_EVENTS_FOR_DISTINCTNESS = 50
MIN_DISTINCT_SHARE = 0.95


@_check("inv15", "distinct event texts")
def inv15_distinct_texts(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    n = 0
    for lin in ds.hidden.lineages.values():
        if len(lin.events) < MIN_EVENTS_FOR_DISTINCTNESS:
            continue
        n += 1
        by_text: dict[str, list[str]] = {}
        for event in lin.events:
            by_text.setdefault(event.text, []).append(event.event_id)
        share = len(by_text) / len(lin.events)
        if share < MIN_DISTINCT_SHARE:
            text, ids = max(by_text.items(), key=lambda item: (len(item[1]), item[0]))
            shown = ", ".join(ids[:4]) + (", …" if len(ids) > 4 else "")
            p.add(_lineage_file(lin.lineage_id),
                  f"events[].text: {len(by_text)} of {len(lin.events)} texts are distinct ({100 * share:.1f} %, "
                  f"needs ≥ {100 * MIN_DISTINCT_SHARE:.0f} %); most repeated {text[:60]!r} ×{len(ids)} ({shown})")
    if not n:
        return p.items, (f"not applicable: no lineage has ≥ {MIN_EVENTS_FOR_DISTINCTNESS} events (the share of "
                         "distinct event texts is judged on long generated histories only)")
    return p.items, (f"{n} lineages of ≥ {MIN_EVENTS_FOR_DISTINCTNESS} events have ≥ "
                     f"{100 * MIN_DISTINCT_SHARE:.0f} % distinct event texts")


# ---------------------------------------------------------------- inv16

_SESSION_NUMBER = re.compile(r"(\d+)$")


@_check("inv16", "sessions in date order")
def inv16_session_order(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    n = 0
    for lin in ds.hidden.lineages.values():
        where = _lineage_file(lin.lineage_id)
        sessions = sorted(((e.t, i, e) for i, e in enumerate(lin.events) if e.kind is EventKind.SESSION),
                          key=lambda item: (item[0], item[1]))
        previous: tuple[int, str, str, object] | None = None  # (number, id, event id, date)
        finished: set[str] = set()
        for _t, i, event in sessions:
            n += 1
            if not event.session_id:
                p.add(where, f"events[{i}] ({event.event_id}).session_id: a session event must name its session")
                continue
            m = _SESSION_NUMBER.search(event.session_id)
            if m is None:
                continue
            number = int(m.group(1))
            if previous is not None and event.session_id != previous[1]:
                if event.session_id in finished:
                    p.add(where, f"events[{i}] ({event.event_id}).session_id {event.session_id!r} resumes after "
                                 f"session {previous[1]!r} began ({previous[2]}, {previous[3]})")
                elif number <= previous[0]:
                    p.add(where, f"events[{i}] ({event.event_id}).session_id {event.session_id!r} ({event.t}) comes "
                                 f"after session {previous[1]!r} ({previous[2]}, {previous[3]}): session numbers "
                                 "must increase with the date")
                finished.add(previous[1])
            previous = (number, event.session_id, event.event_id, event.t)
    for key, query in ds.visible.queries.items():
        for i in range(1, len(query.turns)):
            prev, cur = query.turns[i - 1], query.turns[i]
            if cur.session < prev.session:
                p.add(_query_line(ds, key), f"turns[{i}].session {cur.session} comes after session {prev.session}")
            elif cur.t < prev.t:
                p.add(_query_line(ds, key), f"turns[{i}].t {cur.t} (session {cur.session}) is before turns[{i - 1}].t "
                                            f"{prev.t} (session {prev.session})")
    return p.items, f"{n} session events and every multi-turn schedule are in date order"


# ---------------------------------------------------------------- inv17


def _deliberately_false_residences(contract: Contract, props: dict[str, Proposition]) -> set[str]:
    """Cities whose residence the contract denies or prohibits: the question's premise is false on purpose."""
    cities = set()
    for claim in contract.required_claims:
        prop = props.get(claim.prop_id)
        if prop is not None and prop.predicate is Predicate.LIVED_IN and not claim.polarity:
            cities.add(prop.value)
    for claim in contract.prohibited_claims:
        prop = props.get(claim.prop_id)
        if prop is not None and prop.predicate is Predicate.LIVED_IN and claim.polarity:
            cities.add(prop.value)
    return cities


@_check("inv17", "tense of the question matches the residence record")
def inv17_residence_tense(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    props = ds.hidden.registry.by_id()
    cities = list(dict.fromkeys(pr.value for pr in ds.hidden.registry.propositions
                                if pr.predicate is Predicate.LIVED_IN))
    closed = any(d.predicate is Predicate.LIVED_IN for d in ds.hidden.registry.closed_world)
    timelines: dict[str, list[Residence]] = {}
    held: dict[str, dict[str, object]] = {}
    mentions: dict[str, list[CityMention]] = {}  # utterances repeat across queries: match each once
    n = 0
    for probe in ds.hidden.probes.values():
        lineage = _lineage_for_probe(ds, probe)
        query = ds.visible.queries.get(probe.query_key)
        if lineage is None or query is None:
            continue
        if lineage.lineage_id not in timelines:
            timelines[lineage.lineage_id] = residence_timeline(lineage, props)
            held[lineage.lineage_id] = {}
            for r in timelines[lineage.lineage_id]:
                if r.city is not None:
                    held[lineage.lineage_id].setdefault(r.city, r.t)
        timeline, first_moved = timelines[lineage.lineage_id], held[lineage.lineage_id]
        skip = _deliberately_false_residences(probe.contract, props)
        for i, turn in enumerate(query.turns):
            if turn.utterance not in mentions:
                mentions[turn.utterance] = city_mentions(turn.utterance, cities)
            for mention in mentions[turn.utterance]:
                if mention.city in skip:
                    continue
                n += 1
                now = residence_at(timeline, turn.t)
                field_ = f"turns[{i}].utterance"
                if mention.tense is Tense.PAST and now is not None and now.city == mention.city:
                    p.add(_query_line(ds, query.query_key),
                          f"{field_} speaks of {mention.city} in the past tense ({mention.phrase!r}), but "
                          f"{lineage.lineage_id} lives in {mention.city} on {turn.t} (since {now.event_id}, {now.t}; "
                          f"probe {probe.probe_id})")
                elif mention.tense is Tense.PRESENT and (now is None or now.city != mention.city):
                    since = first_moved.get(mention.city)
                    never = since is None or since > turn.t  # type: ignore[operator]
                    if now is None and not (never and closed):
                        continue  # residence unknown and not closed-world: cannot tell
                    where_now = (f"lives in {now.city} (since {now.event_id}, {now.t})" if now is not None and now.city
                                 else "has no recorded residence")
                    p.add(_query_line(ds, query.query_key),
                          f"{field_} speaks of {mention.city} in the present tense ({mention.phrase!r}), but on "
                          f"{turn.t} {lineage.lineage_id} {where_now} (probe {probe.probe_id})")
    return p.items, f"{n} residence phrasings in queries agree with the residence record at their dates"


# ---------------------------------------------------------------- inv18


@_check("inv18", "an authorized disclosure is asked by a person who was told")
def inv18_cleared_interlocutor(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    props = ds.hidden.registry.by_id()
    told: dict[tuple[str, str, object], tuple[list[str], list[str]]] = {}
    n = 0
    for probe in ds.hidden.probes.values():
        if probe.category is not Category.E:
            continue
        lineage = _lineage_for_probe(ds, probe)
        query = ds.visible.queries.get(probe.query_key)
        if lineage is None or query is None:
            continue
        who = query.interlocutor.interlocutor_id
        for i, claim in enumerate(probe.contract.required_claims):
            prop = props.get(claim.prop_id)
            if not claim.polarity or prop is None or prop.world_fact:
                continue
            n += 1
            told_key = (lineage.lineage_id, claim.prop_id, query.tau)
            if told_key not in told:
                told[told_key] = told_to(lineage, claim.prop_id, query.tau)
            people, events = told[told_key]
            if people and who not in people:
                p.add(_probe_where(ds, probe),
                      f"query {query.query_key} interlocutor {who!r} is not among the people "
                      f"contract.required_claims[{i}] ({claim.prop_id}) was told to ({', '.join(people)}, in "
                      f"{lineage.lineage_id} {', '.join(events)}), yet the contract requires disclosing it")
            elif not people:
                clearance = situated_state(lineage, query.tau).clearance_of(who)
                if not clearance.covers(probe.contract.disclosure_tier):
                    p.add(_probe_where(ds, probe),
                          f"query {query.query_key} interlocutor {who!r} has clearance {clearance.value} at "
                          f"{query.tau}, below contract.disclosure_tier {probe.contract.disclosure_tier.value}, yet "
                          f"the contract requires disclosing contract.required_claims[{i}] ({claim.prop_id})")
    return p.items, f"{n} required disclosures are asked by a person the record says was told"


# ---------------------------------------------------------------- inv19


@_check("inv19", "articles agree with the sound of the next word")
def inv19_articles(ds: LoadedDataset) -> tuple[list[str], str]:
    p = _Problems()
    cache: dict[str, list[ArticleSlip]] = {}

    def slips(text: str) -> list[ArticleSlip]:
        if text not in cache:
            cache[text] = article_slips(text)
        return cache[text]

    def report(where: Callable[[], str], field_: str, text: str) -> None:
        for slip in slips(text):
            p.add(where(), f"{field_}: {slip.phrase!r} should be {slip.correction!r}")

    n = 0
    for lin in ds.hidden.lineages.values():
        for event in lin.events:
            n += 1
            report(functools.partial(_lineage_file, lin.lineage_id), f"event {event.event_id}.text", event.text)
    for key, query in ds.visible.queries.items():
        # The line number is looked up only for a problem: finding it is linear in the number of queries.
        where = functools.partial(_query_line, ds, key)
        report(where, "interlocutor.description", query.interlocutor.description)
        for i, turn in enumerate(query.turns):
            n += 1
            report(where, f"turns[{i}].utterance", turn.utterance)
    return p.items, f"{n} event texts and utterances use a/an by the sound of the next word"


# ---------------------------------------------------------------- driver


def run_checks(ds: LoadedDataset) -> list[CheckRow]:
    """Run inv1–inv19 (and any installed check) and return one row per check, in order."""
    rows = []
    for check_id, check in CHECKS.items():
        name = check.name
        problems, summary = check.fn(ds)
        details = summary if not problems else "; ".join(problems[:3]) + (
            f" (+{len(problems) - 3} more)" if len(problems) > 3 else "")
        rows.append(CheckRow(id=check_id, name=name, passed=not problems, details=details, problems=problems))
    return rows


def dataset_counts(ds: LoadedDataset) -> dict[str, int]:
    """Counts reported by ``sitbench validate --json``."""
    return {
        "pairs": len(ds.pairs),
        "lineages": len(ds.hidden.lineages),
        "probes": len(ds.hidden.probes),
        "propositions": len(ds.hidden.registry.propositions),
        "theorem_qualified": sum(p.theorem_qualified for p in ds.hidden.probes.values()),
    }

