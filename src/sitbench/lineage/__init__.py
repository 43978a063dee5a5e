"""Lineage operations: projection, situated state, public profile, residence record, integrity checks."""

from sitbench.lineage._articles import Article, ArticleSlip, article_for, article_slips
from sitbench.lineage._disclosure import told_to
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
    "Article",
    "ArticleSlip",
    "CityMention",
    "Residence",
    "SituatedState",
    "Tense",
    "article_for",
    "article_slips",
    "city_mentions",
    "profile_at",
    "profile_sha256",
    "project",
    "residence_at",
    "residence_timeline",
    "serialize_profile",
    "situated_state",
    "told_to",
]
