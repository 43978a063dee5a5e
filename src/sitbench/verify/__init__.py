"""The two-stage verifier: gold-blind extraction (stage 1) and deterministic contract scoring (stage 2)."""

from sitbench._limits import DEFAULT_MAX_RESPONSE_CHARS
from sitbench.verify._agreement import (
    AgreementFigures,
    AgreementReport,
    Reading,
    compare,
    format_figures,
)
from sitbench.verify._extract import RULES_VERSION, Vocabulary, extract, presupposed, trace_extract
from sitbench.verify._extractor import (
    EXTRACTORS,
    Extractor,
    RuleExtractor,
    close_extractor,
    extractor_names,
    get_extractor,
    register_extractor,
    stamp,
    verifier_label,
)
from sitbench.verify._judge import Judge, Judgement, judge_probe, load_judge
from sitbench.verify._router import DOMAIN_CUES, UniversePolicy, extraction_universe, route
from sitbench.verify._score import (
    CHECK_NAMES,
    LENGTH_CHECK,
    SCORER_VERSION,
    VERIFIER_VERSION,
    Support,
    over_length_verdict,
    score,
)

__all__ = [
    "CHECK_NAMES",
    "DEFAULT_MAX_RESPONSE_CHARS",
    "DOMAIN_CUES",
    "EXTRACTORS",
    "LENGTH_CHECK",
    "RULES_VERSION",
    "SCORER_VERSION",
    "VERIFIER_VERSION",
    "AgreementFigures",
    "AgreementReport",
    "Extractor",
    "Judge",
    "Judgement",
    "Reading",
    "RuleExtractor",
    "Support",
    "UniversePolicy",
    "Vocabulary",
    "close_extractor",
    "compare",
    "extract",
    "extraction_universe",
    "extractor_names",
    "format_figures",
    "get_extractor",
    "judge_probe",
    "load_judge",
    "over_length_verdict",
    "presupposed",
    "register_extractor",
    "route",
    "score",
    "stamp",
    "trace_extract",
    "verifier_label",
]
