"""Hashes of the rule extractor's observations over a few thousand varied inputs (``data/extract_hashes.json.gz``).

A differential guard for restructuring ``sitbench.verify._extract``: every corpus response is read against its
own probe, against two other probes of its dataset (seeded), and in three rewritten forms (lower case, the
first half, sentences reversed), and the JSON of each observation is hashed. A refactor that changes no reading
reproduces every hash (``test_extract_differential.py``). Regenerate only with a RULES_VERSION bump:
``python tests/verify/make_extract_fixture.py``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent / "corpus"))
import corpus_tool

from sitbench.verify import RULES_VERSION
from sitbench.verify._extract import extract

FIXTURE = Path(__file__).parent / "data" / "extract_hashes.json.gz"
FORMAT = 1


def _variants(text: str) -> list[str]:
    sentences = [s for s in text.replace("!", ".").split(". ") if s]
    return [text, text.lower(), text[: len(text) // 2], ". ".join(reversed(sentences))]


def inputs() -> Iterator[tuple[str, Any, Any, str]]:
    """(label, envelope, vocabulary, text) for every input of the fixture, in a fixed order."""
    rng = random.Random(20261203)
    cases = corpus_tool.load_corpus("all")
    probes_of: dict[str, list[str]] = {}
    for case in cases:
        judge = corpus_tool.judge_for(case["dataset"])
        if case["dataset"] not in probes_of:
            probes_of[case["dataset"]] = sorted(judge.hidden.probes)
        others = rng.sample(probes_of[case["dataset"]], 2)
        for k, probe_id in enumerate([case["probe_id"], *others]):
            envelope = judge.envelope(judge.probe(probe_id))
            vocabulary = judge.vocabulary(envelope)
            texts = _variants(case["response"]) if k == 0 else [case["response"]]
            for v, text in enumerate(texts):
                yield f"{case['id']}/{probe_id}/{v}", envelope, vocabulary, text


def digest(observation: Any) -> str:
    return hashlib.sha256(observation.model_dump_json().encode()).hexdigest()[:16]


def compute() -> dict[str, str]:
    return {label: digest(extract(text, env, vocab)) for label, env, vocab, text in inputs()}


def main() -> None:
    hashes = compute()
    payload = json.dumps({"format": FORMAT, "rules_version": RULES_VERSION, "hashes": hashes}, sort_keys=True)
    FIXTURE.write_bytes(gzip.compress(payload.encode(), compresslevel=9, mtime=0))
    print(f"{len(hashes)} observations hashed -> {FIXTURE.name}")


if __name__ == "__main__":
    main()
