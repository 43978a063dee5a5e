"""The reference agents and the keyword baseline over one model: the pilot through each, scored.

Each agent (D full context, E RAG, F date-filtered RAG, G structured state, H mediated state,
and examples/keyword_agent.py, which needs no model) runs the pilot through `sitbench run
--agent` into OUT/<agent>, then `score` and `metrics`; one report of all runs (with the
per-trial ingest and answer times of its Agents section) goes to OUT/report.html. The table
prints completed/attempted trials, wall time, mean ingest and answer time and Macro SIT.

With the shipped local model:

    sitbench serve smollm2 --port 8080 &
    python benchmarks/reference_agents.py --model openai/smollm2 --base-url http://127.0.0.1:8080/v1

Run: python benchmarks/reference_agents.py --model SPEC [--base-url URL] [--agents D,E,F,G,H,keyword]
     [--max-tokens 64] [--out runs/reference-agents]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sitbench.cli import main as sitbench
from sitbench.data import pilot_content, write_dataset
from sitbench.metrics import compute_metrics, load_scores

ROOT = Path(__file__).resolve().parent.parent
AGENTS = {
    "D": "sitbench.agents:full_context",
    "E": "sitbench.agents:rag",
    "F": "sitbench.agents:filtered_rag",
    "G": "sitbench.agents:structured_state",
    "H": "sitbench.agents:mediated_state",
    "keyword": str(ROOT / "examples" / "keyword_agent.py") + ":make",
}


def _run_one(name: str, dataset: Path, out: Path, args: argparse.Namespace) -> dict[str, object]:
    argv = ["run", str(dataset), "--agent", AGENTS[name], "--out", str(out), "--max-connections", "1"]
    if name != "keyword":
        argv += ["--agent-option", f"model={args.model}", "--agent-option", f"max_tokens={args.max_tokens}"]
        if args.base_url:
            argv += ["--agent-option", f"base_url={args.base_url}"]
    started = time.perf_counter()
    code = sitbench(argv)
    wall = time.perf_counter() - started
    if code not in (0, 4) or sitbench(["score", str(out)]) != 0:
        return {"agent": name, "error": f"exit {code}"}
    records = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    timings = [r["agent"] for r in records if r.get("agent")]
    metrics = compute_metrics(load_scores(out))["agent"]
    return {
        "agent": name,
        "completed": sum(r["status"] == "completed" for r in records),
        "attempted": len(records),
        "wall_s": round(wall, 1),
        "ingest_ms": round(statistics.fmean(t["ingest_ms"] for t in timings), 1) if timings else None,
        "answer_ms": round(statistics.fmean(t["answer_ms"] for t in timings), 1) if timings else None,
        "macro_sit": metrics.macro_sit,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="candidate the reference agents ask, e.g. openai/smollm2")
    parser.add_argument("--base-url", default=None, help="base URL of an OpenAI-compatible server (openai/ models)")
    parser.add_argument("--agents", default=",".join(AGENTS), help=f"comma list of {', '.join(AGENTS)}")
    parser.add_argument("--max-tokens", type=int, default=64, help="answer length of the reference agents")
    parser.add_argument("--out", type=Path, default=None, help="directory for the runs and report [a temporary one]")
    args = parser.parse_args()
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    unknown = [n for n in names if n not in AGENTS]
    if unknown:
        parser.error(f"--agents: unknown {unknown}; use {', '.join(AGENTS)}")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "runs"
        dataset = Path(tmp) / "pilot"
        write_dataset(pilot_content(), dataset)
        rows = []
        for name in names:
            rows.append(_run_one(name, dataset, out / name, args))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        finished = [out / str(r["agent"]) for r in rows if "error" not in r]
        if finished:
            sitbench(["report", *map(str, finished), "--out", str(out / "report.html")])
        print(f"{'agent':<8} {'trials':>8} {'wall s':>8} {'ingest ms':>10} {'answer ms':>10} {'Macro SIT':>10}")
        for r in rows:
            if "error" in r:
                print(f"{r['agent']:<8} {r['error']}")
                continue
            macro = "n/a" if r["macro_sit"] is None else f"{r['macro_sit']:.3f}"
            print(f"{r['agent']:<8} {r['completed']:>4}/{r['attempted']:<3} {r['wall_s']:>8} {r['ingest_ms']!s:>10} "
                  f"{r['answer_ms']!s:>10} {macro:>10}")
        if args.out:
            print(f"runs and report.html in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
