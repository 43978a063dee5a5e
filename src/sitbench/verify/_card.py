"""The verifier card: each reader's measured false-reject and false-accept rates, and the correction they allow.

A card is measured on annotated answers (the project's verifier corpus), per probe category and per reader,
and stamped with the scorer version and the reader's ``id@version``: it describes exactly one verifier. With
it, an observed validity ``p_obs`` (share of answers the verifier scores valid) is corrected for the reader's
misclassification (Rogan–Gladen): ``p = (p_obs − FA) / (1 − FR − FA)``, where FR is the share of valid
answers scored invalid and FA the share of invalid answers scored valid. The interval carries the card's own
sampling uncertainty (and the observed share's) by a seeded parametric bootstrap. The correction assumes that
the reader errs on the user's answers as it erred on the card's: the same kinds of answers, phrased the same
ways, in the same proportions of valid and invalid within a category.
"""

from __future__ import annotations

import json
import math
from enum import StrEnum
from functools import cache
from importlib import resources

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

MIN_PER_VERDICT = 30
"""A category's card corrects only with at least this many annotated answers of each verdict."""

CARD_FILE = "card.json"
"""The card shipped in the package (``sitbench/verify/card.json``)."""

DEFAULT_DRAWS = 2000
"""Bootstrap draws behind a corrected estimate's interval."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class CategoryErrors(_Model):
    """One reader's verdict errors on one category's annotated answers."""

    n_valid: int
    """Annotated answers whose annotated verdict is valid."""
    n_invalid: int
    """Annotated answers whose annotated verdict is invalid."""
    false_rejects: int
    """Of the valid ones, those the verifier scored invalid."""
    false_accepts: int
    """Of the invalid ones, those the verifier scored valid."""

    @property
    def false_reject_rate(self) -> float | None:
        """FR: share of valid answers scored invalid (1 − sensitivity)."""
        return self.false_rejects / self.n_valid if self.n_valid else None

    @property
    def false_accept_rate(self) -> float | None:
        """FA: share of invalid answers scored valid (1 − specificity)."""
        return self.false_accepts / self.n_invalid if self.n_invalid else None

    @property
    def too_small(self) -> bool:
        """Fewer than :data:`MIN_PER_VERDICT` annotated answers of either verdict: too small to correct."""
        return min(self.n_valid, self.n_invalid) < MIN_PER_VERDICT


class ReaderCard(_Model):
    """One reader's card."""

    reader: str
    """The reader's ``id@version`` (a replayed reader by its readings file's name)."""
    scorer_version: str
    """The contract scorer the errors were measured with."""
    measured_on: str
    """Which annotated answers: the slice and how many."""
    categories: dict[str, CategoryErrors]
    """Category letter A–H → the errors measured there."""


class VerifierCard(_Model):
    """Every reader's card, as shipped with a release."""

    readers: list[ReaderCard] = Field(default_factory=list)
    """The readers a card was measured for."""
    assumption: str = ("the reader errs on the answers being scored as it erred on the card's annotated answers "
                       "(same kinds of answers and phrasings, same mix of valid and invalid within a category)")
    """What a corrected estimate assumes, in words."""

    def for_reader(self, reader: str, scorer_version: str) -> ReaderCard | None:
        """The card measured for exactly this reader and scorer, or None."""
        key = card_key(reader)
        return next((c for c in self.readers if c.reader == key and c.scorer_version == scorer_version), None)


def card_key(reader: str) -> str:
    """The card's name for a reader stamp: a replayed reader (``model=replay/PATH``) by its file's name only,
    so the card does not depend on where the readings file lies."""
    head, sep, model = reader.partition(" model=replay/")
    if not sep:
        return reader
    return f"{head} model=replay/{model.replace(chr(92), '/').rsplit('/', 1)[-1]}"


@cache
def shipped_card() -> VerifierCard:
    """The card shipped in this package (empty when none was built)."""
    path = resources.files("sitbench.verify").joinpath(CARD_FILE)
    if not path.is_file():
        return VerifierCard()
    return VerifierCard.model_validate(json.loads(path.read_text(encoding="utf-8")))


class CorrectionStatus(StrEnum):
    """Whether a corrected estimate could be made."""

    CORRECTED = "corrected"
    """Rogan–Gladen correction with its interval."""
    TOO_SMALL = "too_small"
    """The card has fewer than 30 annotated answers of one verdict in this category."""
    NO_CARD = "no_card"
    """No card was measured for this reader and scorer."""
    UNINFORMATIVE = "uninformative"
    """The card's reader is no better than chance here (1 − FR − FA ≤ 0): nothing to correct with."""
    UNDEFINED = "undefined"
    """The observed figure itself is undefined."""


class Corrected(_Model):
    """A misclassification-corrected estimate of one validity."""

    status: CorrectionStatus
    """Whether it was corrected, and if not why."""
    estimate: float | None = None
    """The corrected validity, clipped to [0, 1]."""
    low: float | None = None
    """Lower end of its 95 % interval (card and observed share resampled)."""
    high: float | None = None
    """Upper end."""


def _draws(successes: int, total: int, rng: np.random.Generator, n: int) -> np.ndarray:
    # Jeffreys posterior of a binomial share: proper at 0 and n, so a card with no error still has spread.
    return rng.beta(successes + 0.5, total - successes + 0.5, size=n)


def rogan_gladen(observed: float, fr: float, fa: float) -> float | None:
    """``(p_obs − FA) / (1 − FR − FA)`` clipped to [0, 1]; None when 1 − FR − FA ≤ 0."""
    denominator = 1.0 - fr - fa
    if denominator <= 0:
        return None
    return min(1.0, max(0.0, (observed - fa) / denominator))


def correction_draws(observed: float, n_observed: int, errors: CategoryErrors, *, seed: int = 0,
                     draws: int = DEFAULT_DRAWS) -> np.ndarray:
    """Bootstrap draws of the corrected validity (NaN where a draw's reader is no better than chance)."""
    rng = np.random.default_rng(seed)
    p = _draws(round(observed * n_observed), n_observed, rng, draws) if n_observed else np.full(draws, observed)
    fr = _draws(errors.false_rejects, errors.n_valid, rng, draws)
    fa = _draws(errors.false_accepts, errors.n_invalid, rng, draws)
    denominator = 1.0 - fr - fa
    with np.errstate(divide="ignore", invalid="ignore"):
        corrected = np.where(denominator > 0, np.clip((p - fa) / denominator, 0.0, 1.0), np.nan)
    return corrected


def correct(observed: float | None, n_observed: int, errors: CategoryErrors | None, *, seed: int = 0,
            draws: int = DEFAULT_DRAWS) -> tuple[Corrected, np.ndarray | None]:
    """The corrected estimate of one validity, and its bootstrap draws (None when not corrected).

    Args:
        observed: The observed validity (the primary reader's).
        n_observed: Completed trials behind it (the observed share's own sampling spread).
        errors: The card's errors for this category, or None without a card.
        seed: Seed of the bootstrap (recorded by the caller).
        draws: Bootstrap draws.
    """
    if observed is None:
        return Corrected(status=CorrectionStatus.UNDEFINED), None
    if errors is None:
        return Corrected(status=CorrectionStatus.NO_CARD), None
    if errors.too_small:
        return Corrected(status=CorrectionStatus.TOO_SMALL), None
    assert errors.false_reject_rate is not None and errors.false_accept_rate is not None
    estimate = rogan_gladen(observed, errors.false_reject_rate, errors.false_accept_rate)
    if estimate is None:
        return Corrected(status=CorrectionStatus.UNINFORMATIVE), None
    values = correction_draws(observed, n_observed, errors, seed=seed, draws=draws)
    kept = values[~np.isnan(values)]
    low, high = (float(np.quantile(kept, 0.025)), float(np.quantile(kept, 0.975))) if kept.size else (None, None)
    return Corrected(status=CorrectionStatus.CORRECTED, estimate=estimate, low=low, high=high), values


def correct_mean(parts: list[tuple[float, np.ndarray | None]]) -> Corrected:
    """The corrected Macro SIT: the mean of corrected category validities, its interval from the joint draws.

    Args:
        parts: Per category, its corrected estimate and draws; every category must have been corrected.
    """
    if not parts or any(draws is None for _, draws in parts):
        return Corrected(status=CorrectionStatus.TOO_SMALL)
    estimate = math.fsum(value for value, _ in parts) / len(parts)
    stacked = np.vstack([draws for _, draws in parts if draws is not None])
    means = np.nanmean(stacked, axis=0)
    means = means[~np.isnan(means)]
    return Corrected(status=CorrectionStatus.CORRECTED, estimate=estimate,
                     low=float(np.quantile(means, 0.025)), high=float(np.quantile(means, 0.975)))
