"""The two-stage verifier: gold-blind extraction (stage 1) and deterministic contract scoring (stage 2)."""

from sitbench.verify._extract import VERIFIER_VERSION, Vocabulary, extract, presupposed
from sitbench.verify._judge import Judge, Judgement, judge_probe, load_judge
from sitbench.verify._router import DOMAIN_CUES, extraction_universe, route
from sitbench.verify._score import CHECK_NAMES, Support, score

__all__ = [
    "CHECK_NAMES",
    "DOMAIN_CUES",
    "VERIFIER_VERSION",
    "Judge",
    "Judgement",
    "Support",
    "Vocabulary",
    "extract",
    "extraction_universe",
    "judge_probe",
    "load_judge",
    "presupposed",
    "route",
    "score",
]
