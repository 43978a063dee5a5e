"""Agents: a system under test with its own memory, driven through each trial's declared schedule.

An :class:`Agent` ingests one subject's candidate-visible evidence (store 1, under an opaque key),
answers the turns of a schedule (``respond``), and ends sessions (``end_session``: the
conversation's context is gone, its persistent state kept). ``sitbench run DATASET --agent SPEC``
takes ``package.module:factory``, ``path/to/file.py:factory``, ``http://HOST:PORT`` (the HTTP agent
protocol of :mod:`sitbench.agents._http`) or the name of a ``sitbench.agents`` entry point.
"""

from sitbench.agents._http import AgentOutputError, HttpAgent, HttpAgentClient
from sitbench.agents._loader import (
    AGENT_ENTRY_POINTS,
    AGENTS,
    LoadedAgent,
    check_agent,
    exit_text,
    load_agent,
    make_agent,
)
from sitbench.agents._models import (
    AGENT_SCHEMAS,
    Ack,
    AgentFailure,
    AgentInfo,
    AgentManifest,
    AgentReply,
    AgentSubject,
    AgentTrialRecord,
    AgentTurn,
    FaultRequest,
    ForkRequest,
    IngestReport,
    IngestRequest,
    MemoryOp,
    MemoryOperation,
    RespondRequest,
    StatePolicy,
    StateRequest,
    TickReply,
    TickRequest,
    TokenUsage,
    Transport,
)
from sitbench.agents._protocol import Agent, AgentFactory, ForkableAgent, agent_info
from sitbench.agents._reply import ACCEPTED_REPLY_FORMS, normalize_reply

#: Reference agents over a candidate model (``--agent sitbench.agents:NAME --agent-option model=SPEC``),
#: imported on first use: they pull in the prompt builders and the retriever.
REFERENCE_AGENTS = ("full_context", "rag", "filtered_rag", "structured_state", "mediated_state", "reference")


def __getattr__(name: str) -> object:
    if name in REFERENCE_AGENTS or name == "ReferenceAgent":
        from sitbench.agents import _reference

        return getattr(_reference, name)
    raise AttributeError(f"module 'sitbench.agents' has no attribute {name!r}")

__all__ = [
    "ACCEPTED_REPLY_FORMS",
    "AGENTS",
    "AGENT_ENTRY_POINTS",
    "AGENT_SCHEMAS",
    "REFERENCE_AGENTS",
    "Ack",
    "Agent",
    "AgentFactory",
    "AgentFailure",
    "AgentInfo",
    "AgentManifest",
    "AgentOutputError",
    "AgentReply",
    "AgentSubject",
    "AgentTrialRecord",
    "AgentTurn",
    "FaultRequest",
    "ForkRequest",
    "ForkableAgent",
    "HttpAgent",
    "HttpAgentClient",
    "IngestReport",
    "IngestRequest",
    "LoadedAgent",
    "MemoryOp",
    "MemoryOperation",
    "RespondRequest",
    "StatePolicy",
    "StateRequest",
    "TickReply",
    "TickRequest",
    "TokenUsage",
    "Transport",
    "agent_info",
    "check_agent",
    "exit_text",
    "load_agent",
    "make_agent",
    "normalize_reply",
]
