"""The README's audit example end to end: demo runs → sample of 60 → three synthetic annotators →
import → agree and adjudicate → the rule extractor measured → the report's audit section."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _audit_support import DEMO_RUNS

from sitbench.audit._verifier import METRICS
from sitbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "audit_synthetic.py"


@pytest.fixture(scope="module")
def flow(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("audit-flow")
    sample = work / "sample.json"
    assert main(["audit", "sample", *(str(demo_dir / r) for r in DEMO_RUNS), "--n", "60", "--seed", "1",
                 "--phase", "dev", "--out", str(sample)]) == 0
    synthetic = work / "synthetic"
    done = subprocess.run([sys.executable, str(SCRIPT), str(sample), "--out", str(synthetic)], capture_output=True,
                          text=True, check=True)
    assert done.stdout.startswith("SYNTHETIC annotations of 60 responses")
    return {"work": work, "sample": sample, "synthetic": synthetic}


def test_readme_flow(flow: dict[str, Path], demo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work, sample, synthetic = flow["work"], flow["sample"], flow["synthetic"]
    annotations = work / "annotations"
    files = [str(synthetic / f"syn-{x}.jsonl") for x in "abc"]
    assert main(["audit", "import", *files, "--sample", str(sample), "--out", str(annotations)]) == 0
    out = capsys.readouterr().out
    assert out.count("SYNTHETIC syn-") == 3 and "60 done, 0 skipped, 0 not yet annotated (of 60 items)" in out

    reference = work / "reference.json"
    assert main(["audit", "agree", *(str(annotations / f"syn-{x}.jsonl") for x in "abc"), "--sample", str(sample),
                 "--adjudicator", str(synthetic / "syn-adjudicator.jsonl"), "--resamples", "200",
                 "--out", str(reference)]) == 0
    captured = capsys.readouterr()
    text = captured.out
    assert text.startswith("SYNTHETIC annotators (scripted, not human judgements)")
    assert "dimensionless chance-corrected coefficients" in text and "target κ ≥ 0.90" in text
    assert re.search(r"act ANSWER\s+60 units · α \d\.\d{3} \[", text)
    assert "P " in text and "F1 " in text and "% of 60 responses" in text
    assert "SYNTHETIC reference of 60 items" in captured.err
    ref = json.loads(reference.read_text())
    assert ref["synthetic"] and ref["phase"] == "dev" and len(ref["items"]) == 60
    assert ref["adjudicator"] == "syn-adjudicator"

    verifier = work / "verifier.json"
    assert main(["audit", "verifier", str(reference), "--extractor", "rules", "--resamples", "200",
                 "--out", str(verifier)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("SYNTHETIC reference (scripted annotators): extractor rules@sitbench-rules/3.1")
    assert "audit-sample aggregate = unweighted over the oversampled sample, NOT population performance" in text
    # Every figure line carries its unit.
    figures = [line for line in text.splitlines() if line.split() and line.split()[0] in METRICS]
    assert len(figures) == len(METRICS)
    assert all(x.rstrip().endswith(METRICS[x.split()[0]][1]) for x in figures)
    result = json.loads(verifier.read_text())
    act = next(e for e in result["estimates"] if e["metric"] == "act_accuracy")
    # The rule extractor reads about 98 % of (response, act) decisions of the demo runs right.
    assert act["population"] >= 0.95 and act["interval"]["lower"] <= act["population"] <= act["interval"]["upper"]
    # The planted changes (20 % of responses) are what the audit finds the rule extractor gets wrong.
    exact = next(e for e in result["estimates"] if e["metric"] == "act_set_exact")
    assert exact["audit_sample"] < 1

    html = work / "report" / "report.html"
    assert main(["report", str(demo_dir / "run-oracle"), "--audit", str(verifier), "--out", str(html)]) == 0
    page = html.read_text(encoding="utf-8")
    assert "<section id='audit'>" in page and "SYNTHETIC annotators (scripted)" in page
    assert "development calibration audit" in page
    cell = re.search(r"data-metric='act_accuracy' data-kind='population'>([^<]+)<", page)
    assert cell is not None and cell.group(1) == f"{100 * act['population']:.1f} %"
    assert "audit-sample aggregate (unweighted)" in page and "κ syn-a / syn-b" in page


def test_import_rejects_lines_that_do_not_fit_the_sample(flow: dict[str, Path], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    sample, synthetic = flow["sample"], flow["synthetic"]
    lines = (synthetic / "syn-a.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    cases = {
        "not in this item's X_q": {"claims": [{"prop_id": "P-99", "polarity": True, "provenance": "acquired"}]},
        "not inside the response": {"claims": [{"prop_id": "P-01", "polarity": True, "provenance": "acquired",
                                                 "span": [0, 10**6]}]},
        "not this sample's": {"sample_id": "audit-000000000000"},
        "is not an item": {"item_id": "it-nope"},
        "not a closed-world slot": {"unmapped": [{"span": [0, 2], "text": None, "polarity": True,
                                                   "provenance": "acquired", "slot": "shoe.size"}]},
        "marked twice": {"claims": [{"prop_id": "P-01", "polarity": True, "provenance": "acquired"},
                                    {"prop_id": "P-01", "polarity": False, "provenance": "acquired"}]},
    }
    item_response = None
    for message, change in cases.items():
        bad = dict(first, **change)
        if "unmapped" in change:
            data = json.loads(sample.read_text())
            item_response = next(i["response"] for i in data["items"] if i["item_id"] == first["item_id"])
            bad["unmapped"][0]["text"] = item_response[:2]
        path = tmp_path / "bad.jsonl"
        path.write_text(json.dumps(bad) + "\n" + "\n".join(lines[1:]) + "\n", encoding="utf-8")
        assert main(["audit", "import", str(path), "--sample", str(sample)]) == 2, message
        err = capsys.readouterr().err
        assert f"{path} line 1" in err and message in err, (message, err)
    path = tmp_path / "twice.jsonl"
    path.write_text(lines[0] + "\n" + lines[0] + "\n", encoding="utf-8")
    assert main(["audit", "import", str(path), "--sample", str(sample)]) == 2
    assert "annotated twice" in capsys.readouterr().err


def test_annotation_lines_validate_against_the_exported_schema(flow: dict[str, Path], tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    assert main(["schema", "--out", str(tmp_path)]) == 0
    schema = json.loads((tmp_path / "audit_annotation.schema.json").read_text(encoding="utf-8"))
    for raw in (flow["synthetic"] / "syn-a.jsonl").read_text(encoding="utf-8").splitlines()[:10]:
        jsonschema.validate(json.loads(raw), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"format": "sitbench-audit-annotation/1", "sample_id": "s", "phase": "later",
                             "annotator": "a", "item_id": "i"}, schema)


def test_the_readmes_printed_figures_are_what_the_flow_prints(flow: dict[str, Path], demo_dir: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The README's abridged output, line by line, with the README's own options (1000 resamples)."""
    work, sample, synthetic = flow["work"] / "readme", flow["sample"], flow["synthetic"]
    capsys.readouterr()
    printed: list[str] = []
    assert main(["audit", "sample", *(str(demo_dir / r) for r in DEMO_RUNS), "--n", "60", "--seed", "1",
                 "--phase", "dev", "--out", str(work / "sample.json")]) == 0
    printed += capsys.readouterr().out.splitlines()
    files = [str(synthetic / f"syn-{x}.jsonl") for x in "abc"]
    assert main(["audit", "import", *files, "--sample", str(sample), "--out", str(work / "annotations")]) == 0
    capsys.readouterr()
    assert main(["audit", "agree", *(str(work / "annotations" / f"syn-{x}.jsonl") for x in "abc"), "--sample",
                 str(sample), "--adjudicator", str(synthetic / "syn-adjudicator.jsonl"),
                 "--out", str(work / "reference.json")]) == 0
    printed += capsys.readouterr().out.splitlines()
    assert main(["audit", "verifier", str(work / "reference.json"), "--extractor", "rules"]) == 0
    printed += capsys.readouterr().out.splitlines()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("What it prints (abridged; every figure is of synthetic annotators and says so):", 1)[1]
    shown = block.split("```", 2)[1].strip("\n").splitlines()
    fresh = [re.sub(r"audit-[0-9a-f]+", "audit-…", line.replace(str(work / "sample.json"), "audit/sample.json"))
             .split("; next:")[0] for line in printed]
    for line in shown:
        if line.rstrip().endswith("…") and "sample audit-" not in line:
            continue  # an abridged heading
        assert line in fresh, f"the README prints a line the flow does not: {line!r}"
