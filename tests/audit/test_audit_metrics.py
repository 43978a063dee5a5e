"""``sitbench metrics RUN --audit REFERENCE``: validities corrected by a human audit (difference estimator).

The annotators are SYNTHETIC (scripted): they read each response as the rule extractor does, except where a
test plants a reading whose verdict differs from the verifier's. The expected corrections are computed here by
hand from the sample's inclusion probabilities and the run's trial counts (each trial's share of the
pair-balanced mean, Eq. 40).
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from _audit_support import DEMO_RUNS, rule_reading, write

from sitbench.audit import (
    Annotation,
    AuditSample,
    SampleItem,
    build_reference,
    load_annotation_files,
    reference_observation,
)
from sitbench.audit import sample_runs as draw
from sitbench.cli import main
from sitbench.metrics import (
    AUDIT_RESAMPLES,
    AUDIT_SEED,
    AuditStatus,
    ConfigMetrics,
    audit_metrics,
    compute_metrics,
    load_scores,
    run_metrics,
)
from sitbench.schema import CATEGORY_METRICS, Category
from sitbench.stores import write_json
from sitbench.verify import load_judge

Reading = dict[str, Any]


def _records(run: Path) -> dict[str, dict[str, Any]]:
    with (run / "scores.jsonl").open(encoding="utf-8") as handle:
        return {r["trial_id"]: r for r in map(json.loads, handle)}


def _share(records: dict[str, dict[str, Any]], trial_id: str) -> float:
    """a_i = 1 / (pairs · lineages of its pair · trials of its lineage) within its configuration and category."""
    me = records[trial_id]
    same = [r for r in records.values() if (r["config"], r["category"]) == (me["config"], me["category"])]
    assert all(r["status"] == "completed" for r in same)  # every pair complete: no pair is left out
    pairs = {r["pair_id"] for r in same}
    lineages = {r["lineage_id"] for r in same if r["pair_id"] == me["pair_id"]}
    trials = sum(r["lineage_id"] == me["lineage_id"] for r in same)
    return 1 / (len(pairs) * len(lineages) * trials)


class Audit:
    """A sample of one or more runs, the rule reading of each item, and references built from them."""

    def __init__(self, runs: list[Path], n: int, work: Path, seed: int = 1) -> None:
        self.work = work
        self.sample: AuditSample = draw(runs, n=n, seed=seed, phase="dev")
        self.path = work / "sample.json"
        write_json(self.path, self.sample)
        self.readings = {item.item_id: rule_reading(self.sample, item) for item in self.sample.items}

    def reference(self, name: str, change: dict[str, Reading] | None = None) -> Path:
        """Two SYNTHETIC annotators who agree: the rule reading, except ``change`` (item id → reading)."""
        readings = self.readings | (change or {})
        files = [write(self.work / name / f"{who}.jsonl", [
            {"format": "sitbench-audit-annotation/1", "sample_id": self.sample.sample_id, "phase": "dev",
             "annotator": who, "item_id": item.item_id, "synthetic": True, **readings[item.item_id]}
            for item in self.sample.by_position()]) for who in ("syn-a", "syn-b")]
        reference = build_reference(self.sample, self.path, load_annotation_files(files, self.sample), resamples=20)
        path = self.work / name / "reference.json"
        write_json(path, reference)
        return path

    def human_valid(self, item_id: str, reading: Reading, dataset: Path) -> bool:
        item = self.sample.item_map()[item_id]
        annotation = Annotation.model_validate({"sample_id": self.sample.sample_id, "phase": "dev", "annotator": "x",
                                                "item_id": item_id, **reading})
        props = {p.prop_id: p for p in self.sample.vocabulary.propositions}
        return load_judge(dataset).score_observation(item.probe_id, reference_observation(annotation, props)).verdict.valid


EMPTY: Reading = {"acts": [], "claims": [], "unmapped": [], "uncertainty": "none", "withheld": False}
"""A reading that marks nothing: it fails every contract that requires an act."""


@functools.cache
def _census(run: Path) -> dict[str, SampleItem]:
    return {i.trial_id: i for i in draw([run], n=198, seed=0, phase="dev").items}


def _correct_reading(audit: Audit, item_id: str, perfect_run: Path) -> Reading:
    """The rule reading of the perfect oracle's answer to the same trial, as if this response had said it."""
    item = audit.sample.item_map()[item_id]
    reading = rule_reading(audit.sample, _census(perfect_run)[item.trial_id])
    reading["claims"] = [c | {"span": None} for c in reading["claims"]]
    return reading | {"unmapped": []}


def _value(metrics: dict[str, ConfigMetrics], config: str, metric: str) -> float:
    value = getattr(metrics[config], metric)
    assert value is not None
    return float(value)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def oversampled(two_reader_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Audit:
    """80 of the two-reader collapse run's 198 responses: contested ones (and rare act sets…) oversampled."""
    return Audit([two_reader_run], 80, tmp_path_factory.mktemp("audit-metrics-80"))


@pytest.fixture(scope="module")
def census(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Audit:
    """Every response of the demo's oracle run (π = 1 everywhere)."""
    return Audit([demo_dir / "run-oracle"], 198, tmp_path_factory.mktemp("audit-metrics-census"))


# --------------------------------------------------------------------------- tests


def test_an_agreeing_audit_confirms_every_audited_validity(oversampled: Audit, two_reader_run: Path) -> None:
    observed = run_metrics(two_reader_run)
    corrected, summary = audit_metrics(two_reader_run, observed, oversampled.reference("agree"))
    assert summary.audited == 80 and summary.disagreements == 0 and summary.synthetic and summary.seed == 0
    statuses = set()
    for config, row in corrected.items():
        assert row.audited is not None and set(row.audited) == {*CATEGORY_METRICS.values(), "macro_sit"}
        for metric, audited in row.audited.items():
            statuses.add(audited.status)
            if audited.status is AuditStatus.CORRECTED:
                # No disagreement: the estimate is the observed validity, and so is every resample.
                assert audited.estimate == pytest.approx(_value(observed, config, metric))
                assert audited.correction == 0 and audited.interval is not None
                assert audited.interval.lower == audited.interval.upper == pytest.approx(audited.estimate)
            else:
                # A cell without an audited trial; Macro SIT, when some category is such a cell.
                assert audited.status is AuditStatus.UNAUDITED and audited.estimate is None
                assert metric == "macro_sit" or audited.audited == 0
    assert statuses == {AuditStatus.CORRECTED, AuditStatus.UNAUDITED}  # 80 draws leave some cells unaudited
    audited_trials = sum(row.audited["macro_sit"].audited for row in corrected.values() if row.audited)
    assert audited_trials == 80


def test_a_census_with_planted_disagreements_equals_the_metrics_of_the_human_verdicts(
        census: Audit, demo_dir: Path) -> None:
    """At π = 1 the difference estimator is exact: observed + Σ a·d = the pair-balanced validity of the human
    verdicts. One valid trial read as saying nothing (−1), one invalid trial read as correct (+1)."""
    run = demo_dir / "run-oracle"
    records = _records(run)
    items = census.sample.by_position()
    # A trial whose share of the pair-balanced mean is not 1/(trials of its cell): its lineage has more or
    # fewer trials of the category than another, so a plain mean over the cell would move it by another amount.
    cell = Counter((r["config"], r["category"]) for r in records.values())
    valid = next(i for i in items if records[i.trial_id]["verdict"]["valid"]
                 and _share(records, i.trial_id) != pytest.approx(1 / cell[(i.config, i.category.value)])
                 and not census.human_valid(i.item_id, EMPTY, demo_dir / "pilot"))
    invalid = next(i for i in items if not records[i.trial_id]["verdict"]["valid"]
                   and (i.config, i.category) != (valid.config, valid.category)
                   and census.human_valid(i.item_id, _correct_reading(census, i.item_id, demo_dir / "run-oracle-perfect"),
                                          demo_dir / "pilot"))
    change = {valid.item_id: EMPTY,
              invalid.item_id: _correct_reading(census, invalid.item_id, demo_dir / "run-oracle-perfect")}
    observed = run_metrics(run)
    corrected, summary = audit_metrics(run, observed, census.reference("census", change))
    assert summary.audited == 198 and summary.disagreements == 2
    # The human verdicts, put in the records, through the metrics' own pair-balanced aggregation.
    flipped = [r.model_copy(update={"verdict": r.verdict.model_copy(update={"valid": not r.verdict.valid})})
               if r.trial_id in (valid.trial_id, invalid.trial_id) else r for r in load_scores(run)]
    human = compute_metrics(flipped)
    for item, sign in ((valid, -1), (invalid, +1)):
        metric = CATEGORY_METRICS[item.category]
        row = corrected[item.config].audited
        assert row is not None
        # By hand: the validity moves by the trial's share of the pair-balanced mean, in the verdict's direction.
        expected = _value(observed, item.config, metric) + sign * _share(records, item.trial_id)
        assert row[metric].estimate == pytest.approx(expected)
        assert row[metric].estimate == pytest.approx(_value(human, item.config, metric))
        assert row[metric].disagreements == 1
        assert row["macro_sit"].estimate == pytest.approx(_value(human, item.config, "macro_sit"))
        # Macro SIT moves by an eighth of each planted move in its configuration.
        moves = sum(s * _share(records, i.trial_id) for i, s in ((valid, -1), (invalid, +1)) if i.config == item.config)
        assert row["macro_sit"].estimate == pytest.approx(_value(observed, item.config, "macro_sit") + moves / 8)
    for config in set(corrected) - {valid.config, invalid.config}:
        row = corrected[config].audited
        assert row is not None and row["macro_sit"].estimate == pytest.approx(_value(observed, config, "macro_sit"))


def test_an_oversampled_audit_moves_a_validity_by_the_weighted_difference(
        oversampled: Audit, two_reader_run: Path, demo_dir: Path) -> None:
    """Each trial weighs w·a (w = 1/π of its stratum, a = its share of the pair-balanced mean): a planted
    disagreement d moves its cell by w_k·a_k·d / Σ w·a over the cell's audited trials, computed here by hand.
    A move past 0 or 1 is bounded there."""
    records = _records(two_reader_run)
    observed = run_metrics(two_reader_run)
    items = oversampled.sample.by_position()
    pis = {i.item_id: i.inclusion_probability for i in items}
    assert len(set(pis.values())) > 1  # unequal weights: the oversampling is what is being weighted
    cells: dict[tuple[str, Category], list[SampleItem]] = {}
    for item in items:
        cells.setdefault((item.config, item.category), []).append(item)

    def move(item: SampleItem, sign: int) -> float:
        weight = {i.item_id: _share(records, i.trial_id) / pis[i.item_id] for i in cells[(item.config, item.category)]}
        return sign * weight[item.item_id] / sum(weight.values())

    def base(item: SampleItem) -> float:
        return _value(observed, item.config, CATEGORY_METRICS[item.category])

    pilot, perfect = demo_dir / "pilot", demo_dir / "run-oracle-perfect"
    def uneven(item: SampleItem) -> bool:
        """The cell's audited trials have unequal shares of the pair-balanced mean."""
        return len({_share(records, i.trial_id) for i in cells[(item.config, item.category)]}) > 1

    valid = [i for i in items if records[i.trial_id]["verdict"]["valid"] and not oversampled.human_valid(i.item_id, EMPTY, pilot)]
    down = next(i for i in valid if uneven(i) and base(i) + move(i, -1) >= 0)
    past = next(i for i in valid if base(i) + move(i, -1) < 0 and (i.config, i.category) != (down.config, down.category))
    taken = {(i.config, i.category) for i in (down, past)}
    up = next(i for i in items if not records[i.trial_id]["verdict"]["valid"] and (i.config, i.category) not in taken
              and uneven(i) and base(i) + move(i, +1) <= 1
              and oversampled.human_valid(i.item_id, _correct_reading(oversampled, i.item_id, perfect), pilot))
    change = {down.item_id: EMPTY, past.item_id: EMPTY, up.item_id: _correct_reading(oversampled, up.item_id, perfect)}
    corrected, summary = audit_metrics(two_reader_run, observed, oversampled.reference("planted", change))
    assert summary.disagreements == 3
    for item, sign in ((down, -1), (up, +1), (past, -1)):
        row = corrected[item.config].audited
        assert row is not None
        result = row[CATEGORY_METRICS[item.category]]
        cell = cells[(item.config, item.category)]
        assert result.status is AuditStatus.CORRECTED and result.audited == len(cell) and result.disagreements == 1
        assert result.correction == pytest.approx(move(item, sign))
        assert result.estimate == pytest.approx(min(1.0, max(0.0, base(item) + move(item, sign))))
        assert result.estimate is not None and (result.estimate - base(item)) * sign > 0  # the human verdict's way
        interval = result.interval
        assert interval is not None and interval.seed == 0 and interval.resamples == 1000
        assert interval.lower is not None and interval.upper is not None
        assert interval.lower <= result.estimate <= interval.upper
        assert item is past or not interval.degenerate
    bounded = corrected[past.config].audited
    assert bounded is not None and bounded[CATEGORY_METRICS[past.category]].estimate == 0.0


def test_metrics_cli_shows_the_audit_in_place_of_the_band(oversampled: Audit, two_reader_run: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    reference = oversampled.reference("agree")
    assert main(["metrics", str(two_reader_run)]) == 0
    assert "  band " in capsys.readouterr().out  # two readers: band rows without an audit
    assert main(["metrics", str(two_reader_run), "--audit", str(reference)]) == 0
    out = capsys.readouterr().out
    assert "  audited " in out and "  band " not in out and "n/a" in out
    assert "SYNTHETIC annotators" in out and "80 audited trials of this run" in out and "seed 0" in out
    assert main(["metrics", str(two_reader_run), "--audit", str(reference), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["audit"]["sample_id"] == oversampled.sample.sample_id and data["audit"]["resamples"] == 1000
    a_pos = data["configs"]["A"]["audited"]["A_pos"]
    assert a_pos["status"] in ("corrected", "unaudited") and data["configs"]["A"]["band"] is not None
    assert {"estimate", "interval", "observed", "correction", "audited", "disagreements"} <= set(a_pos)
    # The help says what the option does, with the bootstrap the code runs.
    assert main(["metrics", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--audit REFERENCE" in text and f"({AUDIT_RESAMPLES} resamples" in text and f"seed {AUDIT_SEED}," in text


def test_an_audit_of_several_runs_corrects_each(sample_path: Path, demo_dir: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    audit = Audit([demo_dir / r for r in DEMO_RUNS], 60, tmp_path)
    assert audit.sample.sample_id == json.loads(sample_path.read_text())["sample_id"]  # the README's sample
    reference = audit.reference("agree")
    runs = [str(demo_dir / r) for r in DEMO_RUNS[:2]]
    assert main(["metrics", *runs, "--audit", str(reference), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["runs"]
    counts = {name: sum(c["audited"]["macro_sit"]["audited"] for c in run["configs"].values())
              for name, run in data.items()}
    drawn = {name: sum(i.run == name for i in audit.sample.items) for name in DEMO_RUNS[:2]}
    assert counts == drawn and all(data[n]["audit"]["run"] == n for n in drawn)


def test_an_audit_of_another_run_is_refused(oversampled: Audit, demo_dir: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    reference = oversampled.reference("agree")
    assert main(["metrics", str(demo_dir / "run-oracle"), "--audit", str(reference)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "was not drawn from this run" in err
    assert str(demo_dir / "run-oracle") in err and "sitbench audit sample" in err
    # The collapse run itself, before it was rescored by two readers: the same run id, other verdicts.
    assert main(["metrics", str(demo_dir / "run-collapse"), "--audit", str(reference)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "scored again since" in err and "SHA-256 differs" in err
    assert main(["metrics", str(demo_dir / "run-oracle"), "--audit", str(demo_dir / "nothing.json")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
