"""The rule extractor's stages called alone, its trace, and ``sitbench extract --trace``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitbench.cli._main import cli
from sitbench.schema import Act, ClaimProvenance
from sitbench.verify import Judge, Vocabulary
from sitbench.verify import _extract as ex
from sitbench.verify._text import clauses

DATA = Path(__file__).parent / "data" / "regression.jsonl"
STAGES = ("mask", "clause", "engagement", "premise", "self-correction", "provenance", "acts", "uncertainty",
          "disclosure")


def _reading(judge: Judge, probe_id: str, text: str) -> tuple[ex._Reading, Vocabulary]:
    envelope = judge.envelope(judge.probe(probe_id))
    vocabulary = judge.vocabulary(envelope)
    return ex._mask(text, envelope, vocabulary, None), vocabulary


def test_mask_blanks_an_assistant_voice_and_keeps_offsets(judge: Judge) -> None:
    text = "As an AI language model, I have never lived anywhere."
    r, _ = _reading(judge, "PR-01", text)
    assert len(r.text) == len(text)
    assert r.assistant_voice and not r.engaged and "assistant_voice" in r.signals
    plain, _ = _reading(judge, "PR-01", "I've never lived in Kyoto.")
    assert plain.engaged and not plain.assistant_voice and plain.signals == set()


def test_frame_reads_who_speaks(judge: Judge) -> None:
    r, _ = _reading(judge, "PR-01", "I've never lived in Kyoto. Her parents did.")
    first, second = clauses(r.text)[:2]
    frame = ex._frame(r, first)
    assert frame.own_first_person and frame.first_person and frame.sentence_start
    assert frame.body == first.text and frame.span == (first.start, first.end)
    r.facts.append(ex._ClauseFacts(first, [], True, True))
    other = ex._frame(r, second)
    assert not other.own_first_person and other.sentence_start


def test_mentions_find_the_registry_form_with_its_position(judge: Judge) -> None:
    r, vocabulary = _reading(judge, "PR-01", "I've never lived in Kyoto.")
    clause = clauses(r.text)[0]
    r.sentence_places = True
    frame = ex._frame(r, clause)
    ex._mentions(r, frame)
    assert "P-01" in [p.prop_id for p in frame.mentioned]
    start, end = frame.positions["P-01"]
    assert frame.body[start:end] == "Kyoto"
    assert vocabulary.by_id["P-01"] in frame.mentioned


def test_claims_polarity_by_scope(judge: Judge) -> None:
    r, _ = _reading(judge, "PR-01", "I've never lived in Kyoto.")
    f = ex._read_clause(r, clauses(r.text)[0])
    assert f.record is not None and [(c.prop_id, c.polarity) for c in f.record.claims] == [("P-01", False)]
    assert Act.REJECT in r.acts


def test_self_correct_drops_the_identity_claims_of_an_assistant_voice(judge: Judge) -> None:
    r, vocabulary = _reading(judge, "PR-01", "As an AI language model, I have never lived anywhere.")
    prop = vocabulary.by_id["P-01"]
    ex._add(r, prop, True, ClaimProvenance.PERSONAL_EXPERIENCE, (0, 1))
    ex._self_correct(r)
    assert r.claims == {}


def test_adopt_premise_without_engagement_adopts_nothing(judge: Judge) -> None:
    r, _ = _reading(judge, "PR-01", "The best matcha was at a little place by the river.")
    for clause in clauses(r.text):
        ex._read_clause(r, clause)
    r.engaged = False
    ex._adopt_premise(r)
    assert r.claims == {} and "premise_not_engaged" in r.signals
    r.engaged = True
    ex._adopt_premise(r)
    assert ("P-01", True) in r.claims and "premise_adopted" in r.signals


def test_tracing_changes_no_reading(judge: Judge) -> None:
    for line in DATA.read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        envelope = judge.envelope(judge.probe(raw["probe_id"]))
        vocabulary = judge.vocabulary(envelope)
        traced, stages = ex.trace_extract(raw["response"], envelope, vocabulary)
        assert traced == ex.extract(raw["response"], envelope, vocabulary)
        names = [name for name, _ in stages]
        assert set(names) <= set(STAGES) and names[0] == "mask" and names[-1] == "disclosure"


def test_cli_trace_names_each_stage(pilot_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["extract", str(pilot_dir), "--probe", "PR-01", "--response",
                                      "I've never lived in Kyoto. I grew up in Osaka."])
    assert result.exit_code == 0, result.output
    assert "trace:" not in result.output
    traced = CliRunner().invoke(cli, ["extract", str(pilot_dir), "--probe", "PR-01", "--response",
                                      "I've never lived in Kyoto. I grew up in Osaka.", "--trace"])
    assert traced.exit_code == 0, traced.output
    assert traced.output.startswith(result.output)
    trace = traced.output[len(result.output):].splitlines()
    assert trace[0] == "trace:"
    assert [line.split(":")[0].strip() for line in trace[1:]] == \
        ["mask", "clause", "clause", *STAGES[2:]]
    assert "I've never lived in Kyoto." in trace[2] and "P-01-" in trace[2]


def test_cli_trace_json_and_other_extractors(pilot_dir: Path) -> None:
    traced = CliRunner().invoke(cli, ["extract", str(pilot_dir), "--probe", "PR-01", "--response", "No.",
                                      "--json", "--trace"])
    assert traced.exit_code == 0, traced.output
    assert "\ntrace:\n  mask: " in traced.output
    refused = CliRunner().invoke(cli, ["extract", str(pilot_dir), "--probe", "PR-01", "--response", "No.",
                                       "--trace", "--extractor", "llm:openai/gpt-4o-mini"])
    assert refused.exit_code == 2 and "--trace" in refused.output


@pytest.mark.parametrize("text", ["", "   ", "?!", "\u200b"])
def test_trace_of_empty_replies(judge: Judge, text: str) -> None:
    envelope = judge.envelope(judge.probe("PR-01"))
    _, stages = ex.trace_extract(text, envelope, judge.vocabulary(envelope))
    assert [n for n, _ in stages if n != "clause"] == ["mask", *STAGES[2:]]
