"""The pilot × nine configurations (198 trials) through `inspect eval` beside `sitbench run` + `score`.

Each command runs as a user would type it, in its own process, with a fresh cache directory (so each
builds its own retrieval embeddings for E/F) and no network needed:

  sitbench run DATA --config all --model mock/oracle --max-connections 8, then sitbench score
  inspect eval sitbench/sit -T dataset=DATA -T config=all --model mockllm/model --max-connections 8
  inspect eval sitbench/sit -T dataset=DATA -T config=all --model sitbench/mock/oracle --max-connections 8

Inspect's `mockllm` answers every turn with its fixed text; `sitbench/mock/oracle` is the very mock
candidate `sitbench run` uses, so its line compares like with like (and its Macro SIT must equal
sitbench's). Wall time is each command's own (run and score added); memory is the peak resident set
of the process (the larger of run and score), from the kernel's accounting of each child. Inspect
scores inside the eval, so its line includes scoring. All lines are measured in one invocation, on
one machine, in the order above, --repeat times; the median of each is reported, with the ratios.

Run: python benchmarks/inspect_eval.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Measured:
    wall_s: float
    peak_rss_mib: float


def _timed(command: list[str], env: dict[str, str], cwd: Path) -> Measured:
    """Wall time and peak RSS of one child process (os.wait4 reports the child's own rusage)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}:\n{stderr.decode()[-3000:]}")
    return Measured(wall, usage.ru_maxrss / 1024)  # ru_maxrss is in KiB on Linux


def _inspect(dataset: Path, model: str, logs: Path) -> list[str]:
    return [sys.executable, "-m", "inspect_ai", "eval", "sitbench/sit", "-T", f"dataset={dataset}", "-T",
            "config=all", "--model", model, "--max-connections", "8", "--log-dir", str(logs), "--display", "none"]


def _macro(log_dir: Path) -> dict[str, float]:
    from inspect_ai.log import list_eval_logs, read_eval_log

    [info] = list_eval_logs(str(log_dir))
    log = read_eval_log(info.name, header_only=True)
    assert log.status == "success" and log.results is not None, log.error
    [scores] = log.results.scores
    return {k: m.value for k, m in scores.metrics.items() if k.endswith(":macro_sit")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="measurements of each command (median reported)")
    args = parser.parse_args()
    from sitbench.data import pilot_content, write_dataset

    rows: dict[str, list[Measured]] = {"sitbench run + score (mock/oracle)": [],
                                       "inspect eval (mockllm/model)": [],
                                       "inspect eval (sitbench/mock/oracle)": []}
    macro_inspect: dict[str, float] = {}
    macro_sitbench: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="sitbench-inspect-bench-") as tmp:
        root = Path(tmp)
        dataset = root / "pilot"
        write_dataset(pilot_content(), dataset)
        for n in range(args.repeat):
            def env(name: str, n: int = n) -> dict[str, str]:
                return os.environ | {"SITBENCH_CACHE_DIR": str(root / f"cache-{name}-{n}")}

            run = root / f"run-{n}"
            sitbench = [sys.executable, "-m", "sitbench"]
            ran = _timed([*sitbench, "run", str(dataset), "--config", "all", "--model", "mock/oracle",
                          "--max-connections", "8", "--out", str(run)], env("sitbench"), root)
            scored = _timed([*sitbench, "score", str(run)], env("sitbench"), root)
            rows["sitbench run + score (mock/oracle)"].append(
                Measured(ran.wall_s + scored.wall_s, max(ran.peak_rss_mib, scored.peak_rss_mib)))
            for label, model in (("inspect eval (mockllm/model)", "mockllm/model"),
                                 ("inspect eval (sitbench/mock/oracle)", "sitbench/mock/oracle")):
                logs = root / f"logs-{model.replace('/', '-')}-{n}"
                rows[label].append(_timed(_inspect(dataset, model, logs), env(model.replace("/", "-")), root))
                if model.startswith("sitbench/"):
                    macro_inspect = _macro(logs)
            metrics = subprocess.run([*sitbench, "metrics", str(run), "--json"], capture_output=True, text=True,
                                     check=True, env=env("sitbench"))
            macro_sitbench = {f"{c}:macro_sit": m["macro_sit"]
                              for c, m in json.loads(metrics.stdout)["configs"].items()}
    base = rows["sitbench run + score (mock/oracle)"]
    base_wall = statistics.median(m.wall_s for m in base)
    base_rss = statistics.median(m.peak_rss_mib for m in base)
    print(f"pilot × nine configurations (198 trials), median of {args.repeat}, one machine, one invocation")
    print(f"{'':40} {'wall s':>8} {'peak RSS MiB':>13} {'wall ×':>7} {'memory ×':>9}")
    for label, measured in rows.items():
        wall = statistics.median(m.wall_s for m in measured)
        rss = statistics.median(m.peak_rss_mib for m in measured)
        print(f"{label:40} {wall:8.2f} {rss:13.1f} {wall / base_wall:7.2f} {rss / base_rss:9.2f}")
    same = macro_inspect.keys() == macro_sitbench.keys() and all(
        abs(macro_inspect[k] - macro_sitbench[k]) < 1e-12 for k in macro_sitbench)
    print(f"Macro SIT of inspect eval (sitbench/mock/oracle) equals sitbench metrics, all nine: {same}")
    if not same:
        raise SystemExit(f"Macro SIT differs: inspect {macro_inspect} vs sitbench {macro_sitbench}")


if __name__ == "__main__":
    main()
