"""Throughput of each extractor (and of the shared scorer) on 10,000 responses, one core; and how well the rule
extractor's confidence score predicts its wrong verdicts.

The responses are drawn (seeded, with replacement) from the annotated verifier corpus
(``tests/verify/corpus``): answers written the way chat models write them, over the pilot and
generated suites, so lengths and phrasings are realistic. Extraction and scoring are timed apart,
so a slower, better extractor is a visible cost. Beside the wall-clock rate, the rate per second of
the process's CPU time is printed (the two differ on a machine shared with other work).

Then, for the rule extractor, the AUROC of ``1 - confidence.score`` against "the verdict from the rule
reading differs from the annotated one", on the held-out slice (never used to fit the confidence weights)
and on the development slice (in-sample: the weights were fitted on it), with the number of wrong
verdicts it rests on and a seeded percentile-bootstrap 95 % interval.

Run: python benchmarks/verifier.py [--n 10000] [--extractor rules] [--extractor llm:openai/MODEL ...]
Target: the rule extractor at least 1,000 responses/s on one core; confidence AUROC ≥ 0.75 held out.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _corpus_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corpus_tool", ROOT / "tests" / "verify" / "corpus" / "corpus_tool.py")
    assert spec is not None and spec.loader is not None, "the corpus tool ships with the repository's tests"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def confidence_auroc(tool: ModuleType, seed: int) -> None:
    """Print the rule confidence's AUROC against wrong verdicts, held out and in-sample."""
    from sitbench.verify import error_auroc, error_auroc_interval

    for split, label in (("heldout", "held-out slice"), ("dev", "development slice (in-sample: weights fitted on it)")):
        scores, wrong = [], []
        for _, got, reading in tool.readings(tool.load_corpus(split), "rules"):
            scores.append(got.observation.confidence.score)
            wrong.append(any(gold != read for gold, read in reading.verdicts))
        auroc = error_auroc(scores, wrong)
        low, high = error_auroc_interval(scores, wrong, seed=seed)
        print(f"confidence AUROC, {label}: {auroc:.3f} [95% bootstrap {low:.3f}, {high:.3f}] "
              f"on {sum(wrong)} wrong verdicts of {len(wrong)} readings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10_000, help="responses to read (default 10,000)")
    parser.add_argument("--extractor", action="append", default=None,
                        help="extractor spec, repeatable (default: rules)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-auroc", action="store_true", help="skip the confidence AUROC")
    args = parser.parse_args()
    from sitbench.verify import Judge, get_extractor

    tool = _corpus_tool()
    cases = tool.load_corpus("all")
    rng = random.Random(args.seed)
    work = [rng.choice(cases) for _ in range(args.n)]
    words = statistics.mean(len(c["response"].split()) for c in work)
    print(f"{args.n} responses from the verifier corpus ({len(cases)} distinct, mean {words:.0f} words), seed {args.seed}")
    for spec in args.extractor or ["rules"]:
        extractor = get_extractor(spec)
        judges: dict[str, Judge] = {}
        prepared = []
        for case in work:
            base = tool.judge_for(case["dataset"])
            judge = judges.setdefault(case["dataset"], Judge(base.hidden, base.queries, extractor=extractor))
            probe = judge.probe(case["probe_id"])
            envelope = judge.envelope(probe)
            prepared.append((judge, probe, envelope, judge.vocabulary(envelope), case["response"]))
            judge.support(probe)  # the projected state is per probe, computed once as a run would
        start, cpu_start = time.perf_counter(), time.process_time()
        observations = [extractor.extract(text, env, vocab) for _, _, env, vocab, text in prepared]
        extract_s, extract_cpu_s = time.perf_counter() - start, time.process_time() - cpu_start
        start = time.perf_counter()
        valid = sum(j.score_observation(p.probe_id, o).verdict.valid
                    for (j, p, _, _, _), o in zip(prepared, observations, strict=True))
        score_s = time.perf_counter() - start
        print(f"{extractor.id:<8} {extractor.version:<40} extract {args.n / extract_s:>8,.0f} responses/s "
              f"({1000 * extract_s / args.n:.2f} ms each)   score {args.n / score_s:>8,.0f}/s   "
              f"extract+score {args.n / (extract_s + score_s):>8,.0f}/s   valid {valid}   "
              f"extract per CPU second {args.n / extract_cpu_s:,.0f}/s")
    if not args.no_auroc:
        confidence_auroc(tool, args.seed)


if __name__ == "__main__":
    main()
