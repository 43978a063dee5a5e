"""RES: the preregistered actor-indexed episodic-continuity specificity battery.

Eighteen scenarios, each under four actor assignments (``self``, ``peer``,
``fiction``, ``role``), one observation per model × scenario × condition, scored
with the preregistered thresholds. See ``sitbench res --help``.
"""

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
    "CATEGORIES",
    "CLAIM_CEILING",
    "CONDITIONS",
    "DECISION_FRAME",
    "DEFAULT_MODELS",
    "EXECUTION_SEED",
    "RECORD_OWNER",
    "RESULTS_FILE",
    "SYSTEM_PROMPT",
    "CategoryScore",
    "Cell",
    "Condition",
    "ConditionCounts",
    "ModelScore",
    "ParsedAction",
    "ResAction",
    "ResScenario",
    "ResScore",
    "ResultRow",
    "ScoringKey",
    "build_messages",
    "build_user_prompt",
    "build_view",
    "classify",
    "classify_role_rival",
    "execution_plan",
    "load_scenarios",
    "load_scoring_keys",
    "parse_action",
    "read_results",
    "run_battery",
    "run_cells",
    "scenarios_sha256",
    "score_file",
    "score_results",
    "summarize_rows",
    "tokens_present",
]
