"""docs/concepts.md defines every symbol, label and enum value the outputs print, names the three sources by
their full titles, and the README links it. A new enum value or metric without a definition fails here."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from sitbench import glossary
from sitbench.chi import AXES, BASELINES, MEMORY_PANELS, EIMCStatus, EvidenceClass, Outcome
from sitbench.res import CONDITIONS
from sitbench.res._score import Classification, RoleRival
from sitbench.schema import (
    CATEGORY_METRICS,
    Act,
    CapabilityMode,
    ClaimProvenance,
    Configuration,
    Provenance,
    Tier,
)
from sitbench.stats import EXPERIMENTS

ROOT = Path(__file__).resolve().parents[2]
CONCEPTS = (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8")


def _terms() -> list[str]:
    terms = [glossary.SEED_TITLE, glossary.CHI_SOURCE.split(" (")[0], glossary.RES_SOURCE.split(" (")[0]]
    terms += [m.key for m in glossary.METRICS if "…" not in m.key and "/" not in m.key]
    terms += list(CATEGORY_METRICS.values()) + ["completed / attempted", "dropped", "unscored"]
    terms += [f"**{c.value}**" for c in Configuration if c.value != "agent"] + ["**agent**"]
    terms += [e.id for e in EXPERIMENTS]
    for enum in (Act, CapabilityMode, ClaimProvenance, Provenance, Tier, Outcome):
        terms += [f"`{member.value}`" for member in enum]
    for literal in (EIMCStatus, EvidenceClass, Classification, RoleRival):
        terms += [f"`{value}`" for value in typing.get_args(literal) if value != "illustrative-schema-only"]
    terms += [f"`{c}`" for c in CONDITIONS] + [f"`{b}`" for b in BASELINES]
    terms += [p.upper() for p in MEMORY_PANELS] + ["**Axes " + ", ".join(AXES) + "**"]
    terms += ["S_τ", "H_T", "H_≤τ", "I_τ", "X_q", "Env(q)", "Γ̂", "τ", "α", "Q\\*", "Q\\*_disc", "SValid", "Macro SIT",
              "Q_M", "EIMC", "CHIS", "f_raw", "invalid_lure_rate", "clean_i", "sustained_prefix_eimc", "κ", "π_h",
              "strict triplet", "owner-sensitive", "peer–fiction agreement", "triplets observed", "valid answers",
              "role matches", "agreed", "contested", "normalize_reply", "SIT", "SITBench", "CHI", "RES"]
    return terms


@pytest.mark.parametrize("term", _terms())
def test_concepts_defines(term: str) -> None:
    assert term in CONCEPTS, f"docs/concepts.md does not define {term!r}"


def test_readme_links_the_concepts_and_cites_full_titles() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "[docs/concepts.md](docs/concepts.md)" in readme
    assert glossary.SEED_TITLE in " ".join(readme.split())
    assert "CHI/CHIS Specification v0.1" in readme and "RES actor-indexed episodic-continuity specificity battery" in readme
    assert "SPEC §" not in readme and "(SIT) and SITBench" not in readme


def test_no_user_facing_text_cites_a_section_of_an_unpublished_brief() -> None:
    package = ROOT / "src" / "sitbench"
    # Where help pages, reports and summaries are written, and the documents beside them.
    shipped = [p for folder in ("cli", "report", "chi", "res", "agents", "schema") for p in (package / folder).rglob("*.py")]
    shipped += [package / "glossary.py", ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    cited = [str(p.relative_to(ROOT)) for p in shipped if re.search(r"SPEC §\d", p.read_text(encoding="utf-8"))]
    assert cited == []
