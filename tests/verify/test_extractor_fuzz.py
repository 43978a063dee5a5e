"""Property-based fuzzing: the extractors are total (and the rule extractor deterministic) on arbitrary text."""

from __future__ import annotations

import json

from fake_candidate import FakeCandidate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitbench.errors import ReadingUnavailable
from sitbench.schema import ConfidenceLevel
from sitbench.verify import Judge
from sitbench.verify._llm import LLMExtractor

_words = st.sampled_from(["I", "never", "lived", "in", "Kyoto", "not", "you", "said", "Paris", "?", ".", ",",
                          "but", "lattice", "\n- ", "'Bluefin'", "<p>", "**", "no", "yes", "there", "used to",
                          "phones", "banned", "🙂", "ñ", "\u200b", "if I had"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=400))
def test_random_unicode(judge: Judge, text: str) -> None:
    first = judge.extract("PR-21", text)
    assert first == judge.extract("PR-21", text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_words, max_size=60).map(" ".join))
def test_random_sentences(judge: Judge, text: str) -> None:
    observation = judge.extract("PR-01", text)
    for claim in observation.claims:
        assert 0 <= claim.span[0] <= claim.span[1] <= len(text)
    judge.score_observation("PR-01", observation)


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                     max_leaves=12)
_near_valid = st.fixed_dictionaries({
    "acts": st.lists(st.sampled_from(["ANSWER", "REJECT", "ABSTAIN", "DANCE", ""]), max_size=4),
    "claims": st.lists(st.fixed_dictionaries({"item": st.integers(-3, 80), "polarity": st.booleans() | st.just("yes"),
                                              "provenance": st.sampled_from(["acquired", "told_by", "psychic"])}),
                       max_size=4),
    "unmapped": st.lists(st.fixed_dictionaries({"slot": st.none() | st.sampled_from(["hometown", "moon"]),
                                                "value": st.text(max_size=20), "polarity": st.booleans(),
                                                "provenance": st.just("unspecified")}), max_size=2),
    "uncertainty": st.sampled_from(["none", "hedged", "very"]),
    "withheld": st.booleans(),
}).map(json.dumps)
_garbage = st.none() | st.text(max_size=200) | _json.map(json.dumps) | _near_valid


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300), st.lists(_garbage, min_size=1, max_size=3))
def test_llm_extractor_reads_garbage_or_says_it_could_not(judge: Judge, text: str, answers: list[str | None]) -> None:
    """Whatever the model answers, the extractor returns a valid observation or raises ReadingUnavailable (the
    trial is then unscored), never anything else: garbage is never read as an empty, failing observation."""
    fake = FakeCandidate(*answers)
    extractor = LLMExtractor("fake/garbage", candidate=fake, cache=False)
    try:
        envelope = judge.envelope(judge.probe("PR-01"))
        observation = extractor.extract(text, envelope, judge.vocabulary(envelope))
    except ReadingUnavailable as exc:
        assert str(exc).startswith("extractor unavailable: llm:fake/garbage")
        assert 1 <= len(fake.requests) <= 3
        return
    finally:
        extractor.close()
    assert observation.extractor == "llm" and 1 <= len(fake.requests) <= 3
    assert observation.confidence.level is not ConfidenceLevel.LOW
    for claim in observation.claims:
        assert 0 <= claim.span[0] <= claim.span[1] <= len(text)
    judge.score_observation("PR-01", observation)
