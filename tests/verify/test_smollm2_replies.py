"""A stored SmolLM2-135M pilot run (all nine configurations), rescored: non-answers satisfy no answer contract.

``data/smollm2_pilot.jsonl`` holds the 198 scored-turn replies of ``local/smollm2`` on the reference
pilot (greedy, 64 new tokens, llama.cpp), each annotated by hand as ``genuine`` (an in-character
attempt at this question) or not (off-topic chatter, AI-assistant disclaimers, echoes of the
prompt or of the evidence records, third-person profile summaries, degenerate loops). The
1.x verifier read many of these non-answers as memories: of the 187 non-answers it found an ANSWER
in 71 and accepted 18 under contracts that require ANSWER with a claim; under B and I SmolLM2
scored exactly the collapse mock's A_pos and LAA.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitbench.data import pilot_content
from sitbench.schema import Act
from sitbench.verify import Judge

DATA = Path(__file__).parent / "data" / "smollm2_pilot.jsonl"
REPLIES = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]

#: Non-genuine replies the rule extractor still accepts, with the reason (strict expected failures).
#: (sitbench-rules/3.0 reads "Moved back to Cork and returned to St. Finbarr's" as a move elsewhere, not as going
#: along with the Lisbon premise: none is left.)
KNOWN: dict[str, str] = {}


ANSWER_CONTRACTS = {p.probe_id for p in pilot_content().probes
                    if Act.ANSWER in p.contract.required_acts and any(c.polarity for c in p.contract.required_claims)}


def test_the_stored_run_is_complete() -> None:
    assert len(REPLIES) == 198
    assert {r["config"] for r in REPLIES} == set("ABCDEFGHI")
    assert all(isinstance(r["genuine"], bool) and r["note"] for r in REPLIES)
    assert sum(not r["genuine"] for r in REPLIES) > 150, "SmolLM2-135M mostly does not answer in character"


NON_ANSWERS = [r for r in REPLIES if not r["genuine"]]


@pytest.mark.parametrize("reply", [
    pytest.param(r, id=r["trial_id"], marks=[pytest.mark.xfail(strict=True, reason=KNOWN[r["trial_id"]])]
                 if r["trial_id"] in KNOWN else []) for r in NON_ANSWERS if r["probe_id"] in ANSWER_CONTRACTS])
def test_a_non_answer_satisfies_no_answer_contract(judge: Judge, reply: dict[str, object]) -> None:
    """On every probe whose contract requires ANSWER with a positive claim, a non-answer is invalid."""
    probe_id = str(reply["probe_id"])
    result = judge.judge(probe_id, str(reply["response"]))
    assert not result.verdict.valid, f"{reply['response']!r} satisfies {probe_id}'s answer contract"


#: Signals that say a reply does not answer as the identity.
NOT_ANSWERING = {"no_engagement", "no_act", "record_dump", "assistant_voice", "echo_masked", "repetition"}


def test_non_answers_adopt_nothing_and_answer_nothing(judge: Judge) -> None:
    """Across the non-answers, almost nothing is read as an answer, and the readings say why they are not one."""
    answered = adopted = flagged = 0
    for reply in NON_ANSWERS:
        observation = judge.extract(str(reply["probe_id"]), str(reply["response"]))
        answered += Act.ANSWER in observation.acts
        adopted += "premise_adopted" in observation.confidence.signals
        flagged += bool(NOT_ANSWERING & set(observation.confidence.signals))
    # sitbench-rules/2.1: 14 of 187 read as answering, 11 as adopting a premise (2.0: 12, 11). The confidence level
    # no longer marks a non-answer as such: it ranks readings by the modelled chance of a wrong verdict, and the
    # verdict on a non-answer (invalid) is rarely wrong; the signals still say what kind of reply it is (3.0: 184).
    assert answered <= 0.08 * len(NON_ANSWERS), answered
    assert adopted <= 0.07 * len(NON_ANSWERS), adopted
    assert flagged >= 0.9 * len(NON_ANSWERS), flagged
