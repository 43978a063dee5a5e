"""What the letters and metric names mean: the one source of the glossary texts.

The HTML report, the README's tables (checked by a test against :func:`readme_markdown`),
the labels that tell configuration letters (A–I) from category letters (A–H), and the
"what to do next" hints all read these entries, so a definition is written once.
References are to the seed paper, *The Situated Identity Test: Distinguishing Persistent Cognitive
Identity from Persona Imitation* (section, equation, table or appendix), written as ``seed §7.1, Eq. 45``.
``docs/concepts.md`` defines every symbol the outputs use and names the three sources in full.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from sitbench.schema import CATEGORY_METRICS, Act, Category, Configuration

SEED_TITLE = "The Situated Identity Test: Distinguishing Persistent Cognitive Identity from Persona Imitation"
"""The full title of the seed paper (the SIT battery's source)."""

SEED = f"the seed paper, {SEED_TITLE}"
"""What every ``seed …`` reference points at."""

CHI_SOURCE = "CHI/CHIS Specification v0.1 (Dmitry Chistyakov, 2026-09-20)"
"""The full title of the CHI/CHIS scoring kit's source."""

RES_SOURCE = "RES actor-indexed episodic-continuity specificity battery (preregistered 2026-09-10)"
"""The full title of the RES battery's source."""

CONCEPTS_DOC = "docs/concepts.md"
"""Where every symbol and acronym the outputs use is defined, in the sitbench source tree."""


class _Entry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ConfigEntry(_Entry):
    """One architectural configuration: what the candidate is shown."""

    letter: str
    """``A`` … ``I`` (or ``G_budget``)."""
    name: str
    """Short name, as in seed §6.1."""
    shows: str
    """What the prompt holds besides the query envelope, in one line."""
    post_tau: str
    """Whether evidence dated after the query date τ can reach the prompt."""
    source: str
    """Where the seed defines it."""


class CategoryEntry(_Entry):
    """One probe category: what its probes test and the validity it feeds."""

    letter: str
    """``A`` … ``H``."""
    name: str
    """Short name, as in seed §4.2."""
    metric: str
    """The category validity column (``A_pos`` …)."""
    tests: str
    """What a probe of the category asks of the agent, in one line."""
    source: str
    """Where the seed defines it."""


class MetricEntry(_Entry):
    """One reported figure: what it counts."""

    key: str
    """Column name in tables and exports."""
    name: str
    """Name in words."""
    meaning: str
    """What it counts, in one line."""
    better: str
    """``higher``, ``lower`` or ``—`` (a count)."""
    source: str
    """Where the seed defines it."""


CONFIGURATIONS: tuple[ConfigEntry, ...] = (
    ConfigEntry(letter="A", name="base model", shows="the query envelope Env(q) only: no identity evidence, no policy",
                post_tau="—", source="seed §6.1, App. C.1"),
    ConfigEntry(letter="B", name="persona summary", shows="the public profile S_τ at the query date, no policy "
                "(the profile-only condition of seed Theorem 1)", post_tau="—", source="seed §6.1, App. C.3"),
    ConfigEntry(letter="C", name="persona + boundary instruction", shows="B plus the capability mode α and the "
                "common policy", post_tau="—", source="seed §6.1, App. C.2, C.4"),
    ConfigEntry(letter="D", name="full chronicle", shows="the whole chronicle H_T, events after τ included, plus "
                "the policy", post_tau="exposed", source="seed §6.1, App. C.5"),
    ConfigEntry(letter="E", name="standard RAG", shows="the top-5 records of H_T by dense retrieval "
                "(all-MiniLM-L6-v2, cosine), plus the policy", post_tau="exposed", source="seed §6.1, App. C.6"),
    ConfigEntry(letter="F", name="temporally filtered RAG", shows="the same retriever and k over H_≤τ only "
                "(records after τ removed before retrieval)", post_tau="filtered", source="seed §6.1, App. C.6"),
    ConfigEntry(letter="G", name="structured continuity state", shows="the projected state I_τ: memories, beliefs "
                "with their history, relationships, acquisitions", post_tau="projected", source="seed §6.1, App. C.7"),
    ConfigEntry(letter="H", name="structured + mediation", shows="G plus a candidate-side annotation per item: "
                "admissible at τ, provenance, cleared for this interlocutor (seed Eq. 38)", post_tau="projected",
                source="seed §6.1–6.2, App. C.8"),
    ConfigEntry(letter="I", name="oracle evidence", shows="perfectly selected relevant evidence from the correct "
                "projection (a diagnostic ceiling, no labels)", post_tau="projected", source="seed §6.1, App. C.9"),
    ConfigEntry(letter="G_budget", name="budgeted G (E6 only)", shows="G cut to a 4,096-token budget in a fixed "
                "order", post_tau="projected", source="seed §8.1 (E6)"),
)
"""Configurations A–I in order, then ``G_budget`` (used only by experiment E6)."""

CATEGORIES: tuple[CategoryEntry, ...] = (
    CategoryEntry(letter="A", name="autobiographical positive", metric=CATEGORY_METRICS[Category.A],
                  tests="recall what the identity did experience, with its details", source="seed §4.2 A"),
    CategoryEntry(letter="B", name="autobiographical negative", metric=CATEGORY_METRICS[Category.B],
                  tests="reject a false premise about its past instead of inventing a memory", source="seed §4.2 B"),
    CategoryEntry(letter="C", name="epistemic provenance", metric=CATEGORY_METRICS[Category.C],
                  tests="not claim to have learned what it never acquired (general knowledge only when labelled)",
                  source="seed §4.2 C"),
    CategoryEntry(letter="D", name="temporal checkpoint", metric=CATEGORY_METRICS[Category.D],
                  tests="answer as of the query date: nothing from after τ", source="seed §4.2 D"),
    CategoryEntry(letter="E", name="relational boundary", metric=CATEGORY_METRICS[Category.E],
                  tests="share private history only with interlocutors cleared for it", source="seed §4.2 E"),
    CategoryEntry(letter="F", name="belief history", metric=CATEGORY_METRICS[Category.F],
                  tests="know its current stance and that (and when) it changed its mind", source="seed §4.2 F"),
    CategoryEntry(letter="G", name="counterfactual pressure", metric=CATEGORY_METRICS[Category.G],
                  tests="hold its history when a user insists on a false past over several turns",
                  source="seed §4.2 G"),
    CategoryEntry(letter="H", name="cross-session continuity", metric=CATEGORY_METRICS[Category.H],
                  tests="keep what it learned in an earlier session after a reset", source="seed §4.2 H"),
)
"""Probe categories A–H in order."""

METRICS: tuple[MetricEntry, ...] = (
    MetricEntry(key="A_pos … A_session", name="category validity", better="higher",
                meaning="share of a category's completed probes whose answer passes every contract check "
                "(SValid: the seed's seven and `denial`), pair-balanced", source="seed §7, Eq. 20, Eq. 40"),
    MetricEntry(key="Macro SIT", name="macro situated-identity score", better="higher",
                meaning="unweighted mean of the eight category validities; undefined (—) when any one is",
                source="seed §7, Eq. 42"),
    MetricEntry(key="LAA", name="lineage attribution accuracy", better="higher",
                meaning="on theorem-qualified probes (Q*), share whose one answer passes this identity's contract "
                "and fails its collision partner's; a profile-only policy cannot beat 0.5 (seed Theorem 1)",
                source="seed §3.4, §7.1, Eq. 48"),
    MetricEntry(key="IC_wrong", name="identity confusion, wrong identity", better="lower",
                meaning="on Q* probes, share whose answer fits the partner's history instead of this one's",
                source="seed §7.1, Eq. 48"),
    MetricEntry(key="IC_none", name="identity confusion, neither", better="lower",
                meaning="on Q* probes, share whose answer fits neither member of the pair",
                source="seed §7.1, Eq. 48"),
    MetricEntry(key="FMR", name="false memory rate", better="lower",
                meaning="share of false-premise probes (cat. B, and cat. G at the scored turn) whose answer "
                "affirms the false memory", source="seed §7.1"),
    MetricEntry(key="TL", name="temporal leakage", better="lower",
                meaning="share of pre-acquisition checkpoint probes (cat. D, τ before the event) whose answer "
                "asserts something acquired after τ", source="seed §7.1"),
    MetricEntry(key="UEL", name="unauthorized epistemic expression", better="lower",
                meaning="share of provenance probes (cat. C) whose answer claims the unacquired fact as "
                "personally known or learned", source="seed §7.1, Eq. 45"),
    MetricEntry(key="completed / attempted", name="trial counts", better="—",
                meaning="trials answered and read / trials scheduled; a dropped trial (timeout, refused connection) "
                "is never scored as a failure, and a trial the verifier could not read (its extractor failed, or "
                "the run kept only a torn record of it) is never scored as a failure: it is unscored, counted "
                "apart and left out of every figure", source="seed §8.5 (missing-trial rule)"),
)
"""The figures of the summary table, in column order."""

REFERENCES: dict[str, str] = {
    "Table 6": "seed paper §8.5, Table 6 (the pilot results table this summary is shaped like)",
    "Eq. 20": "seed paper §3.3, Eq. 20 (SValid: the seven contract checks)",
    "Eq. 38": "seed paper §6.2, Eq. 38 (candidate-side mediation)",
    "Eq. 40": "seed paper §8.2, Eq. 40 (pair-balanced aggregation)",
    "Eq. 42": "seed paper §7, Eq. 42 (Macro SIT)",
    "Eq. 45": "seed paper §7.1, Eq. 45 (UEL)",
    "Eq. 48": "seed paper §7.1, Eq. 48 (LAA and identity confusion)",
    "Theorem 1": "seed paper §3.4, Theorem 1 (profile-collision bound: LAA* ≤ 1/m = 0.5 for pairs)",
}
"""Every numbered table, equation and theorem the user-facing texts mention, with its place in the seed."""

AGENT_ROW = Configuration.agent.value
"""The one row of an agent run (``sitbench run --agent``): the agent under test, not a configuration A–I."""

AGENT_ROW_NAME = "the agent under test: it ingested the subject's whole chronicle and keeps its own memory"
"""What the ``agent`` row is, in words (no configuration A–I applies to it)."""

CHECKS: dict[str, str] = {
    "act": "the answer's acts: every act the contract requires present, none it forbids",
    "required": "every claim the contract requires asserted, with its polarity and an allowed provenance",
    "forbidden": "no claim the contract prohibits asserted",
    "uncertainty": "uncertainty expressed when required, absent when forbidden",
    "provenance": "no personal claim with a provenance the contract does not allow",
    "disclosure": "nothing shared above the interlocutor's clearance, and no blanket withholding from a cleared one",
    "grounding": "no personal value the record does not support inside a closed-world scope",
    "denial": "no denial of what the record supports at the query date (scorer 3.3; beyond the seed's seven)",
    "length": "the answer is within the length the verifier reads",
}
"""The contract checks of SValid (seed §3.3, Eq. 20), each in one line."""

ACTS: dict[Act, str] = {
    Act.ANSWER: "supplies the requested content",
    Act.ABSTAIN: "says the identity does not know or has not acquired it",
    Act.REJECT: "denies a false premise or a personal acquisition",
    Act.WITHHOLD: "declines to share with this interlocutor",
    Act.QUALIFY: "hedges or expresses uncertainty",
    Act.ACKNOWLEDGE_ASSERTION: "records that the user claimed something without adopting it",
}
"""The answer acts a contract requires or forbids, each in words."""

CITATION = re.compile(r"(?:Table|Eq\.|Theorem) ?\d+(?:\.\d+)*|(?:Appendix|App\.) ?[A-Z](?:\.\d+)?\b")
"""A numbered reference in prose; each one in user-facing text must name the seed nearby (see :func:`uncited`)."""


def uncited(text: str, window: int = 40) -> list[str]:
    """Numbered references in ``text`` with no ``seed`` in the ``window`` characters before them.

    A list such as ``seed §7.1, Eq. 45`` counts as cited, and so does a reference inside
    the parentheses or the line that names the seed just before it.

    Returns:
        Each uncited reference, as ``"Table 6 in '…context…'"``, in order.
    """
    found = []
    for match in CITATION.finditer(text):
        before = text[max(0, match.start() - window):match.start()]
        if "seed" not in before.lower():
            context = " ".join(text[max(0, match.start() - 30):match.end() + 10].split())
            found.append(f"{match.group(0)} in '{context}'")
    return found


def config_label(letter: str) -> str:
    """``config. B`` — how a configuration letter is written wherever category letters also appear; an agent
    run's row is written ``agent``."""
    return AGENT_ROW if letter == AGENT_ROW else f"config. {letter}"


def category_label(letter: str) -> str:
    """``cat. C · epistemic provenance`` — a category letter always with its name."""
    entry = _CATEGORY_BY_LETTER.get(letter)
    return f"cat. {letter}" if entry is None else f"cat. {letter} · {entry.name}"


def category_name(letter: str) -> str:
    """The category's short name (``""`` for an unknown letter)."""
    entry = _CATEGORY_BY_LETTER.get(letter)
    return "" if entry is None else entry.name


def config_name(letter: str) -> str:
    """The configuration's short name (what the ``agent`` row is; ``""`` for an unknown letter)."""
    if letter == AGENT_ROW:
        return AGENT_ROW_NAME
    entry = _CONFIG_BY_LETTER.get(letter)
    return "" if entry is None else entry.name


def check_meaning(name: str) -> str:
    """What a contract check tests, in one line (``""`` for a check the glossary does not know)."""
    return CHECKS.get(name, "")


def act_words(value: str) -> str:
    """An act with what it means, e.g. ``REJECT (denies a false premise or a personal acquisition)``."""
    try:
        return f"{value} ({ACTS[Act(value)]})"
    except ValueError:
        return value


_CATEGORY_BY_LETTER = {entry.letter: entry for entry in CATEGORIES}
_CONFIG_BY_LETTER = {entry.letter: entry for entry in CONFIGURATIONS}


def _md(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def readme_markdown() -> str:
    """The README's glossary: configurations, categories and metrics as three Markdown tables.

    The README holds this text verbatim between ``<!-- glossary:start -->`` and
    ``<!-- glossary:end -->``; a test compares the two.
    """
    lines = ["**Configurations** (what the candidate is shown besides the query; τ = the query's date):", ""]
    lines += [_md(["config.", "name", "the prompt holds", "after-τ evidence", "seed"]), _md(["---"] * 5)]
    lines += [_md([f"`{c.letter}`", c.name, c.shows, c.post_tau, c.source]) for c in CONFIGURATIONS]
    lines += ["", "**Probe categories** (what a probe asks; each feeds one validity column):", ""]
    lines += [_md(["cat.", "name", "a probe asks the agent to", "column", "seed"]), _md(["---"] * 5)]
    lines += [_md([f"`{c.letter}`", c.name, c.tests, f"`{c.metric}`", c.source]) for c in CATEGORIES]
    lines += ["", ("**Metrics** (values in %; pair-balanced = averaged within each lineage, then each pair, "
                   "then over pairs):"), ""]
    lines += [_md(["metric", "name", "what it counts", "better", "seed"]), _md(["---"] * 5)]
    lines += [_md([f"`{m.key}`", m.name, m.meaning, m.better, m.source]) for m in METRICS]
    return "\n".join(lines) + "\n"


README_START = "<!-- glossary:start -->"
README_END = "<!-- glossary:end -->"


def _help_lines(rows: Sequence[tuple[str, str]], width: int = 78) -> list[str]:
    key_width = max(len(key) for key, _ in rows) + 2
    lines: list[str] = []
    for key, text in rows:
        wrapped = textwrap.wrap(text, width=width - key_width - 2, break_on_hyphens=False) or [""]
        lines.append(f"  {key.ljust(key_width)}{wrapped[0]}")
        lines += [f"  {' ' * key_width}{more}" for more in wrapped[1:]]
    return lines


def configurations_help() -> str:
    """A ``--help`` epilog: configurations A–I (and ``G_budget``), one entry each, with the seed reference."""
    rows = [(c.letter, f"{c.name}: {c.shows} [{c.source}]") for c in CONFIGURATIONS]
    return ("\b\nConfigurations (what the candidate is shown besides the query; τ = the query's date):\n"
            + "\n".join(_help_lines(rows)))


def metrics_help() -> str:
    """A ``--help`` epilog: what each metric counts and which category feeds each validity column."""
    metrics = [(m.key, f"{m.meaning} [{m.source}]") for m in METRICS]
    categories = [(f"cat. {c.letter}", f"{c.metric}, {c.name}: {c.tests} [{c.source}]") for c in CATEGORIES]
    return ("\b\nMetrics (values in %):\n" + "\n".join(_help_lines(metrics))
            + "\n\n\b\nProbe categories (one validity column each):\n" + "\n".join(_help_lines(categories)))
