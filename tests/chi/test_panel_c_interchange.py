"""C/A scores fit the kit's interchange: observations and a manifest that ``sitbench chi score`` reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitbench.chi import SPEC_VERSION, ChiManifest, ChiObservation, axis_capacities, dump_jsonl
from sitbench.chi._panel_c import canonical_hash
from sitbench.chi._panel_c_features import CA_FEATURE_SCHEMA_ID, feature_names
from sitbench.chi._panel_c_registry import CA_PANEL, run_reference
from sitbench.cli import main


def _write_run(tmp_path: Path, which: str, seeds: list[int]) -> tuple[Path, Path]:
    observations, hashes = [], {}
    system = {"agent": f"reference:{which}", "scheduler": "tick(text, budget_ops) of the reference policy"}
    config_hash = canonical_hash(system)
    for seed in seeds:
        scores = []
        for entry in CA_PANEL:
            _, score, report = run_reference(entry.test.test_id, seed, which)  # type: ignore[arg-type]
            scores.append(score.task_score())
            hashes[f"{entry.test.test_id}:seed-{seed}"] = report["items_hash"]
        caps = {axis: cap.capacity for axis, cap in axis_capacities(scores).items()}
        observations.append(ChiObservation(
            version=SPEC_VERSION, config_hash=config_hash, run=f"trajectory-{seed}", agent=system["agent"],
            seed=seed, step=0, wall_time=0.0, history_hash=canonical_hash(seed), state_hash=canonical_hash(seed),
            capacities=caps, human_similarity=None, chi=None, reference_kind="none", synthetic=False,
            budgets={"tick_ops": 1.0}, task_results=scores))
    manifest = ChiManifest(
        protocol_id="chi-chis-0.1-panel-c-a", calibration_id=None, evidence_class="capacity-only",
        system=system, feature_schemas={f"{CA_FEATURE_SCHEMA_ID}:{a}": feature_names(a) for a in ("C", "A")},
        dataset_hashes=hashes, config_hash=config_hash, seeds=seeds,
        controls=["C1 cancellation trials", "C3 neutral-evidence episodes", "C4 tool ablation"],
        limitations=["Reference policies over synthetic items: capacity-only, CHI null."])
    obs, man = tmp_path / "observations.jsonl", tmp_path / "manifest.json"
    obs.write_text(dump_jsonl(observations), encoding="utf-8")
    man.write_text(manifest.model_dump_json(), encoding="utf-8")
    return obs, man


@pytest.mark.parametrize(("which", "c_cap"), [("good", 1.0), ("stateless", None)])
def test_c_and_a_scores_validate_under_chi_score(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 which: str, c_cap: float | None) -> None:
    obs, man = _write_run(tmp_path, which, [1, 2])
    code = main(["chi", "score", str(obs), "--manifest", str(man), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    rep = json.loads(out)
    assert rep["evidence_class"] == "capacity-only" and rep["n_clusters"] == 2
    cp = rep["checkpoints"][0]
    assert cp["chi_of_mean_h"]["estimate"] is None
    assert cp["capacity"]["A"]["estimate"] == 1.0 - (which == "stateless") / 6
    assert cp["capacity"]["C"]["estimate"] == c_cap  # stateless: C6 not invoked, so the C axis has no capacity
    assert cp["capacity"]["R"]["estimate"] is None
