"""The extractor against a reference: IPW estimates checked by hand, and the audit-sample aggregate beside them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _audit_support import DEMO_RUNS, rule_lines, rule_reading, write

from sitbench.audit import (
    AuditSample,
    build_reference,
    load_annotation_files,
    load_sample,
    measure,
)
from sitbench.audit._verifier import (
    COLLAPSED,
    Row,
    estimate,
    stratified_draws,
    variance_groups,
)


def _rule_reading(sample: AuditSample, item) -> dict:
    return rule_reading(sample, item)


def _lines(sample: AuditSample, name: str, change: dict[str, dict] | None = None) -> list[dict]:
    return rule_lines(sample, name, change, synthetic=False)


def test_ipw_estimate_by_hand() -> None:
    # Stratum A: π = 0.5, two responses with 1 and 0 hits; stratum B: π = 0.1, one response with a hit.
    # Weights 2, 2, 10: IPW = (2·1 + 2·0 + 10·1) / (2 + 2 + 10) = 12/14; unweighted 2/3.
    rows = [Row("i1", "A", 2.0, {}, {"act_set_exact": (1, 1)}), Row("i2", "A", 2.0, {}, {"act_set_exact": (0, 1)}),
            Row("i3", "B", 10.0, {}, {"act_set_exact": (1, 1)})]
    draws = stratified_draws([r.stratum for r in rows], 400, 9)
    e = estimate(rows, "act_set_exact", draws, 9, 0.95)
    assert e.population == pytest.approx(12 / 14) and e.audit_sample == pytest.approx(2 / 3) and e.n == 3
    # B has one response: it is pooled into the collapsed group; A is resampled within itself.
    assert variance_groups(["A", "A", "B"]) == ["A", "A", COLLAPSED]
    assert all(sorted(row)[2] == 2 and set(sorted(row)[:2]) <= {0, 1} for row in draws.tolist())
    # Resamples of A are {1,1}, {1,0}, {0,0}: the interval runs from 10/14 to 1.
    assert e.interval is not None and e.interval.lower == pytest.approx(10 / 14) and e.interval.upper == 1.0
    # A ratio figure: numerators and denominators are weighted separately.
    rows = [Row("i1", "A", 2.0, {}, {"claim_precision": (1, 2)}), Row("i2", "B", 5.0, {}, {"claim_precision": (3, 3)})]
    e = estimate(rows, "claim_precision", stratified_draws(["A", "B"], 50, 0), 0, 0.95)
    assert e.population == pytest.approx((2 * 1 + 5 * 3) / (2 * 2 + 5 * 3))  # 17/19
    assert e.audit_sample == pytest.approx(4 / 5) and e.denominator == 5
    # No denominator anywhere: undefined, not 0.
    rows = [Row("i1", "A", 2.0, {}, {"unmapped_recall": (0, 0)})]
    e = estimate(rows, "unmapped_recall", stratified_draws(["A"], 10, 0), 0, 0.95)
    assert e.population is None and e.interval is None and e.audit_sample is None


def _reference(sample: AuditSample, sample_path: Path, tmp: Path, change: dict[str, dict] | None = None):
    paths = [write(tmp / f"{n}.jsonl", _lines(sample, n, change)) for n in ("a", "b", "c")]
    return build_reference(sample, sample_path, load_annotation_files(paths, sample), resamples=50)


def test_an_extractor_agreeing_with_the_reference_scores_one(sample_path: Path, tmp_path: Path) -> None:
    sample = load_sample(sample_path)
    result, _ = measure(_reference(sample, sample_path, tmp_path), sample, "rules", resamples=100)
    by = {e.metric: e for e in result.estimates}
    for metric in ("act_accuracy", "act_set_exact", "claim_f1", "claim_f1_strict", "decision_agreement",
                   "uncertainty_accuracy"):
        assert by[metric].population == pytest.approx(1.0) and by[metric].audit_sample == pytest.approx(1.0)
    assert by["false_reject_rate"].population == 0.0 and by["false_accept_rate"].population == 0.0
    assert result.annotated == 60 and result.sampled == 60 and result.unrepresented_population == 0
    assert result.extractor == "rules@sitbench-rules/3.1" and result.phase == "dev"


def test_planted_disagreements_weighted_by_hand(sample_path: Path, tmp_path: Path) -> None:
    """The reference adds WITHHOLD to two responses: act accuracy is 5/6 there, 1 elsewhere. The population
    estimate weights each response by 1/π of its stratum; the aggregate does not."""
    sample = load_sample(sample_path)
    items = sample.by_position()
    # One response from the most-, one from the least-oversampled stratum present in the sample.
    hi = max(items, key=lambda i: i.inclusion_probability)
    lo = min(items, key=lambda i: i.inclusion_probability)
    assert hi.inclusion_probability > lo.inclusion_probability
    change = {}
    for item in (hi, lo):
        acts = _rule_reading(sample, item)["acts"]
        assert "WITHHOLD" not in acts
        change[item.item_id] = {"acts": sorted([*acts, "WITHHOLD"], key=["ANSWER", "ABSTAIN", "REJECT", "WITHHOLD",
                                                                        "QUALIFY", "ACKNOWLEDGE_ASSERTION"].index)}
    result, _ = measure(_reference(sample, sample_path, tmp_path, change), sample, "rules", resamples=100)
    by = {e.metric: e for e in result.estimates}
    w = {i.item_id: 1 / i.inclusion_probability for i in items}  # every drawn response is annotated: π_i = π_h
    hits = {i.item_id: 6 - (i.item_id in change) for i in items}
    expected = sum(w[k] * hits[k] for k in w) / sum(6 * w[k] for k in w)
    assert by["act_accuracy"].population == pytest.approx(expected)
    assert by["act_accuracy"].audit_sample == pytest.approx((60 * 6 - 2) / 360)
    exact = sum(w[k] for k in w if k not in change) / sum(w.values())
    assert by["act_set_exact"].population == pytest.approx(exact)
    assert by["act_set_exact"].audit_sample == pytest.approx(58 / 60)
    interval = by["act_set_exact"].interval
    assert interval is not None and interval.lower <= by["act_set_exact"].population <= interval.upper
    assert not interval.degenerate and interval.resamples == 100
    # Per stratum: the changed responses' strata show them.
    strata = {s.key: s for s in result.strata}
    assert strata[hi.stratum].figures["act_set_exact"] < 1 and strata[lo.stratum].figures["act_set_exact"] < 1
    assert strata[hi.stratum].inclusion_probability == hi.inclusion_probability
    # Domains: IPW within one category sums the weights of its responses.
    cat = next(d for d in result.domains if d.grouping == "category" and d.value == hi.category.value)
    assert cat.population == pytest.approx(sum(w[i.item_id] for i in items if i.category == hi.category))
    # A WITHHOLD the extractor misses can change contract decisions; the verdicts are scored both ways.
    assert by["decision_agreement"].denominator >= 60


def test_a_response_left_unannotated_reweights_its_stratum(demo_dir: Path, tmp_path: Path) -> None:
    from sitbench.cli import main

    # More responses than strata, so that some stratum holds two (a 60-response sample may hold one in each).
    sample_path = tmp_path / "sample.json"
    assert main(["audit", "sample", *(str(demo_dir / r) for r in DEMO_RUNS), "--n", "300", "--seed", "1",
                 "--phase", "dev", "--out", str(sample_path)]) == 0
    sample = load_sample(sample_path)
    strata = {s.key: s for s in sample.strata}
    counts: dict[str, list] = {}
    for item in sample.items:
        counts.setdefault(item.stratum, []).append(item)
    key, members = next((k, m) for k, m in counts.items() if len(m) >= 2)
    dropped = members[0].item_id
    paths = [write(tmp_path / f"{n}.jsonl", [x for x in _lines(sample, n) if x["item_id"] != dropped])
             for n in ("a", "b")]
    reference = build_reference(sample, sample_path, load_annotation_files(paths, sample), resamples=20)
    result, rows = measure(reference, sample, "rules", resamples=20)
    kept = [r for r in rows if r.stratum == key]
    # π_i = π_h · annotated_h / sampled_h
    pi = strata[key].inclusion_probability * (len(members) - 1) / len(members)
    assert all(r.weight == pytest.approx(1 / pi) for r in kept)
    assert result.annotated == len(sample.items) - 1 and result.unrepresented_population == 0


def test_verifier_cli_writes_json_and_refuses_a_changed_sample(sample_path: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.cli import main

    sample = load_sample(sample_path)
    reference = _reference(sample, sample_path, tmp_path)
    ref_path = tmp_path / "reference.json"
    ref_path.write_text(reference.model_dump_json(), encoding="utf-8")
    out = tmp_path / "verifier.json"
    assert main(["audit", "verifier", str(ref_path), "--resamples", "50", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "audit-sample aggregate" in text and "NOT population performance" in text
    data = json.loads(out.read_text())
    assert data["format"] == "sitbench-audit-verifier/1" and data["agreement"]["items"] == 60
    assert np.isclose(next(e for e in data["estimates"] if e["metric"] == "act_accuracy")["population"], 1.0)
    changed = tmp_path / "changed.json"
    changed.write_text(sample_path.read_text() + " ", encoding="utf-8")
    assert main(["audit", "verifier", str(ref_path), "--sample", str(changed)]) == 2
    assert "SHA-256 differs" in capsys.readouterr().err
