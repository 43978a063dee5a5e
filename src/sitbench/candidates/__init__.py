"""Candidates: everything that answers a probe, behind one protocol."""

from sitbench.candidates._protocol import (
    Candidate,
    CandidateRequest,
    CandidateResponse,
    DecodingConfig,
    Message,
)
from sitbench.candidates._registry import candidate, get_candidate
from sitbench.candidates._local_server import LocalServerError, serve_local_model

__all__ = [
    "Candidate",
    "CandidateRequest",
    "CandidateResponse",
    "DecodingConfig",
    "Message",
    "LocalServerError",
    "candidate",
    "get_candidate",
    "serve_local_model",
]
