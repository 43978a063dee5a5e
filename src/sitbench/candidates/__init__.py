"""Candidates: everything that answers a probe, behind one protocol."""

from sitbench.candidates._protocol import (
    Candidate,
    CandidateRequest,
    CandidateResponse,
    DecodingConfig,
    Message,
)
from sitbench.candidates._registry import candidate, get_candidate

__all__ = [
    "Candidate",
    "CandidateRequest",
    "CandidateResponse",
    "DecodingConfig",
    "Message",
    "candidate",
    "get_candidate",
]
