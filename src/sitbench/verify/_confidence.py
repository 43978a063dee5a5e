"""How sure the rule extractor is of a reading: a score from the signals its stages record, and how well a
score ranks the readings whose verdict is wrong.

The score is a fixed logistic function of the distinct signals of a reading::

    z     = CONFIDENCE_BIAS + Σ CONFIDENCE_WEIGHTS[s]   (over the distinct signals s; unlisted ones weigh 0)
    score = 1 / (1 + exp(z))                             (the modelled probability that the verdict is right)

Every weight is ≥ 0, so adding a signal never raises the score and removing one never lowers it. The
weights were fitted once, by L2-penalised logistic regression with non-negative weights, on the
*development* slice of the annotated verifier corpus (the label: the verdict from the rule reading differs
from the verdict of the annotated reading), and are written here as constants; the fit is re-run with
``python tests/verify/corpus/fit_confidence.py``, which prints this table. The held-out slice is never
used to fit; ``python benchmarks/verifier.py`` reports the score's AUROC on it. The level is a threshold
of the score: HIGH from :data:`CONFIDENCE_HIGH_AT`, MEDIUM from :data:`CONFIDENCE_MEDIUM_AT`, else LOW.

The signals the extractor's stages record for this model (besides those that name the rule that decided a
reading, such as ``premise_adopted`` or ``implicit_subject``):

- ``negation``: a clause with a negator, whose scope the parser had to settle; ``double_negation``: two.
- ``reported_speech``: someone's words: a report verb (said, told, insisted…) or a masked quotation.
- ``conditional``: a hypothetical or counterfactual frame ("if I had…", "unless…", "I'd have…").
- ``other_person``: a third person in the answer (a relative, a colleague, he/she/they, people).
- ``no_act``: words are left to read and no act was found in them.
- ``open_question_unmapped``: the question asks for a description or a view and nothing read answers it;
  ``open_question_by_domain``: only a value of the asked domain does, none the question names.
- ``several_claims``: three claims or more; ``sparse_reading``: 15 content words or more per claim read.
- ``answer_and_abstain``: the answer both answers and says it does not know; ``hedge``: it hedges.
- ``asks_back``: the answer puts a question of its own.

Confidence is no part of any verdict: the scorer never reads it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

import numpy as np

from sitbench.schema import Confidence, ConfidenceLevel

CONFIDENCE_BIAS: float = -3.98
"""Log-odds of a wrong verdict for a reading with no weighted signal (fitted on the development slice)."""

CONFIDENCE_WEIGHTS: Mapping[str, float] = MappingProxyType({
    "open_question_by_domain": 1.38,
    "no_act": 1.16,
    "open_question_unmapped": 0.91,
    "answer_and_abstain": 0.9,
    "sparse_reading": 0.8,
    "conflicting_polarity": 0.61,
    "reported_speech": 0.61,
    "self_correction": 0.53,
    "topic_echo": 0.45,
    "negation": 0.42,
    "conditional": 0.4,
    "premise_denied": 0.37,
    "implicit_subject": 0.36,
    "other_view": 0.36,
    "premise_adopted": 0.35,
    "name_frame": 0.34,
    "stance_frame": 0.24,
    "stance_resolved": 0.24,
    "disjunction": 0.22,
    "several_claims": 0.22,
    "other_person": 0.21,
    "double_negation": 0.18,
    "incidental_claims_only": 0.18,
    "asks_back": 0.15,
    "question_frame": 0.15,
    "hedge": 0.12,
})
"""Signal → how much it raises the log-odds of a wrong verdict (≥ 0; fitted on the development slice)."""

CONFIDENCE_HIGH_AT: float = 0.95
"""Scores from here up are HIGH confidence: a modelled chance of a wrong verdict of 5 % or less."""

CONFIDENCE_MEDIUM_AT: float = 0.85
"""Scores from here up to :data:`CONFIDENCE_HIGH_AT` are MEDIUM; below, LOW."""


def confidence_score(signals: Iterable[str]) -> float:
    """The score of a reading with these signals: the modelled probability that its verdict is right.

    Args:
        signals: Signal names; repeats count once, names without a weight count zero.
    """
    z = CONFIDENCE_BIAS + sum(CONFIDENCE_WEIGHTS.get(s, 0.0) for s in set(signals))
    return round(1.0 / (1.0 + math.exp(z)), 4)


def confidence_level(score: float) -> ConfidenceLevel:
    """HIGH, MEDIUM or LOW by the thresholds :data:`CONFIDENCE_HIGH_AT` and :data:`CONFIDENCE_MEDIUM_AT`."""
    if score >= CONFIDENCE_HIGH_AT:
        return ConfidenceLevel.HIGH
    return ConfidenceLevel.MEDIUM if score >= CONFIDENCE_MEDIUM_AT else ConfidenceLevel.LOW


def rule_confidence(signals: Iterable[str]) -> Confidence:
    """The rule extractor's confidence: the signals (sorted), their score and its level."""
    names = sorted(set(signals))
    score = confidence_score(names)
    return Confidence(level=confidence_level(score), signals=names, score=score)


def error_auroc(scores: Sequence[float] | np.ndarray, errors: Sequence[bool] | np.ndarray) -> float:
    """AUROC of the risk ``1 - score`` against "the verdict is wrong", computed exactly from ranks.

    The probability that a wrong reading has a lower score than a right one, ties counting one half
    (the Mann-Whitney U of the risks over the product of the two group sizes).

    Args:
        scores: Confidence score of each reading.
        errors: Whether each reading's verdict differs from the annotated one.

    Returns:
        The AUROC in [0, 1]; NaN when either group is empty.
    """
    risk = 1.0 - np.asarray(scores, dtype=float)
    wrong = np.asarray(errors, dtype=bool)
    n_wrong, n_right = int(wrong.sum()), int((~wrong).sum())
    if n_wrong == 0 or n_right == 0:
        return math.nan
    ranks = _average_ranks(risk)  # a tie between a wrong and a right reading counts one half
    u = float(ranks[wrong].sum()) - n_wrong * (n_wrong + 1) / 2
    return u / (n_wrong * n_right)


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``values``, tied values sharing the mean of their ranks."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    first = np.cumsum(counts) - counts + 1
    return (first + (counts - 1) / 2.0)[inverse.reshape(-1)]


def error_auroc_interval(scores: Sequence[float] | np.ndarray, errors: Sequence[bool] | np.ndarray, seed: int,
                         resamples: int = 2000, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of :func:`error_auroc`, resampling readings with replacement.

    Args:
        scores: Confidence score of each reading.
        errors: Whether each reading's verdict is wrong.
        seed: Seed of the resampling.
        resamples: Bootstrap resamples; those without a wrong or without a right reading are skipped.
        level: Coverage of the interval.

    Returns:
        ``(low, high)``; NaNs when no resample has both groups.
    """
    s = np.asarray(scores, dtype=float)
    e = np.asarray(errors, dtype=bool)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        pick = rng.integers(0, len(s), len(s))
        value = error_auroc(s[pick], e[pick])
        if not math.isnan(value):
            values.append(value)
    if not values:
        return math.nan, math.nan
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)
