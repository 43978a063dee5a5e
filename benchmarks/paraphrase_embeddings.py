"""Could sentence embeddings catch the paraphrases the rule extractor misses?

For every corpus response whose question's universe has belief stances or first-job fields, each
clause of the response is embedded with the retrieval model sitbench already ships (all-MiniLM-L6-v2,
int8 ONNX) and compared with each stance's and field's gloss. A proposition the rules did not read
becomes a candidate claim when its best clause similarity reaches a threshold and beats the other
values of its slot by a margin. Prints, per threshold and margin, how many of these new claims the
annotators made (new true positives) and how many they did not (new false positives), beside the
number of such claims the rules miss in all.

Run: python benchmarks/paraphrase_embeddings.py [--split dev]   (about 3 minutes on one core)
"""
import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "verify" / "corpus"))
import corpus_tool  # noqa: E402

from sitbench.configs import MiniLMEmbedder  # noqa: E402
from sitbench.schema import Predicate  # noqa: E402
from sitbench.verify._text import clauses, clean  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "all"], default="dev",
                        help="the held-out slice is not offered: this is a diagnosis")
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    rows = []
    for raw, got, _ in corpus_tool.readings(corpus_tool.load_corpus(args.split)):
        judge = corpus_tool.judge_for(raw["dataset"])
        vocabulary = judge.vocabulary(judge.envelope(judge.probe(raw["probe_id"])))
        candidates = [p for p in vocabulary.universe if p.predicate is Predicate.STANCE or p.slot == "work.field"]
        texts = [c.text for c in clauses(clean(raw["response"])) if len(c.text.split()) >= 2]
        if not candidates or not texts:
            continue
        gold = {(c[0], c[1]) for c in raw["claims"]}
        read = {(c.prop_id, c.polarity) for c in got.observation.claims}
        similarity = embedder.embed(texts) @ embedder.embed([p.gloss or p.value for p in candidates]).T
        best = similarity.max(axis=0)
        for k, prop in enumerate(candidates):
            rivals = [float(best[i]) for i, q in enumerate(candidates) if q.slot == prop.slot and i != k]
            rows.append((float(best[k]), float(best[k]) - max(rivals, default=0.0),
                         (prop.prop_id, True) in gold, (prop.prop_id, True) in read))
    table = np.array(rows, dtype=float)
    missed = int(((table[:, 2] == 1) & (table[:, 3] == 0)).sum())
    print(f"{args.split}: {len(table)} (response, proposition) pairs; claims the rules miss: {missed}")
    for threshold in (0.45, 0.5, 0.55, 0.6, 0.65):
        for margin in (0.0, 0.05, 0.1):
            new = (table[:, 0] >= threshold) & (table[:, 1] >= margin) & (table[:, 3] == 0)
            tp, fp = int((new & (table[:, 2] == 1)).sum()), int((new & (table[:, 2] == 0)).sum())
            print(f"  similarity >= {threshold:.2f}, margin >= {margin:.2f}: new true positives {tp:3d}, "
                  f"new false positives {fp:3d}")


if __name__ == "__main__":
    main()
