"""A keyword-search memory baseline for `sitbench run DATASET --agent examples/keyword_agent.py:make`.

No model: it answers with the best-matching record it may use on the turn's date and may share with
the speaker, and it remembers what was said to it across sessions (its own memory, kept by end_session).
"""

import re

RANK = {"public": 0, "acquaintance": 1, "colleague": 2, "confidant": 3, "self": 4}
STOP = {"what", "when", "where", "which", "your", "you", "did", "the", "and", "that", "this", "with", "from"}


def words(text):
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in STOP}


class KeywordAgent:
    def __init__(self):
        self.records, self.relationships, self.context = [], [], []

    async def ingest(self, subject):
        evidence = subject.evidence
        self.records = [(r.t, r.text, r.disclosure.value) for r in evidence.records]
        self.relationships = evidence.relationships
        return {"memory_ops": [{"op": "add", "count": len(self.records)}]}

    async def respond(self, turn):
        clearance = 0
        for rel in self.relationships:
            if rel.interlocutor_id == turn.interlocutor.interlocutor_id:
                versions = [v for v in rel.versions if v.t <= turn.date]
                clearance = RANK[versions[-1].clearance.value] if versions else 0
        asked = words(turn.utterance)
        usable = [(len(asked & words(text)), text) for t, text, tier in self.records
                  if t <= turn.date and RANK[tier] <= clearance]
        score, best = max(usable, default=(0, ""))
        # What was said to it is new experience: keep it as a record the speaker may hear again.
        self.records.append((turn.date, f"{turn.interlocutor.description} said: {turn.utterance}", "public"))
        self.context.append(turn.utterance)
        text = f"From what I remember: {best}" if score >= 2 else "I don't remember anything like that."
        return {"text": text, "memory_ops": [{"op": "search", "count": len(usable)}, {"op": "add"}]}

    async def end_session(self):
        self.context = []

    def describe(self):
        return {"name": "keyword-baseline", "version": "1"}


def make():
    return KeywordAgent()
