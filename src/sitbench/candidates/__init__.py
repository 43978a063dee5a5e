"""Candidates: everything that answers a probe, behind one protocol."""

from sitbench.candidates._cache import (
    CACHE_FILE,
    CachedCandidate,
    CacheStats,
    ResponseCache,
    bypasses_cache,
    default_cache_dir,
    request_key,
)
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
    PromptView,
)
from sitbench.candidates._registry import candidate, get_candidate
from sitbench.candidates.replay import NO_RECORDED_ANSWER

__all__ = [
    "CACHE_FILE",
    "NO_RECORDED_ANSWER",
    "CacheStats",
    "CachedCandidate",
    "Candidate",
    "CandidateRequest",
    "CandidateResponse",
    "DecodingConfig",
    "LocalServer",
    "LocalServerError",
    "Message",
    "PromptView",
    "ResponseCache",
    "ServerEvent",
    "ServerEventKind",
    "bypasses_cache",
    "candidate",
    "default_cache_dir",
    "get_candidate",
    "request_key",
    "serve_local_model",
]
