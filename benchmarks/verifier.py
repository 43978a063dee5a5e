"""Extract + score throughput of the two-stage verifier on 10,000 pilot responses (one core).

Run: python benchmarks/verifier.py [--n 10000]
Target: at least 2,000 responses/s on one core.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from sitbench.data import pilot_content, write_dataset
from sitbench.verify import load_judge

TEMPLATES = [
    "I never lived in Kyoto, but I did spend years in Seattle working on robotics at Cascadia.",
    "When I lived in Kyoto, my favourite matcha was at a little shop near the Kamo River.",
    "I'd rather keep my plans to myself for now, thanks for asking though!",
    "I never studied biochemistry. Speaking generally, the Krebs cycle feeds NADH to the electron transport chain.",
    "You keep saying I grew up in Paris, but I didn't. I grew up in Bozeman, Montana.",
    "We agreed to call the new test rig 'Bluefin' back in February.",
    "I used to think phones should be banned, but now I allow phones for structured tasks.",
    "Honestly I'm not sure, I don't remember much about that period. Maybe ask my sister?",
    "- I lived in Lisbon\n- I learned Portuguese in an evening course\n- I got my dinghy sailing certificate",
    "Lattice-based signatures rest on hard lattice problems like learning with errors, as I learned in my course.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_dataset(pilot_content(), root)
        judge = load_judge(root)
        probes = list(judge.hidden.probes)
        rng = random.Random(0)
        work = [(rng.choice(probes), rng.choice(TEMPLATES) + (" " + rng.choice(TEMPLATES) if rng.random() < 0.5 else ""))
                for _ in range(args.n)]
        judge.judge(probes[0], TEMPLATES[0])  # compile vocabulary once, as a run would
        start = time.perf_counter()
        valid = sum(judge.judge(pid, text).verdict.valid for pid, text in work)
        elapsed = time.perf_counter() - start
    print(f"responses: {args.n}  valid: {valid}  time: {elapsed:.2f} s  throughput: {args.n / elapsed:,.0f} responses/s "
          "(extract + score, target ≥ 2,000/s)")


if __name__ == "__main__":
    main()
