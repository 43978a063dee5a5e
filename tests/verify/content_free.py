"""A battery of replies that do not answer the question asked: no contract that requires a claim may accept one.

Kinds (each a function of the probe's question, so every probe gets every kind):

- ``nonsense``: seeded random letter strings;
- ``small_talk``: off-topic pleasantries, the same for every question;
- ``echo``: the question repeated back;
- ``assistant``: fixed assistant sentences that could follow any message;
- ``mockllm``: Inspect's mock model's constant reply;
- ``smollm2``: SmolLM2-135M's non-answers from a stored run (``data/smollm2_pilot.jsonl``, those annotated as
  not genuine);
- ``other_domain``: a substantive, correct-sounding personal answer to a question of another domain.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

DATA = Path(__file__).parent / "data"

SMALL_TALK = (
    "I like turtles.",
    "Lovely weather we're having, isn't it? I might go for a walk later.",
    "Did you catch the match last night? What a finish!",
    "I've been meaning to repaint the kitchen. Any colour ideas?",
)
ASSISTANT = (
    "Sure! Here is the answer to your question.",
    "As an AI language model, I don't have personal experiences, but I'm happy to help with anything else.",
    "I'm here to help! Let me know if you have any other questions.",
    "That's a great question. There are many factors to consider.",
)
MOCKLLM = "Default output from mockllm/model"
#: Personal answers to questions of one domain, given to questions of the others.
OTHER_DOMAIN = {
    "nickname": "We ended up calling it Bluefin, after a long argument over coffee.",
    "belief": "Honestly, I think zoos are outdated and I've thought so for years.",
    "plan": "I'm still saving up for the narrowboat; hopefully next spring.",
    "knowledge": "The Doppler effect makes a siren sound higher as it approaches and lower as it moves away.",
}
_DOMAIN_WORDS = {"nickname": ("call", "name"), "belief": ("view", "think", "stand", "make of", "changed"),
                 "plan": ("plan", "going", "news", "progress", "set on", "true", "heard", "mentioned",
                          "still thinking about", "still considering", "still keen on"),
                 "knowledge": ("explain", "walk me through", "studied", "know a lot")}


def smollm2_non_answers() -> list[str]:
    """SmolLM2's replies from the stored pilot run that annotators marked as not genuine answers."""
    rows = [json.loads(line) for line in (DATA / "smollm2_pilot.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return sorted({r["response"] for r in rows if not r["genuine"]})


def nonsense(rng: random.Random, words: int = 6) -> str:
    """Random lower-case letter strings."""
    return " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
                    for _ in range(words)) + "."


def replies(question: str, seed: int, smollm2: list[str]) -> Iterator[tuple[str, str]]:
    """Every (kind, reply) of the battery for one question."""
    rng = random.Random(f"{seed}:{question}")
    for _ in range(2):
        yield "nonsense", nonsense(rng)
    for text in SMALL_TALK:
        yield "small_talk", text
    yield "echo", question
    yield "echo", f"{question} {question}"
    for text in ASSISTANT:
        yield "assistant", text
    yield "mockllm", MOCKLLM
    for text in rng.sample(smollm2, min(3, len(smollm2))):
        yield "smollm2", text
    lowered = question.lower()
    for domain, text in OTHER_DOMAIN.items():
        if not any(w in lowered for w in _DOMAIN_WORDS[domain]):
            yield "other_domain", text
