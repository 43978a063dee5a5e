"""The records ``sitbench compare`` writes: arms, paired endpoint differences, Holm, changed probes."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from sitbench.stats._bootstrap import BootstrapResult
from sitbench.stats._signflip import SignFlipResult


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)


class EndpointKind(StrEnum):
    """What an endpoint of a comparison is."""

    CATEGORY = "category"
    """A category validity (``A_pos`` … ``A_session``): a member of the Holm family."""
    MACRO = "macro"
    """Macro SIT, the mean of the eight category validities."""
    DIAGNOSTIC = "diagnostic"
    """LAA, FMR, TL or UEL."""


class ContrastStatus(StrEnum):
    """Whether an endpoint difference could be computed."""

    COMPUTED = "computed"
    """At least one pair is complete in both arms."""
    INCOMPLETE = "incomplete"
    """No pair is complete in both arms (or, for Macro SIT, some category has none)."""


class Decision(StrEnum):
    """What the comparison concludes about one endpoint."""

    DIFFERENCE = "difference"
    """Holm rejects the null of no difference at the family-wise level."""
    NOT_REJECTED = "not_rejected"
    """Holm does not reject the null; no difference is shown (which is not the same as none)."""
    INCOMPLETE = "incomplete"
    """No pair could be compared, so no test exists."""
    DESCRIPTIVE = "descriptive"
    """Outside the Holm family (Macro SIT, LAA, FMR, TL, UEL): interval and raw p only."""


class ChangeDirection(StrEnum):
    """How one probe's verdict changed from the baseline arm to the other arm."""

    PASS_TO_FAIL = "pass_to_fail"
    """Valid in the baseline, invalid in the arm."""
    FAIL_TO_PASS = "fail_to_pass"
    """Invalid in the baseline, valid in the arm."""


class CompareArm(_Model):
    """One arm: a configuration of a run, or an agent run."""

    label: str
    """``RUN:CONFIG`` for a configuration, the agent's name for an agent run."""
    run: str
    """The run directory as given."""
    run_id: str
    """Run id from its manifest."""
    config: str
    """Configuration A–I (``G_budget``), or ``agent``."""
    agent: str | None
    """The agent's name (agent runs only)."""
    model: str | None
    """Candidate spec, or the agent's ``--agent`` value."""
    verifier_version: str | None
    """Verifier that scored the run."""
    attempted: int
    """Trials of this arm in ``scores.jsonl``."""
    completed: int
    """Trials read and judged."""
    dropped: int
    """Trials the candidate's infrastructure dropped (never failures)."""
    unscored: int
    """Trials the verifier could not read (never failures)."""


class PairContrast(_Model):
    """One pair's values in both arms and its share of the endpoint difference."""

    pair_id: str
    """Collision pair."""
    baseline: float | None
    """The pair's value in the baseline arm (``None`` for Macro SIT when the pair lacks a category)."""
    arm: float | None
    """The pair's value in the other arm."""
    difference: float | None
    """``arm - baseline`` for this pair."""
    contribution: float
    """The pair's term of the endpoint difference: the mean of the contributions over the compared pairs is
    the difference. It equals ``difference`` for pair-balanced endpoints; the sign-flip test and the
    bootstrap interval of those endpoints are of these values."""


class EndpointComparison(_Model):
    """The paired difference of one endpoint between the baseline arm and another arm."""

    endpoint: str
    """``A_pos`` … ``A_session``, ``macro_sit``, ``LAA``, ``FMR``, ``TL`` or ``UEL``."""
    kind: EndpointKind
    """Category validity (Holm family), Macro SIT or a diagnostic."""
    category: str | None
    """Probe category A–H of a category validity."""
    higher_is_better: bool
    """Direction of the endpoint (FMR, TL and UEL are lower-is-better)."""
    status: ContrastStatus
    """Computed, or incomplete with ``reason``."""
    reason: str | None
    """Why the endpoint could not be compared."""
    baseline_value: float | None
    """The endpoint of the baseline arm over the compared pairs."""
    arm_value: float | None
    """The endpoint of the other arm over the same pairs."""
    difference: float | None
    """``arm_value - baseline_value``."""
    ci_lower: float | None
    """Lower bound of the percentile cluster-bootstrap interval of ``difference`` (pairs are the clusters)."""
    ci_upper: float | None
    """Upper bound of that interval."""
    bootstrap: BootstrapResult | None
    """The bootstrap in full (seed, resamples, degeneracy)."""
    p: float | None
    """Two-sided sign-flip p over the pairs' contributions (exact up to 24 pairs)."""
    signflip: SignFlipResult | None
    """The sign-flip test in full."""
    p_holm: float | None
    """Holm-adjusted p over the eight categories (category validities only)."""
    decision: Decision
    """What is concluded."""
    decision_note: str
    """The decision in words."""
    n_pairs: int
    """Pairs compared (complete in both arms)."""
    pairs_attempted: int
    """Pairs holding probes of the endpoint in either arm."""
    per_pair: list[PairContrast]
    """Each compared pair's values, in pair order."""
    incomplete_pairs: dict[str, str]
    """Pairs left out and why (a probe dropped, unscored or missing in an arm): never reweighted."""
    attempted: dict[str, int]
    """Arm label → trials of the endpoint's probes that arm holds."""
    completed: dict[str, int]
    """Arm label → of those, trials completed."""
    excluded_trials: dict[str, int]
    """Why probes of the endpoint were not compared (``dropped in LABEL`` …) → how many."""


class HolmSummary(_Model):
    """Holm–Bonferroni over the eight category validities of one comparison."""

    alpha: float
    """Family-wise error rate."""
    members: list[str]
    """The family: ``A_pos`` … ``A_session``."""
    missing: list[str]
    """Members without a test (no pair compared): counted with p = 1, which keeps the family at eight."""
    adjusted: dict[str, float]
    """Member → Holm-adjusted p."""
    reject: dict[str, bool]
    """Member → rejected at ``alpha``."""
    note: str
    """How the family was handled, in words."""


class Decidability(_Model):
    """Whether the number of pairs allows any decision at all."""

    n_pairs: int
    """Most pairs any category compares."""
    smallest_p: float | None
    """Smallest p the exact sign-flip test can give with ``n_pairs`` pairs (``2^(1-n)``); None with none."""
    pairs_needed: int
    """Fewest pairs whose smallest p, Holm-adjusted over the family, is below ``alpha``."""
    family_size: int
    """Hypotheses Holm adjusts over (the eight categories)."""
    alpha: float
    """Family-wise error rate."""
    decidable: bool
    """``n_pairs >= pairs_needed``: some category could show a difference."""
    message: str | None
    """Why nothing can be decided, in words (None when something can)."""


class ProbeChange(_Model):
    """A probe whose verdict differs between the baseline arm and the other arm."""

    probe_id: str
    """Probe id."""
    category: str
    """Probe category A–H."""
    pair_id: str
    """Collision pair."""
    lineage_id: str
    """Target lineage."""
    change: ChangeDirection
    """Pass to fail, or fail to pass."""
    baseline_failed_checks: list[str]
    """Checks the baseline's verdict failed (empty when it passed)."""
    arm_failed_checks: list[str]
    """Checks the other arm's verdict failed (empty when it passed)."""


class ProbeCounts(_Model):
    """How the two arms' probes line up."""

    shared: int
    """Probes both arms hold."""
    only_baseline: int
    """Probes only the baseline holds."""
    only_arm: int
    """Probes only the other arm holds."""
    both_completed: int
    """Shared probes completed in both arms (the ones whose verdicts are compared)."""
    pass_to_fail: int
    """Valid in the baseline, invalid in the arm."""
    fail_to_pass: int
    """Invalid in the baseline, valid in the arm."""


class ArmComparison(_Model):
    """One arm against the baseline arm."""

    baseline: str
    """Label of the baseline arm."""
    arm: str
    """Label of the arm compared with it (differences are ``arm - baseline``)."""
    categories: list[EndpointComparison]
    """The eight category validities, A–H."""
    macro_sit: EndpointComparison
    """Macro SIT."""
    diagnostics: list[EndpointComparison]
    """LAA, FMR, TL and UEL."""
    holm: HolmSummary
    """Holm over the eight categories."""
    decidability: Decidability
    """Whether the pairs allow a decision at all."""
    probes: ProbeCounts
    """How the arms' probes line up."""
    changes: list[ProbeChange]
    """Every probe whose verdict changed, in probe order."""


class DatasetFingerprint(_Model):
    """The dataset every compared run was made on."""

    manifest_sha256: str | None
    """SHA-256 of the dataset's manifest.json, as each run recorded it."""
    suite: str | None
    """Suite (pilot, dev, heldout, full, e6)."""
    seed: int | None
    """Generator seed."""
    path: str | None
    """Where the first run found the dataset."""


class CompareReport(_Model):
    """``sitbench compare``: paired comparisons of arms on the probes of one dataset."""

    dataset: DatasetFingerprint
    """The dataset all runs share."""
    seed: int
    """Seed of the bootstrap (and of any Monte-Carlo sign-flip test); recorded."""
    n_resamples: int
    """Bootstrap resamples per endpoint."""
    ci: float
    """Coverage of the intervals."""
    alpha: float
    """Family-wise error rate of Holm over the eight categories."""
    baseline: str
    """Label of the arm every other arm is compared with."""
    arms: list[CompareArm]
    """Every arm, the baseline first."""
    comparisons: list[ArmComparison]
    """One per arm other than the baseline, in arm order."""
    notes: list[str] = Field(default_factory=list)
    """The rules applied, in words."""
