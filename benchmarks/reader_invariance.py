"""Reader invariance on one run: the same answers scored under two readers, trial by trial and figure by figure.

``python benchmarks/reader_invariance.py RUN_A RUN_B``

``RUN_A`` and ``RUN_B`` are two scorings of the same stored responses (``sitbench rescore RUN --out RUN_B
--extractor llm:replay/READINGS`` for a frozen blind reading, ``sitbench rescore RUN --out RUN_A`` for the rule
reader). Prints the verdicts that differ (target and partner, per configuration and overall) and, per
configuration, Macro SIT, LAA and every category validity under each reader with the largest gap.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

CATEGORIES = ("A_pos", "A_neg", "A_epi", "A_temp", "A_rel", "A_belief", "A_cf", "A_session")


def _scores(run: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return {r["trial_id"]: r for r in rows}


def _metrics(run: Path) -> dict[str, dict[str, Any]]:
    done = subprocess.run([sys.executable, "-m", "sitbench", "metrics", str(run), "--json"], capture_output=True,
                          text=True, check=True)
    configs = json.loads(done.stdout)["configs"]
    return dict(configs) if isinstance(configs, dict) else {c["config"]: c for c in configs}


def _figure(row: dict[str, Any], name: str) -> float | None:
    value = row.get(name)
    if isinstance(value, dict):
        value = value.get("value")
    return None if value is None else 100.0 * float(value)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    first, second = (Path(a) for a in argv)
    a, b = _scores(first), _scores(second)
    # Trials either scoring left unscored (dropped, or not read) have no verdict to compare.
    common = sorted(t for t in set(a) & set(b) if a[t].get("verdict") and b[t].get("verdict"))
    differ = [t for t in common if a[t]["verdict"]["valid"] != b[t]["verdict"]["valid"]]
    partner = [t for t in common if (a[t].get("partner") or {}).get("valid") != (b[t].get("partner") or {}).get("valid")]
    print(f"{len(common)} trials scored by both; target verdicts differ on {len(differ)} "
          f"({100 * len(differ) / max(1, len(common)):.1f} %), partner verdicts on {len(partner)}")
    ma, mb = _metrics(first), _metrics(second)
    print(f"{'config':<7}{'Macro SIT':>20}{'LAA':>20}  largest category gap")
    worst = 0.0
    for config in sorted(c for c in set(ma) & set(mb) if any(t.startswith(f"{c}:") for t in common)):
        cells = []
        for name in ("macro_sit", "LAA"):
            x, y = _figure(ma[config], name), _figure(mb[config], name)
            cells.append(f"{x if x is not None else float('nan'):7.1f} | {y if y is not None else float('nan'):5.1f}")
        gaps = [(abs((_figure(ma[config], c) or 0) - (_figure(mb[config], c) or 0)), c) for c in CATEGORIES]
        gap, name = max(gaps)
        macro_gap = abs((_figure(ma[config], "macro_sit") or 0) - (_figure(mb[config], "macro_sit") or 0))
        worst = max(worst, macro_gap)
        n = sum(1 for t in differ if t.startswith(f"{config}:"))
        print(f"{config:<7}{cells[0]:>20}{cells[1]:>20}  {name} {gap:.1f}   ({n} verdicts differ)")
    print(f"largest Macro SIT gap: {worst:.1f} points")
    for t in differ:
        fa = [k for k, c in a[t]["verdict"]["checks"].items() if not c["passed"]]
        fb = [k for k, c in b[t]["verdict"]["checks"].items() if not c["passed"]]
        print(f"  {t}: {first.name} {'VALID' if a[t]['verdict']['valid'] else 'INVALID ' + ','.join(fa)}"
              f" | {second.name} {'VALID' if b[t]['verdict']['valid'] else 'INVALID ' + ','.join(fb)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
