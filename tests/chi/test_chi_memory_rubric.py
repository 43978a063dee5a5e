"""The §3 scoring rules of the memory panel, with hand-computed cases.

* abstaining on a known item scores zero (r, t, s, u, i);
* only a valid explicit abstention passes an absent lure;
* invalid/timeout is its own outcome, and on lures it is counted in f (f = f_raw + invalid_lure_rate);
* correct content with the wrong provenance fails s.
"""

from __future__ import annotations

import pytest

from sitbench.chi import AnswerKey, MemoryPoint, Outcome, false_memory_rates, lure_counts, parse_reply, q_m, score_reply
from sitbench.chi._memory_rubric import answer_schema, invalid, normalize

KNOWN = AnswerKey(answer="QX-48211")
SOURCE = AnswerKey(answer="QX-48211", source="S-4f2a")
LURE = AnswerKey(abstain=True)
UNRESOLVED = AnswerKey(unresolved=True)
M4 = AnswerKey(answer="QX-48211", sources=("S-0001", "S-0002"), status="observed")


def outcome(key: AnswerKey, text: str | None) -> Outcome:
    return score_reply(key, parse_reply(text))


@pytest.mark.parametrize("text", [
    '{"abstain": false, "answer": "QX-48211"}',
    '  {"abstain": false, "answer": "qx-48211."}  ',  # case, spaces and one full stop are ignored
    '```json\n{"abstain": false, "answer": "QX-48211"}\n```',
    '{"abstain": false, "answer": "\\"QX-48211\\""}',
])
def test_known_item_exact_answer_passes(text: str) -> None:
    assert outcome(KNOWN, text) is Outcome.CORRECT


def test_abstaining_on_a_known_item_scores_zero() -> None:
    assert outcome(KNOWN, '{"abstain": true, "answer": null}') is Outcome.ABSTAIN
    assert not Outcome.ABSTAIN.success


@pytest.mark.parametrize("text,reason", [
    (None, "no reply"),
    ("The locker code is QX-48211.", "not one JSON object"),
    ('{"abstain": false, "answer": "QX-48211"} and more', "not one JSON object"),
    ('["QX-48211"]', "not a JSON object"),
    ('{"answer": "QX-48211"}', "abstain"),
    ('{"abstain": "no", "answer": "QX-48211"}', "abstain"),
    ('{"abstain": true, "answer": "QX-48211"}', "abstains and answers"),
    ('{"abstain": false, "answer": null}', "neither abstains nor answers"),
    ('{"abstain": false, "answer": "   "}', "neither abstains nor answers"),
    ('{"abstain": false, "answer": true}', "not a string"),
])
def test_malformed_or_contradictory_replies_are_invalid(text: str | None, reason: str) -> None:
    parsed = parse_reply(text)
    assert not parsed.valid and reason in (parsed.error or "")
    assert score_reply(KNOWN, parsed) is Outcome.INVALID
    assert score_reply(LURE, parsed) is Outcome.INVALID


def test_timeouts_and_agent_errors_are_invalid_outcomes() -> None:
    assert score_reply(KNOWN, invalid("timeout after 60 s")) is Outcome.INVALID
    assert score_reply(LURE, invalid("agent error: RuntimeError()")) is Outcome.INVALID


def test_only_valid_explicit_abstention_passes_a_lure() -> None:
    assert outcome(LURE, '{"abstain": true, "answer": null}') is Outcome.PASS
    assert outcome(LURE, '{"abstain": true}') is Outcome.PASS
    assert outcome(LURE, '{"abstain": false, "answer": "QX-48211"}') is Outcome.UNSUPPORTED
    assert outcome(LURE, '{"abstain": false, "unresolved": true, "answer": null}') is Outcome.UNSUPPORTED
    # "I don't know" in prose is not an explicit abstention: it is invalid, and counted in f
    assert outcome(LURE, "I don't know.") is Outcome.INVALID
    assert outcome(LURE, '{"answer": null}') is Outcome.INVALID


def test_correct_content_with_wrong_provenance_fails_s() -> None:
    assert outcome(SOURCE, '{"abstain": false, "answer": "QX-48211", "source": "S-4f2a"}') is Outcome.CORRECT
    assert outcome(SOURCE, '{"abstain": false, "answer": "QX-48211", "source": "S-9999"}') is Outcome.WRONG
    assert outcome(SOURCE, '{"abstain": false, "answer": "QX-48211"}') is Outcome.WRONG
    assert outcome(SOURCE, '{"abstain": false, "answer": "QX-00000", "source": "S-4f2a"}') is Outcome.WRONG


def test_source_set_and_status_must_both_be_exact() -> None:
    ok = '{"abstain": false, "answer": "QX-48211", "sources": ["S-0002", "S-0001"], "status": "observed"}'
    assert outcome(M4, ok) is Outcome.CORRECT
    assert outcome(M4, ok.replace('"S-0002", ', "")) is Outcome.WRONG
    assert outcome(M4, ok.replace("observed", "hypothesis")) is Outcome.WRONG
    assert outcome(M4, '{"abstain": false, "answer": "QX-48211", "sources": "S-0001, S-0002", "status": "Observed"}') \
        is Outcome.CORRECT


def test_unresolved_is_an_explicit_answer_not_an_abstention() -> None:
    assert outcome(UNRESOLVED, '{"abstain": false, "unresolved": true, "answer": null}') is Outcome.CORRECT
    assert outcome(UNRESOLVED, '{"abstain": true, "unresolved": false, "answer": null}') is Outcome.ABSTAIN
    assert outcome(UNRESOLVED, '{"abstain": false, "unresolved": false, "answer": "QX-1"}') is Outcome.WRONG
    assert outcome(KNOWN, '{"abstain": false, "unresolved": true, "answer": "QX-48211"}') is Outcome.WRONG


def test_f_f_raw_and_invalid_lure_rate_hand_computed() -> None:
    # 40 lures: 6 unsupported affirmatives, 4 invalid/timeouts, 30 valid abstentions.
    outcomes = [Outcome.UNSUPPORTED] * 6 + [Outcome.INVALID] * 4 + [Outcome.PASS] * 30
    assert lure_counts(outcomes) == (6, 4, 40)
    rates = false_memory_rates(outcomes)
    assert rates["f_raw"] == pytest.approx(6 / 40) and rates["invalid_lure_rate"] == pytest.approx(4 / 40)
    assert rates["f"] == pytest.approx(0.25)  # = f_raw + invalid_lure_rate, a conservative penalty
    point = MemoryPoint.from_counts(r=(40, 40), t=(40, 40), s=(40, 40), u=(40, 40), i=(40, 40), lures=lure_counts(outcomes))
    assert point.f == pytest.approx(0.25) and point.f_raw == pytest.approx(0.15)
    assert q_m(point) == pytest.approx(0.75 ** (1 / 6))
    assert false_memory_rates([]) == {"f": None, "f_raw": None, "invalid_lure_rate": None}


def test_a_stratum_of_forty_hand_computed() -> None:
    # r: 30 correct, 5 wrong, 3 abstained, 2 invalid -> r = 30/40; abstentions and invalid score zero.
    outcomes = [Outcome.CORRECT] * 30 + [Outcome.WRONG] * 5 + [Outcome.ABSTAIN] * 3 + [Outcome.INVALID] * 2
    assert sum(o.success for o in outcomes) / len(outcomes) == 0.75


def test_normalize_and_schema() -> None:
    assert normalize("  'QX-48211'. ") == "qx-48211"
    assert normalize(None) is None
    schema = answer_schema(("abstain", "answer", "source"))
    abstain, answer = schema["anyOf"]
    assert abstain["required"] == answer["required"] == ["abstain", "answer", "source"]
    assert abstain["properties"]["abstain"] == {"const": True} and abstain["properties"]["answer"] == {"type": "null"}
    assert answer["properties"]["abstain"] == {"const": False} and answer["additionalProperties"] is False
    assert len(answer_schema(("abstain", "unresolved", "answer"))["anyOf"]) == 3
