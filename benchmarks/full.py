"""The whole benchmark with the mock oracle: wall, CPU and peak memory per stage, and how it scales.

Every stage is its own ``python -m sitbench`` process; its CPU time (user + system) and peak
resident memory are that child's own resource usage (``os.wait4``), so stages never blur.

1. The full suite (10,000 probes; ``--dataset`` reuses one): generate, validate (the integrity checks).
2. All nine configurations with ``--model mock/oracle``: run, score, metrics; then analyze and report
   (timed apart: what a user reads next).
3. Configuration B alone over the suite: run + score + metrics, beside Inspect's trivial task with as
   many samples on its own mockllm (``benchmarks/inspect_trivial.py``, one generate and an exact-match
   scorer per sample, offline token count), as a ratio of wall times.
4. Scaling in trials: configuration B over 1/10, 1/5, 1/2 and all of the probes (``--shard 1/n``):
   run and score cost per trial.
5. Scaling in dataset size: the dev (2,000 probes), heldout (8,000) and full (10,000) suites, each
   validated and run whole under configuration B: the integrity checks' time and the cost per
   trial should not grow with the dataset.
6. The extractor alone over the stored responses of (3): its cost per response, separate from the
   rest of scoring, so a slower extractor is a visible trade.

A fixed pure-Python workload is timed before and after: shared machines change speed from hour to
hour, and figures from two runs compare only at the same reference.

The runs use the embedding cache (``$SITBENCH_CACHE_DIR``, else ``~/.cache/sitbench``) as a user's runs do:
the first run over a dataset embeds its records and E/F queries, later ones read them; the
benchmark says which it was, and ``--cold-cache`` starts from an empty one.

``--quick`` runs the same stages on a fiftieth of the probes for (2), a tenth for (3), (4) and (6),
and only the dev suite for (5).

Run: python benchmarks/full.py [--quick] [--cold-cache] [--dataset DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Stage:
    """One child process's cost."""

    wall_s: float
    cpu_s: float
    peak_mb: float


def _sitbench(*args: str) -> Stage:
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "sitbench", *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"sitbench {' '.join(args)} exited {process.returncode}: {stderr[-2000:]}")
    # ru_maxrss is in KiB on Linux.
    return Stage(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def _row(name: str, stage: Stage, trials: int | None = None) -> None:
    per = f"{1000 * stage.cpu_s / trials:8.3f} ms CPU/trial" if trials else ""
    print(f"  {name:<28} wall {stage.wall_s:8.2f} s   CPU {stage.cpu_s:8.2f} s   peak {stage.peak_mb:7.0f} MB  {per}")


def _reference() -> float:
    """CPU seconds of a fixed pure-Python workload (dict, str and int work, as the harness does)."""
    start = time.process_time()
    table: dict[str, int] = {}
    for i in range(400_000):
        key = f"trial-{i % 5000}"
        table[key] = table.get(key, 0) + len(key.split("-")[0]) * i % 7
    return time.process_time() - start


def _trials(run: Path) -> int:
    with (run / "responses.jsonl").open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def _beside_inspect(out: Path, largest: tuple[int, float] | None, sitbench_wall: float) -> None:
    """Inspect's trivial task (``benchmarks/inspect_trivial.py``) with as many samples as the largest
    configuration-B row has trials, on mockllm, and the ratio of the two wall times."""
    if largest is None:
        return
    trials = largest[0]
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        print("  Inspect's trivial task: inspect-ai is not installed (pip install inspect-ai), not measured")
        return
    task = Path(__file__).with_name("inspect_trivial.py")
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "inspect_ai", "eval", f"{task}@trivial", "-T",
                                f"samples={trials}", "--model", "mockllm/model", "--max-connections", "8",
                                "--log-dir", str(out / "inspect-logs"), "--display", "none"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        print(f"  Inspect's trivial task failed: {stderr[-500:]}")
        return
    _row(f"Inspect trivial, {trials} samples", Stage(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024),
         trials)
    print(f"  sitbench configuration B, {trials} trials (run + score + metrics): {sitbench_wall:.2f} s wall = "
          f"{sitbench_wall / wall:.2f} x Inspect's trivial task")


def _checks_cost(dataset: Path) -> float:
    """CPU seconds of the integrity checks alone (``run_checks``, as every run does at its start), the
    dataset loaded beforehand."""
    from sitbench.lineage import run_checks
    from sitbench.stores import load_dataset

    ds = load_dataset(dataset)
    start = time.process_time()
    failed = [row.id for row in run_checks(ds) if not row.passed]
    seconds = time.process_time() - start
    if failed:
        raise SystemExit(f"{dataset}: integrity checks {failed} fail")
    return seconds


def _embedding_cache() -> tuple[Path, int]:
    """The embedding cache the runs use and how many vectors it holds now."""
    from sitbench.candidates import default_cache_dir

    root = default_cache_dir() / "embeddings"
    return root, sum(1 for _ in root.glob("*/*.npy")) if root.is_dir() else 0


def _extractor_cost(dataset: Path, run: Path) -> tuple[int, float]:
    """(responses, seconds of extraction alone): envelopes and vocabularies are built beforehand."""
    from sitbench.runs import RunStore
    from sitbench.stores import load_dataset
    from sitbench.verify import Judge

    ds = load_dataset(dataset)
    judge = Judge(ds.hidden, ds.visible.queries)
    work = []
    for trial in RunStore(run).iter_trials():
        text = trial.response_text
        if text is None:
            continue
        envelope = judge.envelope(judge.probe(trial.probe_id))
        work.append((text, envelope, judge.vocabulary(envelope)))
    start = time.process_time()
    for text, envelope, vocabulary in work:
        judge.extractor.extract(text, envelope, vocabulary)
    return len(work), time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a fiftieth of the probes for all nine, a tenth for B")
    parser.add_argument("--dataset", type=Path, help="reuse this full-suite directory instead of generating one")
    parser.add_argument("--out", type=Path, help="directory for the runs (default: a temporary one)")
    parser.add_argument("--cold-cache", action="store_true",
                        help="start from an empty embedding cache (SITBENCH_CACHE_DIR in the output directory)")
    args = parser.parse_args()

    out = args.out or Path(tempfile.mkdtemp(prefix="sitbench-full-"))
    out.mkdir(parents=True, exist_ok=True)
    if args.cold_cache:
        os.environ["SITBENCH_CACHE_DIR"] = str(out / "cache")  # the runs are children: they inherit it
    all_shard, b_shards = ("1/50", ["1/100", "1/50", "1/20", "1/10"]) if args.quick else (
        None, ["1/10", "1/5", "1/2", None])
    print(f"sitbench full benchmark ({'quick' if args.quick else 'full'}), {os.cpu_count()} CPUs, runs in {out}")
    reference = _reference()
    print(f"reference workload: {reference:.3f} s CPU (lower is a faster machine)")

    dataset = args.dataset
    print("dataset")
    if dataset is None:
        dataset = out / "full"
        _row("generate --suite full", _sitbench("generate", "--suite", "full", "--out", str(dataset)))
    _row("validate (integrity checks)", _sitbench("validate", str(dataset)))
    print(f"  integrity checks alone: {_checks_cost(dataset):.2f} s CPU (the dataset loaded; every run does them)")
    cache, vectors = _embedding_cache()
    print(f"embedding cache {cache} (E/F record and query vectors): {vectors} vectors before the runs "
          f"({'cold: the first run embeds' if not vectors else 'warm'}; --cold-cache starts from none)")

    def run_score_metrics(name: str, configs: str, shard: str | None) -> tuple[int, Stage]:
        run = out / name
        extra = ["--shard", shard] if shard else []
        stages = [("run", _sitbench("run", str(dataset), "--config", configs, "--model", "mock/oracle",
                                    "--out", str(run), *extra))]
        trials = _trials(run)
        stages.append(("score", _sitbench("score", str(run))))
        stages.append(("metrics", _sitbench("metrics", str(run), "--json")))
        for stage_name, stage in stages:
            _row(f"{stage_name}", stage, trials)
        total = Stage(sum(s.wall_s for _, s in stages), sum(s.cpu_s for _, s in stages),
                      max(s.peak_mb for _, s in stages))
        _row("run + score + metrics", total, trials)
        # What a user reads next: both stream the scores (memory does not grow with the trials).
        _row("analyze", _sitbench("analyze", str(run), "--json"), trials)
        _row("report", _sitbench("report", str(run), "--out", str(out / f"report-{name}" / "report.html")), trials)
        return trials, total

    print(f"all nine configurations{f' (shard {all_shard})' if all_shard else ''}")
    run_score_metrics("all", "all", all_shard)

    print("scaling, configuration B")
    print(f"  {'shard':<8} {'trials':>7} {'run ms CPU/trial':>17} {'score ms CPU/trial':>19} {'wall s (3 stages)':>18}"
          f" {'marginal run+score ms/trial':>28} {'run/score peak MB':>18}")
    largest = ""
    previous: tuple[int, float] | None = None  # (trials, run + score CPU) of the row before
    b_wall = 0.0
    for shard in b_shards:
        name = f"B-{(shard or 'all').replace('/', 'of')}"
        run = out / name
        extra = ["--shard", shard] if shard else []
        run_stage = _sitbench("run", str(dataset), "--config", "B", "--model", "mock/oracle", "--out", str(run),
                              *extra)
        trials = _trials(run)
        score_stage = _sitbench("score", str(run))
        metrics_stage = _sitbench("metrics", str(run), "--json")
        wall = run_stage.wall_s + score_stage.wall_s + metrics_stage.wall_s
        cpu = run_stage.cpu_s + score_stage.cpu_s
        # The slope between rows is the cost of one more trial, without the fixed start-up (load, checks).
        marginal = (f"{1000 * (cpu - previous[1]) / (trials - previous[0]):28.3f}"
                    if previous and trials > previous[0] else f"{'':28}")
        previous = (trials, cpu)
        b_wall = wall
        print(f"  {shard or 'all':<8} {trials:>7} {1000 * run_stage.cpu_s / trials:>17.3f} "
              f"{1000 * score_stage.cpu_s / trials:>19.3f} {wall:>18.2f} {marginal} "
              f"{f'{run_stage.peak_mb:.0f} / {score_stage.peak_mb:.0f}':>18}")
        largest = name
    _beside_inspect(out, previous, b_wall)

    print("scaling in dataset size, configuration B over every probe")
    print(f"  {'suite':<8} {'probes':>7} {'validate s CPU':>15} {'run ms CPU/trial':>17} {'score ms CPU/trial':>19}"
          f" {'run start s CPU':>16}")
    for suite in ["dev"] if args.quick else ["dev", "heldout", "full"]:
        data = dataset if suite == "full" else out / f"suite-{suite}"
        if suite != "full":
            _sitbench("generate", "--suite", suite, "--out", str(data))
        validate = _sitbench("validate", str(data))
        run = out / f"B-{suite}"
        run_stage = _sitbench("run", str(data), "--config", "B", "--model", "mock/oracle", "--out", str(run))
        trials = _trials(run)
        score_stage = _sitbench("score", str(run))
        # The run's fixed cost (load, checks, manifest) is what a one-trial run of the same suite costs.
        start = _sitbench("run", str(data), "--config", "B", "--model", "mock/oracle", "--out", str(run) + "-1",
                          "--shard", f"1/{trials}")
        print(f"  {suite:<8} {trials:>7} {validate.cpu_s:>15.2f} {1000 * run_stage.cpu_s / trials:>17.3f} "
              f"{1000 * score_stage.cpu_s / trials:>19.3f} {start.cpu_s:>16.2f}")

    responses, seconds = _extractor_cost(dataset, out / largest)
    print(f"extractor alone: {responses} responses in {seconds:.2f} s CPU = {1000 * seconds / max(1, responses):.3f} "
          "ms per response")
    print(f"reference workload at the end: {_reference():.3f} s CPU (at the start: {reference:.3f} s)")


if __name__ == "__main__":
    main()
