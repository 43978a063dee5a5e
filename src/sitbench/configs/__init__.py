"""Configurations A–I: templates, prompt builders, mediation and the offline retriever."""

from sitbench.configs._builders import (
    BuildContext,
    PromptBuild,
    build_prompt,
    clearance_at,
    mediation,
    profile_from_evidence,
)
from sitbench.configs._embedder import EMBEDDING_DIM, MAX_SEQ_LENGTH, MINILM_MODEL_ID, Embedder, MiniLMEmbedder
from sitbench.configs._retrieval import ChronicleRetriever
from sitbench.configs._retriever import (
    DEFAULT_K,
    RETRIEVER_ID,
    DenseRetriever,
    Hit,
    RetrievalDoc,
    RetrieverManifest,
    on_or_before,
    retriever_manifest,
)
from sitbench.configs._templates import (
    CAPABILITY_POLICY,
    COMMON_POLICY,
    CONFIGS,
    SESSION_RESET_POLICY,
    TEMPLATES,
    templates_sha256,
)

__all__ = [
    "CAPABILITY_POLICY",
    "COMMON_POLICY",
    "CONFIGS",
    "DEFAULT_K",
    "EMBEDDING_DIM",
    "MAX_SEQ_LENGTH",
    "MINILM_MODEL_ID",
    "RETRIEVER_ID",
    "SESSION_RESET_POLICY",
    "TEMPLATES",
    "BuildContext",
    "ChronicleRetriever",
    "DenseRetriever",
    "Embedder",
    "Hit",
    "MiniLMEmbedder",
    "PromptBuild",
    "RetrievalDoc",
    "RetrieverManifest",
    "build_prompt",
    "clearance_at",
    "mediation",
    "on_or_before",
    "profile_from_evidence",
    "retriever_manifest",
    "templates_sha256",
]
