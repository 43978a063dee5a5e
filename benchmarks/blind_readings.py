"""Blind readings: the contract scorer measured apart from any extractor.

A blind reader (a person, or a model session) is given nothing but what the LLM extractor's prompt
renders for one response: the instructions, the numbered items, the closed-world slots, the envelope
and the reply. Its JSON answers are frozen with the prompt version and each prompt's SHA-256, then
replayed through ``--extractor llm:replay/FILE`` (the readings are the model's answers) and scored by
sitbench; verdict agreement, false-reject and false-accept are measured against the annotated corpus.

``python benchmarks/blind_readings.py prepare --out DIR``
    Picks the cases (the whole held-out slice and a seeded sample of the development split) and writes
    the readers' packets under ``DIR/packets/`` and the private key ``DIR/key.json`` (never shown to a
    reader: it maps each opaque reading id to its corpus case and prompt hash).
``python benchmarks/blind_readings.py freeze --dir DIR``
    Validates every answer in ``DIR/answers/*.jsonl`` against the extractor's output schema and writes
    the frozen readings file (``tests/verify/corpus/blind/<prompt version>.jsonl`` by default).
``python benchmarks/blind_readings.py score [--readings FILE]``
    Replays the frozen readings and prints the figures, held-out slice and whole.
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
sys.path.insert(0, str(ROOT / "tests" / "verify" / "corpus"))

import corpus_tool  # noqa: E402

from sitbench.candidates.replay import prompt_sha256  # noqa: E402
from sitbench.errors import ReadingUnavailable  # noqa: E402
from sitbench.verify._llm import PROMPT_VERSION, SYSTEM_PROMPT, parse_reading, render_prompt  # noqa: E402

BLIND_DIR = ROOT / "tests" / "verify" / "corpus" / "blind"
_SPLIT = "\nDate: "


def select_cases(size: int, seed: int) -> list[dict[str, Any]]:
    """The held-out slice whole, then development cases in a seeded hash order up to ``size``."""
    heldout = corpus_tool.load_corpus("heldout")
    dev = corpus_tool.load_corpus("dev")
    dev.sort(key=lambda c: hashlib.sha256(f"{seed}:{c['id']}".encode()).hexdigest())
    return heldout + dev[:max(0, size - len(heldout))]


def battery_cases(seed: int = 0) -> list[dict[str, Any]]:
    """The content-free battery over every pilot probe that requires a claim, as corpus-like cases."""
    sys.path.insert(0, str(ROOT / "tests" / "verify"))
    import content_free

    judge = corpus_tool.judge_for("pilot")
    smollm2 = content_free.smollm2_non_answers()
    cases = []
    for probe in sorted(judge.hidden.probes.values(), key=lambda p: p.probe_id):
        if not probe.contract.required_claims:
            continue
        for n, (kind, reply) in enumerate(content_free.replies(judge.envelope(probe).utterance, seed, smollm2)):
            cases.append({"id": f"CF-{probe.probe_id}-{n:02d}", "dataset": "pilot", "probe_id": probe.probe_id,
                          "response": reply, "kind": kind})
    return cases


def _judge(dataset: str) -> Any:
    """The judge of a corpus dataset by name, or of a dataset directory (a run over a generated suite)."""
    from sitbench.verify import load_judge

    return load_judge(Path(dataset)) if Path(dataset).is_dir() else corpus_tool.judge_for(dataset)


def run_cases(runs: list[Path], dataset: str = "pilot") -> list[dict[str, Any]]:
    """Every distinct (probe, answer) of runs over one dataset (the pilot by default, e.g. ``sitbench demo --out
    DIR``'s runs; or a dataset directory), as corpus-like cases."""
    seen: dict[tuple[str, str], None] = {}
    for run in runs:
        for line in (run / "responses.jsonl").read_text(encoding="utf-8").splitlines():
            trial = json.loads(line)
            if trial.get("status") == "completed" and trial.get("turns"):
                seen.setdefault((trial["probe_id"], trial["turns"][-1]["response"]["text"]), None)
    return [{"id": f"RUN-{probe}-{hashlib.sha256(text.encode()).hexdigest()[:10]}", "dataset": dataset,
             "probe_id": probe, "response": text, "kind": "run"} for probe, text in sorted(seen)]


def prepare(out: Path, size: int, seed: int, packets: int, battery: bool = False,
            runs: list[Path] | None = None, dataset: str = "pilot") -> None:
    cases = run_cases(runs, dataset) if runs else battery_cases(seed) if battery else select_cases(size, seed)
    battery = battery or bool(runs)
    order = sorted(cases, key=lambda c: hashlib.sha256(f"order:{seed}:{c['id']}".encode()).hexdigest())
    key: dict[str, dict[str, str]] = {}
    by_packet: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    for n, case in enumerate(order, start=1):
        judge = _judge(case["dataset"])
        envelope = judge.envelope(judge.probe(case["probe_id"]))
        messages = render_prompt(case["response"], envelope, judge.vocabulary(envelope))
        assert messages[0].content == SYSTEM_PROMPT
        head, _, tail = messages[1].content.partition(_SPLIT)
        reading_id = f"R{n:04d}"
        key[reading_id] = {"case": case["id"], "prompt_sha256": prompt_sha256(messages)}
        by_packet[(n - 1) % packets].append((reading_id, head, "Date: " + tail))
    (out / "packets").mkdir(parents=True, exist_ok=True)
    for index, rows in by_packet.items():
        heads = list(dict.fromkeys(head for _, head, _ in rows))
        lines = [f"# Packet {index + 1}", "", "## Instructions (the system message of every prompt)", "",
                 SYSTEM_PROMPT, ""]
        for h, head in enumerate(heads, start=1):
            lines += [f"## Item list {h} (the first part of the user message of the prompts that name it)", "",
                      head.rstrip(), ""]
        lines += ["## Prompts", ""]
        for reading_id, head, tail in rows:
            lines += [f"### {reading_id} (item list {heads.index(head) + 1})", "", tail, ""]
        (out / "packets" / f"packet-{index + 1}.md").write_text("\n".join(lines), encoding="utf-8")
    (out / "key.json").write_text(json.dumps({"prompt_version": PROMPT_VERSION, "seed": seed, "readings": key},
                                             indent=1), encoding="utf-8")
    (out / "cases.json").write_text(json.dumps(cases if battery else [], indent=1), encoding="utf-8")
    heldout = "" if battery else f" ({sum(corpus_tool.is_heldout(c['id']) for c in cases)} held-out)"
    print(f"{len(cases)} cases{heldout} in {len(by_packet)} packets under {out}")


def freeze(directory: Path, out: Path | None, keep_invalid: bool = False) -> Path:
    """Validate the readers' answers against the extractor's output schema and write the frozen readings."""
    key = json.loads((directory / "key.json").read_text(encoding="utf-8"))
    if key["prompt_version"] != PROMPT_VERSION:
        raise SystemExit(f"{directory / 'key.json'}: prepared under {key['prompt_version']}, the extractor is "
                         f"{PROMPT_VERSION}; prepare and read again (a reading is never replayed against another "
                         "prompt version)")
    battery = json.loads((directory / "cases.json").read_text(encoding="utf-8")) \
        if (directory / "cases.json").exists() else []
    cases = {c["id"]: c for c in (battery or corpus_tool.load_corpus("all"))}
    answers: dict[str, str] = {}
    for path in sorted((directory / "answers").glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                row = json.loads(line)
                if row["id"] in answers:
                    raise SystemExit(f"{path}:{number}: reading {row['id']} is answered twice")
                answers[row["id"]] = json.dumps(row["answer"], ensure_ascii=False, sort_keys=True)
    missing = sorted(set(key["readings"]) - set(answers))
    if missing:
        raise SystemExit(f"{len(missing)} readings have no answer, e.g. {missing[:5]}")
    rows = []
    for reading_id, entry in key["readings"].items():
        case = cases[entry["case"]]
        judge = _judge(case["dataset"])
        envelope = judge.envelope(judge.probe(case["probe_id"]))
        vocabulary = judge.vocabulary(envelope)
        messages = render_prompt(case["response"], envelope, vocabulary)
        if prompt_sha256(messages) != entry["prompt_sha256"]:
            raise SystemExit(f"{reading_id}: the prompt of case {case['id']} changed since the packets were written")
        slots = list(dict.fromkeys(d.slot for d in vocabulary.closed_world))
        reading, error = parse_reading(answers[reading_id], len(vocabulary.universe), slots)
        if reading is None and not keep_invalid:
            raise SystemExit(f"{reading_id}: the answer does not validate: {error} (--keep-invalid keeps it, "
                             "and the extractor then treats it as a model's invalid answer)")
        row = {"case": case["id"], "prompt_version": PROMPT_VERSION, "prompt_sha256": entry["prompt_sha256"],
               "answer": answers[reading_id]}
        if reading is None:
            row["schema_error"] = error
        if battery:
            row.update(probe_id=case["probe_id"], kind=case["kind"], reply=case["response"])
        rows.append(row)
    rows.sort(key=lambda r: r["case"])
    # One answer per prompt: identical prompts (two probes that share a question) replay the first reading.
    first: dict[str, dict[str, Any]] = {}
    for row in rows:
        first.setdefault(row["prompt_sha256"], row)
    differing = sum(1 for row in rows if first[row["prompt_sha256"]]["answer"] != row["answer"])
    if len(first) < len(rows):
        print(f"{len(rows) - len(first)} readings repeat a prompt ({differing} with another answer); the first is kept")
    rows = list(first.values())
    target = out or BLIND_DIR / f"{PROMPT_VERSION.replace('/', '-')}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"froze {len(rows)} readings under {PROMPT_VERSION} in {target}")
    return target


def blind_readings(readings_path: Path | None = None) -> list[tuple[dict[str, Any], Any, Any]]:
    """Every frozen reading replayed through the LLM extractor and scored: (case, judgement, Reading)."""
    path = readings_path or BLIND_DIR / f"{PROMPT_VERSION.replace('/', '-')}.jsonl"
    wanted = {json.loads(line)["case"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
    cases = [c for c in corpus_tool.load_corpus("all") if c["id"] in wanted]
    try:
        return corpus_tool.readings(cases, f"llm:replay/{path}")
    except ReadingUnavailable as exc:
        raise SystemExit(f"a reading was not replayed (its prompt changed): {exc}") from None


def score(readings_path: Path | None, show_dev: bool) -> dict[str, Any]:
    """Print verdict agreement, false-reject and false-accept of the replayed readings; return the figures."""
    from sitbench.verify import compare, format_figures

    got = blind_readings(readings_path)
    out: dict[str, Any] = {}
    for split, keep in (("held-out slice", corpus_tool.is_heldout), ("whole", lambda _id: True)):
        rows = [r for raw, _, r in got if keep(raw["id"])]
        report = compare(rows)
        out[split] = report.overall
        print(format_figures(f"{split} ({len(rows)} responses)", report.overall))
        for group in ("category", "dataset"):
            for value, figures in sorted(report.groups.get(group, {}).items()):
                print("  " + format_figures(f"{group} {value}", figures))
    if show_dev:
        # Development cases only: the held-out slice is measured, never inspected.
        for raw, judgement, reading in got:
            if corpus_tool.is_heldout(raw["id"]) or all(a == b for a, b in reading.verdicts):
                continue
            checks = {k: v.reason for k, v in judgement.verdict.checks.items() if not v.passed}
            print(f"\n{raw['id']} {raw['dataset']} {raw['probe_id']} annotated valid={raw['valid']} "
                  f"partner={raw['partner_valid']} scored={judgement.verdict.valid} "
                  f"partner={judgement.partner.valid if judgement.partner else None}\n  {raw['response'][:400]}\n"
                  f"  failed: {checks}\n  reading: {judgement.observation.model_dump_json(exclude={'confidence'})}"
                  f"\n  gold: acts={raw['acts']} claims={raw['claims']} unmapped={raw['unmapped']}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="write the readers' packets and the private key")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--size", type=int, default=640)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--packets", type=int, default=7)
    p.add_argument("--battery", action="store_true", help="the content-free battery over the pilot instead")
    p.add_argument("--runs", type=Path, nargs="+", default=None,
                   help="the distinct answers of these pilot runs instead (e.g. the demo's runs)")
    p.add_argument("--dataset", default="pilot",
                   help="with --runs: the runs' dataset, a corpus dataset name or a dataset directory")
    f = sub.add_parser("freeze", help="validate the answers and write the frozen readings")
    f.add_argument("--dir", type=Path, required=True)
    f.add_argument("--out", type=Path, default=None)
    f.add_argument("--keep-invalid", action="store_true",
                   help="keep answers that do not validate (replayed, they are a model's invalid answer)")
    s = sub.add_parser("score", help="replay the frozen readings and print the figures")
    s.add_argument("--readings", type=Path, default=None)
    s.add_argument("--show-dev-disagreements", action="store_true",
                   help="also print each development case whose verdict differs (never a held-out one)")
    args = parser.parse_args(argv)
    if args.command == "score":
        score(args.readings, args.show_dev_disagreements)
    elif args.command == "prepare":
        prepare(args.out, args.size, args.seed, args.packets, args.battery, args.runs, args.dataset)
    elif args.command == "freeze":
        freeze(args.dir, args.out, args.keep_invalid)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
