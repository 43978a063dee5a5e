"""End to end through the real CLI: the pilot generates, validates with all 19 checks, exports schemas."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sitbench.cli import main
from sitbench.runs import FORMAT_VERSION

from ._pilot_dir import PilotDir

CHECK_IDS = [f"inv{k}" for k in range(1, 20)]
COUNTS = {"pairs": 2, "lineages": 4, "probes": 22, "propositions": 34, "theorem_qualified": 10}
CATEGORIES = {"A": 4, "B": 2, "C": 3, "D": 2, "E": 3, "F": 2, "G": 2, "H": 4}
SCHEMA_NAMES = ["lineage", "registry", "query", "probe", "contract", "observation", "verdict",
                "subject_evidence", "pair", "dataset_manifest"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitbench", *args], capture_output=True, text=True, timeout=60,
                          check=False)


def test_generate_then_validate_in_a_real_process(tmp_path: Path) -> None:
    out = tmp_path / "pilot"
    generated = _run("generate", "--suite", "pilot", "--out", str(out))
    assert generated.returncode == 0, generated.stderr
    assert generated.stdout.strip() == (f"wrote pilot to {out}: 2 pairs, 4 lineages, 22 probes "
                                        "(10 theorem-qualified), 34 propositions")
    validated = _run("validate", str(out), "--json")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stderr == ""
    payload = json.loads(validated.stdout)
    assert [row["id"] for row in payload["checks"]] == CHECK_IDS
    assert all(row["passed"] and row["problems"] == [] for row in payload["checks"])
    assert payload["counts"] == COUNTS


def test_validate_json_reports_every_check_with_a_summary(pilot_dir: PilotDir,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(pilot_dir.root), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    rows = {row["id"]: row for row in payload["checks"]}
    assert list(rows) == CHECK_IDS
    assert set(payload["checks"][0]) == {"id", "name", "passed", "details", "problems"}
    assert payload["counts"] == COUNTS
    # Summaries carry the counts the checks actually walked over.
    assert rows["inv1"]["details"] == "4 lineages, 22 probes, 22 queries parse and link"
    assert rows["inv3"]["details"] == "7 acquisition edges dated on or after their source events"
    assert rows["inv4"]["details"] == "all references resolve in a registry of 34 propositions"
    assert rows["inv5"]["details"] == "2 belief versions backed by explicit transition events"
    assert rows["inv7"]["details"] == "2 pairs have byte-identical profiles at every checkpoint"
    assert rows["inv9"]["details"] == "22 contracts are individually satisfiable"
    assert rows["inv10"]["details"] == "10 theorem-qualified probes have certified-disjoint partner contracts"
    assert rows["inv13"]["details"] == ("all eight categories present "
                                        "(A=4, B=2, C=3, D=2, E=3, F=2, G=2, H=4)")
    assert rows["inv14"]["details"] == "4 cross-session probes persist facts with session-ingestion provenance"


def test_category_counts_in_manifest_and_store(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    probes = pilot_dir.read_jsonl("hidden/probes.jsonl")
    assert dict(sorted(Counter(p["category"] for p in probes).items())) == CATEGORIES
    assert sum(p["theorem_qualified"] for p in probes) == 10
    assert main(["generate", "--suite", "pilot", "--out", str(pilot_dir.root), "--json"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest == pilot_dir.read_json("manifest.json")
    assert manifest["counts"] == COUNTS | {f"category_{k}": n for k, n in CATEGORIES.items()}
    assert manifest["suite"] == "pilot" and manifest["seed"] is None


def test_theorem_qualified_probes_come_in_partner_pairs(pilot_dir: PilotDir) -> None:
    probes = {p["probe_id"]: p for p in pilot_dir.read_jsonl("hidden/probes.jsonl")}
    qualified = {pid: p for pid, p in probes.items() if p["theorem_qualified"]}
    assert sorted(qualified) == [f"PR-{k:02d}" for k in range(1, 11)]
    pair_of = {m: pair["pair_id"] for pair in pilot_dir.read_json("pairs/pairs.json") for m in pair["members"]}
    for pid, probe in qualified.items():
        partner = probes[probe["partner_probe_id"]]
        assert partner["partner_probe_id"] == pid
        assert partner["lineage_id"] != probe["lineage_id"]
        assert pair_of[partner["lineage_id"]] == pair_of[probe["lineage_id"]]


def test_validate_table_output(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(pilot_dir.root)]) == 0
    out = capsys.readouterr().out
    for check_id in CHECK_IDS:
        assert check_id in out
    assert "FAIL" not in out
    assert out.count("pass") == len(CHECK_IDS)
    assert "pairs: 2, lineages: 4, probes: 22, propositions: 34, theorem_qualified: 10" in out


def _break_one_contract(pilot_dir: PilotDir) -> None:
    def edit(probe: dict[str, Any]) -> None:
        probe["contract"]["forbidden_acts"].append("ANSWER")

    pilot_dir.edit_probe("PR-18", edit)


def test_validate_exits_1_when_a_check_fails(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    """``sitbench validate --help`` promises exit 1 when a check fails."""
    _break_one_contract(pilot_dir)
    code = main(["validate", str(pilot_dir.root), "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert [row["id"] for row in payload["checks"] if not row["passed"]] == ["inv9"]
    assert code == 1


def test_validate_exits_1_when_a_check_fails_in_a_real_process(pilot_dir: PilotDir) -> None:
    _break_one_contract(pilot_dir)
    result = _run("validate", str(pilot_dir.root))
    assert "FAIL" in result.stdout
    assert result.returncode == 1


def test_schema_export_writes_the_json_schemas(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sitbench.agents import AGENT_SCHEMAS
    from sitbench.audit import AUDIT_SCHEMAS
    from sitbench.runs import RUN_SCHEMAS
    from sitbench.schema import EXPORTED_MODELS

    out = tmp_path / "schemas"
    assert main(["schema", "--out", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    # The ten Foundation records; later issues may export more (one file per exported model).
    exported = EXPORTED_MODELS | RUN_SCHEMAS | AGENT_SCHEMAS | AUDIT_SCHEMAS
    assert set(SCHEMA_NAMES) <= set(EXPORTED_MODELS)
    assert written == sorted(f"{name}.schema.json" for name in exported)
    assert capsys.readouterr().out.strip() == f"wrote {len(exported)} schemas to {out}"
    for name in SCHEMA_NAMES:
        schema = json.loads((out / f"{name}.schema.json").read_text(encoding="utf-8"))
        assert schema["type"] == "object"
        assert schema["properties"]
    # The run records are exported with their format version (1 when a record lacks it).
    for name in ("run_manifest", "trial_record", "score_record"):
        schema = json.loads((out / f"{name}.schema.json").read_text(encoding="utf-8"))
        assert schema["properties"]["format_version"]["default"] == FORMAT_VERSION
    # Contract fields live on the probe's contract only, never in the query schema.
    query = json.loads((out / "query.schema.json").read_text(encoding="utf-8"))
    assert not {"required_acts", "required_claims", "temporal_cutoff"} & set(query["properties"])


def test_exported_schemas_are_valid_and_accept_the_pilot(pilot_dir: PilotDir, tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    out = tmp_path / "schemas"
    assert main(["schema", "--out", str(out)]) == 0
    schemas = {p.name.removesuffix(".schema.json"): json.loads(p.read_text(encoding="utf-8"))
               for p in sorted(out.glob("*.schema.json"))}
    assert set(SCHEMA_NAMES) <= set(schemas)
    validators = {}
    for name, schema in schemas.items():
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validators[name] = cls(schema)
    root = pilot_dir.root
    documents: list[tuple[str, Any]] = [("registry", pilot_dir.read_json("hidden/registry.json")),
                                        ("dataset_manifest", pilot_dir.read_json("manifest.json"))]
    documents += [("lineage", json.loads(p.read_text(encoding="utf-8")))
                  for p in sorted((root / "hidden/lineages").glob("*.json"))]
    documents += [("subject_evidence", json.loads(p.read_text(encoding="utf-8")))
                  for p in sorted((root / "visible/subjects").glob("*.json"))]
    documents += [("probe", p) for p in pilot_dir.read_jsonl("hidden/probes.jsonl")]
    documents += [("contract", p["contract"]) for p in pilot_dir.read_jsonl("hidden/probes.jsonl")]
    documents += [("query", q) for q in pilot_dir.read_jsonl("visible/queries.jsonl")]
    documents += [("pair", p) for p in pilot_dir.read_json("pairs/pairs.json")]
    assert len(documents) == 2 + 4 + 4 + 22 + 22 + 22 + 2
    for name, document in documents:
        validators[name].validate(document)
    # And the schemas reject what the loaders reject: an unknown enum value and an unknown field.
    probe = pilot_dir.read_jsonl("hidden/probes.jsonl")[0]
    assert not validators["probe"].is_valid(probe | {"category": "Z"})
    assert not validators["probe"].is_valid(probe | {"expected_act": "ANSWER"})
