"""The eight prespecified confirmatory contrasts E1–E8 (SIT seed §8.1–8.2)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict

from sitbench.errors import InputError
from sitbench.schema import Configuration
from sitbench.stats._holm import holm


class ProbeFilter(StrEnum):
    """Which trials an experiment's endpoint is computed on; the selection rule of each is in the analysis."""

    THEOREM_QUALIFIED = "theorem_qualified"
    """Theorem-qualified probes of every category (E1)."""
    IDENTITY_ONLY = "capability=IDENTITY_ONLY"
    """The probes of the experiment's category asked under its ``capability`` (E2)."""
    TEMPORAL_PRE_POST = "temporal_pre_post"
    """The experiment's category, stratified pre/post (E3)."""
    BELIEF_HISTORY = "belief_history"
    """The experiment's category (E4)."""
    ATTACK_LEVEL = "attack_level"
    """The experiment's category, stratified by attack level (E5)."""
    HISTORY_LENGTH = "history_length=500"
    """The fixed query set at the experiment's ``history_length``, every category (E6)."""
    CROSS_SESSION = "cross_session"
    """The experiment's category (E7)."""
    GATE_SENSITIVE = "gate_sensitive"
    """The gate-sensitive probes of the experiment's category (E8)."""


class Experiment(BaseModel):
    """One primary planned contrast: ``d_k = second - first`` on one endpoint per pair."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    id: str
    """Experiment id, ``E1`` … ``E8``."""
    title: str
    """Short title from the evaluation plan."""
    first_config: Configuration
    """Configuration subtracted (the baseline of the contrast)."""
    second_config: Configuration
    """Configuration whose endpoint comes first in ``d_k = second - first``.
    ``G_budget`` is configuration G under the enforced input-token budget."""
    endpoint: str
    """Primary endpoint metric name (``LAA``, ``A_epi``, …, ``prompt_tokens``)."""
    probe_category: Literal["A", "B", "C", "D", "E", "F", "G", "H"] | None
    """Probe category the endpoint is computed on; ``None`` when the subset cuts across
    categories (theorem-qualified probes, or E6's fixed query set)."""
    probe_filter: ProbeFilter
    """Which trials the endpoint is computed on (the analysis selects them from run records by it)."""
    probe_subset: str
    """The probe subset in words."""
    strata: tuple[str, ...] | None
    """Strata weighted equally within each lineage and pair; ``None`` when unstratified."""
    capability: Literal["IDENTITY_ONLY", "PROVENANCE_SEPARATED", "GENERAL_ALLOWED"] | None = None
    """Capability mode the contrast is restricted to, if any."""
    history_length: int | None = None
    """History length T (events) the endpoint is measured at, if the experiment varies it."""
    token_budget: int | None = None
    """Enforced input-token budget of the second configuration, if any."""
    direction: Literal["positive", "negative"]
    """Sign of the mean difference that favours the hypothesis: ``positive`` when the
    second configuration should score higher, ``negative`` when it should use fewer tokens."""
    direction_note: str
    """The directional hypothesis in words."""

    def favours_hypothesis(self, mean_difference: float) -> bool:
        """Whether a mean difference ``second - first`` points the hypothesised way."""
        return mean_difference > 0 if self.direction == "positive" else mean_difference < 0


_VALIDITY_NOTE = "positive differences favour {second} (higher {endpoint} than {first})"

EXPERIMENTS: tuple[Experiment, ...] = (
    Experiment(
        id="E1",
        title="Profile-collision lineage discrimination",
        first_config="C",
        second_config="D",
        endpoint="LAA",
        probe_category=None,
        probe_filter="theorem_qualified",
        probe_subset="theorem-qualified discrimination probes Q*_disc (seed Theorem 1 applies)",
        strata=None,
        direction="positive",
        direction_note=_VALIDITY_NOTE.format(second="D", first="C", endpoint="LAA"),
    ),
    Experiment(
        id="E2",
        title="Epistemic provenance and substrate knowledge separation",
        first_config="G",
        second_config="H",
        endpoint="A_epi",
        probe_category="C",
        probe_filter="capability=IDENTITY_ONLY",
        probe_subset=(
            "epistemic provenance probes under capability alpha1 = IDENTITY_ONLY: an "
            "unacquired fact must be met with abstention, not substrate knowledge"
        ),
        strata=None,
        capability="IDENTITY_ONLY",
        direction="positive",
        direction_note=_VALIDITY_NOTE.format(second="H", first="G", endpoint="A_epi"),
    ),
    Experiment(
        id="E3",
        title="Temporal checkpoint situatedness",
        first_config="D",
        second_config="F",
        endpoint="A_temp",
        probe_category="D",
        probe_filter="temporal_pre_post",
        probe_subset="temporal checkpoint probes queried before and after the transition epoch t_e",
        strata=("pre_acquisition", "post_acquisition"),
        direction="positive",
        direction_note=_VALIDITY_NOTE.format(second="F", first="D", endpoint="A_temp"),
    ),
    Experiment(
        id="E4",
        title="Unstructured semantic retrieval vs structured continuity state",
        first_config="E",
        second_config="G",
        endpoint="A_belief",
        probe_category="F",
        probe_filter="belief_history",
        probe_subset="developmental belief-history probes (stance revision accuracy)",
        strata=None,
        direction="positive",
        direction_note=_VALIDITY_NOTE.format(second="G", first="E", endpoint="A_belief"),
    ),
    Experiment(
        id="E5",
        title="Adversarial counterfactual identity resistance",
        first_config="C",
        second_config="H",
        endpoint="A_cf",
        probe_category="G",
        probe_filter="attack_level",
        probe_subset=(
            "counterfactual pressure probes at five attack levels: L1 presupposition, "
            "L2 repetition, L3 fabricated prior dialogue, L4 authoritative correction, "
            "L5 multi-turn reinforcement"
        ),
        strata=("L1", "L2", "L3", "L4", "L5"),
        direction="positive",
        direction_note=_VALIDITY_NOTE.format(second="H", first="C", endpoint="A_cf"),
    ),
    Experiment(
        id="E6",
        title="Long-horizon history scaling",
        first_config="D",
        second_config="G_budget",
        endpoint="prompt_tokens",
        probe_category=None,
        probe_filter="history_length=500",
        probe_subset=(
            "the fixed query set at history length T = 500 events; mean total candidate-input "
            "tokens over both members of each pair"
        ),
        strata=None,
        history_length=500,
        token_budget=4096,
        direction="negative",
        direction_note=(
            "negative differences favour budgeted G (fewer prompt tokens than D at T = 500)"
        ),
    ),
    Experiment(
        id="E7",
        title="Cross-session continuity",
        first_config="C",
        second_config="G",
        endpoint="A_session",
        probe_category="H",
        probe_filter="cross_session",
        probe_subset="cross-session probes after a context reset (session 2 recovers session-1 facts)",
        strata=None,
        direction="positive",
        direction_note=_VALIDITY_NOTE.format(second="G", first="C", endpoint="A_session"),
    ),
    Experiment(
        id="E8",
        title="Candidate-side epistemic mediation ablation",
        first_config="G",
        second_config="H",
        endpoint="A_rel",
        probe_category="E",
        probe_filter="gate_sensitive",
        probe_subset="the prespecified gate-sensitive relational boundary probe set",
        strata=("authorized_disclosure", "withholding"),
        direction="positive",
        direction_note=_VALIDITY_NOTE.format(second="H", first="G", endpoint="A_rel"),
    ),
)

CONFIRMATORY_FAMILY: tuple[str, ...] = tuple(experiment.id for experiment in EXPERIMENTS)
"""The ids of the eight hypotheses Holm–Bonferroni runs over, in plan order."""


def get_experiment(experiment_id: str) -> Experiment:
    """Return the registered experiment ``E1`` … ``E8``.

    Raises:
        InputError: the id is not registered.
    """
    for experiment in EXPERIMENTS:
        if experiment.id == experiment_id.upper():
            return experiment
    raise InputError(f"experiment {experiment_id!r}: unknown; use one of {', '.join(CONFIRMATORY_FAMILY)}")


class FamilyResult(BaseModel):
    """Holm–Bonferroni over exactly the confirmatory family E1–E8."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    experiments: list[str]
    """Experiment ids in plan order."""
    p: list[float]
    """Raw sign-flip p-values in the same order."""
    adjusted: list[float]
    """Holm-adjusted p-values in the same order."""
    reject: list[bool]
    """Rejections at family-wise level ``alpha``."""
    alpha: float
    """Family-wise error rate."""


def holm_family(pvalues: Mapping[str, float], alpha: float = 0.05) -> FamilyResult:
    """Holm–Bonferroni over the eight primary contrasts, and nothing else.

    Args:
        pvalues: experiment id → raw p-value; must name exactly E1 … E8.
        alpha: family-wise error rate (the plan uses 0.05).

    Raises:
        InputError: an experiment is missing or an extra hypothesis would enlarge the family.
    """
    given = {key.upper(): value for key, value in pvalues.items()}
    missing = [eid for eid in CONFIRMATORY_FAMILY if eid not in given]
    extra = sorted(set(given) - set(CONFIRMATORY_FAMILY))
    if missing or extra:
        raise InputError(
            f"pvalues: the confirmatory family is exactly {', '.join(CONFIRMATORY_FAMILY)}; "
            f"missing {missing or 'none'}, extra {extra or 'none'}; report other contrasts as secondary"
        )
    raw = [float(given[eid]) for eid in CONFIRMATORY_FAMILY]
    result = holm(raw, alpha=alpha)
    return FamilyResult(
        experiments=list(CONFIRMATORY_FAMILY),
        p=raw,
        adjusted=result.adjusted,
        reject=result.reject,
        alpha=result.alpha,
    )
