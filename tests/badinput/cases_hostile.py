"""Bad-input classes: hostile inputs (deep nesting, repeated keys, pipes and devices, edited score records).

JSON nested 100,000 deep once made seven readers recurse until Python gave up; a key given twice was
resolved by keeping the last; ``/dev/zero`` and a FIFO were read to the end of memory, or forever; an
edited score record (``"valid": "yes"``) was read as it stood. Each is now refused in one line naming
the file (and the line), before any of it is used.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ._harness import Invocation, Workspace, damage_line, edit_json, edit_json_line, refresh_dataset
from .cases import LINEAGE, PROBES, REGISTRY, case

DEEP = "[" * 100_000 + "]" * 100_000
"""JSON nested 100,000 levels deep."""

NESTED = "nested more than"


def _dev_zero_ok() -> bool:
    return os.path.exists("/dev/zero")


def _fifo(ws: Workspace, name: str) -> Path:
    path = ws.root / name
    os.mkfifo(path)
    return path


def _readings(ws: Workspace, text: str) -> Path:
    return ws.file("readings.jsonl", text)


def _judge_with_reader(ws: Workspace, reader: str) -> list[str]:
    return ["judge", str(ws.dataset()), "--probe", "PR-01", "--response", "I was in Seattle.", "--extractor",
            f"llm:replay/{reader}"]


# ---------------------------------------------------------------- JSON nested 100,000 deep (seven readers)

@case("deep nesting", "judge/replay-line-deep")
def _replay_deep(ws: Workspace) -> Invocation:
    path = _readings(ws, DEEP + "\n")
    return Invocation(_judge_with_reader(ws, str(path)), (str(path), "line 1", NESTED))


@case("deep nesting", "judge/batch-line-deep")
def _batch_deep(ws: Workspace) -> Invocation:
    path = ws.file("answers.jsonl", json.dumps({"probe": "PR-01", "response": "x"}) + "\n" + DEEP + "\n")
    return Invocation(["judge", str(ws.dataset()), "--batch", str(path)], (str(path), ":2", NESTED))


@case("deep nesting", "report/audit-file-deep")
def _audit_deep(ws: Workspace) -> Invocation:
    path = ws.file("verifier.json", '{"format": "sitbench-audit-verifier/1", "x": ' + DEEP + "}\n")
    return Invocation(["report", str(ws.run()), "--audit", str(path), "--out", str(ws.root / "site" / "r.html")],
                      (str(path), NESTED))


def _dataset_deep(what: str, rel: str, damage: Any, *names: str) -> None:
    def build(ws: Workspace) -> Invocation:
        data = ws.dataset()
        damage(data / rel)
        return Invocation(["validate", str(data)], (rel, NESTED, *names))

    case("deep nesting", f"validate/{what}")(build)


_dataset_deep("registry-deep", REGISTRY, lambda p: p.write_text(DEEP + "\n", encoding="utf-8"))
_dataset_deep("lineage-deep", LINEAGE, lambda p: p.write_text('{"lineage_id": ' + DEEP + "}\n", encoding="utf-8"))
# A probes line the fast parser cannot read goes through the error path, which once recursed itself.
_dataset_deep("probes-line-deep", PROBES, lambda p: damage_line(p, 2, lambda _: DEEP.encode()), "line 2")


@case("deep nesting", "score/manifest-deep")
def _manifest_deep(ws: Workspace) -> Invocation:
    path = ws.run() / "manifest.json"
    path.write_text('{"run_id": ' + DEEP + "}\n", encoding="utf-8")
    return Invocation(["score", str(ws.run())], (str(path), NESTED))


@case("deep nesting", "score/responses-line-deep")
def _responses_deep(ws: Workspace) -> Invocation:
    path = ws.run() / "responses.jsonl"
    damage_line(path, 3, lambda _: b'{"trial_id": ' + DEEP.encode() + b"}")
    return Invocation(["score", str(ws.run())], (str(path), "line 3", NESTED))


@case("deep nesting", "metrics/scores-line-deep")
def _scores_deep(ws: Workspace) -> Invocation:
    path = ws.run() / "scores.jsonl"
    damage_line(path, 2, lambda _: DEEP.encode())
    return Invocation(["metrics", str(ws.run())], (str(path), "line 2", NESTED))


# ---------------------------------------------------------------- a key given twice (last-wins no more)

@case("duplicate key", "judge/batch-second-response")
def _batch_twice(ws: Workspace) -> Invocation:
    path = ws.file("answers.jsonl", '{"probe": "PR-01", "response": "I was in Seattle.", "response": "x"}\n')
    return Invocation(["judge", str(ws.dataset()), "--batch", str(path)], (str(path), ":1", "'response'", "twice"))


@case("duplicate key", "validate/probe-second-contract")
def _probe_twice(ws: Workspace) -> Invocation:
    data = ws.dataset()

    def damage(raw: bytes) -> bytes:
        return raw[:-1] + b', "contract": {}}'

    damage_line(data / PROBES, 3, damage)
    refresh_dataset(data)
    return Invocation(["validate", str(data)], (PROBES, "line 3", "'contract'", "twice"))


@case("duplicate key", "validate/registry-key-twice")
def _registry_twice(ws: Workspace) -> Invocation:
    data = ws.dataset()
    path = data / REGISTRY
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("{", '{"propositions": [], ', 1), encoding="utf-8")
    refresh_dataset(data)
    return Invocation(["validate", str(data)], (REGISTRY, "'propositions'", "twice"))


@case("duplicate key", "score/manifest-configs-twice")
def _configs_twice(ws: Workspace) -> Invocation:
    """A second ``configs`` key once made score report every trial of the first "not run" and advise a
    --resume that would have run another configuration into this run."""
    path = ws.run() / "manifest.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("{", '{"configs": ["A"], ', 1), encoding="utf-8")
    return Invocation(["score", str(ws.run())], (str(path), "'configs'", "twice"))


@case("duplicate key", "judge/replay-answer-twice")
def _replay_twice(ws: Workspace) -> Invocation:
    path = _readings(ws, '{"prompt_sha256": "ab", "answer": "{}", "answer": "[]"}\n')
    return Invocation(_judge_with_reader(ws, str(path)), (str(path), "line 1", "'answer'", "twice"))


# ---------------------------------------------------------------- pipes and devices (never read to the end)

@case("not a regular file", "judge/replay-dev-zero")
def _replay_zero(ws: Workspace) -> Invocation:
    return Invocation(_judge_with_reader(ws, "/dev/zero"), ("/dev/zero", "a device"))


@case("not a regular file", "judge/batch-dev-zero")
def _batch_zero(ws: Workspace) -> Invocation:
    return Invocation(["judge", str(ws.dataset()), "--batch", "/dev/zero"], ("/dev/zero", "a device"))


@case("not a regular file", "validate/probes-linked-to-dev-zero")
def _probes_zero(ws: Workspace) -> Invocation:
    data = ws.dataset()
    (data / PROBES).unlink()
    (data / PROBES).symlink_to("/dev/zero")
    return Invocation(["validate", str(data)], (PROBES, "a device"))


@case("not a regular file", "judge/replay-fifo")
def _replay_fifo(ws: Workspace) -> Invocation:
    path = _fifo(ws, "readings.jsonl")
    return Invocation(_judge_with_reader(ws, str(path)), (str(path), "FIFO"))


@case("not a regular file", "judge/batch-fifo")
def _batch_fifo(ws: Workspace) -> Invocation:
    path = _fifo(ws, "answers.jsonl")
    return Invocation(["judge", str(ws.dataset()), "--batch", str(path)], (str(path), "FIFO"))


@case("not a regular file", "score/responses-fifo")
def _responses_fifo(ws: Workspace) -> Invocation:
    path = ws.run() / "responses.jsonl"
    path.unlink()
    os.mkfifo(path)
    return Invocation(["score", str(ws.run())], (str(path), "FIFO"))


@case("not a regular file", "metrics/scores-fifo")
def _scores_fifo(ws: Workspace) -> Invocation:
    path = ws.run() / "scores.jsonl"
    path.unlink()
    os.mkfifo(path)
    return Invocation(["metrics", str(ws.run())], (str(path), "FIFO"))


@case("unbounded resource", "judge/replay-one-endless-line")
def _replay_endless(ws: Workspace) -> Invocation:
    path = ws.root / "readings.jsonl"
    with path.open("wb") as handle:
        handle.truncate(65 << 20)  # 65 MiB of NUL bytes and no line break: one line past the bound
    return Invocation(_judge_with_reader(ws, str(path)), (str(path), "line 1", "64 MiB"))


# ---------------------------------------------------------------- invalid UTF-8 in a readings file

@case("invalid UTF-8", "judge/replay-invalid-utf8")
def _replay_utf8(ws: Workspace) -> Invocation:
    path = ws.file("readings.jsonl", b'{"prompt_sha256": "ab", "answer": "\xff\xfe"}\n')
    return Invocation(_judge_with_reader(ws, str(path)), (str(path), "line 1", "UTF-8"))


# ---------------------------------------------------------------- edited score records (validated on read)

def _edited_scores(command: str, what: str, edit: Any, *names: str) -> None:
    def build(ws: Workspace) -> Invocation:
        run = ws.run()
        edit_json_line(run / "scores.jsonl", 1, edit)
        extra = ["--out", str(ws.root / "site" / "r.html")] if command == "report" else []
        argv = [command, str(run), *extra] if command != "compare" else [command, str(run), str(_second(ws))]
        return Invocation(argv, (str(run / "scores.jsonl"), "line 1", *names))

    case("edited score record", f"{command}/{what}")(build)


def _second(ws: Workspace) -> Path:
    """A second copy of the workspace's run (compare needs two arms)."""
    import shutil

    target = ws.root / "run2"
    if not target.exists():
        shutil.copytree(ws.templates.root / "run", target)
    return target


def _valid_yes(record: dict[str, Any]) -> None:
    record["verdict"]["valid"] = "yes"


def _valid_beside_failed(record: dict[str, Any]) -> None:
    record["verdict"]["valid"] = True
    first = next(iter(record["verdict"]["checks"]))
    record["verdict"]["checks"][first]["passed"] = False


for _command in ("metrics", "compare", "report"):
    _edited_scores(_command, "scores-valid-yes", _valid_yes, "verdict.valid", "boolean")
    _edited_scores(_command, "scores-valid-beside-a-failed-check", _valid_beside_failed, "verdict.valid")


@case("wrong type/field", "metrics/manifest-malformed")
def _metrics_manifest(ws: Workspace) -> Invocation:
    path = ws.run() / "manifest.json"
    edit_json(path, lambda m: m.update(configs="B,I"))
    return Invocation(["metrics", str(ws.run())], (str(path), "configs"))


# ---------------------------------------------------------------- res score: numbers within bounds

def _res_row(what: str, edit: Any, field: str) -> None:
    def build(ws: Workspace) -> Invocation:
        path = ws.res() / "results.jsonl"
        edit_json_line(path, 1, edit)
        return Invocation(["res", "score", str(path)], (str(path), "line 1", field))

    case("out-of-range numeric" if "nan" not in what else "non-finite numeric", f"res/score-{what}")(build)


_res_row("latency-nan", lambda r: r.update(latency_s=math.nan), "latency_s")
_res_row("retries-negative", lambda r: r.update(retries=-3), "retries")
