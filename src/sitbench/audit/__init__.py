"""Human audit and calibration of the verifier (seed §8.3).

``sitbench audit sample`` draws a stratified, oversampled sample of scored responses with recorded
inclusion probabilities; ``audit sheet`` writes gold-blind offline annotation pages; ``audit import``
validates the annotations they export; ``audit agree`` measures inter-annotator agreement (Cohen's κ,
Krippendorff's α, set P/R/F1) and adjudicates the reference by majority; ``audit verifier`` measures
an extractor against that reference, per stratum and as inverse-probability-weighted population
estimates. Held-out audits are recorded as such and refused wherever development material goes.
"""

from pydantic import BaseModel

from sitbench.audit._agree import adjudicate, agreement, build_reference, load_reference
from sitbench.audit._annotations import (
    annotation_problems,
    load_annotation_files,
    read_annotations,
    write_annotations,
)
from sitbench.audit._models import (
    KAPPA_TARGET,
    MATCHING_RULE,
    PHASE_LABELS,
    AgreementResult,
    AnnotatedClaim,
    AnnotatedUnmapped,
    Annotation,
    AuditReference,
    AuditSample,
    Coefficient,
    Interval,
    SampleItem,
    Stratum,
    VerifierResult,
)
from sitbench.audit._phase import (
    PhaseError,
    require_development,
    require_development_file,
)
from sitbench.audit._reliability import alpha_of_counts, cohen_kappa, summarize
from sitbench.audit._report_text import agreement_lines, disagreement_lines, verifier_lines
from sitbench.audit._sample import (
    CONTESTED_STRATUM,
    allocate,
    confidence_band,
    draw_sample,
    load_sample,
    parse_weights,
    sample_runs,
    systematic_round,
)
from sitbench.audit._sheet import render_sheet, sheet_data, write_sheets
from sitbench.audit._verifier import (
    item_weights,
    load_audit,
    measure,
    measure_file,
    reference_observation,
    stratified_draws,
)

AUDIT_SCHEMAS: dict[str, type[BaseModel]] = {
    "audit_annotation": Annotation,
    "audit_sample": AuditSample,
    "audit_reference": AuditReference,
    "audit_agreement": AgreementResult,
    "audit_verifier": VerifierResult,
}
"""JSON Schemas ``sitbench schema`` exports for the audit's files (the annotation page's JSONL lines first)."""

__all__ = [
    "AUDIT_SCHEMAS",
    "CONTESTED_STRATUM",
    "KAPPA_TARGET",
    "MATCHING_RULE",
    "PHASE_LABELS",
    "AgreementResult",
    "AnnotatedClaim",
    "AnnotatedUnmapped",
    "Annotation",
    "AuditReference",
    "AuditSample",
    "Coefficient",
    "Interval",
    "PhaseError",
    "SampleItem",
    "Stratum",
    "VerifierResult",
    "adjudicate",
    "agreement",
    "agreement_lines",
    "allocate",
    "alpha_of_counts",
    "annotation_problems",
    "build_reference",
    "cohen_kappa",
    "confidence_band",
    "disagreement_lines",
    "draw_sample",
    "item_weights",
    "load_annotation_files",
    "load_audit",
    "load_reference",
    "load_sample",
    "measure",
    "measure_file",
    "parse_weights",
    "read_annotations",
    "reference_observation",
    "render_sheet",
    "require_development",
    "require_development_file",
    "sample_runs",
    "sheet_data",
    "stratified_draws",
    "summarize",
    "systematic_round",
    "verifier_lines",
    "write_annotations",
    "write_sheets",
]
