"""Records of a human audit of the verifier (seed §8.3): the sample, annotations, the adjudicated
reference, agreement and the extractor-against-reference measurement.

Every file the audit writes is one of these models, validated when read back (unknown fields are
errors), so an annotation that names an item, a proposition or a span the sample does not hold is
refused at ``sitbench audit import``, not discovered in a table.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sitbench._names import PathName
from sitbench.schema import (
    Act,
    Category,
    ClaimProvenance,
    ClosedWorldDeclaration,
    ConfidenceLevel,
    Envelope,
    Proposition,
    UncertaintyLevel,
)

SAMPLE_FORMAT: Final = "sitbench-audit-sample/1"
ANNOTATION_FORMAT: Final = "sitbench-audit-annotation/1"
REFERENCE_FORMAT: Final = "sitbench-audit-reference/1"
AGREEMENT_FORMAT: Final = "sitbench-audit-agreement/1"
VERIFIER_FORMAT: Final = "sitbench-audit-verifier/1"

MATCHING_RULE = "sitbench-audit-match/1"
"""The prespecified matching rule (seed §8.3) that aligns what two readers marked, fixed before any
annotation: a canonical claim is identified by its proposition id within a response (polarity and
provenance are then labels of the aligned claim); an unmapped assertion or a span aligns with
another when their character spans overlap with intersection-over-union ≥ 0.5 (one-to-one, largest
overlap first)."""

SPAN_IOU = 0.5
"""Intersection-over-union at or above which two character spans align (part of :data:`MATCHING_RULE`)."""

KAPPA_TARGET = 0.90
"""Seed §8.3: the κ ≥ 0.90 target of the categorical engineering checks."""

Phase = Literal["dev", "heldout"]
"""``dev``: development calibration (reference pilot and development pairs; findings may change the
extractor). ``heldout``: post-freeze reliability on held-out pairs (findings never change it)."""

PHASE_LABELS: dict[str, str] = {
    "dev": "development calibration audit",
    "heldout": "held-out reliability audit (post-freeze: its findings never modify extractor rules)",
}

ClaimMode = Literal["asserted", "quoted", "hypothetical", "reported"]
"""How a proposition occurs in a response: ``asserted`` as a fact about the identity (a claim of Ĝ);
``quoted``, ``hypothetical`` or ``reported`` (someone else's words or view) mention it without
asserting it — entity mention is not assertion (docs/concepts.md: Γ̂)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


# --------------------------------------------------------------------------- sample


class Vocabulary(_Model):
    """The closed-world vocabulary every item's X_q is drawn from (what the extractor receives too)."""

    propositions: list[Proposition]
    """Registry propositions named by some item's universe, in registry order."""
    closed_world: list[ClosedWorldDeclaration] = Field(default_factory=list)
    """Declared exhaustive scopes D_CW, with their cue phrases."""


class SampleItem(_Model):
    """One sampled response. The first block is what an annotator sees; the rest stays evaluator-side."""

    item_id: str
    """Opaque id: the only name of the response on an annotation page."""
    position: int
    """Order on the annotation page (a seeded shuffle, so strata do not come in blocks)."""
    envelope: Envelope
    """Env(q) of the scored turn: date, interlocutor, utterance."""
    response: str
    """The scored turn's response text, exactly as stored."""
    universe: list[str]
    """X_q: proposition ids in the extractor's fixed order."""
    run: str
    """Name of the source run (a key of :attr:`AuditSample.runs`). Evaluator-only."""
    trial_id: str
    """Trial in that run. Evaluator-only."""
    probe_id: str
    """Probe. Evaluator-only."""
    config: str
    """Configuration. Evaluator-only."""
    category: Category
    """Probe category. Evaluator-only."""
    stratum: str
    """Key of the item's stratum. Evaluator-only."""
    predicted_acts: list[Act]
    """The stratifying extractor's act set Ŷ. Evaluator-only (annotators never see a reading)."""
    confidence: ConfidenceLevel
    """The stratifying extractor's confidence level. Evaluator-only."""
    has_unmapped: bool
    """The stratifying extractor found an unmapped assertion. Evaluator-only."""
    contested: bool = False
    """Two readers scored the response and their verdicts differ (its stratum is ``contested``). Evaluator-only."""
    inclusion_probability: float = Field(gt=0, le=1)
    """π_i: probability that this response was drawn (its stratum's expected size / population)."""


class Stratum(_Model):
    """One cell of category × configuration × predicted act set × confidence × unmapped, or the one stratum of
    every contested response (two readers whose verdicts differ), which pools categories and readings."""

    key: str
    """``category|config|acts|confidence|unmapped``, or ``contested``."""
    category: Category | None = None
    """None for the contested stratum (it pools categories), as are the four fields below."""
    config: str | None = None
    acts: list[Act] | None = None
    """Predicted act set (empty: no act)."""
    confidence: ConfidenceLevel | None = None
    """Confidence band of the stratifying reading."""
    unmapped: bool | None = None
    """Predicted unmapped assertion present."""
    contested: bool = False
    """The stratum of contested responses."""
    population: int = Field(ge=1)
    """N_h: completed responses of the source runs in this stratum."""
    factors: list[str] = Field(default_factory=list)
    """Oversampling factors that apply (compound, rare, unmapped, low, medium; contested alone for the
    contested stratum)."""
    weight: float = Field(gt=0)
    """w_h: product of the weights of those factors (1 when none applies)."""
    expected: float = Field(ge=0)
    """a_h: allocated expected sample size (fractional), a_h ≤ N_h."""
    sampled: int = Field(ge=0)
    """n_h: responses drawn (⌊a_h⌋ or ⌈a_h⌉ by systematic rounding)."""
    inclusion_probability: float = Field(ge=0, le=1)
    """π_h = a_h / N_h: the probability that any one response of the stratum is drawn."""


class Allocation(_Model):
    """The allocation rule, fixed by the command's options and recorded with the sample."""

    rule: str = ("a_h = min(N_h, floor) + a share of the rest proportional to N_h·w_h, capped at N_h; "
                 "integer sizes by systematic rounding of the fractional parts (seeded), so E[n_h] = a_h "
                 "and π_h = a_h / N_h exactly; simple random sampling without replacement within strata")
    n: int = Field(ge=1)
    """Sample size asked for (and drawn)."""
    seed: int = Field(ge=0)
    """Seed of every random choice (rounding, within-stratum draws, page order)."""
    floor: int = Field(ge=0)
    """Responses each stratum gets first (capped at N_h), when every stratum can have them."""
    floor_applied: bool
    """False when there are more strata than the floor allows (then no stratum has a floor)."""
    weights: dict[str, float]
    """Oversampling weight per factor: compound (≥ 2 predicted acts), rare (act set below
    ``rare_share`` of the population), unmapped, low and medium confidence, contested (the stratum of
    responses two readers' verdicts differ on)."""
    rare_share: float = Field(ge=0, le=1)
    """An act set whose share of the population is below this is ``rare``."""


class SourceRun(_Model):
    """A run the sample was drawn from, with its manifest."""

    name: str
    """Key used by items (the run directory's name, made unique)."""
    path: str
    """Run directory when sampled."""
    run_id: str
    manifest_sha256: str
    scores_sha256: str
    responses_sha256: str
    manifest: dict[str, Any]
    """The run's whole ``manifest.json``."""


class AuditSample(_Model):
    """``audit sample``: the drawn responses, their strata and the rule that drew them."""

    format: Literal["sitbench-audit-sample/1"] = SAMPLE_FORMAT
    sample_id: str
    """Digest of the phase, the rule and the drawn trials: the name annotations carry."""
    phase: Phase
    created_at: str
    package_version: str
    signal: str
    """The stratification signal: the extractor (``id@version``) whose act set and confidence define strata."""
    population: int
    """Completed responses over all source runs."""
    allocation: Allocation
    strata: list[Stratum]
    runs: list[SourceRun]
    vocabulary: Vocabulary
    items: list[SampleItem]

    def item_map(self) -> dict[str, SampleItem]:
        """Items by id."""
        return {i.item_id: i for i in self.items}

    def by_position(self) -> list[SampleItem]:
        """Items in page order."""
        return sorted(self.items, key=lambda i: i.position)


# --------------------------------------------------------------------------- annotations


Span = tuple[int, int]


class AnnotatedClaim(_Model):
    """A proposition of X_q the annotator found in the response."""

    prop_id: str
    """Proposition id (from the item's X_q)."""
    polarity: bool
    """True asserted, False denied."""
    provenance: ClaimProvenance
    """Provenance the response attaches to it."""
    mode: ClaimMode = "asserted"
    """Asserted (a claim of Ĝ), or only mentioned: quoted, hypothetical, reported."""
    span: Span | None = None
    """Supporting span: character offsets [start, end) in the response (code points)."""


class AnnotatedUnmapped(_Model):
    """A personal assertion with no proposition id (an element of Û)."""

    span: Span
    """Character offsets [start, end) of the assertion in the response."""
    text: str
    """The response's text at ``span``."""
    polarity: bool
    provenance: ClaimProvenance
    slot: str | None = None
    """Closed-world slot it fills, when identifiable; None = unresolved scope."""
    value: str | None = None
    """Value it gives the slot, when identifiable."""


class Adjudication(_Model):
    """A unit the majority did not decide, and what decided it."""

    item_id: str
    unit: str
    """e.g. ``uncertainty``, ``act ANSWER``, ``claim P-01 provenance``."""
    votes: dict[str, str]
    """Annotator → label (``-`` = did not mark it)."""
    decided: str
    """The reference's label (``absent`` when the adjudicator's reading lacks the unit)."""
    by: str
    """The adjudicator."""


class Annotation(_Model):
    """One annotator's reading of one item: a line of an annotation JSONL file."""

    format: Literal["sitbench-audit-annotation/1"] = ANNOTATION_FORMAT
    sample_id: str
    phase: Phase
    annotator: PathName = Field(min_length=1, max_length=80, json_schema_extra={"maxLength": 80})
    """Who annotated; ``audit import --out DIR`` stores the file as ``DIR/<annotator>.jsonl``."""
    item_id: str
    status: Literal["done", "skipped"] = "done"
    """``skipped``: the annotator could not decide; it counts as not annotated."""
    acts: list[Act] = Field(default_factory=list)
    claims: list[AnnotatedClaim] = Field(default_factory=list)
    unmapped: list[AnnotatedUnmapped] = Field(default_factory=list)
    uncertainty: UncertaintyLevel = UncertaintyLevel.NONE
    withheld: bool = False
    """The response frames something as withheld from this interlocutor."""
    note: str = ""
    saved_at: str | None = None
    """When the page last saved this item (the annotator's clock)."""
    synthetic: bool = False
    """True for a scripted (synthetic) annotator: never a human judgement."""

    @field_validator("acts")
    @classmethod
    def _unique_acts(cls, acts: list[Act]) -> list[Act]:
        if len(set(acts)) != len(acts):
            raise ValueError(f"an act is listed twice: {[a.value for a in acts]}")
        order = list(Act)
        return sorted(acts, key=order.index)

    @model_validator(mode="after")
    def _one_asserted_claim_per_prop(self) -> Annotation:
        seen: set[tuple[str, str]] = set()
        for claim in self.claims:
            key = (claim.prop_id, claim.mode)
            if key in seen:
                raise ValueError(f"claims: {claim.prop_id} is marked twice as {claim.mode}; mark each "
                                 "proposition once per mode (a self-correction counts only the corrected value)")
            seen.add(key)
        return self

    def asserted(self) -> dict[str, AnnotatedClaim]:
        """Asserted claims (Ĝ) by proposition id."""
        return {c.prop_id: c for c in self.claims if c.mode == "asserted"}


# --------------------------------------------------------------------------- agreement


class Interval(_Model):
    """A 95 % (by default) percentile bootstrap interval."""

    lower: float | None
    upper: float | None
    ci: float
    resamples: int
    """Resamples drawn."""
    defined: int
    """Resamples in which the statistic was defined (the interval is over these)."""
    seed: int
    unit: str = "items"
    """What was resampled: ``items`` (responses), or ``items within strata``."""
    degenerate: bool = False
    """Zero width: it reflects the sample, not certainty."""
    note: str | None = None


class Coefficient(_Model):
    """κ or α with its status: a value, or why there is none."""

    value: float | None
    status: Literal["ok", "undefined", "degenerate"]
    """``degenerate``: every rating is one category (chance agreement 1; the coefficient is 0/0).
    ``undefined``: no unit was rated by two readers."""
    note: str | None = None
    units: int = 0
    """Units rated by both (κ) or pairable units (α)."""
    observed_agreement: float | None = None
    """Share of agreeing pairs (defined whenever there is a pair)."""
    interval: Interval | None = None


class PairKappa(_Model):
    """Cohen's κ of two annotators on one check."""

    a: str
    b: str
    kappa: Coefficient


class CategoricalCheck(_Model):
    """A categorical engineering check (κ ≥ 0.90 target): pairwise κ and multi-coder α."""

    name: str
    """``act ANSWER`` … , ``acts (all six)``, ``uncertainty``, ``withheld``, ``claim polarity``, ``claim provenance``."""
    description: str
    categories: list[str]
    units: int
    """Units with at least one rating."""
    pairs: list[PairKappa]
    alpha: Coefficient
    """Krippendorff's α (nominal), all annotators, missing ratings allowed."""
    target: float = KAPPA_TARGET
    meets_target: bool | None
    """Every pairwise κ and α ≥ target; None when some coefficient is undefined or degenerate."""


class SetPair(_Model):
    """Set agreement of two annotators: ``a`` as reference, ``b`` compared."""

    a: str
    b: str
    items: int
    """Items both annotated."""
    a_count: int
    b_count: int
    matched: int
    precision: float | None
    """matched / b_count (None when b marked nothing)."""
    recall: float | None
    """matched / a_count (None when a marked nothing)."""
    f1: float | None
    """2·matched / (a_count + b_count) (None when neither marked anything: undefined, not 0 or 1)."""
    exact_set: float | None
    """Share of items whose two sets are identical."""
    f1_interval: Interval | None = None


class SetCheck(_Model):
    """Set-valued objects (claims, spans, unmapped assertions): P/R/F1 and exact-set agreement, no κ."""

    name: str
    description: str
    pairs: list[SetPair]


class AdjudicationSummary(_Model):
    """How the reference was decided."""

    items: int
    """Items in the reference (annotated by at least one annotator)."""
    unanimous_items: int
    """Items every annotator read identically."""
    single_annotator_items: int
    """Items only one annotator annotated (their reading stands)."""
    majority_units: int
    """Units decided by a majority that was not unanimous."""
    adjudicated_units: int
    """Tied units the adjudicator decided (three-way ties, and two-way ties of two annotators)."""
    adjudicator: str | None


class AgreementResult(_Model):
    """``audit agree``: inter-annotator agreement and how the reference was adjudicated."""

    format: Literal["sitbench-audit-agreement/1"] = AGREEMENT_FORMAT
    sample_id: str
    phase: Phase
    synthetic: bool
    """Some annotation is synthetic (scripted): the figures demonstrate the tooling, not human reliability."""
    annotators: list[str]
    items: int
    """Items annotated by at least two annotators (the ones agreement is measured on)."""
    matching_rule: str = MATCHING_RULE
    seed: int
    resamples: int
    ci: float
    categorical: list[CategoricalCheck]
    sets: list[SetCheck]
    adjudication: AdjudicationSummary | None = None


class AuditReference(_Model):
    """``audit agree --out``: the adjudicated reference annotation of the sample."""

    format: Literal["sitbench-audit-reference/1"] = REFERENCE_FORMAT
    sample_id: str
    sample_path: str
    """The sample file, as given to ``audit agree``."""
    sample_sha256: str
    phase: Phase
    synthetic: bool
    annotators: list[str]
    adjudicator: str | None
    matching_rule: str = MATCHING_RULE
    created_at: str
    items: list[Annotation]
    """One adjudicated reading per item (``annotator`` = ``reference``)."""
    adjudications: list[Adjudication]
    agreement: AgreementResult


# --------------------------------------------------------------------------- verifier


class Estimate(_Model):
    """One figure, as a population estimate and as the audit-sample aggregate."""

    metric: str
    description: str
    unit: str
    """e.g. ``share of (response, act) decisions``."""
    population: float | None
    """Inverse-probability-weighted estimate for the source runs' responses (None: no denominator)."""
    interval: Interval | None
    """Stratified bootstrap interval of ``population``."""
    audit_sample: float | None
    """Unweighted figure over the (oversampled) audit sample: an audit-sample aggregate, never
    population performance."""
    n: int
    """Annotated responses with a denominator for this figure."""
    denominator: float
    """Its denominator summed over the sample (e.g. claims, verdicts)."""


class StratumResult(_Model):
    """Stratum-specific figures (inside a stratum every response has the same weight)."""

    key: str
    population: int
    sampled: int
    annotated: int
    inclusion_probability: float
    figures: dict[str, float | None]


class DomainResult(_Model):
    """IPW figures over one domain of the population (one category, configuration…)."""

    grouping: str
    value: str
    population: float
    """Estimated responses of the population in this domain (Σ 1/π over its annotated items)."""
    annotated: int
    estimates: list[Estimate]


class VerifierResult(_Model):
    """``audit verifier``: one extractor against the adjudicated reference."""

    format: Literal["sitbench-audit-verifier/1"] = VERIFIER_FORMAT
    sample_id: str
    phase: Phase
    synthetic: bool
    extractor: str
    """``id@version`` measured."""
    signal: str
    """The extractor whose reading stratified the sample."""
    reference: str
    """Reference file."""
    population: int
    """Completed responses of the source runs."""
    unrepresented_population: int
    """Responses of strata that were drawn but have no annotated response (skipped or never annotated):
    the estimates do not represent them."""
    empty_strata: int
    """Strata drawn empty by the rounding (a_h < 1): represented, in expectation, by the 1/π weights of the
    others (Horvitz–Thompson), so they need no response of their own."""
    sampled: int
    annotated: int
    seed: int
    resamples: int
    ci: float
    decision_rule: str = ("decisions: the shared deterministic contract scorer applied to the adjudicated "
                          "reference reading and to the extractor's reading (target, and partner for "
                          "theorem-qualified probes); contracts enter only here, never the annotation")
    weighting: str = ("population estimates weight each annotated response by 1/π_i, π_i = π_h × "
                      "(annotated_h / sampled_h); ratio figures are Σ w·numerator / Σ w·denominator; "
                      "intervals resample responses with replacement within strata, strata with one annotated "
                      "response pooled into one collapsed group")
    estimates: list[Estimate]
    strata: list[StratumResult]
    domains: list[DomainResult]
    agreement: AgreementResult | None = None
    """The annotators' agreement, copied from the reference."""
