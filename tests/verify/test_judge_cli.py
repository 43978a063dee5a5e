"""``sitbench judge`` with one and two readers: the verdict line of ``--batch`` (its grammar, as ``judge --help``
states it), its JSON form, the summary, unscored answers, and every bad input line named before any is judged.

The second reader is a registered blind one (``judge-blank``: reads nothing, so a valid answer is contested),
one that never reads (``judge-down``), or the frozen blind reading of the demo's answers (``llm:replay``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from readers_support import Blank, Down
from sitbench.cli import main
from sitbench.data import demo_readings
from sitbench.errors import EXIT_INCOMPLETE
from sitbench.verify import EXTRACTORS, LENGTH_CHECK, get_extractor, load_judge

ROOT = Path(__file__).resolve().parents[2]
REPLAY = f"llm:replay/{demo_readings()}"

# The grammar `judge --help` states, written out here independently of the code that prints it.
_MARK = r"(?:VALID|INVALID)"
_CHECKS = r"[a-z_.]+(?:,[a-z_.]+)*"
LINE = re.compile(rf"^(?P<probe>PR-\d\d) line (?P<line>\d+): (?:unscored: (?P<reason>.+)|(?P<valid>{_MARK})"
                  rf"(?: failed (?P<failed>{_CHECKS}))?(?: \| partner (?P<partner>{_MARK}))?"
                  rf"(?: \| (?:(?P<agreed>agreed)|contested (?P<contested>{_CHECKS}); second reader "
                  rf"(?P<second>{_MARK})(?:, partner (?P<second_partner>{_MARK}))?))?)$")
SUMMARY = re.compile(r"^(?P<n>\d+) judged: (?P<valid>\d+) valid, (?P<invalid>\d+) invalid, (?P<unscored>\d+) unscored"
                     r"(?:; (?P<contested>\d+) contested, (?P<agreed>\d+) agreed)?(?P<rest>.*)$")

VALID_FOR_RULES = ("PR-05", "We agreed to call it 'Bluefin'.")
INVALID_FOR_BOTH = ("PR-05", "I'm a helpful AI here to help with your climbing adventures.")
PROVENANCE = ("PR-16", "I'd rather not say.")




@pytest.fixture(autouse=True)
def _readers() -> Iterator[None]:
    EXTRACTORS.register("judge-blank", lambda _argument: Blank())
    EXTRACTORS.register("judge-down", lambda _argument: Down())
    yield
    EXTRACTORS.unregister("judge-blank")
    EXTRACTORS.unregister("judge-down")


def _batch(tmp_path: Path, items: list[tuple[str, str]], blank_lines: tuple[int, ...] = ()) -> Path:
    lines = [json.dumps({"probe": p, "response": r}) for p, r in items]
    for at in blank_lines:
        lines.insert(at, "")
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _judge_batch(pilot: Path, batch: Path, capsys: pytest.CaptureFixture[str], *options: str,
                 code: int = 0) -> tuple[list[re.Match[str]], re.Match[str]]:
    """Run ``judge --batch``; every output line parsed by the grammar, and the summary line."""
    assert main(["judge", str(pilot), "--batch", str(batch), *options]) == code
    captured = capsys.readouterr()
    parsed = [LINE.match(line) for line in captured.out.splitlines()]
    assert all(parsed), f"a line breaks the documented format: {captured.out}"
    [summary] = captured.err.splitlines()
    match = SUMMARY.match(summary)
    assert match, summary
    return [m for m in parsed if m], match


def test_one_reader_lines_name_probe_line_verdict_and_failed_checks(pilot_dir: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    items = [VALID_FOR_RULES, INVALID_FOR_BOTH, PROVENANCE]
    lines, summary = _judge_batch(pilot_dir, _batch(tmp_path, items, blank_lines=(1,)), capsys)
    judge = load_judge(pilot_dir)
    assert [m["line"] for m in lines] == ["1", "3", "4"], "input line numbers, blank lines counted"
    for (probe, response), m in zip(items, lines, strict=True):
        result = judge.judge(probe, response)
        assert m["probe"] == probe and m["valid"] == ("VALID" if result.verdict.valid else "INVALID")
        assert (m["failed"] or "") == ",".join(n for n, c in result.verdict.checks.items() if not c.passed)
        assert (m["partner"] is None) == (result.partner is None)
        assert m["agreed"] is None and m["contested"] is None, "one reader: no readers part"
    assert lines[1]["failed"], "the off-topic answer fails checks, and the line names them"
    assert summary.group("n", "valid", "invalid", "unscored") == ("3", "1", "2", "0")
    assert summary["contested"] is None and summary["rest"] == ""


def test_two_readers_mark_each_line_agreed_or_contested(pilot_dir: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    items = [VALID_FOR_RULES, INVALID_FOR_BOTH]
    lines, summary = _judge_batch(pilot_dir, _batch(tmp_path, items), capsys, "--extractor", "rules+judge-blank")
    paired = load_judge(pilot_dir, extractor=get_extractor("rules+judge-blank"))
    contested = paired.judge(*VALID_FOR_RULES)
    assert contested.second is not None
    assert lines[0]["valid"] == "VALID" and lines[0]["agreed"] is None
    assert lines[0]["contested"] == ",".join(contested.contested_checks) and "act" in lines[0]["contested"]
    assert lines[0]["second"] == "INVALID", "the blank reader's verdict"
    assert (lines[0]["second_partner"] is None) == (contested.second.partner is None)
    assert lines[1]["valid"] == "INVALID" and lines[1]["agreed"] == "agreed" and lines[1]["contested"] is None
    assert summary.group("n", "valid", "invalid", "unscored", "contested", "agreed") == ("2", "1", "1", "0", "1", "1")


def test_batch_json_carries_both_readings(pilot_dir: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    batch = _batch(tmp_path, [VALID_FOR_RULES, INVALID_FOR_BOTH])
    assert main(["judge", str(pilot_dir), "--batch", str(batch), "--extractor", "rules+judge-blank", "--json"]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert (first["probe"], first["line"], first["valid"]) == ("PR-05", 1, True)
    assert first["agreement"] == "contested" and "act" in first["contested_checks"]
    assert first["second"]["extractor"] == "blank@1" and first["second"]["valid"] is False
    assert first["second"]["observation"]["extractor"] == "blank"
    assert first["observation"]["extractor"] == "rules", "the primary reading stays the primary's"
    assert second["agreement"] == "agreed" and second["contested_checks"] == [] and second["second"] is not None


def test_single_judge_shows_the_readers_and_json_both_verdicts(pilot_dir: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    probe, response = VALID_FOR_RULES
    argv = ["judge", str(pilot_dir), "--probe", probe, "--response", response, "--extractor", "rules+judge-blank"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "PR-05: VALID"
    [readers] = [line for line in out if line.startswith("readers: ")]
    assert re.fullmatch(r"readers: contested [a-z_.,]*act[a-z_.,]*; second reader INVALID(, partner INVALID)?",
                        readers), readers
    assert "second reader: blank@1" in out
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] is True and data["second"]["valid"] is False and data["agreement"] == "contested"
    assert "line" not in data
    assert main(["judge", str(pilot_dir), "--probe", probe, "--response", response]) == 0
    assert "readers:" not in capsys.readouterr().out, "one reader: no readers line"


@pytest.mark.parametrize("spec", ["rules+judge-down", "judge-down+rules", "judge-down"])
def test_a_reader_that_cannot_read_leaves_every_answer_unscored(spec: str, pilot_dir: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A failing second reader behaves as a failing single reader: unscored with the reason, exit 4."""
    lines, summary = _judge_batch(pilot_dir, _batch(tmp_path, [VALID_FOR_RULES, PROVENANCE]), capsys,
                                  "--extractor", spec, code=EXIT_INCOMPLETE)
    assert [m["reason"] for m in lines] == ["extractor unavailable: down (llm_call_failed): no answer"] * 2
    assert summary.group("n", "valid", "invalid", "unscored") == ("2", "0", "0", "2")
    assert "run the same command again" in summary["rest"]
    assert main(["judge", str(pilot_dir), "--probe", "PR-05", "--response", "Bluefin.", "--extractor", spec]) \
        == EXIT_INCOMPLETE
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "error: extractor unavailable: down (llm_call_failed): no answer\n"


def test_the_frozen_blind_reader_reads_what_it_recorded_and_leaves_the_rest_unscored(
        pilot_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recorded = [("PR-01", "I have never had anything to do with Kyoto or Kamo River."),
                ("PR-01", "Well, I have such fond memories of Kyoto and Kamo River. Those were good years for me.")]
    batch = _batch(tmp_path, [*recorded, ("PR-01", "A reply nobody recorded a reading of.")])
    lines, summary = _judge_batch(pilot_dir, batch, capsys, "--extractor", f"rules+{REPLAY}", code=EXIT_INCOMPLETE)
    paired = load_judge(pilot_dir, extractor=get_extractor(f"rules+{REPLAY}"))
    for (probe, response), m in zip(recorded, lines[:2], strict=True):
        result = paired.judge(probe, response)
        assert result.agreement is not None
        assert (m["agreed"] is not None) == (result.agreement.value == "agreed")
        assert (m["contested"] or "") == ",".join(result.contested_checks)
    assert lines[2]["reason"] and "no recorded answer" in lines[2]["reason"]
    assert summary.group("n", "unscored") == ("3", "1")
    assert int(summary["contested"]) + int(summary["agreed"]) == 2


def test_a_replay_on_a_users_own_answers_says_running_again_cannot_help(
        pilot_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    batch = _batch(tmp_path, [("PR-01", "I never lived in Kyoto."), ("PR-05", "Bluefin, as agreed.")])
    lines, summary = _judge_batch(pilot_dir, batch, capsys, "--extractor", f"rules+{REPLAY}", code=EXIT_INCOMPLETE)
    assert all("no recorded answer for this prompt" in (m["reason"] or "") for m in lines)
    assert "run the same command again" not in summary["rest"]
    assert "2 unscored because the replayed reading (llm:replay/FILE) holds no reading of them" in summary["rest"]
    assert "running again cannot score these" in summary["rest"] and "llm:openai/MODEL" in summary["rest"]


def test_an_answer_over_the_cap_has_no_readers_part(pilot_dir: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    cap = load_judge(pilot_dir).max_response_chars
    lines, summary = _judge_batch(pilot_dir, _batch(tmp_path, [("PR-05", "x" * (cap + 1))]), capsys,
                                  "--extractor", "rules+judge-blank")
    assert lines[0]["valid"] == "INVALID" and lines[0]["failed"] == LENGTH_CHECK
    assert lines[0]["agreed"] is None and lines[0]["contested"] is None
    assert summary.group("contested", "agreed") == ("0", "0")


def test_every_bad_line_is_named_and_nothing_is_judged(pilot_dir: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    good = json.dumps({"probe": "PR-01", "response": "ok"})
    lines = [good, '{"probe": "PR-01"}', "not json", good, '{"probe": "PR-99", "response": "x"}', "[1]",
             '{"probe": "PR-02"}', '{"probe": "PR-03"}', '{"probe": "PR-01", "response": "\\udc00"}']
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["judge", str(pilot_dir), "--batch", str(batch)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "", "nothing is judged when a line is bad"
    [error] = captured.err.splitlines()
    assert error.startswith(f"error: {batch}: 7 bad lines, nothing judged: ")
    for part in ("lines 2, 7-8: field 'response' must be a string", "line 3: not JSON",
                 "line 5: probe 'PR-99' is not in", "line 6: expected a JSON object", "line 9: unpaired surrogate"):
        assert part in error, part
    assert "line 1:" not in error and "line 4:" not in error, "good lines are not named"


def test_a_unicode_line_break_inside_a_response_keeps_the_line_numbers(pilot_dir: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    text = "I never lived\u2028in Kyoto."
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps({"probe": "PR-01", "response": text}, ensure_ascii=False) + "\n"
                     + json.dumps({"probe": "PR-02", "response": "Yes."}) + "\n", encoding="utf-8")
    lines, _ = _judge_batch(pilot_dir, batch, capsys)
    assert [(m["probe"], m["line"]) for m in lines] == [("PR-01", "1"), ("PR-02", "2")]


def test_help_states_the_format_once_and_the_readme_example_is_real(pilot_dir: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.cli._judge import BATCH_FORMAT_HELP

    assert main(["judge", "--help"]) == 0
    help_text = capsys.readouterr().out
    assert help_text.count("PROBE line N: VALID|INVALID") == 1 and "contested CHECK" in help_text
    assert "PROBE line N: VALID|INVALID" in BATCH_FORMAT_HELP
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ sitbench judge data/pilot --batch answers.jsonl", 1)[1].split("```", 1)[0]
    shown = [line for line in block.splitlines()[2:] if line]
    answers = [("PR-05", "We agreed to call it 'Bluefin'."),
               ("PR-01", "I have never had anything to do with Kyoto or Kamo River."),
               ("PR-01", "Well, I have such fond memories of Kyoto and Kamo River. Those were good years for me.")]
    assert main(["judge", str(pilot_dir), "--batch", str(_batch(tmp_path, answers)),
                 "--extractor", f"rules+{REPLAY}"]) == 0
    captured = capsys.readouterr()
    assert shown == captured.out.splitlines() + captured.err.splitlines()
