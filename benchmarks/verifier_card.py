"""The verifier card: build it from the development slice, check its correction on the held-out slice.

``python benchmarks/verifier_card.py build``
    Measures, per probe category, each reader's false rejects (annotated valid, scored invalid) and false
    accepts (annotated invalid, scored valid) on the development slice of the annotated verifier corpus, and
    writes the card shipped in the package (``src/sitbench/verify/card.json``). Readers: the rule extractor
    (measured on the development slice), and the replayed blind readings of the current prompt version
    (measured on every case they read, held-out slice included: nothing was tuned on them, and their
    development cases alone are too few to correct any category).
``python benchmarks/verifier_card.py check``
    On the held-out slice, per category: the annotated validity, the reader's raw validity and the
    card-corrected one with its interval, and whether the correction landed nearer the annotated figure than
    the raw one. The card is never built from the cases it is checked on: the rules' card is the shipped one
    (development slice); the replayed reader's is cross-fitted (each half of the held-out slice is checked
    with a card built from every other case it read).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "verify" / "corpus"))

import corpus_tool  # noqa: E402

from blind_readings import BLIND_DIR  # noqa: E402
from sitbench.verify import (  # noqa: E402  # noqa: E402
    SCORER_VERSION,
    CategoryErrors,
    ReaderCard,
    VerifierCard,
    card_key,
    correct,
    get_extractor,
    stamp,
)
from sitbench.verify._card import CARD_FILE  # noqa: E402
from sitbench.verify._llm import PROMPT_VERSION  # noqa: E402

CARD_PATH = ROOT / "src" / "sitbench" / "verify" / CARD_FILE
READINGS = BLIND_DIR / f"{PROMPT_VERSION.replace('/', '-')}.jsonl"


def _replayed_ids() -> set[str]:
    return {json.loads(line)["case"] for line in READINGS.read_text(encoding="utf-8").splitlines() if line.strip()}


def readers() -> list[tuple[str, set[str] | None, str]]:
    """Each reader's extractor spec, the case ids it can read (None: every case) and the split its card is
    built from."""
    return [("rules", None, "dev"), (f"llm:replay/{READINGS}", _replayed_ids(), "all")]


def _half(case_id: str) -> int:
    return hashlib.sha256(f"card-fold:{case_id}".encode()).digest()[0] & 1


def verdicts(spec: str, split: str, wanted: set[str] | None) -> list[tuple[str, bool, bool, str]]:
    """(category, annotated valid, scored valid, case id) of every case of the split the reader can read."""
    cases = [c for c in corpus_tool.load_corpus(split) if wanted is None or c["id"] in wanted]
    rows = []
    for raw, judgement, _ in corpus_tool.readings(cases, spec):
        probe_category = corpus_tool.judge_for(raw["dataset"]).probe(raw["probe_id"]).category.value
        rows.append((probe_category, bool(raw["valid"]), judgement.verdict.valid, raw["id"]))
    return rows


def errors_by_category(rows: list[tuple[str, bool, bool, str]]) -> dict[str, CategoryErrors]:
    """The card's counts per category."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for category, annotated, scored, _ in rows:
        cell = counts[category]
        if annotated:
            cell[0] += 1
            cell[2] += not scored
        else:
            cell[1] += 1
            cell[3] += scored
    return {c: CategoryErrors(n_valid=v, n_invalid=i, false_rejects=fr, false_accepts=fa)
            for c, (v, i, fr, fa) in sorted(counts.items())}


def build() -> VerifierCard:
    cards = []
    for spec, wanted, split in readers():
        extractor = get_extractor(spec)
        rows = verdicts(spec, split, wanted)
        where = "development slice" if split == "dev" else "development and held-out slices"
        cards.append(ReaderCard(reader=card_key(stamp(extractor)), scorer_version=SCORER_VERSION,
                                measured_on=f"{where} of the annotated verifier corpus ({len(rows)} answers)",
                                categories=errors_by_category(rows)))
    card = VerifierCard(readers=cards)
    CARD_PATH.write_text(card.model_dump_json(indent=1) + "\n", encoding="utf-8")
    for reader in card.readers:
        print(f"{reader.reader}: {reader.measured_on}")
        for category, e in reader.categories.items():
            print(f"  {category}  valid {e.n_valid:>4}  invalid {e.n_invalid:>4}  FR {e.false_reject_rate or 0:.3f}  "
                  f"FA {e.false_accept_rate or 0:.3f}{'  too small to correct' if e.too_small else ''}")
    print(f"wrote {CARD_PATH.relative_to(ROOT)}")
    return card


def _check_rows(rows: list[tuple[str, bool, bool, str]], card_of: Any) -> tuple[int, int]:
    print("  cat     n  annotated   raw  corrected  [95% interval]      |raw-ann| |corr-ann|  nearer  covers")
    nearer = compared = covers = 0
    for category in sorted({row[0] for row in rows}):
        mine = [(a, s, case) for c, a, s, case in rows if c == category]
        annotated = sum(a for a, _, _ in mine) / len(mine)
        raw = sum(s for _, s, _ in mine) / len(mine)
        # Cross-fitted: each case is corrected with a card that did not see it; the category's estimate
        # is the mean over its cases' folds.
        estimates, lows, highs, statuses = [], [], [], set()
        for fold in (0, 1):
            part = [(a, s) for a, s, case in mine if _half(case) == fold] if card_of.__name__ == "_folded" else \
                [(a, s) for a, s, _ in mine] if fold == 0 else []
            if not part:
                continue
            share = sum(s for _, s in part) / len(part)
            corrected, _ = correct(share, len(part), card_of(category, fold))
            statuses.add(corrected.status.value)
            if corrected.estimate is not None:
                estimates.append((corrected.estimate, len(part)))
                lows.append(corrected.low)
                highs.append(corrected.high)
        if statuses != {"corrected"}:
            print(f"  {category}  {len(mine):>4}  {annotated:>9.3f}  {raw:.3f}  {', '.join(sorted(statuses))}")
            continue
        estimate = sum(e * n for e, n in estimates) / len(mine)
        compared += 1
        better = abs(estimate - annotated) < abs(raw - annotated)
        tie = abs(estimate - annotated) == abs(raw - annotated)
        nearer += better
        inside = min(lows) <= annotated <= max(highs)
        covers += inside
        print(f"  {category}  {len(mine):>4}  {annotated:>9.3f}  {raw:.3f}  {estimate:9.3f}  "
              f"[{min(lows):.3f}, {max(highs):.3f}]  {abs(raw - annotated):8.3f}  "
              f"{abs(estimate - annotated):9.3f}  {'yes' if better else 'tie' if tie else 'no':>6}  "
              f"{'yes' if inside else 'no'}")
    print(f"  corrected nearer the annotated validity than raw in {nearer} of {compared} corrected categories; "
          f"the interval contains it in {covers}")
    return nearer, compared


def check() -> dict[str, Any]:
    card = VerifierCard.model_validate_json(CARD_PATH.read_text(encoding="utf-8"))
    out: dict[str, Any] = {}
    for spec, wanted, split in readers():
        extractor = get_extractor(spec)
        rows = verdicts(spec, "heldout", wanted)
        if split == "dev":
            reader = card.for_reader(stamp(extractor), SCORER_VERSION)

            def _shipped(category: str, fold: int, reader: ReaderCard | None = reader) -> CategoryErrors | None:
                return reader.categories.get(category) if reader else None

            print(f"{card_key(stamp(extractor))} on the held-out slice ({len(rows)} answers); card: "
                  f"{reader.measured_on if reader else 'none'}")
            out[spec] = _check_rows(rows, _shipped)
            continue
        every = verdicts(spec, "all", wanted)

        def _folded(category: str, fold: int, every: list[tuple[str, bool, bool, str]] = every) -> CategoryErrors | None:
            rest = [r for r in every if not (corpus_tool.is_heldout(r[3]) and _half(r[3]) == fold)]
            return errors_by_category(rest).get(category)

        print(f"{card_key(stamp(extractor))} on the held-out slice ({len(rows)} answers); card cross-fitted: each "
              "half of the held-out slice corrected with a card from every other answer it read")
        out[spec] = _check_rows(rows, _folded)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "check"])
    args = parser.parse_args(argv)
    build() if args.command == "build" else check()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
