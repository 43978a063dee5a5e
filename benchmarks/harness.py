"""Speed of the SIT run harness on the reference pilot.

Prints:

- the embedder load time (ONNX session + tokenizer, first call), paid once per process;
- trials per second of the deterministic mocks (mock/collapse, mock/oracle) over all nine
  configurations A–I (198 trials), with ``run`` (prompts, retrieval, candidate, run store)
  and ``score`` (extraction, both verdicts, diagnostics) timed separately, after one
  warm-up run so the embedder load is not counted;
- the same run through ``execute_run`` (what ``sitbench run`` does: a fresh retriever, so
  the embedder load is inside the figure);
- embeddings per second of the retriever's embedder at batch 32 over the pilot's record
  texts repeated to ~500;
- the wall time of ``sitbench demo`` as a subprocess with an empty embedding cache
  (target: under 60 s on a 2-core machine).

    python benchmarks/harness.py [--repeats 3] [--texts 500] [--no-demo]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _best(values: list[float]) -> tuple[float, float]:
    return min(values), statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="Timed repetitions per figure (best and median).")
    parser.add_argument("--texts", type=int, default=500, help="Texts for the embedding figure.")
    parser.add_argument("--no-demo", action="store_true", help="Skip the `sitbench demo` subprocess.")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="sitbench-bench-harness-"))
    # Every cache this script touches lives in its own temporary tree, never the user's.
    os.environ["SITBENCH_CACHE_DIR"] = str(work / "cache")

    from sitbench.candidates import get_candidate
    from sitbench.cli._runs import execute_run
    from sitbench.configs import ChronicleRetriever, MiniLMEmbedder
    from sitbench.data import pilot_content, write_dataset
    from sitbench.runs import Runner, RunOptions, score_trials
    from sitbench.stores import load_dataset

    pilot = work / "pilot"
    write_dataset(pilot_content(), pilot)
    cache = work / "cache" / "embeddings"
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; pilot: 22 probes x 9 configurations = 198 trials")

    started = time.perf_counter()
    embedder = MiniLMEmbedder()
    embedder.embed(["warm-up"], batch_size=1)
    print(f"embedder load (ONNX session + tokenizer + first call): {time.perf_counter() - started:.2f} s")

    runs = 0

    def one_run(model: str) -> tuple[float, float, int]:
        nonlocal runs
        runs += 1
        out = work / f"run-{runs}"
        runner = Runner(pilot, get_candidate(model), model, out, RunOptions(configs=list("ABCDEFGHI"),
                                                                            cache_dir=cache))
        # Share the loaded embedder: the figure is the harness, not the model load.
        runner.retriever = ChronicleRetriever(embedder=embedder, cache_dir=cache)
        t0 = time.perf_counter()
        manifest = asyncio.run(runner.run())
        t1 = time.perf_counter()
        records = score_trials(runner.ds, runner.store.trials())
        t2 = time.perf_counter()
        assert manifest.counts["completed"] == len(records) == 198
        return t1 - t0, t2 - t1, len(records)

    one_run("mock/oracle")  # warm-up: embedding cache, imports, extractor caches
    for model in ("mock/collapse", "mock/oracle"):
        timings = [one_run(model) for _ in range(args.repeats)]
        n = timings[0][2]
        run_best, run_median = _best([t[0] for t in timings])
        score_best, score_median = _best([t[1] for t in timings])
        print(f"{model:14s} run   {n} trials: best {run_best:.3f} s = {n / run_best:7.0f} trials/s "
              f"(median {n / run_median:.0f})")
        print(f"{model:14s} score {n} trials: best {score_best:.3f} s = {n / score_best:7.0f} trials/s "
              f"(median {n / score_median:.0f})")

    cli_times = []
    for _ in range(args.repeats):
        runs += 1
        t0 = time.perf_counter()
        execute_run(pilot, "mock/oracle", work / f"run-{runs}", "all")
        cli_times.append(time.perf_counter() - t0)
    best, median = _best(cli_times)
    print(f"execute_run mock/oracle A-I (fresh retriever, embedder load included, warm disk cache): "
          f"best {best:.2f} s = {198 / best:.0f} trials/s (median {198 / median:.0f})")

    ds = load_dataset(pilot)
    texts = [r.text for s in ds.visible.subjects.values() for r in s.records]
    corpus = (texts * (args.texts // len(texts) + 1))[: args.texts]
    rates = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        vectors = embedder.embed(corpus, batch_size=32)
        rates.append(len(corpus) / (time.perf_counter() - t0))
        assert vectors.shape == (len(corpus), 384)
    print(f"retriever embedder, batch 32, {len(corpus)} pilot record texts ({len(texts)} distinct, "
          f"{embedder.intra_op_threads} thread): best {max(rates):.0f} embeddings/s "
          f"(median {statistics.median(rates):.0f})")

    if not args.no_demo:
        env = dict(os.environ, SITBENCH_CACHE_DIR=str(work / "demo-cache"), CI="true")
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "sitbench", "demo", "--out", str(work / "demo")], env=env,
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        status = "ok" if done.returncode == 0 else f"FAILED (exit {done.returncode}): {done.stderr.strip()[-300:]}"
        verdict = "within" if wall < 60 else "OVER"
        print(f"sitbench demo (subprocess, empty embedding cache): {wall:.1f} s wall, {status}; "
              f"{verdict} the 60 s target")
    print(f"files in {work}")


if __name__ == "__main__":
    main()
