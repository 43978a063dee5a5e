"""Candidates: everything that answers a probe, behind one protocol."""

from sitbench.candidates._local_server import (
    LocalServer,
    LocalServerError,
    ServerEvent,
    ServerEventKind,
    serve_local_model,
)
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
    "LocalServer",
    "LocalServerError",
    "Message",
    "ServerEvent",
    "ServerEventKind",
    "candidate",
    "get_candidate",
    "serve_local_model",
]
