"""E6 token scaling: prompt tokens of D against budgeted G over history lengths T.

This is the growth curve behind E6 (secondary in the plan; the confirmatory endpoint is the
pair-level sign-flip test at T = 500 in :func:`sitbench.stats.analyze`). It needs no
candidate: it builds the scored turn's prompt of every query under D and ``G_budget`` on
the first T records of each subject's history and counts the tokens with the named
offline tokenizer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from sitbench.configs import (
    BUDGETED_G,
    DEFAULT_TOKEN_BUDGET,
    SERIALIZATION_ORDER,
    TRUNCATION_RULE,
    BuildContext,
    TokenCounter,
    build_budgeted_prompt,
    build_prompt,
    count_prompt_tokens,
    wordpiece_counter,
)
from sitbench.errors import InputError
from sitbench.schema import Query, SubjectEvidence

DEFAULT_LENGTHS: tuple[int, ...] = (50, 100, 250, 500)
"""History lengths T (events) of the plan."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)


class LengthTiming(_Model):
    """Mean wall-clock milliseconds per prompt at one T (machine-dependent; not an endpoint)."""

    d_build_ms: float
    """Building D's prompt (chronicle selection and serialization)."""
    g_projection_ms: float
    """Projecting G's state at τ and listing its evidence items."""
    g_truncation_ms: float
    """Tokenizing and searching for the budgeted cut."""


class LengthTokens(_Model):
    """Prompt tokens of D and budgeted G at one history length T."""

    history_length: int
    """T: the first T records of every subject's chronicle."""
    n_queries: int
    """Queries built."""
    mean_d: float
    """Mean prompt tokens under D (full chronicle)."""
    mean_g_budget: float
    """Mean prompt tokens under budgeted G."""
    mean_g: float
    """Mean prompt tokens configuration G would use without the budget."""
    mean_difference: float
    """``mean_g_budget - mean_d`` (negative favours budgeted G, as in E6)."""
    max_d: int
    """Largest D prompt."""
    max_g_budget: int
    """Largest budgeted-G prompt (≤ budget unless a frame alone exceeds it)."""
    over_budget: int
    """Budgeted-G prompts whose frame alone exceeds the budget (``fits`` false)."""
    mean_dropped: float
    """Mean evidence items dropped by the budget."""
    d_tokens: list[int]
    """D prompt tokens per query, in query order."""
    g_budget_tokens: list[int]
    """Budgeted-G prompt tokens per query, in query order."""
    timing: LengthTiming
    """State/projection time reported apart from prompt length (machine-dependent)."""


class TokenScaling(_Model):
    """Token-growth curves of D and budgeted G over history lengths."""

    tokenizer: str
    """Tokenizer the counts were made with."""
    budget: int
    """Enforced budget of G (tokens, envelope and wrapper included)."""
    serialization_order: str
    """Budgeted G's serialization order."""
    truncation_rule: str
    """Budgeted G's truncation rule."""
    counting: str
    """What a prompt's token count covers."""
    configs: list[str]
    """The two configurations compared: ``D`` and ``G_budget``."""
    query_keys: list[str]
    """Queries in the order of the per-query lists."""
    lengths: list[LengthTokens]
    """One entry per T, ascending."""


def truncate_history(subject: SubjectEvidence, length: int) -> SubjectEvidence:
    """The subject as it stood after its first ``length`` chronicle records.

    The records are cut to the first ``length`` (chronicle order); acquisitions, belief
    stances and relationship versions dated after the last kept record are removed with
    them, and beliefs or relationships left without a version disappear.

    Raises:
        InputError: the subject has fewer than ``length`` records, or ``length < 1``.
    """
    if length < 1:
        raise InputError(f"lengths: {length} must be at least 1 event")
    if len(subject.records) < length:
        raise InputError(
            f"subject {subject.subject!r}: field 'records' has {len(subject.records)} records, fewer than "
            f"T = {length}; use histories of at least {length} events (the generator's e6 suite) or drop that T"
        )
    records = list(subject.records[:length])
    end = max(r.t for r in records)
    beliefs = [b.model_copy(update={"stances": [s for s in b.stances if s.t <= end]}) for b in subject.beliefs]
    relationships = [r.model_copy(update={"versions": [v for v in r.versions if v.t <= end]})
                     for r in subject.relationships]
    return subject.model_copy(update={
        "records": records,
        "acquisitions": [a for a in subject.acquisitions if a.t <= end],
        "beliefs": [b for b in beliefs if b.stances],
        "relationships": [r for r in relationships if r.versions],
    })


def _scored_index(query: Query) -> int:
    return query.scored_turn % len(query.turns)


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return math.fsum(items) / len(items)


def e6_token_scaling(
    subjects: Mapping[str, SubjectEvidence] | Sequence[SubjectEvidence],
    queries: Sequence[Query],
    lengths: Sequence[int] = DEFAULT_LENGTHS,
    *,
    budget: int = DEFAULT_TOKEN_BUDGET,
    counter: TokenCounter | None = None,
) -> TokenScaling:
    """Mean prompt tokens of D vs budgeted G on histories truncated to T events.

    For every T and every query, the subject's history is cut to its first T records
    (:func:`truncate_history`) and the scored turn's prompt is built under D and under
    ``G_budget`` as a single turn (no earlier conversation); tokens are counted over the
    message texts with ``counter``. Means are plain means over the queries.

    Args:
        subjects: candidate-side evidence, keyed by subject key (or a list of them).
        queries: the fixed query set; each query's ``subject`` must be in ``subjects``.
        lengths: history lengths T, each at most the shortest history used.
        budget: G's enforced budget B.
        counter: tokenizer; the shared WordPiece counter when ``None``.

    Returns:
        Per-T means, maxima, per-query counts and the timing split, with the tokenizer,
        budget and rules named.

    Raises:
        InputError: no query or length, an unknown subject, a history shorter than a T.
    """
    by_key = dict(subjects) if isinstance(subjects, Mapping) else {s.subject: s for s in subjects}
    if not queries:
        raise InputError("queries: none given; pass the fixed E6 query set")
    ordered = sorted({int(t) for t in lengths})
    if not ordered:
        raise InputError("lengths: none given; use e.g. 50,100,250,500")
    unknown = sorted({q.subject for q in queries} - set(by_key))
    if unknown:
        raise InputError(f"queries: subject(s) {unknown} have no evidence among the subjects given; pass them")
    chosen = counter or wordpiece_counter()
    rows: list[LengthTokens] = []
    for length in ordered:
        cut = {key: truncate_history(by_key[key], length) for key in sorted({q.subject for q in queries})}
        d_tokens: list[int] = []
        g_tokens: list[int] = []
        g_plain: list[int] = []
        dropped: list[int] = []
        over = 0
        d_ms: list[float] = []
        projection_ms: list[float] = []
        truncation_ms: list[float] = []
        for query in queries:
            subject = cut[query.subject]
            turn = _scored_index(query)
            started = time.perf_counter()
            d_build = build_prompt("D", subject, query, turn, BuildContext())
            d_ms.append((time.perf_counter() - started) * 1000)
            d_tokens.append(count_prompt_tokens(d_build.messages, chosen))
            g = build_budgeted_prompt(subject, query, turn, BuildContext(), budget=budget, counter=chosen)
            g_tokens.append(g.record.tokens)
            g_plain.append(g.record.tokens_unbudgeted)
            dropped.append(len(g.record.dropped))
            over += not g.record.fits
            projection_ms.append(g.projection_ms)
            truncation_ms.append(g.truncation_ms)
        mean_d, mean_g = _mean(d_tokens), _mean(g_tokens)
        rows.append(LengthTokens(
            history_length=length, n_queries=len(queries), mean_d=mean_d, mean_g_budget=mean_g,
            mean_g=_mean(g_plain), mean_difference=mean_g - mean_d, max_d=max(d_tokens), max_g_budget=max(g_tokens),
            over_budget=over, mean_dropped=_mean(dropped), d_tokens=d_tokens, g_budget_tokens=g_tokens,
            timing=LengthTiming(d_build_ms=_mean(d_ms), g_projection_ms=_mean(projection_ms),
                                g_truncation_ms=_mean(truncation_ms)),
        ))
    return TokenScaling(
        tokenizer=chosen.name, budget=budget, serialization_order=SERIALIZATION_ORDER,
        truncation_rule=TRUNCATION_RULE,
        counting="sum over the scored turn's messages of the word pieces of their text (no special tokens)",
        configs=["D", BUDGETED_G], query_keys=[q.query_key for q in queries], lengths=rows,
    )
