"""How the generated histories read: repeats, article errors, anachronisms, session order.

    python benchmarks/realizations.py [--suite full] [--seed 1]

Prints, for one generated suite:

- distinct event texts per lineage (the minimum over lineages, and over all lineages together),
  also after removing the date phrase ("on a Tuesday evening", "in March") so that one activity
  told on two dates counts once;
- ``a``/``an`` errors in event texts (by the generator's article rule);
- anachronisms: records whose era words (:data:`ERA_MARKERS`) or belief stance postdate the
  record's date, and hobbies in a profile that did not exist at the lineage's first record;
- lineages whose session ids (S1, S2, …) do not increase with the session dates.
"""

from __future__ import annotations

import argparse
import calendar
import re
import time


def _date_free(text: str) -> str:
    days = "|".join(calendar.day_name)
    months = "|".join(m for m in calendar.month_name if m)
    text = re.sub(rf" (?:on a (?:clear |long )?|one |late one |early one |before dawn one |at dawn one |"
                  rf"during a busy week in |one week in |in )(?:{days}|{months})"
                  rf"(?: (?:morning|afternoon|evening|night))?(?: in (?:{months}))?", "", text)
    text = re.sub(rf" one (?:morning|afternoon|evening) in (?:{months})", "", text)
    return re.sub(r" after (?:work|lectures)", "", text)


def measure(suite: str, seed: int) -> dict[str, object]:
    """The figures for one suite and seed (see the module docstring)."""
    from sitbench.data import generate_content
    from sitbench.data._generator import _vocab as V
    from sitbench.data._generator._events import era_violations
    from sitbench.data._generator._text import article_errors

    started = time.perf_counter()
    content = generate_content(suite, seed)
    seconds = time.perf_counter() - started
    ratios, plain, total, distinct, distinct_plain = [], [], 0, 0, 0
    articles: list[str] = []
    anachronisms: list[str] = []
    out_of_order = 0
    stances = {text: (b, i) for b in V.BELIEFS for i, (text, _) in enumerate(b.stances)}
    for lin in content.lineages:
        texts = [e.text for e in lin.events]
        n, d, dp = len(texts), len(set(texts)), len({_date_free(t) for t in texts})
        ratios.append(d / n)
        plain.append(dp / n)
        total, distinct, distinct_plain = total + n, distinct + d, distinct_plain + dp
        for e in lin.events:
            articles += [f"{lin.lineage_id} {e.t}: {x}" for x in article_errors(e.text)]
            anachronisms += [f"{lin.lineage_id} {e.t}: {x} in {e.text!r}" for x in era_violations(e.text, e.t.year)]
            if e.kind.value == "belief":
                stance = e.text.rsplit(": ", 1)[-1].rstrip(".")
                if stance in stances and stances[stance][0].stance_since(stances[stance][1]) > e.t.year:
                    anachronisms.append(f"{lin.lineage_id} {e.t}: stance {stance!r}")
        first_year = min(e.t for e in lin.events if e.kind.value != "episodic" or not e.text.startswith("Born"))
        anachronisms += [f"{lin.lineage_id}: hobby {h}" for h in lin.invariants.hobbies
                         if V.HOBBY_SINCE.get(h, 0) > first_year.year]
        sessions = sorted((e.t, int(e.session_id[1:])) for e in lin.events if e.session_id)
        if [k for _, k in sessions] != sorted(k for _, k in sessions):
            out_of_order += 1
    return {
        "suite": suite, "seed": seed, "lineages": len(content.lineages), "events": total,
        "generate_s": round(seconds, 1),
        "distinct_min": round(min(ratios), 4), "distinct_overall": round(distinct / total, 4),
        "distinct_no_date_min": round(min(plain), 4), "distinct_no_date_overall": round(distinct_plain / total, 4),
        "article_errors": len(articles), "anachronisms": len(anachronisms),
        "sessions_out_of_order": out_of_order, "examples": (articles + anachronisms)[:10],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", default="full")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    figures = measure(args.suite, args.seed)
    for key, value in figures.items():
        if key == "examples":
            for line in value:  # type: ignore[attr-defined]
                print(f"  {line}")
        else:
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
