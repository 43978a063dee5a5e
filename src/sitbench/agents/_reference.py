"""Reference agents: the paper's evidence architectures as agents over any candidate model.

Each one keeps the ingested evidence as its memory and, for every turn, builds the prompt of one
configuration (D full chronicle, E dense retrieval, F date-filtered retrieval, G structured state,
H state with mediation) from that memory and the turn alone, then asks the candidate. Its own
conversations are its new experience: ``end_session`` writes the session into memory as a
``session`` record (the configurations' declared state-write), so a later session can recall it.

    sitbench run data/pilot --agent sitbench.agents:structured_state --agent-option model=local/smollm2 --out R
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from sitbench.agents._models import (
    AgentInfo,
    AgentReply,
    AgentSubject,
    AgentTurn,
    IngestReport,
    MemoryOp,
    MemoryOperation,
    TokenUsage,
)
from sitbench.candidates import (
    Candidate,
    CandidateRequest,
    DecodingConfig,
    Message,
    PromptView,
    get_candidate,
)
from sitbench.configs import BuildContext, ChronicleRetriever, build_prompt
from sitbench.errors import InputError
from sitbench.schema import (
    EventKind,
    EvidenceRecord,
    Provenance,
    Query,
    SubjectEvidence,
    Tier,
    Turn,
)

_RETRIEVERS: dict[str, ChronicleRetriever] = {}


def _retriever() -> ChronicleRetriever:
    # One per process: indexes and the embedder are shared by every agent of a run.
    if "shared" not in _RETRIEVERS:
        from sitbench.candidates import default_cache_dir

        _RETRIEVERS["shared"] = ChronicleRetriever(cache_dir=default_cache_dir() / "embeddings")
    return _RETRIEVERS["shared"]


class ReferenceAgent:
    """Configuration ``config``'s evidence handling around ``candidate``, as an :class:`Agent`."""

    def __init__(self, config: str, candidate: Candidate, model: str, decoding: DecodingConfig) -> None:
        self.config = config
        self.candidate = candidate
        self.model = model
        self.decoding = decoding
        self.subject: SubjectEvidence | None = None
        self.turns: list[Turn] = []
        self.conversation: list[Message] = []
        self.replies: list[tuple[AgentTurn, str]] = []
        self.history: list[dict[str, str]] = []
        self.session_view: PromptView = {}
        self.key = ""

    def describe(self) -> AgentInfo:
        return AgentInfo(name=f"reference-{self.config}", version="1", model=self.model, supports_fork=True)

    async def ingest(self, subject: AgentSubject) -> IngestReport:
        self.subject = subject.evidence
        self.key = subject.subject_key
        return IngestReport(memory_ops=[MemoryOperation(op=MemoryOp.ADD, count=len(subject.evidence.records))])

    async def fork(self) -> ReferenceAgent:
        # Evidence is immutable (frozen models), so a fork shares it until its own session write.
        child = ReferenceAgent(self.config, self.candidate, self.model, self.decoding)
        child.subject, child.key = self.subject, self.key
        return child

    def _query(self, turn: AgentTurn) -> Query:
        return Query(query_key="q", subject=self.key, tau=turn.date, interlocutor=turn.interlocutor,
                     capability=turn.capability, turns=[*self.turns, Turn(session=turn.session, t=turn.date,
                                                                          utterance=turn.utterance)])

    async def respond(self, turn: AgentTurn) -> AgentReply:
        if self.subject is None:
            raise RuntimeError("respond before ingest")
        query = self._query(turn)
        index = len(query.turns) - 1
        ops: list[MemoryOperation] = []
        if not self.conversation:
            context = BuildContext(retriever=_retriever() if self.config in "EF" else None)
            build = build_prompt(self.config, self.subject, query, index, context)
            messages, view = build.messages, build.view
            self.session_view = view
            ops.append(MemoryOperation(op=MemoryOp.SEARCH, count=build.evidence_count, detail=self.config))
        else:
            # Later turns of a session replay the conversation, as the configurations' runner does.
            messages = [*self.conversation, Message(role="user", content=turn.envelope)]
            view = {**self.session_view, "utterance": turn.utterance, "tau": turn.date.isoformat(),
                                "history": list(self.history)}
        response = await self.candidate.complete(CandidateRequest(trial_id=f"agent-{uuid.uuid4().hex[:8]}",
                                                                  messages=messages, decoding=self.decoding,
                                                                  view=view))
        if response.status == "drop" or response.text is None:
            raise RuntimeError(f"candidate {self.model} dropped the call: {response.drop_reason}")
        self.turns.append(query.turns[-1])
        self.conversation = [*messages, Message(role="assistant", content=response.text)]
        self.history.append({"user": messages[-1].content, "assistant": response.text})
        self.replies.append((turn, response.text))
        usage = TokenUsage(prompt_tokens=response.usage.get("prompt_tokens", 0),
                           completion_tokens=response.usage.get("completion_tokens", 0)) if response.usage else None
        return AgentReply(text=response.text, usage=usage, memory_ops=ops,
                          model=response.returned_model or response.model_sent or None)

    async def end_session(self) -> None:
        if self.subject is None or not self.replies:
            self.conversation, self.history, self.session_view = [], [], {}
            return
        first = self.replies[0][0]
        said = " ".join(f"{t.interlocutor.description} said: {t.utterance} I answered: {r}" for t, r in self.replies)
        record = EvidenceRecord(t=first.date, kind=EventKind.SESSION, text=f"In a conversation, {said}",
                                provenance=Provenance.CONVERSATION, disclosure=Tier.PUBLIC,
                                participants=[first.interlocutor.interlocutor_id], session_id=f"s{len(self.turns)}")
        records = sorted([*self.subject.records, record], key=lambda r: r.t)
        # A new key: the retrieval index is per evidence, and this evidence has one more record.
        self.key = f"{self.key}+{len(records)}"
        self.subject = self.subject.model_copy(update={"records": records, "subject": self.key})
        self.conversation, self.replies, self.history, self.session_view = [], [], [], {}


def _factory(config: str) -> Callable[..., ReferenceAgent]:
    def make(model: str = "", temperature: str = "0", max_tokens: str = "512", seed: str = "0",
             **options: str) -> ReferenceAgent:
        if not model:
            raise InputError(f"the reference agent {config} needs a candidate: add --agent-option model=SPEC "
                             "(e.g. model=mock/oracle or model=local/smollm2)")
        try:
            decoding = DecodingConfig(temperature=float(temperature), max_tokens=int(max_tokens), seed=int(seed))
        except ValueError as exc:
            raise InputError(f"--agent-option temperature/max_tokens/seed: {exc}") from None
        return ReferenceAgent(config, get_candidate(model, **options), model, decoding)

    return make


def reference(config: str = "", **options: str) -> ReferenceAgent:
    """Configuration ``config`` (A–H) as an agent over ``--agent-option model=SPEC``.

    I is not offered: its oracle selection reads the hidden store, which no agent may.
    """
    if config not in _OFFERED:
        raise InputError(f"--agent-option config={config!r}: use one of {', '.join(_OFFERED)} (I selects evidence "
                         "from the hidden store, so it is no agent)")
    return _factory(config)(**options)


_OFFERED = ("A", "B", "C", "D", "E", "F", "G", "H")

full_context = _factory("D")
"""Configuration D as an agent: the whole ingested chronicle in every prompt."""
rag = _factory("E")
"""Configuration E as an agent: top-5 MiniLM retrieval over the whole chronicle."""
filtered_rag = _factory("F")
"""Configuration F as an agent: the same retrieval over records dated on or before the turn."""
structured_state = _factory("G")
"""Configuration G as an agent: the structured state projected to the turn's date."""
mediated_state = _factory("H")
"""Configuration H as an agent: G plus the candidate-side mediation annotation."""
