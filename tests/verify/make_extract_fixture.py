"""Hashes of the rule extractor's observations over a few thousand varied inputs (``data/extract_hashes.json.gz``).

A differential guard for restructuring ``sitbench.verify._extract``: every corpus response is read against its
own probe, against two other probes of its dataset (seeded), and in three rewritten forms (lower case, the
first half, sentences reversed). Two hashes are kept per input: the JSON of the reading (the observation without
its confidence: what the scorer reads) and the JSON of its confidence. A refactor that changes no reading
reproduces every hash (``test_extract_differential.py``). Regenerate (``python tests/verify/make_extract_fixture.py``)
with a RULES_VERSION bump, or when only the confidence model changed: then every reading hash must come out as
before (the script says how many changed), since confidence is no part of any verdict.
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
FORMAT = 2
"""Layout: 1 hashed the whole observation; 2 hashes the reading and the confidence apart."""


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


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def digest(observation: Any) -> tuple[str, str]:
    """Hashes of the reading (the observation without its confidence) and of the confidence."""
    return _hash(observation.model_dump_json(exclude={"confidence"})), _hash(observation.confidence.model_dump_json())


def compute() -> dict[str, dict[str, str]]:
    """``{"reading": {label: hash}, "confidence": {label: hash}}`` over every input."""
    out: dict[str, dict[str, str]] = {"reading": {}, "confidence": {}}
    for label, env, vocab, text in inputs():
        out["reading"][label], out["confidence"][label] = digest(extract(text, env, vocab))
    return out


def main() -> None:
    hashes = compute()
    if FIXTURE.exists():
        before = json.loads(gzip.decompress(FIXTURE.read_bytes()))
        if before.get("format") == FORMAT and before["rules_version"] == RULES_VERSION:
            changed = sum(before["hashes"]["reading"].get(k) != v for k, v in hashes["reading"].items())
            print(f"{changed} readings changed under the same rules version {RULES_VERSION}"
                  + (": bump RULES_VERSION" if changed else ""))
    payload = json.dumps({"format": FORMAT, "rules_version": RULES_VERSION, "hashes": hashes}, sort_keys=True)
    FIXTURE.write_bytes(gzip.compress(payload.encode(), compresslevel=9, mtime=0))
    print(f"{len(hashes['reading'])} observations hashed -> {FIXTURE.name}")


if __name__ == "__main__":
    main()
