"""Runner throughput: trials/s at concurrency 1, 8 and 32 against a local server that answers instantly.

The whole path of a real run except the model: prompt building (retrieval for
E/F included), the isolation audit, the ``openai`` candidate over HTTP, the
append-only store. The server (a deterministic stub) runs in its own process so
it shares no interpreter lock with the runner. Each configuration is run over the
pilot (``--configs``, default all nine: 198 trials, 252 calls) ``--repeat`` times
into fresh run directories; the best repeat is reported.

Run: python benchmarks/runner.py [--configs all] [--repeat 3] [--delay 0]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from sitbench.candidates import get_candidate
from sitbench.candidates._stub_server import stub_server_process
from sitbench.data import pilot_content, write_dataset
from sitbench.runs import Runner, RunOptions, parse_configs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--configs", default="all", help="'all' or a comma list of A–I")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.0, help="server delay per answer, in seconds")
    parser.add_argument("--concurrency", default="1,8,32")
    args = parser.parse_args()
    configs = parse_configs(args.configs)
    levels = [int(c) for c in args.concurrency.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.setdefault("SITBENCH_CACHE_DIR", str(root / "cache"))
        write_dataset(pilot_content(), root / "pilot")
        with stub_server_process(delay_s=args.delay) as base_url:
            candidate = get_candidate("openai/stub", base_url=base_url)
            # Warm-up: embedding model, retrieval index, HTTP pool.
            asyncio.run(Runner(root / "pilot", candidate, "openai/stub", root / "warm",
                               RunOptions(configs=configs, max_connections=8)).run())
            print(f"runner over the pilot, configurations {','.join(configs)}, server delay {args.delay:g}s, "
                  f"best of {args.repeat}")
            print(f"{'concurrency':>11} | {'trials':>6} | {'calls':>5} | {'seconds':>7} | {'trials/s':>8} | "
                  f"{'calls/s':>7}")
            for level in levels:
                best = float("inf")
                counts: dict[str, int] = {}
                for r in range(args.repeat):
                    out = root / f"c{level}-{r}"
                    runner = Runner(root / "pilot", candidate, "openai/stub", out,
                                    RunOptions(configs=configs, max_connections=level))
                    start = time.perf_counter()
                    manifest = asyncio.run(runner.run())
                    best = min(best, time.perf_counter() - start)
                    counts = manifest.counts
                    assert counts["completed"] == counts["attempted"], counts
                print(f"{level:>11} | {counts['attempted']:>6} | {counts['calls']:>5} | {best:>7.2f} | "
                      f"{counts['attempted'] / best:>8.1f} | {counts['calls'] / best:>7.1f}")


if __name__ == "__main__":
    main()
