"""Two readers: every response read twice, each verdict agreed or contested, every figure with its band.

The second reader in most tests is the frozen blind reading of the demo's answers (``llm:replay``), a reader that
never saw a contract; a deliberately blind one (``blank``: reads nothing) makes contests certain.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from readers_support import Blank
from sitbench.cli import main
from sitbench.data import demo_readings
from sitbench.errors import InputError, ReadingUnavailable
from sitbench.metrics import compute_metrics, load_scores, run_metrics
from sitbench.schema import Envelope, Observation
from sitbench.verify import (
    EXTRACTORS,
    Agreement,
    Judge,
    ReaderPair,
    RuleExtractor,
    Vocabulary,
    get_extractor,
    load_judge,
    stamp,
)

DEMO_READINGS = demo_readings()
REPLAY = f"llm:replay/{DEMO_READINGS}"



class Unreadable:
    """Never reads anything: every call fails."""

    id = "unreadable"
    version = "1"

    def extract(self, response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
        raise ReadingUnavailable("extractor unavailable: unreadable (llm_call_failed): down")


EXTRACTORS.register("blank", lambda _argument: Blank())
EXTRACTORS.register("unreadable", lambda _argument: Unreadable())


def test_a_pair_spec_builds_two_readers_the_first_primary() -> None:
    pair = get_extractor("rules+blank")
    assert isinstance(pair, ReaderPair)
    assert isinstance(pair.primary, RuleExtractor) and isinstance(pair.secondary, Blank)
    assert stamp(pair) == f"{stamp(RuleExtractor())}+blank@1"
    # A "+" inside a model name is not a second reader: the whole name reaches the LLM reader.
    with pytest.raises(InputError, match=r"--extractor llm:replay/some\+file\.jsonl: "):
        get_extractor("llm:replay/some+file.jsonl")


@pytest.mark.parametrize(("spec", "fix"), [("rules+rules", "the two readers are the same"),
                                           ("rules+blank+unreadable", "at most two readers"),
                                           ("rules+nosuch", "unknown extractor")])
def test_a_bad_pair_is_refused_with_the_fix(spec: str, fix: str) -> None:
    with pytest.raises(InputError, match=fix):
        get_extractor(spec)


def test_agreed_and_contested_name_the_checks_that_differ(pilot: Path) -> None:
    judge = load_judge(pilot, extractor=get_extractor("rules+blank"))
    # Valid for the rules, empty for the blank reader: contested on the act check.
    got = judge.judge("PR-05", "We agreed to call it 'Bluefin'.")
    assert got.verdict.valid and got.second is not None and not got.second.verdict.valid
    assert got.agreement is Agreement.CONTESTED
    assert "act" in got.contested_checks
    assert all(not name.startswith("partner.") or got.partner is not None for name in got.contested_checks)
    # Invalid for both (an off-topic reply reads as nothing to either): agreed, no checks named.
    off = judge.judge("PR-05", "I'm a helpful AI here to help with your climbing adventures.")
    assert not off.verdict.valid and off.second is not None and not off.second.verdict.valid
    assert off.agreement is Agreement.AGREED and off.contested_checks == []


def test_one_reader_has_no_agreement(pilot: Path) -> None:
    got = load_judge(pilot).judge("PR-05", "We agreed to call it 'Bluefin'.")
    assert got.second is None and got.agreement is None and got.contested_checks == []


def test_either_reader_failing_leaves_the_trial_unread(pilot: Path) -> None:
    for spec in ("rules+unreadable", "unreadable+rules"):
        judge = load_judge(pilot, extractor=get_extractor(spec))
        with pytest.raises(ReadingUnavailable):
            judge.judge("PR-05", "We agreed to call it 'Bluefin'.")


@pytest.fixture(scope="module")
def two_reader_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's three runs, each scored again with the rules and the replayed blind reader."""
    out = tmp_path_factory.mktemp("two-readers")
    assert main(["demo", "--out", str(out / "demo")]) == 0
    for name in ("run-collapse", "run-oracle", "run-oracle-perfect"):
        shutil.copytree(out / "demo" / name, out / name)
        (out / name / "scores.jsonl").unlink()
        assert main(["score", str(out / name), "--extractor", f"rules+{REPLAY}"]) == 0
    return out


def test_every_record_keeps_both_readings(two_reader_runs: Path) -> None:
    records = load_scores(two_reader_runs / "run-oracle")
    assert len(records) == 198 and all(r.status == "completed" for r in records)
    for record in records:
        assert record.second is not None and record.verdict is not None
        assert record.second.extractor.startswith("llm@sitbench-llm/3")
        assert record.verdict.extractor is not None and record.verdict.extractor.startswith("rules@")
        contested = record.verdict.valid != record.second.verdict.valid or (
            record.partner is not None and record.second.partner is not None
            and record.partner.valid != record.second.partner.valid)
        assert record.agreement == ("contested" if contested else "agreed")
        assert bool(record.contested_checks) == contested
    assert any(r.agreement == "contested" for r in records) and any(r.agreement == "agreed" for r in records)


def test_the_band_spans_the_contested_verdicts(two_reader_runs: Path) -> None:
    records = load_scores(two_reader_runs / "run-oracle")
    metrics = compute_metrics(records)
    primary_only = compute_metrics(r.model_copy(update={"second": None, "agreement": None}) for r in records)
    for config, row in metrics.items():
        assert row.band is not None and primary_only[config].band is None
        assert sum(row.contested.values()) == sum(1 for r in records if r.config == config
                                                  and r.agreement == "contested")
        for metric, band in row.band.items():
            value = getattr(row, metric)
            assert getattr(primary_only[config], metric) == value  # the point estimate is the primary's
            if value is None:
                continue
            assert band.low is not None and band.high is not None and band.low <= value <= band.high
        # Counted as failures and as passes, by hand for category A: the pair-balanced mean of AND and OR.
        a = [r for r in records if r.config == config and r.category.value == "A"]
        if not any(r.agreement == "contested" for r in a):
            assert row.band["A_pos"].low == row.band["A_pos"].high == row.A_pos
        else:
            assert row.band["A_pos"].low < row.band["A_pos"].high


def test_a_band_is_exact_on_a_hand_count(two_reader_runs: Path) -> None:
    # Lower end: a contested verdict is a failure, i.e. valid only where both readers say valid.
    records = [r for r in load_scores(two_reader_runs / "run-oracle") if r.config == "D"]
    row = compute_metrics(records)["D"]
    both = [r.model_copy(update={"verdict": r.verdict.model_copy(update={"valid": r.verdict.valid and r.second.verdict.valid}),
                                 "second": None, "agreement": None})
            for r in records if r.verdict is not None and r.second is not None]
    assert row.band is not None and row.band["A_pos"].low == compute_metrics(both)["D"].A_pos


def test_metrics_cli_prints_the_band_and_json_carries_it(two_reader_runs: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["metrics", str(two_reader_runs / "run-oracle")]) == 0
    out = capsys.readouterr().out
    assert "band" in out and "contested" in out
    assert main(["metrics", str(two_reader_runs / "run-oracle"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    d = data["configs"]["D"]
    assert d["band"]["A_pos"]["low"] <= d["A_pos"] <= d["band"]["A_pos"]["high"]
    assert sum(d["contested"].values()) >= 1 and d["n_two_readers"] == 22


def test_a_one_reader_run_has_no_band(two_reader_runs: Path) -> None:
    for row in run_metrics(two_reader_runs / "demo" / "run-oracle").values():
        assert row.band is None and row.contested == {} and row.n_two_readers == 0


def test_rescore_keeps_two_readers(two_reader_runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "rescored"
    assert main(["rescore", str(two_reader_runs / "run-collapse"), "--out", str(out),
                 "--extractor", f"rules+{REPLAY}"]) == 0
    assert all(r.second is not None for r in load_scores(out) if r.status == "completed")


def test_the_judge_class_reads_with_both_only_when_paired(pilot: Path) -> None:
    base = load_judge(pilot)
    paired = Judge(base.hidden, base.queries, extractor=get_extractor(f"rules+{REPLAY}"))
    got = paired.judge("PR-05", "We agreed to call it 'Bluefin'.")
    assert got.second is not None and got.second.observation.extractor == "llm"


def test_e1_to_e8_carry_the_band_of_their_inputs(two_reader_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.stats import analyze_runs

    runs = [two_reader_runs / "run-oracle-perfect"]
    report = analyze_runs(runs)
    computed = [c for c in report.experiments if c.status == "computed" and c.endpoint != "prompt_tokens"]
    assert computed
    for contrast in computed:
        assert contrast.band is not None and contrast.mean is not None
        low, high = contrast.band.mean
        assert low <= contrast.mean <= high
        first = sum(p.first for p in contrast.per_pair) / len(contrast.per_pair)
        assert contrast.band.first[0] <= first <= contrast.band.first[1]
    assert any(c.band is not None and c.band.mean[0] < c.band.mean[1] for c in computed)
    assert all(c.band is None for c in analyze_runs([two_reader_runs / "demo" / "run-oracle-perfect"]).experiments)
    assert main(["analyze", str(runs[0])]) == 0
    assert "band of mean d" in capsys.readouterr().out


def test_score_says_how_many_verdicts_are_contested(two_reader_runs: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(two_reader_runs / "demo" / "run-oracle", run)
    (run / "scores.jsonl").unlink()
    assert main(["score", str(run), "--extractor", f"rules+{REPLAY}"]) == 0
    records = load_scores(run)
    contested = sum(r.agreement == "contested" for r in records)
    assert f"{contested} contested and {len(records) - contested} agreed (two readers)" in capsys.readouterr().out


def test_the_demo_runs_with_two_readers_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--two-readers", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "band" in out and "contested" in out
    for name in ("run-collapse", "run-oracle", "run-oracle-perfect"):
        records = load_scores(tmp_path / name)
        # Every answer the demo's candidates give is covered by the shipped readings: none unread.
        assert all(r.status == "completed" and r.second is not None for r in records)
