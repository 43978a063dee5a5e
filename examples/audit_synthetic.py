"""Three SYNTHETIC annotators (and a synthetic adjudicator) for an audit sample: scripted, not human.

    python examples/audit_synthetic.py audit/sample.json --out audit/synthetic [--seed 0]

writes ``syn-a.jsonl``, ``syn-b.jsonl``, ``syn-c.jsonl`` (the annotators) and ``syn-adjudicator.jsonl``
in the format the annotation page downloads, every line marked ``"synthetic": true``. They exist to
show the audit tooling end to end (import, agree, adjudicate, measure) without people; no figure
computed from them says anything about how well a verifier reads.

How they read, gold-blind like a human (each item's response, envelope and X_q only):

1. A *latent reading* per response: the rule extractor's reading with planted changes on a fixed
   share of responses (``--plant``, default 20 %): a claim dropped, a provenance changed, QUALIFY
   added or removed, an act swapped. The planted share is what an audit of the rule extractor
   should find it gets wrong; the adjudicator reads the latent reading exactly.
2. Each annotator is the latent reading plus independent slips at its own rate (2 %, 5 %, 9 % per
   labelled unit): an act flipped, a claim's provenance or polarity changed, a claim missed,
   the uncertainty level changed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from sitbench.audit import load_sample
from sitbench.schema import Act, ClaimProvenance, UncertaintyLevel
from sitbench.verify import Vocabulary, get_extractor

ACTS = [a.value for a in Act]
PROVENANCES = [p.value for p in ClaimProvenance]
LEVELS = [u.value for u in UncertaintyLevel]
ANNOTATORS = {"syn-a": 0.02, "syn-b": 0.05, "syn-c": 0.09}


def latent_readings(sample, plant: float, rng: random.Random) -> dict[str, dict]:
    """The rule extractor's reading of each response, with planted changes on a share of them."""
    extractor = get_extractor("rules")
    props = {p.prop_id: p for p in sample.vocabulary.propositions}
    out = {}
    for item in sample.by_position():
        vocabulary = Vocabulary([props[p] for p in item.universe], sample.vocabulary.closed_world)
        obs = extractor.extract(item.response, item.envelope, vocabulary)
        reading = {
            "acts": [a.value for a in obs.acts],
            "claims": [{"prop_id": c.prop_id, "polarity": c.polarity, "provenance": c.provenance.value,
                        "mode": "asserted", "span": list(c.span) if c.span[1] > c.span[0] else None}
                       for c in obs.claims],
            "unmapped": [{"span": list(u.span), "text": item.response[u.span[0]:u.span[1]], "polarity": u.polarity,
                          "provenance": u.provenance.value, "slot": u.slot, "value": u.value}
                         for u in obs.unmapped if u.span[1] > u.span[0]
                         and item.response[u.span[0]:u.span[1]] == u.text],
            "uncertainty": obs.uncertainty.value,
            "withheld": obs.disclosure.framed_as_withheld,
        }
        # One proposition per mode: keep the first reading of a proposition the extractor gave twice.
        seen: set[str] = set()
        reading["claims"] = [c for c in reading["claims"] if not (c["prop_id"] in seen or seen.add(c["prop_id"]))]
        if rng.random() < plant:
            _plant(reading, rng)
        out[item.item_id] = reading
    return out


def _plant(reading: dict, rng: random.Random) -> None:
    kind = rng.choice(["drop_claim", "provenance", "qualify", "swap_act"])
    if kind == "drop_claim" and reading["claims"]:
        reading["claims"].pop(rng.randrange(len(reading["claims"])))
    elif kind == "provenance" and reading["claims"]:
        claim = rng.choice(reading["claims"])
        claim["provenance"] = rng.choice([p for p in PROVENANCES if p != claim["provenance"]])
    elif kind == "qualify" or not reading["acts"]:
        if "QUALIFY" in reading["acts"]:
            reading["acts"].remove("QUALIFY")
        else:
            reading["acts"].append("QUALIFY")
            reading["uncertainty"] = "hedged"
    else:
        reading["acts"][rng.randrange(len(reading["acts"]))] = rng.choice([a for a in ACTS if a not in reading["acts"]])
        reading["acts"] = sorted(set(reading["acts"]), key=ACTS.index)


def slip(reading: dict, rate: float, rng: random.Random) -> dict:
    """An annotator's reading: the latent one with independent slips."""
    out = json.loads(json.dumps(reading))
    acts = set(out["acts"])
    for act in ACTS:
        if rng.random() < rate / 2:
            acts ^= {act}
    out["acts"] = [a for a in ACTS if a in acts]
    kept = []
    for claim in out["claims"]:
        if rng.random() < rate / 2:
            continue  # missed
        if rng.random() < rate:
            claim["provenance"] = rng.choice([p for p in PROVENANCES if p != claim["provenance"]])
        if rng.random() < rate / 3:
            claim["polarity"] = not claim["polarity"]
        kept.append(claim)
    out["claims"] = kept
    if rng.random() < rate:
        out["uncertainty"] = rng.choice([u for u in LEVELS if u != out["uncertainty"]])
    if rng.random() < rate / 3:
        out["withheld"] = not out["withheld"]
    return out


def write(path: Path, sample, name: str, readings: dict[str, dict]) -> None:
    lines = []
    for item in sample.by_position():
        lines.append(json.dumps({"format": "sitbench-audit-annotation/1", "sample_id": sample.sample_id,
                                 "phase": sample.phase, "annotator": name, "item_id": item.item_id, "status": "done",
                                 **readings[item.item_id], "note": "synthetic annotator (scripted)", "synthetic": True},
                                ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sample", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plant", type=float, default=0.2, help="share of responses with a planted change")
    args = parser.parse_args(argv)
    sample = load_sample(args.sample)
    rng = random.Random(args.seed)
    latent = latent_readings(sample, args.plant, rng)
    args.out.mkdir(parents=True, exist_ok=True)
    write(args.out / "syn-adjudicator.jsonl", sample, "syn-adjudicator", latent)
    for name, rate in ANNOTATORS.items():
        own = random.Random(f"{args.seed}:{name}")
        write(args.out / f"{name}.jsonl", sample, name, {k: slip(v, rate, own) for k, v in latent.items()})
    print(f"SYNTHETIC annotations of {len(sample.items)} responses (sample {sample.sample_id}) in {args.out}: "
          f"{', '.join(f'{n} (slip rate {100 * r:.0f} % per unit)' for n, r in ANNOTATORS.items())}, and "
          f"syn-adjudicator (the latent reading; {100 * args.plant:.0f} % of responses carry a planted change "
          "from the rule extractor's reading)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
