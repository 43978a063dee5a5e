"""RES: the preregistered actor-indexed episodic-continuity specificity battery.

Eighteen scenarios, each under four actor assignments (``self``, ``peer``,
``fiction``, ``role``), one observation per model × scenario × condition, scored
with the preregistered thresholds. Models answer as candidates (``--model``), agents through the
agent protocol (``--agent``); :func:`owner_aware` and :func:`owner_blind` are the two reference agents
of ``sitbench res demo``. See ``sitbench res --help``.
"""

from sitbench.res._agents import AGENT_PREFIX, AgentCandidate, res_subject, res_turn
from sitbench.res._demo import DEMO_AGENTS, demo_candidates, run_demo
from sitbench.res._explain import classification_reason, role_reason, score_notes, score_rows
from sitbench.res._parse import ParsedAction, parse_action, tokens_present
from sitbench.res._prompts import (
    CONDITIONS,
    DECISION_FRAME,
    RECORD_OWNER,
    SYSTEM_PROMPT,
    Condition,
    build_messages,
    build_user_prompt,
    build_view,
)
from sitbench.res._reference import OwnerAwareAgent, OwnerBlindAgent, owner_aware, owner_blind, read_prompt
from sitbench.res._results import ResultRow, read_results
from sitbench.res._runner import (
    DEFAULT_MODELS,
    EXECUTION_SEED,
    RESULTS_FILE,
    Cell,
    execution_plan,
    run_battery,
    run_cells,
    summarize_rows,
)
from sitbench.res._scenarios import (
    CATEGORIES,
    ResAction,
    ResScenario,
    ScoringKey,
    load_scenarios,
    load_scoring_keys,
    scenarios_sha256,
)
from sitbench.res._score import (
    CLAIM_CEILING,
    CategoryScore,
    ConditionCounts,
    ModelScore,
    ResScore,
    classify,
    classify_role_rival,
    score_file,
    score_results,
)

__all__ = [
    "AGENT_PREFIX",
    "CATEGORIES",
    "CLAIM_CEILING",
    "CONDITIONS",
    "DECISION_FRAME",
    "DEFAULT_MODELS",
    "DEMO_AGENTS",
    "EXECUTION_SEED",
    "RECORD_OWNER",
    "RESULTS_FILE",
    "SYSTEM_PROMPT",
    "AgentCandidate",
    "CategoryScore",
    "Cell",
    "Condition",
    "ConditionCounts",
    "ModelScore",
    "OwnerAwareAgent",
    "OwnerBlindAgent",
    "ParsedAction",
    "ResAction",
    "ResScenario",
    "ResScore",
    "ResultRow",
    "ScoringKey",
    "build_messages",
    "build_user_prompt",
    "build_view",
    "classification_reason",
    "classify",
    "classify_role_rival",
    "demo_candidates",
    "execution_plan",
    "load_scenarios",
    "load_scoring_keys",
    "owner_aware",
    "owner_blind",
    "parse_action",
    "read_prompt",
    "read_results",
    "res_subject",
    "res_turn",
    "role_reason",
    "run_battery",
    "run_cells",
    "run_demo",
    "scenarios_sha256",
    "score_file",
    "score_notes",
    "score_results",
    "score_rows",
    "summarize_rows",
    "tokens_present",
]
