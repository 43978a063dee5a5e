"""Two readers on the annotated corpus: how often they agree, how right they are when they do, how wide the band is.

The primary reader is the rule extractor; the second is the frozen blind readings of the current LLM prompt
version, replayed (``llm:replay``): readers that saw only the extractor's prompt. On the held-out slice (and,
labelled, on the development cases the readings cover) it prints:

- coverage: the share of answers whose two verdicts agree (floor 0.85);
- accuracy on agreed verdicts: the share of agreed verdicts equal to the annotated one (target ≥ 0.98);
- per category: the annotated validity, the primary reader's, the band (every contested verdict counted as a
  failure and as a pass), its width, and whether the band contains the annotated validity.

Run: python benchmarks/two_readers.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "verify" / "corpus"))

import corpus_tool  # noqa: E402

from blind_readings import BLIND_DIR  # noqa: E402
from sitbench.verify._llm import PROMPT_VERSION  # noqa: E402

READINGS = BLIND_DIR / f"{PROMPT_VERSION.replace('/', '-')}.jsonl"


def rows(split: str) -> list[dict[str, Any]]:
    """Per case of the split that the blind readings cover: category, annotated, primary and second verdicts."""
    wanted = {json.loads(line)["case"] for line in READINGS.read_text(encoding="utf-8").splitlines() if line.strip()}
    cases = [c for c in corpus_tool.load_corpus(split) if c["id"] in wanted]
    out = []
    for raw, judgement, _ in corpus_tool.readings(cases, f"rules+llm:replay/{READINGS}"):
        assert judgement.second is not None
        out.append({"id": raw["id"], "category": corpus_tool.judge_for(raw["dataset"]).probe(raw["probe_id"]).category.value,
                    "annotated": bool(raw["valid"]), "primary": judgement.verdict.valid,
                    "second": judgement.second.verdict.valid, "agreement": judgement.agreement.value})
    return out


def summary(label: str, data: list[dict[str, Any]]) -> dict[str, Any]:
    """Print and return the figures of one slice."""
    agreed = [r for r in data if r["primary"] == r["second"]]
    right = sum(r["primary"] == r["annotated"] for r in agreed)
    primary_right = sum(r["primary"] == r["annotated"] for r in data)
    second_right = sum(r["second"] == r["annotated"] for r in data)
    coverage = len(agreed) / len(data)
    print(f"{label}: {len(data)} answers; target verdicts")
    print(f"  coverage (agreed)          {coverage:.3f}  ({len(agreed)} of {len(data)}; floor 0.85)")
    print(f"  accuracy on agreed         {right / len(agreed):.3f}  ({right} of {len(agreed)}; target 0.98)")
    print(f"  accuracy, rules alone      {primary_right / len(data):.3f}")
    print(f"  accuracy, second alone     {second_right / len(data):.3f}")
    print("  cat    n  annotated  primary  band           width  contains")
    contains = 0
    categories = sorted({r["category"] for r in data})
    widths = []
    for category in categories:
        mine = [r for r in data if r["category"] == category]
        annotated = sum(r["annotated"] for r in mine) / len(mine)
        primary = sum(r["primary"] for r in mine) / len(mine)
        low = sum(r["primary"] and r["second"] for r in mine) / len(mine)
        high = sum(r["primary"] or r["second"] for r in mine) / len(mine)
        inside = low <= annotated <= high
        contains += inside
        widths.append(high - low)
        print(f"  {category}  {len(mine):>4}  {annotated:9.3f}  {primary:7.3f}  [{low:.3f}, {high:.3f}]  "
              f"{high - low:.3f}  {'yes' if inside else 'no'}")
    print(f"  the band contains the annotated validity in {contains} of {len(categories)} categories; "
          f"mean width {sum(widths) / len(widths):.3f}")
    return {"coverage": coverage, "accuracy_agreed": right / len(agreed), "contains": contains,
            "categories": len(categories)}


def main() -> int:
    summary("held-out slice", rows("heldout"))
    print()
    summary("development cases the readings cover (the rules were developed on these: in-sample)", rows("dev"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
