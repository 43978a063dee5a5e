"""Run the bad-input table of tests/badinput and count the classes that give one clean line with exit 2.

Run: python benchmarks/bad_inputs.py [-v]   (-v lists every class that breaks the contract, and why)
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.badinput._harness import Templates, check
from tests.badinput.cases import CASES


def main(verbose: bool) -> int:
    # Some classes ask for unbounded work (--resamples 10000000000): if a bound is ever lost, the
    # class fails with MemoryError instead of taking the machine's memory.
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
    started = time.perf_counter()
    clean: Counter[str] = Counter()
    total: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="sitbench-bad-inputs-") as tmp:
        templates = Templates(Path(tmp) / "templates").build()
        for index, case in enumerate(CASES):
            _, _, found = check(case, Path(tmp) / f"ws{index}", templates)
            total[case.kind] += 1
            if found:
                if verbose:
                    print(f"FAIL {case.id}: " + "; ".join(problem[:240] for problem in found))
            else:
                clean[case.kind] += 1
    for kind in sorted(total):
        print(f"  {kind:<28} {clean[kind]:>3} / {total[kind]}")
    n, m = sum(total.values()), sum(clean.values())
    print(f"{n} classes, {m} give one clean line with exit 2 ({time.perf_counter() - started:.1f}s)")
    return 0 if n == m else 1


if __name__ == "__main__":
    sys.exit(main("-v" in sys.argv[1:]))
