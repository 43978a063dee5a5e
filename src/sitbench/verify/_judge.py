"""Extraction and scoring of one response to one probe of a dataset."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cached_property
from pathlib import Path

from sitbench._limits import DEFAULT_MAX_RESPONSE_CHARS
from sitbench.errors import InputError
from sitbench.lineage import situated_state
from sitbench.schema import (
    Confidence,
    ConfidenceLevel,
    Envelope,
    Observation,
    Probe,
    Proposition,
    Query,
    Verdict,
    envelope_for,
)
from sitbench.stores import HiddenStore, load_hidden, load_visible
from sitbench.verify._compat import for_registry
from sitbench.verify._extract import Vocabulary
from sitbench.verify._extractor import Extractor, ReaderPair, RuleExtractor, primary_reader
from sitbench.verify._router import UniversePolicy, extraction_universe
from sitbench.verify._score import Support, over_length_verdict, score


class Agreement(StrEnum):
    """Whether two readers' verdicts on one response are the same."""

    AGREED = "agreed"
    """Both readings give the same target (and partner) verdict."""
    CONTESTED = "contested"
    """The two readings give different verdicts: the figure's band spans both."""


@dataclass(frozen=True)
class Judgement:
    """Observation, verdict, and for theorem-qualified probes the partner verdict (v_T, v_P).

    With two readers (:class:`~sitbench.verify.ReaderPair`), ``second`` is the second reader's judgement of
    the same response; the fields above are the primary reader's.
    """

    probe_id: str
    observation: Observation
    verdict: Verdict
    partner: Verdict | None
    second: Judgement | None = None

    @property
    def agreement(self) -> Agreement | None:
        """``agreed`` or ``contested`` with two readers; None with one."""
        if self.second is None:
            return None
        return Agreement.CONTESTED if self.contested_checks else Agreement.AGREED

    @property
    def contested_checks(self) -> list[str]:
        """The checks two readers' verdicts differ on (``partner.`` for the partner contract's), in check
        order; ``valid`` alone when the verdicts differ on no single named check. Empty when agreed."""
        if self.second is None:
            return []
        return differing_checks(self.verdict, self.second.verdict) + [
            f"partner.{name}" for name in differing_checks(self.partner, self.second.partner)]


def differing_checks(first: Verdict | None, second: Verdict | None) -> list[str]:
    """Names of the checks two verdicts of one response differ on; ``["valid"]`` when only the verdicts
    differ, ``[]`` when they agree (or both are absent)."""
    if first is None or second is None:
        return [] if first is second else ["valid"]
    names = [name for name, check in first.checks.items()
             if name in second.checks and check.passed != second.checks[name].passed]
    names += [name for name in second.checks if name not in first.checks and not second.checks[name].passed]
    if first.valid != second.valid and not names:
        return ["valid"]
    return names if first.valid != second.valid else []


def _check_references(hidden: HiddenStore, queries: dict[str, Query]) -> None:
    """Every probe names a lineage and a query the dataset holds (else judging one would fail mid-run)."""
    for probe in hidden.probes.values():
        if probe.lineage_id not in hidden.lineages:
            raise InputError(f"hidden/probes.jsonl: probe {probe.probe_id}: lineage_id {probe.lineage_id!r} has no "
                             f"file hidden/lineages/{probe.lineage_id}.json; the dataset is incomplete: check it with "
                             "`sitbench validate DATASET`")
        if probe.query_key not in queries:
            raise InputError(f"hidden/probes.jsonl: probe {probe.probe_id}: query_key {probe.query_key!r} is not in "
                             "visible/queries.jsonl; the dataset is incomplete: check it with "
                             "`sitbench validate DATASET`")


class Judge:
    """Holds the hidden store and the queries; extracts gold-blind, then scores."""

    def __init__(self, hidden: HiddenStore, queries: dict[str, Query],
                 policy: UniversePolicy = UniversePolicy.FULL, extractor: Extractor | None = None,
                 max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS) -> None:
        """A judge over one dataset's hidden store and queries.

        Args:
            hidden: The dataset's hidden store.
            queries: Its queries by key.
            policy: Which propositions the extractor reads for.
            extractor: Stage 1 reader (the rule extractor by default).
            max_response_chars: The cap on one answer: a longer one is judged invalid (``over_length``)
                without being read.

        Raises:
            InputError: a probe names a lineage or query the dataset does not hold.
        """
        self.extractor: Extractor = extractor or RuleExtractor()
        """Stage 1 reader (the rule extractor unless another is given)."""
        self.max_response_chars = max_response_chars
        """Answers longer than this many characters are invalid (``over_length``) and not read."""
        self.hidden = hidden
        self.queries = queries
        self.policy = UniversePolicy(policy)
        _check_references(hidden, queries)
        self._vocabularies: dict[str, Vocabulary] = {}
        self._supports: dict[str, Support] = {}

    @cached_property
    def _props(self) -> dict[str, Proposition]:
        return self.hidden.registry.by_id()

    def probe(self, probe_id: str) -> Probe:
        """The probe, or an InputError listing how many exist."""
        try:
            return self.hidden.probes[probe_id]
        except KeyError:
            raise InputError(f"--probe {probe_id!r} is not in hidden/probes.jsonl "
                             f"({len(self.hidden.probes)} probes, e.g. {next(iter(self.hidden.probes), '-')})") from None

    def envelope(self, probe: Probe) -> Envelope:
        """Env(q) of the probe's scored turn."""
        return envelope_for(self.queries[probe.query_key])

    def vocabulary(self, envelope: Envelope) -> Vocabulary:
        """X_q and D_CW for this envelope (cached per universe)."""
        if self.policy is UniversePolicy.FULL and "full" in self._vocabularies:
            return self._vocabularies["full"]  # the whole registry, whatever the envelope
        universe = extraction_universe(envelope, self.hidden.registry, self.policy)
        key = "full" if self.policy is UniversePolicy.FULL else ",".join(p.prop_id for p in universe)
        if key not in self._vocabularies:
            self._vocabularies[key] = Vocabulary(universe, self.hidden.registry.closed_world)
        return self._vocabularies[key]

    def support(self, probe: Probe) -> Support:
        """Projected support of the probe's target lineage at τ (computed once per probe)."""
        if probe.probe_id in self._supports:
            return self._supports[probe.probe_id]
        lineage = self.hidden.lineages[probe.lineage_id]
        query = self.queries[probe.query_key]
        state = situated_state(lineage, probe.contract.temporal_cutoff)
        support = Support(state=state, clearance=state.clearance_of(query.interlocutor.interlocutor_id),
                          propositions=self._props, closed_world=tuple(self.hidden.registry.closed_world),
                          compatibility=for_registry(self.hidden.registry))
        self._supports[probe.probe_id] = support
        return support

    def extract(self, probe_id: str, response: str) -> Observation:
        """Stage 1 only: Γ̂(a).

        Raises:
            InputError: the response is longer than :attr:`max_response_chars` (it is not read).
            ReadingUnavailable: the extractor could not read it.
        """
        if len(response) > self.max_response_chars:
            raise InputError(f"the response has {len(response):,} characters, above the cap of "
                             f"{self.max_response_chars:,}: it is not read (judging it gives over_length, invalid)")
        envelope = self.envelope(self.probe(probe_id))
        return self.extractor.extract(response, envelope, self.vocabulary(envelope))

    def score_observation(self, probe_id: str, observation: Observation) -> Judgement:
        """Stage 2 on an existing observation: target and, when theorem-qualified, partner verdicts."""
        probe = self.probe(probe_id)
        verdict = score(observation, probe.contract, self.support(probe))
        partner = None
        if probe.theorem_qualified and probe.partner_probe_id in self.hidden.probes:
            other = self.hidden.probes[probe.partner_probe_id]
            partner = score(observation, other.contract, self.support(other))
        return Judgement(probe_id=probe_id, observation=observation, verdict=verdict, partner=partner)

    def judge(self, probe_id: str, response: str) -> Judgement:
        """Extract once, score against the target (and partner) contract; an answer over the cap is
        :meth:`over_length` without being read.

        Raises:
            ReadingUnavailable: the extractor could not read the response (the trial is unscored).
        """
        if len(response) > self.max_response_chars:
            return self.over_length(probe_id, len(response))
        first = self.score_observation(probe_id, self.extract(probe_id, response))
        if not isinstance(self.extractor, ReaderPair):
            return first
        envelope = self.envelope(self.probe(probe_id))
        other = self.extractor.secondary.extract(response, envelope, self.vocabulary(envelope))
        return replace(first, second=self.score_observation(probe_id, other))

    def over_length(self, probe_id: str, chars: int) -> Judgement:
        """The judgement of an answer of ``chars`` characters, above the cap: invalid for the target and the
        partner (``over_length``), with an empty observation that says why it is empty."""
        probe = self.probe(probe_id)
        reader = primary_reader(self.extractor)
        label = f"{reader.id}@{reader.version}"
        observation = Observation(acts=[], engaged=False, verifier_version=reader.version,
                                  extractor=reader.id,
                                  confidence=Confidence(level=ConfidenceLevel.LOW, signals=["over_length"]))
        verdict = over_length_verdict(chars, self.max_response_chars, label)
        partner = verdict if probe.theorem_qualified and probe.partner_probe_id in self.hidden.probes else None
        return Judgement(probe_id=probe_id, observation=observation, verdict=verdict, partner=partner)


def load_judge(root: Path, policy: UniversePolicy = UniversePolicy.FULL, extractor: Extractor | None = None) -> Judge:
    """A :class:`Judge` for a dataset directory."""
    return Judge(load_hidden(root), load_visible(root).queries, policy, extractor)


def judge_probe(dataset: Path | Judge, probe_id: str, response: str) -> Judgement:
    """Convenience: judge one response to one probe of a dataset directory (or a loaded Judge)."""
    judge = dataset if isinstance(dataset, Judge) else load_judge(Path(dataset))
    return judge.judge(probe_id, response)
