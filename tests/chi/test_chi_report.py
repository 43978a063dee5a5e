"""The §8 report: aggregation, estimands, missingness and uncertainty."""

from __future__ import annotations

import numpy as np
import pytest

from sitbench.chi import AXES, build_report, chi_score, demo_manifest, demo_observations, render_text, stability


@pytest.fixture(scope="module")
def demo():  # type: ignore[no-untyped-def]
    m, obs = demo_manifest(0), demo_observations(0)
    return m, obs, build_report(m, obs)


def test_demo_shape_and_labels(demo) -> None:  # type: ignore[no-untyped-def]
    _, _, rep = demo
    assert rep.n_clusters == 8 and rep.steps == [0, 1, 2, 3, 4] and rep.n_records == 40
    assert rep.load_grid == [1, 2, 4, 8, 16]
    assert rep.evidence_class == "synthetic-demonstration" and rep.synthetic is True
    assert rep.label.startswith("SYNTHETIC DEMONSTRATION")
    assert rep.reference_kinds == ["synthetic"]
    assert rep.uncertainty["n_resamples"] == 2000


def test_chi_of_mean_h_and_mean_of_run_chi_are_separate_estimands(demo) -> None:  # type: ignore[no-untyped-def]
    _, obs, rep = demo
    for c in rep.checkpoints:
        rows = [o for o in obs if o.step == c.step]
        mean_h = {a: float(np.mean([o.human_similarity[a] for o in rows])) for a in AXES}  # type: ignore[index]
        assert c.chi_of_mean_h.estimate == pytest.approx(chi_score(mean_h))
        assert c.mean_of_run_chi.estimate == pytest.approx(float(np.mean([o.chi for o in rows])))
        assert c.chi_of_mean_h.estimate != pytest.approx(c.mean_of_run_chi.estimate)
        for a in AXES:
            assert c.capacity[a].estimate == pytest.approx(float(np.mean([o.capacities[a] for o in rows])))
            assert c.capacity[a].lower <= c.capacity[a].estimate <= c.capacity[a].upper  # type: ignore[operator]


def test_memory_curve_aggregates_clusters_equally_and_keeps_counts(demo) -> None:  # type: ignore[no-untyped-def]
    _, obs, rep = demo
    c0 = rep.checkpoints[0]
    rows = [o for o in obs if o.step == 0]
    r_mean = float(np.mean([o.memory.points[1].r for o in rows]))  # type: ignore[union-attr]
    assert c0.memory is not None and c0.memory.points[1].r == pytest.approx(r_mean)
    counts = c0.memory.points[1].counts
    assert counts is not None and counts["r"].total == 8 * 40 and counts["f"].total == 8 * 40
    assert c0.memory.status in {"observed", "no_passing_tested_load", "lower_bound/right_censored"}
    assert set(c0.memory.sensitivity) == {"0.7", "0.8", "0.9"}
    mu = c0.memory_uncertainty
    assert mu is not None and sum(cat.frequency for cat in mu.categories) == pytest.approx(1.0)


def test_task_denominators_are_summed_over_runs(demo) -> None:  # type: ignore[no-untyped-def]
    _, obs, rep = demo
    t = rep.checkpoints[0].task_results["R1"]
    assert t["total"] == 8 * 20 and t["n_runs"] == 8
    assert t["correct"] == sum(next(x for x in o.task_results if x.test_id == "R1").correct for o in obs if o.step == 0)  # type: ignore[union-attr, misc]


def test_report_is_deterministic_and_seed_is_recorded(demo) -> None:  # type: ignore[no-untyped-def]
    m, obs, rep = demo
    assert build_report(m, obs).model_dump() == rep.model_dump()
    other = build_report(m, obs, seed=99)
    assert other.uncertainty["seed"] == 99
    assert other.checkpoints[0].capacity["R"].estimate == rep.checkpoints[0].capacity["R"].estimate


def test_missing_capacity_is_strict_and_counted(demo) -> None:  # type: ignore[no-untyped-def]
    m, obs, _ = demo
    changed = [o.model_copy(update={"capacities": {**o.capacities, "C": None}}) if (o.run, o.step) == ("demo-run-03", 2) else o for o in obs]
    rep = build_report(m, changed)
    c2 = rep.checkpoints[2]
    assert c2.capacity["C"].estimate is None and c2.capacity_missing["C"] == 1
    assert c2.capacity["C"].lower is None and c2.capacity["C"].upper is None
    assert rep.checkpoints[1].capacity["C"].estimate is not None


def test_missing_similarity_gives_null_chi_in_the_report(demo) -> None:  # type: ignore[no-untyped-def]
    m, obs, _ = demo
    changed = [o.model_copy(update={"human_similarity": {**o.human_similarity, "A": None}, "chi": None}) if o.step == 4 else o for o in obs]  # type: ignore[dict-item]
    rep = build_report(m, changed)
    assert rep.checkpoints[4].chi_of_mean_h.estimate is None
    assert rep.checkpoints[4].chi_of_mean_h.lower is None
    assert rep.checkpoints[3].chi_of_mean_h.estimate is not None


def test_single_cluster_gives_null_uncertainty(demo) -> None:  # type: ignore[no-untyped-def]
    m, obs, _ = demo
    rep = build_report(m, [o for o in obs if o.run == "demo-run-00"])
    assert rep.n_clusters == 1 and rep.uncertainty["n_resamples"] == 0
    c = rep.checkpoints[0]
    assert c.capacity["R"].estimate is not None and c.capacity["R"].lower is None
    assert c.memory_uncertainty is not None and c.memory_uncertainty.lower is None
    assert rep.stability is not None and rep.stability.lower is None


def test_derived_measures_use_declared_neutral_steps(demo) -> None:  # type: ignore[no-untyped-def]
    m, obs, rep = demo
    assert m.neutral_steps == [2, 3, 4]
    assert rep.checkpoints[1].continuity is None and rep.checkpoints[3].continuity is not None
    assert rep.checkpoints[0].drift is not None and rep.checkpoints[0].drift.estimate == 0.0
    # Stability is the mean over runs of each run's 1 - mean adjacent D over the neutral steps.
    per_run = [stability([o.features for o in sorted(obs, key=lambda o: o.step)
                          if o.run == run and o.step in m.neutral_steps]).value
               for run in sorted({o.run for o in obs})]
    assert rep.stability is not None and rep.stability.estimate == pytest.approx(float(np.mean(per_run)))
    assert 0.95 < rep.stability.estimate < 1.0  # type: ignore[operator]  # the demo agents drift a little
    assert rep.memory_accumulation is not None


def test_text_rendering_carries_every_required_field(demo) -> None:  # type: ignore[no-untyped-def]
    _, _, rep = demo
    text = render_text(rep)
    for needle in (
        "SYNTHETIC DEMONSTRATION", "evidence class", "protocol:", "calibration:", "system:", "8 clusters",
        "p: R=", "h: R=", "CHI of mean h", "mean of per-run CHI", "tasks: ", "Q_M:", "EIMC(tau=0.8)",
        "sensitivity", "EIMC bootstrap", "uncertainty:", "resources:", "drift", "stability", "memory accumulation",
        "derived definitions", "controls:", "exclusions", "limitations:", "artifact hashes",
    ):
        assert needle in text, needle


def test_memory_curve_label_delay_and_costs(demo) -> None:  # type: ignore[no-untyped-def]
    m, obs, rep = demo
    c = rep.checkpoints[0]
    assert c.memory_label == "persistent EIMC" and c.memory_delay == 10.0
    assert c.memory_costs["tool_calls"] == 240.0
    in_context = build_report(m.model_copy(update={"memory_mechanism": "in-context"}), obs)
    assert in_context.checkpoints[0].memory_label == "in-context memory curve (not persistent EIMC)"
    assert "not persistent EIMC" in render_text(in_context)


def test_pooled_false_memory_parts_never_go_negative() -> None:
    # numpy's mean of f and the exact mean of f_raw differ by -1.1e-16 for these lure counts; the
    # pooled invalid_lure_rate was their difference, which is no proportion (and raised).
    import numpy as np

    from sitbench.chi import MemoryPoint
    from sitbench.chi._report import _aggregate_point

    pts = [MemoryPoint.from_counts(r=(1, 1), t=(1, 1), s=(1, 1), u=(1, 1), i=(1, 1), lures=(u, 0, 40))
           for u in (21, 30, 35, 6, 22)]
    row = np.array([[p.r, p.t, p.s, p.u, p.i, p.f] for p in pts]).mean(axis=0)
    agg = _aggregate_point(pts, row)
    assert agg.invalid_lure_rate == 0.0 and agg.f_raw == pytest.approx(114 / 200)
