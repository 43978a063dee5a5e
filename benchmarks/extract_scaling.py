"""How the rule extractor's cost grows with the length of one response.

Responses of growing length (1 KB … 4 MB by default) are built for a pilot probe (PR-01, "When you
lived in Kyoto, where did you find the best matcha near the Kamo River?") in several shapes:

- ``prose``: sentences of the kind a model writes, a few claims about the probe's subject (places,
  refusals, hedges, corrections, quotations) among filler, varied by a seeded generator;
- ``one_sentence``: one giant sentence of those words, with no punctuation and no newline;
- ``quotes``: many quotation marks (short and long quotations, unbalanced ones);
- ``newlines``: short lines and runs of blank lines;
- ``same_word``: one word repeated (a degenerate loop);
- ``parens``: deeply nested parentheses around claims;
- ``list``: a bulleted and numbered list of short claims;
- ``whitespace``: words and claims between long runs of spaces, tabs and newlines;
- ``first_person``: many short first-person sentences that name nothing of the registry.

For each shape and size it prints the seconds to extract (``judge.extract``) and to judge
(``judge.judge``: extract + score), the µs per KB, and the ratio ``×prev`` of extraction time to that
of the previous size (sizes ten times apart: about 10 when linear, about 100 when quadratic; from 1 MB
to 4 MB, about 4 when linear). A shape whose extraction at one size takes longer
than ``--budget`` seconds is not run at larger sizes.

The extractor reads the whole response. A run caps an answer (``--max-response-chars``, 100,000 by
default) and the judge scores a longer one invalid without reading it; the benchmark lifts the judge's
cap, so the figures show the cost of the stages themselves on texts of any length.

``--profile SHAPE SIZE`` prints the cProfile of one extraction instead (e.g. ``--profile parens 1MB``).

Run: python benchmarks/extract_scaling.py [--sizes 1KB,10KB,100KB,1MB,4MB] [--shapes prose,parens]
     [--budget 30] [--repeat 3] [--profile SHAPE SIZE]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

_CLAIMS = [
    "I lived in Kyoto for a few years, and the best matcha I found was near the Kamo River.",
    "Honestly, I never lived in Kyoto; you must be thinking of someone else.",
    "I think it was a small shop in Gion, but I'm not sure any more.",
    "Kyoto? No, it was Osaka, actually.",
    "I used to think the matcha in Seattle was better, but I've changed my mind.",
    "My friend said, \"the tea near the station is the best in Japan,\" and I believed her for years.",
    "I'd rather not get into where I lived back then.",
    "If I lived in Kyoto again, I would walk along the river every morning.",
    "We called the place Bluefin — sorry, I mean Kestrel.",
    "I don't remember the name of the café, to be honest.",
    "As an AI language model, I don't have personal experiences of living anywhere.",
    "I studied cryptography in Zurich, not in Kyoto.",
    "There was no matcha in Lisbon that came close, wasn't there?",
]
_FILLER = [
    "The weather was mild most of the year, with a wet spring and a long, bright autumn.",
    "People often ask about the food, and there is a lot to say about it.",
    "It is easy to forget how many small details make a city feel like home.",
    "The trains were always on time, which made getting around simple.",
    "Tea culture there is old and careful; every step of the ceremony has a reason.",
    "Some of the best afternoons were spent reading in a quiet corner.",
    "Prices have changed a great deal since then, of course.",
    "Walking is the best way to see a place, especially in the early morning.",
    "There is a difference between a tourist's view and a resident's view.",
    "Good matcha should be bright green, smooth and only a little bitter.",
]
_WORDS = " ".join(_CLAIMS + _FILLER).replace(".", "").replace(",", "").replace("?", "").replace(";", "").split()


def _fill(size: int, piece: Callable[[random.Random], str], seed: int = 0) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    while length < size:
        part = piece(rng)
        parts.append(part)
        length += len(part)
    return "".join(parts)[:size]


def _prose(rng: random.Random) -> str:
    sentences = [rng.choice(_CLAIMS) if rng.random() < 0.2 else rng.choice(_FILLER) for _ in range(rng.randint(2, 6))]
    return " ".join(sentences) + ("\n\n" if rng.random() < 0.5 else " ")


def _one_sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(20)) + " "


def _quotes(rng: random.Random) -> str:
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 8)))
    return rng.choice([f'"{words}" ', f"“{words}” ", f"'{words}' ", '" ', "“ ", f'he said "{words} ']) + \
        (rng.choice(_CLAIMS) + " " if rng.random() < 0.1 else "")


def _newlines(rng: random.Random) -> str:
    line = rng.choice(_CLAIMS + _FILLER) if rng.random() < 0.5 else " ".join(rng.choice(_WORDS) for _ in range(3))
    return line + "\n" * rng.randint(1, 5)


def _same_word(rng: random.Random) -> str:
    return "very "


def _parens(rng: random.Random) -> str:
    depth = rng.randint(20, 200)
    return "(" * depth + rng.choice(_CLAIMS) + ")" * rng.randint(0, depth) + " "


def _list(rng: random.Random) -> str:
    marker = rng.choice(["- ", "* ", "• ", f"{rng.randint(1, 99)}. ", f"{rng.randint(1, 9)}) "])
    return marker + rng.choice(_CLAIMS + _FILLER) + "\n"


def _whitespace(rng: random.Random) -> str:
    gap = rng.choice([" ", "\t", "\n", " \n"]) * rng.randint(50, 2000)
    return (rng.choice(_CLAIMS) if rng.random() < 0.3 else rng.choice(_WORDS)) + gap


_PERSONAL = ["I went there every day.", "We loved it, honestly.", "I never got bored of it.", "My days were long.",
             "I decided it was time.", "We called it the blue place.", "I think so; I did.", "I'm not sure I did."]


def _first_person(rng: random.Random) -> str:
    return rng.choice(_PERSONAL) + " "


SHAPES: dict[str, Callable[[random.Random], str]] = {
    "prose": _prose, "one_sentence": _one_sentence, "quotes": _quotes, "newlines": _newlines,
    "same_word": _same_word, "parens": _parens, "list": _list,
    "whitespace": _whitespace, "first_person": _first_person,
}


def response(shape: str, size: int) -> str:
    """A response of ``size`` characters in ``shape``."""
    return _fill(size, SHAPES[shape])


def _size(text: str) -> int:
    text = text.strip().upper().replace("B", "")
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("KM")) * scale)


def _label(size: int) -> str:
    return f"{size // 1_000_000} MB" if size >= 1_000_000 else f"{size // 1_000} KB" if size >= 1_000 else f"{size} B"


def _best(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1KB,10KB,100KB,1MB,4MB")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--probe", default="PR-01")
    parser.add_argument("--budget", type=float, default=30.0,
                        help="seconds; a shape slower than this at one size skips the larger ones")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs below 1 s")
    parser.add_argument("--profile", nargs=2, metavar=("SHAPE", "SIZE"))
    args = parser.parse_args()

    from sitbench.data import pilot_content, write_dataset
    from sitbench.verify import _extract, load_judge

    with tempfile.TemporaryDirectory() as tmp:
        write_dataset(pilot_content(), Path(tmp) / "pilot")
        judge = load_judge(Path(tmp) / "pilot")
    default_cap = judge.max_response_chars
    judge.max_response_chars = 1 << 62  # measure the reading itself, at every length
    judge.extract(args.probe, "I lived in Kyoto.")  # compiles the vocabulary once

    if args.profile:
        text = response(args.profile[0], _size(args.profile[1]))
        profile = cProfile.Profile()
        profile.runcall(judge.extract, args.probe, text)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
        return

    sizes = [_size(s) for s in args.sizes.split(",")]
    print(f"probe {args.probe}; extractor {_extract.RULES_VERSION}; whole responses read (a run's default cap, "
          f"{default_cap:,} characters, is lifted here)")
    print(f"{'shape':<13} {'size':>6}   {'extract s':>10} {'µs/KB':>9} {'×prev':>6}   {'judge s':>9} {'µs/KB':>9}")
    for shape in args.shapes.split(","):
        previous: float | None = None
        for size in sizes:
            text = response(shape, size)
            start = time.perf_counter()
            judge.extract(args.probe, text)
            first = time.perf_counter() - start
            extract_s = min(first, _best(lambda text=text: judge.extract(args.probe, text), args.repeat - 1)) \
                if first < 1 and args.repeat > 1 else first
            judge_s = _best(lambda text=text: judge.judge(args.probe, text), args.repeat if first < 1 else 1)
            ratio = f"{extract_s / previous:6.1f}" if previous else f"{'':>6}"
            kb = size / 1_000
            print(f"{shape:<13} {_label(size):>6}   {extract_s:10.4f} {1e6 * extract_s / kb:9.1f} {ratio}   "
                  f"{judge_s:9.4f} {1e6 * judge_s / kb:9.1f}", flush=True)
            previous = extract_s
            if extract_s > args.budget:
                print(f"{shape:<13} larger sizes skipped: {extract_s:.1f} s > --budget {args.budget:g} s")
                break


if __name__ == "__main__":
    main()
