"""Lineage operations: projection, situated state, public profile, residence record, integrity checks (inv1–inv19)."""

from sitbench.lineage._articles import Article, ArticleSlip, article_for, article_slips
from sitbench.lineage._checks import (
    CHECKS,
    CONTRACT_FIELD_TOKENS,
    CheckRow,
    IntegrityCheck,
    TokenSet,
    certified_disjoint,
    dataset_counts,
    isolation_tokens,
    run_checks,
    satisfiability_problems,
)
from sitbench.lineage._disclosure import told_to
from sitbench.lineage._isolation import IsolationAudit, IsolationError
from sitbench.lineage._projection import (
    SituatedState,
    profile_at,
    profile_sha256,
    project,
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

__all__ = [
    "CHECKS",
    "CONTRACT_FIELD_TOKENS",
    "Article",
    "ArticleSlip",
    "CheckRow",
    "CityMention",
    "IntegrityCheck",
    "IsolationAudit",
    "IsolationError",
    "Residence",
    "SituatedState",
    "Tense",
    "TokenSet",
    "article_for",
    "article_slips",
    "certified_disjoint",
    "city_mentions",
    "dataset_counts",
    "isolation_tokens",
    "profile_at",
    "profile_sha256",
    "project",
    "residence_at",
    "residence_timeline",
    "run_checks",
    "satisfiability_problems",
    "serialize_profile",
    "situated_state",
    "told_to",
]
