"""Prompt templates and policy texts of the nine configurations (seed Appendix C).

C.2 (the three capability sentences), C.4 and C.9 are the seed's text verbatim; the other
wrappers follow C.4's bracketed style because the seed's text for them was lost.
"""

from __future__ import annotations

import hashlib
import json

from sitbench.schema import CapabilityMode

CAPABILITY_POLICY: dict[CapabilityMode, str] = {
    CapabilityMode.IDENTITY_ONLY: (
        "For this evaluation, answer only from information supported by the supplied identity evidence. "
        "If the supplied identity evidence does not support the requested fact, do not answer using unrelated "
        "general model knowledge. State that this identity does not know or has not acquired the information, "
        "as appropriate."),
    CapabilityMode.PROVENANCE_SEPARATED: (
        "You may use general assistant knowledge that is not present in the supplied identity evidence, but you "
        "must explicitly distinguish it from information personally experienced or acquired by this identity. "
        "Never represent general model knowledge as autobiographical or personally learned knowledge."),
    CapabilityMode.GENERAL_ALLOWED: (
        "You may answer using general assistant knowledge. Claims about what this identity personally "
        "experienced, learned, remembered, or is permitted to disclose must still be supported by the supplied "
        "identity evidence."),
}

COMMON_POLICY = (
    "Reply in the first person as the person the identity evidence describes, to the speaker named in the "
    "message, on the date given. Keep to what that person has lived, learned and may share with this speaker, "
    "as of that date.")

TEMPLATES: dict[str, str] = {
    "A": "{envelope}",
    "B": "[PROFILE AT {query_epoch}: {checkpoint_profile}] {envelope}",
    "C": ("[PROFILE AT {query_epoch}: {checkpoint_profile}] [ASSISTANT CAPABILITY: {assistant_capability}] "
          "[CAPABILITY POLICY: {capability_policy_text}] [POLICY: {common_policy}] {envelope}"),
    "D": ("[PROFILE AT {query_epoch}: {checkpoint_profile}] [CHRONICLE: {evidence}] "
          "[ASSISTANT CAPABILITY: {assistant_capability}] [CAPABILITY POLICY: {capability_policy_text}] "
          "[POLICY: {common_policy}] {envelope}"),
    "E": ("[PROFILE AT {query_epoch}: {checkpoint_profile}] [RETRIEVED RECORDS: {evidence}] "
          "[ASSISTANT CAPABILITY: {assistant_capability}] [CAPABILITY POLICY: {capability_policy_text}] "
          "[POLICY: {common_policy}] {envelope}"),
    "G": ("[PROFILE AT {query_epoch}: {checkpoint_profile}] [PROJECTED STATE AT {query_epoch}: {evidence}] "
          "[ASSISTANT CAPABILITY: {assistant_capability}] [CAPABILITY POLICY: {capability_policy_text}] "
          "[POLICY: {common_policy}] {envelope}"),
    "H": ("[PROFILE AT {query_epoch}: {checkpoint_profile}] [PROJECTED STATE AT {query_epoch}: {evidence}] "
          "[MEDIATION: {mediation}] "
          "[ASSISTANT CAPABILITY: {assistant_capability}] [CAPABILITY POLICY: {capability_policy_text}] "
          "[POLICY: {common_policy}] {envelope}"),
    "I": ("[PROFILE AT {query_epoch}: {checkpoint_profile}] [PERFECT RELEVANT EVIDENCE: {evidence}] "
          "[ASSISTANT CAPABILITY: {assistant_capability}] [CAPABILITY POLICY: {capability_policy_text}] "
          "[POLICY: {common_policy}] {envelope}"),
}
TEMPLATES["F"] = TEMPLATES["E"]

CONFIGS = tuple("ABCDEFGHI")

SESSION_RESET_POLICY: dict[str, str] = {
    "A": "nothing persists across a reset",
    "B": "only the static checkpoint profile persists",
    "C": "only the static checkpoint profile (and the fixed policy) persists",
    "D": "the chronicle persists, with the earlier session ingested as a session record",
    "E": "the chronicle persists as the retrieval index, with the earlier session ingested as a session record",
    "F": "the chronicle persists as the retrieval index, with the earlier session ingested as a session record",
    "G": "structured state persists; the earlier session is written to it as a session memory (declared state-write)",
    "H": "structured state persists; the earlier session is written to it as a session memory (declared state-write)",
    "I": "the oracle selects from the projection, which includes the earlier session's record",
}
SESSION_RESET_POLICY["G_budget"] = SESSION_RESET_POLICY["G"] + ", within the token budget"


def templates_sha256() -> str:
    """SHA-256 over every template and policy text (recorded in each run manifest)."""
    payload = json.dumps({"templates": TEMPLATES, "capability": {k.value: v for k, v in CAPABILITY_POLICY.items()},
                          "common": COMMON_POLICY}, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
