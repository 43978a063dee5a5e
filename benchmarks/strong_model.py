"""Strong-model runs without an API: a run's exact prompts answered in separate contexts, then replayed.

A strong chat model (a person, or a model in a conversation of its own) is given nothing but the prompts a run
sends, one configuration per answerer so that no answer sees another configuration's evidence. Its answers
are frozen under each prompt's SHA-256 and replayed with ``sitbench run --model replay/FILE``, which sends
exactly the same prompts, so the answers land in an ordinary run that every sitbench command reads.
Multi-turn probes are answered in rounds: a round's replay reaches the next turn, whose prompt (holding the
earlier answers) is unanswered and goes into the next round's packets.

``python benchmarks/strong_model.py packets --run RUN --out DIR``
    Reads ``RUN/responses.jsonl`` (a run with ``--model replay/DIR/answers.jsonl``, or with any replay file:
    every turn dropped as "no recorded answer" is an unanswered prompt) and writes one packet per
    configuration, ``DIR/round-N/packet-CONFIG.md``, and its key ``DIR/round-N/key-CONFIG.json`` (opaque
    prompt ids to prompt hashes). Nothing else of the run reaches a packet: no probe, trial or lineage id.
    ``--max-blocks N`` prints each long evidence block (a whole chronicle, a state) once and splits a
    configuration's prompts into packets of at most N blocks, one answerer a packet (``packet-D1.md``, …).
``python benchmarks/strong_model.py collect --dir DIR``
    Checks every ``DIR/round-*/answers-CONFIG.jsonl`` (lines ``{"id": "P…", "answer": "…"}``) against its
    key and writes the replay file ``DIR/answers.jsonl`` (``prompt_sha256``, ``answer``, ``config``, ``id``).
``python benchmarks/strong_model.py status --run RUN``
    Counts a run's completed trials and unanswered prompts per configuration.

The loop, for a dataset and configurations::

    touch DIR/answers.jsonl
    sitbench run DATA --config all --model replay/DIR/answers.jsonl --out RUN      # round 1: every prompt drops
    python benchmarks/strong_model.py packets --run RUN --out DIR                  # answer the packets
    python benchmarks/strong_model.py collect --dir DIR
    rm -r RUN && sitbench run DATA --config all --model replay/DIR/answers.jsonl --out RUN   # next round
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

NO_ANSWER = "no recorded answer for this prompt"
"""The replay candidate's drop reason for a prompt its file does not hold."""


def _trials(run: Path) -> list[dict[str, Any]]:
    path = run / "responses.jsonl"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"{path}: cannot read the run's responses ({exc.strerror}); run sitbench run first") from None
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _sha(messages: list[dict[str, str]]) -> str:
    # The replay candidate's key (sitbench.candidates.replay.prompt_sha256), computed from the stored messages.
    payload = json.dumps([[m["role"], m["content"]] for m in messages], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def unanswered(run: Path) -> dict[str, dict[str, list[dict[str, str]]]]:
    """Per configuration, every prompt of the run that the replay file did not answer: hash -> messages."""
    out: dict[str, dict[str, list[dict[str, str]]]] = defaultdict(dict)
    for trial in _trials(run):
        if trial.get("status") != "dropped" or not trial.get("turns"):
            continue
        last = trial["turns"][-1]
        if last["response"].get("drop_reason") != NO_ANSWER:
            continue
        messages = [{"role": m["role"], "content": m["content"]} for m in last["messages"]]
        out[trial["config"]][_sha(messages)] = messages
    return dict(out)


def _render(prompt_id: str, messages: list[dict[str, str]]) -> list[str]:
    lines = [f"## {prompt_id}", ""]
    for message in messages:
        lines += [f"### {message['role']}", "", message["content"].rstrip(), ""]
    return lines


_INSTRUCTIONS = """\
Each prompt below is one chat conversation: its messages in order (system, then user and assistant turns).
Answer each one as its next assistant message, exactly as you would if the conversation had been sent to
you as a chat: follow its system message, answer from what the messages give you, in your own words and at
the length you would naturally write. Each prompt is a conversation of its own: nothing in one prompt is
known in another. Write one JSON line per prompt, {"id": "P0001", "answer": "your reply"}, and nothing else.
"""


_LONG_BLOCK = 2000
"""A bracketed block of a message at least this long, repeated across prompts, is printed once per packet."""

_FACTORED = """\
Some messages are long because they carry the same evidence block (a chronicle, a state) as other prompts. Each
such block is printed once, under "Evidence blocks", and a message shows {EVIDENCE-k} where it stands: read the
message as if that block were written out there word for word.
"""


def _blocks(text: str) -> list[tuple[int, int]]:
    """Spans of the top-level bracketed blocks ("[CHRONICLE: …]") of a message that are at least _LONG_BLOCK long."""
    spans, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "]" and depth:
            depth -= 1
            if depth == 0 and i + 1 - start >= _LONG_BLOCK:
                spans.append((start, i + 1))
    return spans


def _factor(messages: list[dict[str, str]], evidence: dict[str, str]) -> tuple[list[dict[str, str]], list[str]]:
    """The messages with each long block replaced by its name, and the names used (``evidence``: text → name)."""
    used: list[str] = []
    out = []
    for message in messages:
        text = message["content"]
        for start, end in reversed(_blocks(text)):
            name = evidence.setdefault(text[start:end], f"EVIDENCE-{len(evidence) + 1}")
            used.append(name)
            text = text[:start] + "{" + name + "}" + text[end:]
        out.append({"role": message["role"], "content": text})
    return out, used


def _groups(prompts: dict[str, list[dict[str, str]]], max_blocks: int) -> list[list[str]]:
    """Prompt hashes in packets that each need at most ``max_blocks`` distinct evidence blocks (0: one packet)."""
    if max_blocks <= 0:
        return [sorted(prompts)]
    by_blocks: dict[tuple[str, ...], list[str]] = {}
    for sha, messages in sorted(prompts.items()):
        names = tuple(sorted({m["content"][a:b] for m in messages for a, b in _blocks(m["content"])}))
        by_blocks.setdefault(names, []).append(sha)
    packets_: list[list[str]] = []
    current: list[str] = []
    blocks: set[str] = set()
    for names, shas in sorted(by_blocks.items(), key=lambda kv: kv[1][0]):
        if current and len(blocks | set(names)) > max_blocks:
            packets_.append(current)
            current, blocks = [], set()
        current += shas
        blocks |= set(names)
    if current:
        packets_.append(current)
    return packets_


def packets(run: Path, out: Path, max_blocks: int = 0, only: set[str] | None = None) -> None:
    """Write this round's packets and keys (see the module docstring).

    Args:
        run: A run whose unanswered prompts are wanted.
        out: The packets' folder (one ``round-N`` folder per call).
        max_blocks: With a positive value, long evidence blocks are printed once per packet and a configuration's
            prompts are split into packets that each need at most this many blocks (one answerer a packet).
        only: Configurations to write packets for (all when None).
    """
    pending = {c: p for c, p in unanswered(run).items() if only is None or c in only}
    if not pending:
        print("every prompt of the run has an answer: nothing to write")
        return
    rounds = sorted(int(p.name.split("-")[1]) for p in out.glob("round-*") if p.name.split("-")[1].isdigit())
    folder = out / f"round-{(rounds[-1] + 1) if rounds else 1}"
    folder.mkdir(parents=True)
    for config, prompts in sorted(pending.items()):
        groups = _groups(prompts, max_blocks)
        for index, group in enumerate(groups, start=1):
            suffix = config if len(groups) == 1 else f"{config}{index}"
            _write_packet(folder, suffix, config, {sha: prompts[sha] for sha in group}, factored=max_blocks > 0)


def _write_packet(folder: Path, suffix: str, config: str, prompts: dict[str, list[dict[str, str]]],
                  factored: bool) -> None:
    key: dict[str, str] = {}
    evidence: dict[str, str] = {}
    body: list[str] = []
    for n, (sha, messages) in enumerate(sorted(prompts.items()), start=1):
        prompt_id = f"P{n:04d}"
        key[prompt_id] = sha
        shown = _factor(messages, evidence)[0] if factored else messages
        body += _render(prompt_id, shown)
    lines = [f"# Prompts ({len(prompts)})", "", _INSTRUCTIONS]
    if evidence:
        lines += [_FACTORED, "# Evidence blocks", ""]
        for text, name in evidence.items():
            lines += [f"## {name}", "", text, ""]
        lines += ["# The prompts", ""]
    lines += body
    (folder / f"packet-{suffix}.md").write_text("\n".join(lines), encoding="utf-8")
    (folder / f"key-{suffix}.json").write_text(json.dumps({"config": config, "prompts": key}, indent=1),
                                               encoding="utf-8")
    print(f"{folder.name}: configuration {config}: {len(prompts)} prompts -> {folder / f'packet-{suffix}.md'}")


def collect(directory: Path) -> Path:
    """Check every round's answers against its keys and write ``DIR/answers.jsonl``."""
    rows: dict[str, dict[str, str]] = {}
    repeated = 0
    for folder in sorted(directory.glob("round-*")):
        for key_path in sorted(folder.glob("key-*.json")):
            key = json.loads(key_path.read_text(encoding="utf-8"))
            config = key["config"]
            suffix = key_path.stem.removeprefix("key-")
            answers_path = folder / f"answers-{suffix}.jsonl"
            if not answers_path.exists():
                raise SystemExit(f"{answers_path}: missing; answer {folder / f'packet-{suffix}.md'} first")
            seen: set[str] = set()
            for number, line in enumerate(answers_path.read_text(encoding="utf-8").splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    prompt_id, answer = row["id"], row["answer"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    raise SystemExit(f"{answers_path}:{number}: not a JSON object with id and answer") from None
                if prompt_id not in key["prompts"] or not isinstance(answer, str) or not answer.strip():
                    raise SystemExit(f"{answers_path}:{number}: unknown id {prompt_id!r} or an empty answer")
                if prompt_id in seen:
                    raise SystemExit(f"{answers_path}:{number}: {prompt_id} is answered twice")
                seen.add(prompt_id)
                sha = key["prompts"][prompt_id]
                if sha in rows:
                    # Two configurations sent byte-identical messages (E and F retrieve the same records): a replay
                    # holds one answer per prompt, so the first configuration's is kept, as a model would be asked once.
                    repeated += 1
                    continue
                rows[sha] = {"prompt_sha256": sha, "answer": answer, "config": config,
                             "id": f"{folder.name}/{prompt_id}"}
            missing = sorted(set(key["prompts"]) - seen)
            if missing:
                raise SystemExit(f"{answers_path}: {len(missing)} prompts have no answer, e.g. {missing[:5]}")
    target = directory / "answers.jsonl"
    target.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows.values()), encoding="utf-8")
    print(f"{len(rows)} answers in {target}"
          + (f" ({repeated} prompts sent by two configurations: the first configuration's answer kept)" if repeated else ""))
    return target


def status(run: Path) -> None:
    """Completed trials and unanswered prompts per configuration."""
    done: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for trial in _trials(run):
        total[trial["config"]] += 1
        done[trial["config"]] += trial.get("status") == "completed"
    pending = unanswered(run)
    for config in sorted(total):
        print(f"{config}: {done[config]}/{total[config]} trials completed, "
              f"{len(pending.get(config, {}))} prompts unanswered")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("packets", help="write this round's prompt packets from a replay run")
    p.add_argument("--run", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--max-blocks", type=int, default=0,
                   help="print long evidence blocks once per packet and split a configuration's prompts into "
                        "packets of at most this many blocks (0: one packet per configuration, blocks inline)")
    p.add_argument("--configs", default=None, help="comma-separated configurations to write (default: all)")
    c = sub.add_parser("collect", help="check the answers and write DIR/answers.jsonl")
    c.add_argument("--dir", type=Path, required=True)
    s = sub.add_parser("status", help="completed trials and unanswered prompts per configuration")
    s.add_argument("--run", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "packets":
        packets(args.run, args.out, args.max_blocks, set(args.configs.split(",")) if args.configs else None)
    elif args.command == "collect":
        collect(args.dir)
    else:
        status(args.run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
