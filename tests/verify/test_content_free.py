"""No credit without engagement: replies that do not answer the question satisfy no contract that requires a claim.

The battery (``content_free.py``: nonsense, small talk, echoes, stock assistant sentences, Inspect's mockllm
reply, SmolLM2's non-answers, answers to questions of another domain) runs over every probe of the pilot and
of a generated development suite with the rule extractor, and over every pilot probe through the LLM
extractor, replaying blind readings of the same prompts (``corpus/blind/battery-sitbench-llm-3.jsonl``).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from content_free import replies, smollm2_non_answers

from sitbench.data import generate_content, write_dataset
from sitbench.errors import ReadingUnavailable
from sitbench.verify import Judge, get_extractor, load_judge
from sitbench.verify._llm import PROMPT_VERSION

BATTERY_READINGS = Path(__file__).parent / "corpus" / "blind" / "battery-sitbench-llm-3.jsonl"


def _accepted(judge: Judge) -> tuple[int, Counter[str]]:
    smollm2 = smollm2_non_answers()
    tried, accepted = 0, Counter[str]()
    for probe in sorted(judge.hidden.probes.values(), key=lambda p: p.probe_id):
        if not probe.contract.required_claims:
            continue
        for kind, reply in replies(judge.envelope(probe).utterance, 0, smollm2):
            tried += 1
            if judge.judge(probe.probe_id, reply).verdict.valid:
                accepted[f"{kind} on {probe.probe_id} ({probe.category.value}): {reply[:60]!r}"] += 1
    return tried, accepted


def test_no_content_free_reply_passes_on_the_pilot(pilot: Path) -> None:
    tried, accepted = _accepted(load_judge(pilot))
    assert tried >= 300
    assert not accepted, sorted(accepted)


def test_no_content_free_reply_passes_on_a_generated_suite(tmp_path: Path) -> None:
    root = tmp_path / "dev-seed2"
    write_dataset(generate_content("dev", 2), root)
    tried, accepted = _accepted(load_judge(root))
    assert tried >= 20_000
    assert not accepted, sorted(accepted)[:20]


def test_no_content_free_reply_passes_through_the_llm_extractor(pilot: Path) -> None:
    rows = [json.loads(line) for line in BATTERY_READINGS.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert rows and {r["prompt_version"] for r in rows} == {PROMPT_VERSION}
    base = load_judge(pilot)
    extractor = get_extractor(f"llm:replay/{BATTERY_READINGS}")
    judge = Judge(base.hidden, base.queries, extractor=extractor)
    accepted, unread = [], []
    for row in rows:
        try:
            got = judge.judge(row["probe_id"], row["reply"])
        except ReadingUnavailable:
            # An answer that breaks the output schema is re-asked, and the replay holds no second answer:
            # such a reply is unread (unscored), never accepted.
            unread.append(row)
            continue
        if got.verdict.valid:
            accepted.append((row["kind"], row["probe_id"], row["reply"][:60]))
    assert all("schema_error" in row for row in unread), "every reading is replayed against the prompt it was made for"
    assert len(rows) >= 250
    assert not accepted, accepted


@pytest.mark.parametrize("question", ["When did you join Brightwater Systems?", "What brought you to Kyoto?",
                                      "Has your view on zoos changed?"])
def test_the_battery_covers_every_kind(question: str) -> None:
    kinds = {kind for kind, _ in replies(question, 0, smollm2_non_answers())}
    assert {"nonsense", "small_talk", "echo", "assistant", "mockllm", "smollm2"} <= kinds
