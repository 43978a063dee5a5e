"""Property-based fuzzing: the extractor is total and deterministic on arbitrary text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitbench.verify import Judge

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
