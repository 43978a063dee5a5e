"""An adapter for mem0 (`pip install mem0ai`), offline: sitbench's MiniLM embeddings, a local Qdrant store.

    sitbench run data/pilot --agent examples/mem0_agent.py:make --out runs/mem0

Every record is stored with `Memory.add(..., infer=False)` (no LLM needed) under the subject's key, with
its date and disclosure tier as metadata; an answer is the best `Memory.search` hit dated on or before the
turn that the speaker may hear, and every exchange is added back as a new memory. `fork()` is copy on
write: a fork searches the ingested memories and writes only under its own run id.
"""

import atexit
import logging
import os
import shutil
import tempfile
import uuid

os.environ.setdefault("MEM0_TELEMETRY", "False")
# mem0 keeps a local store of its own under MEM0_DIR that only one process may open: one per process.
if "MEM0_DIR" not in os.environ:
    os.environ["MEM0_DIR"] = tempfile.mkdtemp(prefix="sitbench-mem0-home-")
    atexit.register(shutil.rmtree, os.environ["MEM0_DIR"], ignore_errors=True)
logging.getLogger("mem0").setLevel(logging.ERROR)  # optional NLP extras it reports missing are not used here

RANK = {"public": 0, "acquaintance": 1, "colleague": 2, "confidant": 3, "self": 4}
_MEMORY = {}


class _MiniLM:
    """mem0's embedder interface over sitbench's offline all-MiniLM-L6-v2 (384-d)."""

    def __init__(self):
        from sitbench.configs import MiniLMEmbedder

        self.model = MiniLMEmbedder()

    def embed(self, text, memory_action=None):
        return [float(x) for x in self.model.embed([text])[0]]


def memory():
    """One mem0 `Memory` per process, in a temporary local Qdrant store."""
    if "m" not in _MEMORY:
        from mem0 import Memory

        root = tempfile.mkdtemp(prefix="sitbench-mem0-")
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        unused = {"api_key": "unused"}  # mem0 builds an LLM client it never calls with infer=False
        _MEMORY["m"] = Memory.from_config({
            "vector_store": {"provider": "qdrant", "config": {"collection_name": "sitbench", "path": root,
                                                              "embedding_model_dims": 384, "on_disk": False}},
            "llm": {"provider": "openai", "config": {**unused, "model": "unused"}},
            "embedder": {"provider": "openai", "config": {**unused, "embedding_dims": 384}},
            "history_db_path": os.path.join(root, "history.db")})
        _MEMORY["m"].embedding_model = _MiniLM()
        atexit.register(_MEMORY["m"].vector_store.client.close)  # before interpreter teardown, not during
    return _MEMORY["m"]


class Mem0Agent:
    def __init__(self, scopes=()):
        self.scopes = list(scopes)  # run ids searched: the ingested one, then this state's own
        self.user = ""
        self.relationships = []

    def describe(self):
        import mem0

        return {"name": "mem0", "version": getattr(mem0, "__version__", ""), "supports_fork": True}

    def _add(self, text, t, tier):
        memory().add(text, user_id=self.user, run_id=self.scopes[-1], infer=False,
                     metadata={"t": str(t), "tier": tier})

    async def ingest(self, subject):
        self.user, self.relationships = subject.subject_key, subject.evidence.relationships
        self.scopes = [f"ingest-{uuid.uuid4().hex[:12]}"]
        for r in subject.evidence.records:
            self._add(r.text, r.t, r.disclosure.value)
        return {"memory_ops": [{"op": "add", "count": len(subject.evidence.records), "detail": "mem0 infer=False"}]}

    async def fork(self):
        child = Mem0Agent([*self.scopes, f"fork-{uuid.uuid4().hex[:12]}"])
        child.user, child.relationships = self.user, self.relationships
        return child

    async def respond(self, turn):
        cleared = 0
        for rel in self.relationships:
            if rel.interlocutor_id == turn.interlocutor.interlocutor_id:
                versions = [v for v in rel.versions if v.t <= turn.date]
                cleared = RANK[versions[-1].clearance.value] if versions else 0
        hits = [h for scope in self.scopes for h in memory().search(
            turn.utterance, filters={"user_id": self.user, "run_id": scope}, top_k=20)["results"]]
        usable = [h for h in hits if h["metadata"]["t"] <= turn.date.isoformat()
                  and RANK[h["metadata"]["tier"]] <= cleared]
        best = max(usable, key=lambda h: h["score"], default=None)
        self._add(f"{turn.interlocutor.description} said: {turn.utterance}", turn.date, "public")
        text = (f"From what I remember: {best['memory']}" if best and best["score"] >= 0.4
                else "I don't remember anything like that.")
        return {"text": text, "memory_ops": [{"op": "search", "count": len(hits)}, {"op": "add"}]}

    async def end_session(self):
        pass  # mem0 holds no conversation context; what was said is already in memory


def make():
    return Mem0Agent()
