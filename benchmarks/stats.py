"""Timing of the full confirmatory analysis (E1–E8, Holm, secondaries) on a held-out-sized run.

Synthesizes one scored run of 20 pairs × 2 lineages × 200 probes (8,000 probes, the
held-out suite's size, category mix A 30, B 30, C 25, D 25, E 25, F 25, G 20, H 20 per
lineage) under nine configurations (B–I and G_budget): 72,000 score records. Observations
and verdicts are copied from a real scored mock run of the pilot, so the records have
realistic size. Then times, each as the median of a few runs:

* ``sitbench analyze RUN --json`` end to end (read and check scores.jsonl, analyze, JSON);
* its two parts: reading the analysis fields of scores.jsonl, and the analysis alone
  (E1–E8 with exact n = 20 sign-flip tests, 28 bootstraps of 1,000 resamples, Holm);
* for comparison, the same command with ``--full-records`` (every field validated).

Target: under 5 s end to end. Wall times on a shared machine include waiting for the CPU;
the script also prints the process CPU time of the end-to-end command.

Run: ``python benchmarks/stats.py``
"""

from __future__ import annotations

import contextlib
import io
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from sitbench.cli import main as cli_main
from sitbench.cli._runs import execute_run, score_run
from sitbench.data import pilot_content, write_dataset
from sitbench.metrics import load_scores
from sitbench.runs import ScoreRecord
from sitbench.schema import Category
from sitbench.stats import analyze, load_score_rows

PAIRS = 20
PER_LINEAGE = {"A": 30, "B": 30, "C": 25, "D": 25, "E": 25, "F": 25, "G": 20, "H": 20}
CONFIGS = ("B", "C", "D", "E", "F", "G", "H", "I", "G_budget")
CAPABILITIES = ("IDENTITY_ONLY", "PROVENANCE_SEPARATED", "GENERAL_ALLOWED")


def templates(root: Path) -> list[ScoreRecord]:
    """Scored records of the pilot under mock/oracle, configuration I (real payloads)."""
    write_dataset(pilot_content(), root / "pilot")
    execute_run(root / "pilot", "mock/oracle", root / "template", "I")
    score_run(root / "template")
    return load_scores(root / "template")


def synthesize(models: list[ScoreRecord], seed: int = 7) -> list[ScoreRecord]:
    rng = np.random.default_rng(seed)
    valid_models = [m for m in models if m.verdict is not None and m.verdict.valid]
    records: list[ScoreRecord] = []
    for pair in range(1, PAIRS + 1):
        for member in "AB":
            lineage = f"L-{pair:02d}{member}"
            number = 0
            for category, count in PER_LINEAGE.items():
                for i in range(count):
                    number += 1
                    probe = f"PR-{pair:02d}{member}-{number:03d}"
                    stratum = None
                    if category == "D":
                        stratum = ("pre", "post")[i % 2]
                    elif category == "G":
                        stratum = f"L{i % 5 + 1}"
                    elif category == "E" and i < 10:
                        stratum = ("authorized_disclosure", "withholding")[i % 2]
                    for config in CONFIGS:
                        model = valid_models[int(rng.integers(len(valid_models)))]
                        valid = bool(rng.random() < (0.4 if config in "BC" else 0.75))
                        verdict = model.verdict.model_copy(update={"valid": valid})  # type: ignore[union-attr]
                        theorem = category in "AB" and i < 10
                        records.append(model.model_copy(update={
                            "trial_id": f"{config}:{probe}", "config": config, "probe_id": probe,
                            "lineage_id": lineage, "pair_id": f"PAIR-{pair:02d}", "category": Category(category),
                            "stratum": stratum, "theorem_qualified": theorem,
                            "gate_sensitive": category == "E" and i < 10,
                            "capability": CAPABILITIES[i % 3], "verdict": verdict,
                            "partner": verdict.model_copy(update={"valid": not valid and rng.random() < 0.5})
                            if theorem else None,
                            "prompt_tokens": int(rng.integers(3500, 4096)) if config == "G_budget"
                            else int(rng.integers(15_000, 25_000)) if config == "D" else int(rng.integers(500, 5000)),
                        }))
    return records


def median_time(function: Callable[[], object], repeats: int) -> float:
    """Median wall time in seconds over ``repeats`` calls (after one warm-up call)."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        records = synthesize(templates(root))
        run = root / "run"
        run.mkdir()
        with (run / "scores.jsonl").open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(record.model_dump_json() + "\n")
        size_mb = (run / "scores.jsonl").stat().st_size / 1e6

        del records  # the timed commands start from the file, as the CLI does

        def command(*extra: str) -> Callable[[], None]:
            def call() -> None:
                with contextlib.redirect_stdout(io.StringIO()) as out:
                    code = cli_main(["analyze", str(run), "--json", *extra])
                assert code == 0 and out.getvalue().startswith("{")
            return call

        cpu_start = time.process_time()
        cli = median_time(command(), repeats=3)
        cpu = (time.process_time() - cpu_start) / 4  # warm-up + 3 timed calls
        load = median_time(lambda: load_score_rows(run), repeats=3)
        rows = load_score_rows(run)
        memory = median_time(lambda: analyze(rows), repeats=3)
        report = analyze(rows)
        full = median_time(command("--full-records"), repeats=1)

    computed = sum(c.status == "computed" for c in report.experiments)
    print(f"records: {len(rows):,} ({PAIRS} pairs x 2 lineages x 200 probes x {len(CONFIGS)} "
          f"configurations), scores.jsonl {size_mb:.1f} MB")
    print(f"E1-E8 computed: {computed}/8, family complete: {report.family.complete}, "
          f"secondary comparisons: {len(report.secondary)}")
    print(f"sitbench analyze RUN --json, end to end:  {cli:6.2f} s wall, {cpu:5.2f} s CPU  (target < 5 s)")
    print(f"  reading the analysis fields:             {load:6.2f} s")
    print(f"  analyze() on the rows:                   {memory:6.2f} s")
    print(f"sitbench analyze RUN --json --full-records: {full:5.2f} s wall")


if __name__ == "__main__":
    main()
