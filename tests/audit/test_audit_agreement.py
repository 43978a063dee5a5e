"""κ, α, set agreement and adjudication against values computed by hand (seed §8.3)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _audit_support import claim, line, write

from sitbench.audit import (
    AuditSample,
    adjudicate,
    agreement,
    alpha_of_counts,
    build_reference,
    cohen_kappa,
    load_annotation_files,
    load_sample,
)
from sitbench.audit._agree import _majority_span
from sitbench.errors import InputError


@pytest.fixture(scope="module")
def sample(sample_path: Path) -> AuditSample:
    return load_sample(sample_path)


def _items(sample: AuditSample, n: int) -> list[str]:
    return [i.item_id for i in sample.by_position()[:n]]


def _load(tmp: Path, sample: AuditSample, files: dict[str, list[dict]]):
    paths = [write(tmp / f"{name}.jsonl", lines) for name, lines in files.items()]
    return load_annotation_files(paths, sample)


def _check(result, name):
    return next(c for c in result.categorical if c.name == name)


# --------------------------------------------------------------------------- κ and α by hand


def test_kappa_of_a_table_by_hand() -> None:
    # po = 35/50 = 0.7; marginals a (25, 25)/50, b (30, 20)/50; pe = .5·.6 + .5·.4 = .5; κ = (.7 − .5)/.5 = 0.4
    k = cohen_kappa(np.array([[20, 5], [10, 15]]))
    assert k.status == "ok" and k.value == pytest.approx(0.4) and k.observed_agreement == pytest.approx(0.7)
    assert k.units == 50


def test_alpha_by_hand_with_a_missing_rating() -> None:
    # Units (3 coders, nominal, - = missing): (a,a,a) (a,b,-) (b,b,b) (a,b,b).
    # Coincidences: o_aa = 6/2 = 3; o_ab = o_ba = 1 + 1 = 2; o_bb = 3 + 1 = 4; n_a = 5, n_b = 6, n = 11.
    # α = 1 − (n − 1)·(o_ab + o_ba) / (2·n_a·n_b) = 1 − 10·4/60 = 1/3.
    counts = np.array([[3, 0], [1, 1], [0, 3], [1, 2]])
    a = alpha_of_counts(counts)
    assert a.status == "ok" and a.value == pytest.approx(1 / 3) and a.units == 4


def test_degenerate_and_undefined_are_reported_not_nan() -> None:
    same = cohen_kappa(np.array([[0, 0], [0, 12]]))
    assert same.value is None and same.status == "degenerate" and same.observed_agreement == 1.0
    assert "0/0" in (same.note or "")
    nothing = cohen_kappa(np.zeros((2, 2)))
    assert nothing.value is None and nothing.status == "undefined"
    one_value = alpha_of_counts(np.array([[2, 0], [3, 0]]))
    assert one_value.value is None and one_value.status == "degenerate"
    unpaired = alpha_of_counts(np.array([[1, 0], [0, 1]]))
    assert unpaired.value is None and unpaired.status == "undefined"


def test_kappa_and_alpha_through_annotation_files(sample: AuditSample, tmp_path: Path) -> None:
    """The same 2 × 2 table as above, built from two annotators' files: κ = α = 0.4 on ANSWER."""
    items = _items(sample, 50)
    cells = [(0, 0)] * 20 + [(0, 1)] * 5 + [(1, 0)] * 10 + [(1, 1)] * 15
    a = [line(sample, "a", i, acts=["ANSWER"] if x else []) for i, (x, _) in zip(items, cells, strict=True)]
    b = [line(sample, "b", i, acts=["ANSWER"] if y else []) for i, (_, y) in zip(items, cells, strict=True)]
    result = agreement(sample, _load(tmp_path, sample, {"a": a, "b": b}), seed=5, resamples=300)
    answer = _check(result, "act ANSWER")
    assert answer.units == 50 and answer.pairs[0].kappa.value == pytest.approx(0.4)
    # Two coders, 50 units: o_00 = 40, o_11 = 30, o_01 = o_10 = 15; n_0 = 55, n_1 = 45;
    # α = 1 − 99·30 / (2·55·45) = 0.4.
    assert answer.alpha.value == pytest.approx(0.4)
    interval = answer.pairs[0].kappa.interval
    assert interval is not None and interval.lower < 0.4 < interval.upper and interval.seed == 5
    assert interval.resamples == 300 and not interval.degenerate
    assert answer.meets_target is False
    # The same seed gives the same interval; the bootstrap is explicit.
    again = agreement(sample, _load(tmp_path, sample, {"a": a, "b": b}), seed=5, resamples=300)
    assert _check(again, "act ANSWER").pairs[0].kappa.interval == interval
    # No annotator marked WITHHOLD: κ and α are degenerate, and the κ ≥ 0.90 target is not met or missed but n/a.
    withhold = _check(result, "act WITHHOLD")
    assert withhold.alpha.status == "degenerate" and withhold.pairs[0].kappa.status == "degenerate"
    assert withhold.meets_target is None
    # No claim at all: polarity agreement is undefined, not 0 or 1.
    polarity = _check(result, "claim polarity")
    assert polarity.units == 0 and polarity.alpha.status == "undefined"
    assert polarity.pairs[0].kappa.status == "undefined"
    claims = next(s for s in result.sets if s.name == "claims").pairs[0]
    assert claims.f1 is None and claims.exact_set == 1.0


def test_three_coder_alpha_and_pairwise_kappa_by_hand(sample: AuditSample, tmp_path: Path) -> None:
    i1, i2, i3, i4 = _items(sample, 4)
    grid = {"a": {i1: "none", i2: "none", i3: "hedged", i4: "none"},
            "b": {i1: "none", i2: "hedged", i3: "hedged", i4: "hedged"},
            "c": {i1: "none", i3: "hedged", i4: "hedged"}}  # c did not annotate i2
    files = {n: [line(sample, n, i, uncertainty=u) for i, u in g.items()] for n, g in grid.items()}
    result = agreement(sample, _load(tmp_path, sample, files), resamples=200)
    unc = _check(result, "uncertainty")
    assert unc.alpha.value == pytest.approx(1 / 3) and unc.alpha.units == 4
    kappa = {(p.a, p.b): p.kappa for p in unc.pairs}
    # a/b over 4 units: table [[1, 2], [0, 1]]; po = .5, pa = (3/4, 1/4), pb = (1/4, 3/4); pe = .375; κ = .2
    assert kappa[("a", "b")].value == pytest.approx(0.2)
    # a/c over 3 units: (none,none) (hedged,hedged) (none,hedged): po = 2/3; pa = (2/3, 1/3), pc = (1/3, 2/3);
    # pe = 4/9; κ = (2/3 − 4/9) / (5/9) = 0.4
    assert kappa[("a", "c")].value == pytest.approx(0.4) and kappa[("a", "c")].units == 3


def test_set_agreement_by_hand(sample: AuditSample, tmp_path: Path) -> None:
    i1, i2 = _items(sample, 2)
    p = sample.item_map()[i1].universe
    a = [line(sample, "a", i1, claims=[claim(p[0]), claim(p[1])]), line(sample, "a", i2, claims=[claim(p[2])])]
    b = [line(sample, "b", i1, claims=[claim(p[0]), claim(p[2], polarity=False)]),
         line(sample, "b", i2, claims=[claim(p[2])])]
    result = agreement(sample, _load(tmp_path, sample, {"a": a, "b": b}), resamples=100)
    pair = next(s for s in result.sets if s.name == "claims").pairs[0]
    # matched: p0 on i1, p2 on i2 → 2 of 3 (a) and 3 (b): P = R = F1 = 2/3; exact sets on 1 of 2 items
    assert (pair.matched, pair.a_count, pair.b_count) == (2, 3, 3)
    assert pair.precision == pytest.approx(2 / 3) and pair.recall == pytest.approx(2 / 3)
    assert pair.f1 == pytest.approx(2 / 3) and pair.exact_set == 0.5
    polarity = _check(result, "claim polarity")
    # units: i1 p0 (both +), i1 p1 (a only), i1 p2 (b only), i2 p2 (both +): 2 pairable, all '+': degenerate
    assert polarity.units == 4 and polarity.alpha.status == "degenerate" and polarity.alpha.units == 2


def test_majority_span() -> None:
    assert _majority_span([(0, 10), (2, 12), (20, 30)]) == (2, 10)
    assert _majority_span([(0, 5), (10, 15)]) is None
    assert _majority_span([(3, 8)]) == (3, 8)


# --------------------------------------------------------------------------- adjudication


def test_majority_decides_and_a_three_way_tie_needs_the_adjudicator(sample: AuditSample, tmp_path: Path) -> None:
    i1, i2 = _items(sample, 2)
    prop = sample.item_map()[i1].universe[0]
    votes = {"a": ("none", "personal_experience", ["ANSWER"]), "b": ("hedged", "acquired", ["ANSWER"]),
             "c": ("not_knowing", "told_by", [])}
    files = {n: [line(sample, n, i1, uncertainty=u, acts=acts, claims=[claim(prop, provenance=prov, span=[0, 4])]),
                 line(sample, n, i2, acts=["ABSTAIN"] if n != "c" else ["ABSTAIN", "QUALIFY"])]
             for n, (u, prov, acts) in votes.items()}
    annotations = _load(tmp_path, sample, files)
    with pytest.raises(InputError, match="tied unit"):
        adjudicate(sample, annotations)
    adjudicator = [line(sample, "adj", i1, uncertainty="hedged", acts=["ANSWER"],
                        claims=[claim(prop, provenance="acquired", span=[0, 3])])]
    write(tmp_path / "adj.jsonl", adjudicator)
    own = {a.item_id: a for a in load_annotation_files([tmp_path / "adj.jsonl"], sample)["adj"].values()}
    items, records, summary = adjudicate(sample, annotations, "adj", own)
    reference = {r.item_id: r for r in items}
    first = reference[i1]
    assert first.annotator == "reference"
    assert first.uncertainty.value == "hedged"  # three-way tie: the adjudicator's label
    assert [a.value for a in first.acts] == ["ANSWER"]  # 2 of 3: majority
    assert [(c.prop_id, c.provenance.value, c.span) for c in first.claims] == [(prop, "acquired", (0, 4))]
    assert [a.value for a in reference[i2].acts] == ["ABSTAIN"]  # QUALIFY 1 of 3: absent
    tied = {r.unit: r for r in records}
    assert set(tied) == {"uncertainty", f"claim {prop} provenance"}
    assert tied["uncertainty"].votes == {"a": "none", "b": "hedged", "c": "not_knowing"}
    assert tied["uncertainty"].decided == "hedged" and tied["uncertainty"].by == "adj"
    assert summary.adjudicated_units == 2 and summary.items == 2 and summary.unanimous_items == 0
    # The adjudicator's reading lacks the tied claim: the claim is decided absent (and recorded so).
    lacking = {i1: own[i1].model_copy(update={"claims": []})}
    items, records, _ = adjudicate(sample, annotations, "adj", lacking)
    assert next(r for r in items if r.item_id == i1).claims == []
    assert any(r.decided == "absent" for r in records)


def test_two_annotators_one_against_one_with_a_named_adjudicator(sample: AuditSample, tmp_path: Path) -> None:
    (i1,) = _items(sample, 1)
    files = {"a": [line(sample, "a", i1, acts=["REJECT"])], "b": [line(sample, "b", i1, acts=[])]}
    annotations = _load(tmp_path, sample, files)
    with pytest.raises(InputError, match="adjudicator"):
        adjudicate(sample, annotations)
    items, records, _ = adjudicate(sample, annotations, "b")
    assert items[0].acts == [] and records[0].unit == "act REJECT" and records[0].by == "b"
    with pytest.raises(InputError, match="not one of the annotators"):
        adjudicate(sample, annotations, "zed")


def test_reference_records_the_sample_and_phase(sample: AuditSample, sample_path: Path, tmp_path: Path) -> None:
    (i1,) = _items(sample, 1)
    files = {n: [line(sample, n, i1, acts=["ANSWER"])] for n in ("a", "b", "c")}
    reference = build_reference(sample, sample_path, _load(tmp_path, sample, files), resamples=50)
    assert reference.phase == "dev" and reference.sample_id == sample.sample_id and not reference.synthetic
    assert reference.agreement.adjudication is not None and reference.agreement.adjudication.unanimous_items == 1
    assert len(reference.sample_sha256) == 64
