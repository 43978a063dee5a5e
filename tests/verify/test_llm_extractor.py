"""The gold-blind LLM extractor (``--extractor llm:MODEL``).

Fast tests drive the extractor's logic with a scripted fake candidate (prompt isolation, item
mapping, retries, failures, cache). The slow test runs the real SmolLM2 behind llama_cpp.server
with schema-constrained decoding: plumbing, not accuracy.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fake_candidate import FakeCandidate

from sitbench.candidates import CandidateRequest, CandidateResponse, DecodingConfig, Message, request_key
from sitbench.errors import EXIT_INCOMPLETE, InputError, ReadingUnavailable
from sitbench.lineage import IsolationAudit, IsolationError
from sitbench.schema import Act, ClaimProvenance, ConfidenceLevel, Envelope, UncertaintyLevel
from sitbench.stores import load_dataset
from sitbench.verify import Extractor, Judge, UniversePolicy, get_extractor, load_judge, stamp
from sitbench.verify._llm import (
    API_KEY_ENV_ENV,
    BASE_URL_ENV,
    PROMPT_VERSION,
    LLMExtractor,
    output_schema,
    parse_reading,
    render_prompt,
)

PROBE = "PR-01"
DATA = Path(__file__).parent / "data"


def answer(acts: Sequence[str] = (), claims: Sequence[tuple[int, bool, str]] = (),
           unmapped: Sequence[tuple[str | None, str, bool, str]] = (),
           uncertainty: str = "none", withheld: bool = False, engaged: bool = True,
           when: dict[int, str] | None = None) -> str:
    """A model answer in the output schema's shape."""
    return json.dumps({
        "acts": list(acts),
        "claims": [{"item": i, "polarity": p, "provenance": v, "when": (when or {}).get(i)} for i, p, v in claims],
        "unmapped": [{"slot": s, "value": v, "polarity": p, "provenance": pr} for s, v, p, pr in unmapped],
        "uncertainty": uncertainty, "withheld": withheld, "engaged": engaged})


def extractor(fake: FakeCandidate, tmp_path: Path, **kw: Any) -> LLMExtractor:
    return LLMExtractor("fake/scripted", candidate=fake, cache_dir=tmp_path / "cache", **kw)


def read(judge: Judge, ex: LLMExtractor, response: str, probe: str = PROBE) -> Any:
    env = judge.envelope(judge.probe(probe))
    return ex.extract(response, env, judge.vocabulary(env))


# ------------------------------------------------------------------ prompt


def test_prompt_has_no_prop_id_and_passes_the_full_dataset_audit(pilot_dir: Path, judge: Judge) -> None:
    audit = IsolationAudit.for_dataset(load_dataset(pilot_dir))
    for probe_id in judge.hidden.probes:
        env = judge.envelope(judge.probe(probe_id))
        vocabulary = judge.vocabulary(env)
        messages = render_prompt("I never lived in Kyoto.", env, vocabulary)
        text = "\n".join(m.content for m in messages)
        for prop in vocabulary.universe:
            assert prop.prop_id not in text
        for decl in vocabulary.closed_world:
            assert decl.cw_id not in text
        audit.check(probe_id, "", messages)
        # Items are numbered in the universe's fixed order, each with its slot, value and gloss.
        user = messages[1].content
        for n, prop in enumerate(vocabulary.universe, start=1):
            assert f"\n{n}. {prop.slot}" in user and prop.gloss in user
        assert env.utterance in user and env.interlocutor in user and env.date.isoformat() in user


def test_a_prompt_carrying_a_prop_id_is_refused_before_sending(judge: Judge, tmp_path: Path) -> None:
    fake = FakeCandidate(answer())
    env = judge.envelope(judge.probe(PROBE))
    vocabulary = judge.vocabulary(env)
    leaked = Envelope(date=env.date, interlocutor=env.interlocutor,
                      utterance=f"{env.utterance} ({vocabulary.universe[0].prop_id})")
    with pytest.raises(IsolationError, match="internal identifier"):
        extractor(fake, tmp_path).extract("Sure.", leaked, vocabulary)
    assert fake.requests == []


def test_the_response_is_not_audited(judge: Judge, tmp_path: Path) -> None:
    # The response is the candidate's own text (as an assistant turn in a run): quoting an id is
    # not a harness leak and must not crash extraction.
    prop_id = judge.vocabulary(judge.envelope(judge.probe(PROBE))).universe[0].prop_id
    observation = read(judge, extractor(FakeCandidate(answer()), tmp_path), f"I never heard of {prop_id}.")
    assert observation.confidence.level is ConfidenceLevel.HIGH


def test_request_is_constrained_to_the_schema_at_temperature_zero(judge: Judge, tmp_path: Path) -> None:
    fake = FakeCandidate(answer())
    read(judge, extractor(fake, tmp_path), "Nope.")
    request = fake.requests[0]
    assert request.decoding.temperature == 0.0 and request.decoding.seed == 0
    fmt = request.response_format
    assert fmt is not None and fmt["type"] == "json_schema"
    schema = fmt["json_schema"]["schema"]
    vocabulary = judge.vocabulary(judge.envelope(judge.probe(PROBE)))
    slots = list(dict.fromkeys(d.slot for d in vocabulary.closed_world))
    assert schema == output_schema(len(vocabulary.universe), slots)
    item = schema["properties"]["claims"]["items"]["properties"]["item"]
    assert item["enum"] == list(range(1, len(vocabulary.universe) + 1))
    assert "$ref" not in json.dumps(schema) and "$defs" not in json.dumps(schema)


# ----------------------------------------------------------------- mapping


def test_item_numbers_map_back_to_prop_ids(judge: Judge, tmp_path: Path) -> None:
    vocabulary = judge.vocabulary(judge.envelope(judge.probe(PROBE)))
    kyoto = next(n for n, p in enumerate(vocabulary.universe, start=1) if p.value == "Kyoto")
    seattle = next(n for n, p in enumerate(vocabulary.universe, start=1) if p.value == "Seattle")
    fake = FakeCandidate(answer(["REJECT", "ANSWER", "REJECT"],
                                [(kyoto, False, "personal_experience"), (seattle, True, "personal_experience")],
                                [("residence.city", "Tokyo", True, "personal_experience")], "hedged", True))
    ex = extractor(fake, tmp_path)
    response = "I never lived in Kyoto; I've lived in Seattle and, for a year, in Tokyo."
    observation = read(judge, ex, response)
    assert observation.acts == [Act.ANSWER, Act.REJECT]
    assert [(c.prop_id, c.polarity, c.provenance) for c in observation.claims] == [
        (vocabulary.universe[kyoto - 1].prop_id, False, ClaimProvenance.PERSONAL_EXPERIENCE),
        (vocabulary.universe[seattle - 1].prop_id, True, ClaimProvenance.PERSONAL_EXPERIENCE)]
    kyoto_claim = observation.claims[0]
    assert response[kyoto_claim.span[0]:kyoto_claim.span[1]] == "Kyoto"
    [tokyo] = observation.unmapped
    assert (tokyo.slot, tokyo.value, tokyo.polarity, response[tokyo.span[0]:tokyo.span[1]]) == (
        "residence.city", "Tokyo", True, "Tokyo")
    assert observation.uncertainty is UncertaintyLevel.HEDGED
    assert observation.disclosure.shared == [vocabulary.universe[seattle - 1].prop_id]
    assert observation.disclosure.framed_as_withheld
    assert observation.extractor == "llm"
    assert observation.verifier_version == ex.version == f"{PROMPT_VERSION} model=fake/scripted"
    assert observation.confidence.level is ConfidenceLevel.HIGH
    assert stamp(ex) == f"llm@{PROMPT_VERSION} model=fake/scripted"
    # The scorer takes the observation as it takes the rule extractor's.
    judge.score_observation(PROBE, observation)


def test_parse_reading_accepts_fences_and_rejects_bad_items_and_slots() -> None:
    good = answer(["ANSWER"], [(2, True, "acquired")])
    assert parse_reading(f"```json\n{good}\n```", 3, ["hometown"])[0] is not None
    assert parse_reading(f"Here you go: {good} Hope it helps.", 3, ["hometown"])[0] is not None
    for bad_item in (0, 4, -1):
        reading, error = parse_reading(answer(claims=[(bad_item, True, "acquired")]), 3, ["hometown"])
        assert reading is None and "outside 1..3" in error
    reading, error = parse_reading(answer(unmapped=[("planet", "Mars", True, "unspecified")]), 3, ["hometown"])
    assert reading is None and "listed slots" in error and "planet" not in error
    assert parse_reading(answer(unmapped=[(None, "Mars", True, "unspecified")]), 3, ["hometown"])[0] is not None
    for garbage in ("", "{", "null", "[1, 2]", '{"acts": ["DANCE"]}', answer() + "}{"):
        assert parse_reading(garbage, 3, [])[0] is None


# ----------------------------------------------------------------- retries


def test_invalid_then_valid_is_retried_once_with_medium_confidence(judge: Judge, tmp_path: Path) -> None:
    fake = FakeCandidate("sorry, I cannot do JSON", answer(["REJECT"], [(1, False, "personal_experience")]))
    observation = read(judge, extractor(fake, tmp_path), "I never lived in Kyoto.")
    assert len(fake.requests) == 2
    assert observation.confidence.level is ConfidenceLevel.MEDIUM
    assert observation.acts == [Act.REJECT] and len(observation.claims) == 1
    retry = fake.requests[1].messages
    assert retry[:2] == fake.requests[0].messages
    assert retry[2] == Message(role="assistant", content="sorry, I cannot do JSON")
    assert retry[3].role == "user" and "not valid" in retry[3].content


def test_the_retry_prompt_never_echoes_the_models_keys_or_values(judge: Judge, tmp_path: Path) -> None:
    # A model may invent anything, an internal id included; the harness's retry text must not repeat it.
    vocabulary = judge.vocabulary(judge.envelope(judge.probe(PROBE)))
    prop_id = vocabulary.universe[0].prop_id
    fake = FakeCandidate(json.dumps({prop_id: 1}), answer(unmapped=[(prop_id, "x", True, "unspecified")]), answer())
    observation = read(judge, extractor(fake, tmp_path), "Hi.")
    assert observation.confidence.level is ConfidenceLevel.MEDIUM and len(fake.requests) == 3
    for request in fake.requests:
        assert all(prop_id not in m.content for m in request.messages if m.role != "assistant")


def test_out_of_range_item_is_invalid_and_retried(judge: Judge, tmp_path: Path) -> None:
    fake = FakeCandidate(answer(["REJECT"], [(999, False, "personal_experience")]),
                         answer(["REJECT"], [(1, False, "personal_experience")]))
    observation = read(judge, extractor(fake, tmp_path), "I never lived in Kyoto.")
    assert len(fake.requests) == 2
    assert "outside 1.." in fake.requests[1].messages[-1].content
    assert observation.confidence.level is ConfidenceLevel.MEDIUM


def test_always_invalid_leaves_the_response_unread(judge: Judge, tmp_path: Path) -> None:
    """No valid answer is no reading: the trial is unscored, never failed on an empty observation."""
    fake = FakeCandidate("not json at all")
    with pytest.raises(ReadingUnavailable, match="llm_invalid_output") as caught:
        read(judge, extractor(fake, tmp_path), "I never lived in Kyoto.")
    assert len(fake.requests) == 3  # the first answer and two retries
    assert "after 3 tries" in str(caught.value) and caught.value.exit_code == EXIT_INCOMPLETE


def test_a_drop_leaves_the_response_unread(judge: Judge, tmp_path: Path) -> None:
    fake = FakeCandidate(None)
    with pytest.raises(ReadingUnavailable, match=r"llm_call_failed.*timeout after 60s"):
        read(judge, extractor(fake, tmp_path), "I never lived in Kyoto.")
    assert len(fake.requests) == 1


def test_a_candidate_that_raises_is_a_failed_call_but_config_errors_propagate(judge: Judge, tmp_path: Path) -> None:
    def boom(request: CandidateRequest) -> CandidateResponse:
        raise RuntimeError("engine crashed")

    with pytest.raises(ReadingUnavailable, match=r"llm_call_failed.*engine crashed"):
        read(judge, extractor(FakeCandidate(boom), tmp_path), "Hi.")

    def refused(request: CandidateRequest) -> CandidateResponse:
        raise InputError("--model fake/scripted: the provider refused the credentials (HTTP 401)")

    with pytest.raises(InputError, match="refused the credentials"):
        read(judge, extractor(FakeCandidate(refused), tmp_path, cache=False), "Hi.")


# ------------------------------------------------------------------- cache


def test_identical_request_is_served_from_the_cache(judge: Judge, tmp_path: Path) -> None:
    fake = FakeCandidate(answer(["REJECT"], [(1, False, "personal_experience")]))
    first_ex = extractor(fake, tmp_path)
    first = read(judge, first_ex, "I never lived in Kyoto.")
    again = read(judge, first_ex, "I never lived in Kyoto.")  # in memory
    assert len(fake.requests) == 1 and first_ex.calls == 1 and first_ex.cache_hits == 1
    assert again == first
    first_ex.close()
    other = FakeCandidate(answer())
    second_ex = extractor(other, tmp_path)  # a new process would see the same SQLite file
    assert read(judge, second_ex, "I never lived in Kyoto.") == first
    assert other.requests == [] and second_ex.calls == 0
    # A different response is a different prompt: the model is asked.
    read(judge, second_ex, "I lived in Kyoto.")
    assert len(other.requests) == 1


def test_a_retried_reading_replays_from_the_cache(judge: Judge, tmp_path: Path) -> None:
    fake = FakeCandidate("garbage", answer(["ABSTAIN"]))
    first = read(judge, extractor(fake, tmp_path), "No idea.")
    replay = FakeCandidate("never called")
    assert read(judge, extractor(replay, tmp_path), "No idea.") == first
    assert replay.requests == [] and first.confidence.level is ConfidenceLevel.MEDIUM


def test_cache_off_and_drops_are_not_cached(judge: Judge, tmp_path: Path) -> None:
    fake = FakeCandidate(answer())
    ex = extractor(fake, tmp_path, cache=False)
    read(judge, ex, "Hi.")
    read(judge, ex, "Hi.")
    assert len(fake.requests) == 2
    dropping = FakeCandidate(None, answer())
    ex = extractor(dropping, tmp_path)
    with pytest.raises(ReadingUnavailable):
        read(judge, ex, "Hi.")
    assert read(judge, ex, "Hi.").confidence.level is ConfidenceLevel.HIGH
    assert len(dropping.requests) == 2


def test_request_key_is_unchanged_without_a_response_format() -> None:
    messages = [Message(role="user", content="hi")]
    describe = {"provider": "fake", "model": "m"}
    plain = request_key(describe, messages, DecodingConfig())
    assert request_key(describe, messages, DecodingConfig(), response_format=None) == plain
    assert request_key(describe, messages, DecodingConfig(), response_format={"type": "json_object"}) != plain


# --------------------------------------------------------- spec and options


def test_spec_reads_base_url_and_key_variable_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv(BASE_URL_ENV, "http://127.0.0.1:9/v1")
    monkeypatch.setenv(API_KEY_ENV_ENV, "MY_EXTRACTOR_KEY")
    ex = get_extractor("llm:openai/some-model")
    assert isinstance(ex, LLMExtractor) and isinstance(ex, Extractor)
    assert ex.candidate.describe()["base_url"] == "http://127.0.0.1:9/v1"
    assert ex.candidate.describe()["api_key_env"] == "MY_EXTRACTOR_KEY"
    assert ex.version == f"{PROMPT_VERSION} model=openai/some-model"
    # Keyword options win over the environment.
    assert LLMExtractor("openai/m", base_url="http://127.0.0.1:8/v1").candidate.describe()["base_url"] == \
        "http://127.0.0.1:8/v1"


def test_bad_specs_are_input_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BASE_URL_ENV, raising=False)
    monkeypatch.delenv(API_KEY_ENV_ENV, raising=False)
    with pytest.raises(InputError, match="--extractor llm: name the model"):
        get_extractor("llm")
    with pytest.raises(InputError, match=r"--extractor llm:nowhere/x: .*unknown candidate"):
        get_extractor("llm:nowhere/x")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(InputError, match="OPENAI_API_KEY is not set"):
        get_extractor("llm:openai/gpt-4o-mini")
    monkeypatch.setenv(BASE_URL_ENV, "http://127.0.0.1:9/v1")
    with pytest.raises(InputError, match=f"take no options.*{BASE_URL_ENV}"):
        get_extractor("llm:mock/oracle")


def test_extract_works_from_several_threads(judge: Judge, tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    fake = FakeCandidate(answer(["ANSWER"]))
    ex = extractor(fake, tmp_path, cache=False)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: read(judge, ex, f"Reply {i}."), range(8)))
    assert all(o.acts == [Act.ANSWER] for o in results) and len(fake.requests) == 8
    ex.close()


# ------------------------------------------------------------- real model


@pytest.mark.slow
def test_smollm2_behind_llama_server_validates_and_caches(smollm2_server: str, pilot_dir: Path,
                                                          tmp_path: Path) -> None:
    cases = [json.loads(line) for line in (DATA / "regression.jsonl").read_text().splitlines()][:30:6]
    # The routed universe (Eq. 19) keeps the prompt inside the fixture server's 2048-token context.
    ex = LLMExtractor("openai/smollm2", base_url=smollm2_server, cache_dir=tmp_path / "cache", timeout_s=120)
    judge = load_judge(pilot_dir, policy=UniversePolicy.ROUTED, extractor=ex)
    started = time.perf_counter()
    first = [judge.judge(c["probe_id"], c["response"]) for c in cases]
    elapsed = time.perf_counter() - started
    assert ex.candidate.format_style == "json_object"  # llama-cpp-python's schema form, found by "auto"
    for case, result in zip(cases, first, strict=True):
        observation = result.observation
        assert observation.confidence.level is not ConfidenceLevel.LOW, (case["id"], observation.confidence)
        assert "llm_invalid_output" not in observation.confidence.signals
        assert observation.extractor == "llm" and observation.verifier_version == ex.version
        assert result.verdict.extractor == stamp(ex)
    calls = ex.calls
    assert calls >= len(cases)
    ex.close()

    replay = LLMExtractor("openai/smollm2", base_url=smollm2_server, cache_dir=tmp_path / "cache")
    judge = load_judge(pilot_dir, policy=UniversePolicy.ROUTED, extractor=replay)
    second = [judge.judge(c["probe_id"], c["response"]) for c in cases]
    assert replay.calls == 0 and replay.cache_hits == calls
    assert [r.observation for r in second] == [r.observation for r in first]
    print(f"\nSmolLM2 extracted {len(cases)} responses in {elapsed:.1f}s ({calls} calls); replay from cache")
    replay.close()
