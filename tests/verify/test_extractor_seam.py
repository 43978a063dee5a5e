"""The extractor seam: registry, stamps, batch judging, readings side by side in a run, confidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.errors import InputError
from sitbench.schema import Act, ConfidenceLevel, Envelope, Observation
from sitbench.verify import (
    RULES_VERSION,
    Judge,
    RuleExtractor,
    Vocabulary,
    confidence_level,
    confidence_score,
    extractor_names,
    get_extractor,
    register_extractor,
)


class SilentExtractor:
    """Reads nothing in any response (a deliberately poor reader, to make agreement < 1)."""

    id = "silent"
    version = "silent/1"

    def extract(self, response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
        return Observation(acts=[], verifier_version=self.version, extractor=self.id)


register_extractor("silent", lambda argument: SilentExtractor())


def test_registry_resolves_and_refuses() -> None:
    assert isinstance(get_extractor(), RuleExtractor)
    assert isinstance(get_extractor("rules"), RuleExtractor)
    assert {"rules", "llm", "silent"} <= set(extractor_names())
    with pytest.raises(InputError, match="unknown extractor; choose one of"):
        get_extractor("nope")
    with pytest.raises(InputError, match="takes no argument"):
        get_extractor("rules:x")
    with pytest.raises(InputError, match="name the model"):
        get_extractor("llm")
    with pytest.raises(ValueError):
        register_extractor("rules", lambda argument: RuleExtractor())


def test_observation_and_verdict_carry_the_extractor(judge: Judge) -> None:
    result = judge.judge("PR-01", "I never lived in Kyoto.")
    assert result.observation.extractor == "rules" and result.observation.verifier_version == RULES_VERSION
    assert result.verdict.extractor == f"rules@{RULES_VERSION}"
    silent = Judge(judge.hidden, judge.queries, extractor=get_extractor("silent"))
    other = silent.judge("PR-01", "I never lived in Kyoto.")
    assert other.verdict.extractor == "silent@silent/1" and not other.verdict.valid


def test_batch_lines_equal_single_judge_json(pilot_dir: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    items = [("PR-01", "I never lived in Kyoto."), ("PR-05", "Bluefin, wasn't it?"),
             ("PR-13", "I'd rather keep my plans to myself."), ("PR-01", "")]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps({"probe": p, "response": r}) + "\n" for p, r in items) + "\n")
    assert main(["judge", str(pilot_dir), "--batch", str(batch), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line.pop("line") for line in lines] == [1, 2, 3, 4]
    for (probe, response), line in zip(items, lines, strict=True):
        assert main(["judge", str(pilot_dir), "--probe", probe, "--response", response, "--json"]) == 0
        assert line == json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("content", "message"), [
    ('{"probe": "PR-01"}\n', "batch.jsonl:1: field 'response'"),
    ('{"probe": "PR-01", "response": "x"}\nnot json\n', "batch.jsonl:2: not JSON"),
    ('{"probe": "PR-99", "response": "x"}\n', "batch.jsonl:1: probe 'PR-99'"),
    ('[1, 2]\n', "batch.jsonl:1: expected a JSON object"),
])
def test_batch_errors_name_the_line(pilot_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    content: str, message: str) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_text(content)
    assert main(["judge", str(pilot_dir), "--batch", str(batch)]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == "", "nothing is judged when a line is bad"


def test_readings_side_by_side_and_their_agreement(pilot_dir: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["run", str(pilot_dir), "--config", "B,I", "--model", "mock/oracle", "--out", str(run)]) == 0
    assert main(["score", str(run)]) == 0
    assert main(["agreement", str(run)]) == 2, "a single reading has nothing to agree with"
    assert main(["observe", str(run), "--extractor", "rules"]) == 0
    assert main(["observe", str(run), "--extractor", "silent"]) == 0
    files = sorted(p.name for p in (run / "observations").iterdir())
    assert files == [f"rules@{RULES_VERSION.replace('/', '_')}.jsonl", "silent@silent_1.jsonl"]
    capsys.readouterr()
    assert main(["agreement", str(run), "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    same, silent = reports[files[0][:-6]]["overall"], reports["silent@silent_1"]["overall"]
    assert same["verdict_agreement"] == 1.0 and same["kappa"] == 1.0 and same["responses"] == 44
    # The oracle answers correctly; a reader that sees nothing rejects what it should accept.
    assert silent["claim_recall"] == 0.0 and silent["false_reject_rate"] > 0.5
    assert silent["false_accept_rate"] < 0.2 and silent["verdict_agreement"] < 0.7


@pytest.mark.parametrize(("probe", "response", "signal"), [
    ("PR-01", "When you lived in Kyoto, where did you find the best matcha near the Kamo River?", "echo_masked"),
    ("PR-01", "I'm a helpful AI assistant here to help with your climbing adventures!", "assistant_voice"),
    ("PR-05", "Kestrel — sorry, I mean Bluefin.", "self_correction"),
])
def test_confidence_flags_doubtful_readings(judge: Judge, probe: str, response: str, signal: str) -> None:
    observation = judge.extract(probe, response)
    assert signal in observation.confidence.signals
    # The level is a threshold of the score, and the score a fixed function of the signals.
    score = observation.confidence.score
    assert score == confidence_score(observation.confidence.signals)
    assert observation.confidence.level is confidence_level(score)
    plain = judge.extract("PR-01", "I have never lived in Kyoto; I live in Seattle.")
    assert plain.confidence.level is ConfidenceLevel.HIGH and Act.REJECT in plain.acts
