"""The table of bad-input classes: every command that reads user input, damaged every way a user can.

Each entry builds its bad file or argument in a fresh workspace and returns the command line; the
contract (exit 2, empty stdout, one ``error:`` line naming the file, line and field) is checked by
:func:`tests.badinput._harness.problems`. Run ``python benchmarks/bad_inputs.py`` for the count.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sitbench.chi import ChiReport
from sitbench.res import ResScore

from ._harness import (
    BINARY,
    INVALID_UTF8,
    LONE_SURROGATE,
    BadInput,
    Invocation,
    Workspace,
    damage_line,
    edit_json,
    edit_json_line,
    execute,
    refresh_dataset,
    replace_with_directory,
)

PROBES = "hidden/probes.jsonl"
QUERIES = "visible/queries.jsonl"
REGISTRY = "hidden/registry.json"
LINEAGE = "hidden/lineages/L-1A.json"
SUBJECT = "visible/subjects/subj-b803.json"
PAIRS = "pairs/pairs.json"

CASES: list[BadInput] = []


def case(kind: str, id: str) -> Callable[[Callable[[Workspace], Invocation]], Callable[[Workspace], Invocation]]:
    """Register a builder under ``kind`` and ``id``."""
    def register(build: Callable[[Workspace], Invocation]) -> Callable[[Workspace], Invocation]:
        assert all(c.id != id for c in CASES), f"duplicate bad-input id {id}"
        CASES.append(BadInput(kind, id, build))
        return build

    return register


# ---------------------------------------------------------------- commands over one dataset


def _dataset_argv(command: str, ws: Workspace, data: Path) -> list[str]:
    """The argv of a dataset-reading command over ``data``."""
    return {
        "validate": ["validate", str(data)],
        "show": ["show", str(data), "PR-01"],
        "run": ["run", str(data), "--config", "B", "--model", "mock/oracle", "--out", str(ws.root / "out")],
        "judge": ["judge", str(data), "--probe", "PR-01", "--response", "I was in Seattle."],
        "extract": ["extract", str(data), "--probe", "PR-01", "--response", "I was in Seattle."],
        "tokens": ["stats", "tokens", str(data), "--lengths", "5"],
    }[command]


def _dataset_case(kind: str, command: str, what: str, damage: Callable[[Path], Any], *names: str) -> None:
    def build(ws: Workspace) -> Invocation:
        data = ws.dataset()
        damage(data)
        return Invocation(_dataset_argv(command, ws, data), names)

    case(kind, f"{command}/{what}")(build)


# unreadable or missing datasets
for _command in ("validate", "show", "run", "judge", "extract", "tokens"):
    def _missing(ws: Workspace, command: str = _command) -> Invocation:
        return Invocation(_dataset_argv(command, ws, ws.root / "nowhere"), (str(ws.root / "nowhere"),))

    case("missing file", f"{_command}/no-such-dataset")(_missing)

for _command in ("validate", "run", "show"):
    def _file_not_dir(ws: Workspace, command: str = _command) -> Invocation:
        path = ws.file("dataset.txt", "not a dataset\n")
        return Invocation(_dataset_argv(command, ws, path), (str(path),))

    case("file instead of directory", f"{_command}/dataset-is-a-file")(_file_not_dir)

for _command, _rel in (("validate", PROBES), ("run", QUERIES), ("show", REGISTRY), ("judge", LINEAGE),
                       ("tokens", SUBJECT), ("validate", PAIRS)):
    _dataset_case("directory instead of file", _command, f"{Path(_rel).name}-is-a-directory",
                  lambda d, rel=_rel: replace_with_directory(d / rel), _rel)
    # A missing subject file is found from the query that names the subject.
    _dataset_case("missing file", _command, f"{Path(_rel).name}-missing", lambda d, rel=_rel: (d / rel).unlink(),
                  *((_rel,) if _rel != SUBJECT else ("subj-b803", "visible/subjects")))

# invalid UTF-8, binary files, lone surrogates
for _command, _rel, _line in (("validate", PROBES, 3), ("run", QUERIES, 5), ("show", PROBES, 1),
                              ("judge", PROBES, 2), ("tokens", QUERIES, 2), ("extract", QUERIES, 1)):
    _dataset_case("invalid UTF-8", _command, f"{Path(_rel).name}-invalid-utf8",
                  lambda d, rel=_rel, n=_line: damage_line(d / rel, n, lambda b: b.replace(b'"', INVALID_UTF8, 3)),
                  _rel, f"line {_line}", "UTF-8")
for _command, _rel in (("validate", REGISTRY), ("show", LINEAGE), ("run", SUBJECT), ("validate", "manifest.json")):
    _dataset_case("invalid UTF-8", _command, f"{Path(_rel).name}-invalid-utf8",
                  lambda d, rel=_rel: damage_line(d / rel, 3, lambda b: b + INVALID_UTF8), _rel, "UTF-8")
for _command, _rel in (("validate", PROBES), ("run", QUERIES), ("show", REGISTRY)):
    _dataset_case("binary file", _command, f"{Path(_rel).name}-binary",
                  lambda d, rel=_rel: (d / rel).write_bytes(BINARY), _rel)
_dataset_case("lone surrogate", "validate", "probes-lone-surrogate",
              lambda d: damage_line(d / PROBES, 4, lambda b: b.replace(b'"PR-04"', LONE_SURROGATE, 1)),
              PROBES, "line 4", "surrogate")
_dataset_case("lone surrogate", "validate", "registry-lone-surrogate",
              lambda d: damage_line(d / REGISTRY, 5, lambda b: b.replace(b': "', b': ' + LONE_SURROGATE[:-1], 1)),
              REGISTRY, "line 5", "surrogate")
_dataset_case("lone surrogate", "judge", "lineage-lone-surrogate",
              lambda d: damage_line(d / LINEAGE, 2, lambda b: b.replace(b'"L-1A"', LONE_SURROGATE, 1)),
              LINEAGE, "surrogate")

# malformed JSON
_dataset_case("malformed JSON", "run", "queries-truncated-line",
              lambda d: damage_line(d / QUERIES, 4, lambda b: b[:30]), QUERIES, "line 4", "malformed JSON")
_dataset_case("malformed JSON", "show", "lineage-trailing-comma",
              lambda d: (d / LINEAGE).write_text((d / LINEAGE).read_text(encoding="utf-8").rstrip()[:-1] + ",}",
                                                 encoding="utf-8"), LINEAGE, "malformed JSON")
_dataset_case("malformed JSON", "validate", "manifest-empty", lambda d: (d / "manifest.json").write_text(""),
              "manifest.json")
_dataset_case("malformed JSON", "judge", "registry-not-an-object", lambda d: (d / REGISTRY).write_text("[1, 2]\n"),
              REGISTRY)
_dataset_case("malformed JSON", "validate", "probe-line-is-a-list",
              lambda d: damage_line(d / PROBES, 2, lambda b: b"[1, 2, 3]"), PROBES, "line 2")

# wrong types and bad enums inside the stores (schema-checked at the reading layer)
_dataset_case("wrong type/field", "run", "query-tau-integer",
              lambda d: refresh_dataset(edit_json_line(d / QUERIES, 3, lambda q: q.update(tau=42)).parents[1]),
              QUERIES, "line 3", "tau")
_dataset_case("wrong type/field", "judge", "probe-missing-contract",
              lambda d: refresh_dataset(edit_json_line(d / PROBES, 1, lambda p: p.pop("contract")).parents[1]),
              PROBES, "line 1", "contract")
_dataset_case("bad enum", "validate", "probe-category-Z",
              lambda d: refresh_dataset(edit_json_line(d / PROBES, 2, lambda p: p.update(category="Z")).parents[1]),
              PROBES, "line 2", "category", "'Z'")
_dataset_case("bad enum", "validate", "manifest-suite-galactic",
              lambda d: edit_json(d / "manifest.json", lambda m: m.update(suite="galactic")),
              "manifest.json", "suite", "'galactic'")
_dataset_case("bad enum", "run", "manifest-suite-galactic",
              lambda d: edit_json(d / "manifest.json", lambda m: m.update(suite="galactic")),
              "manifest.json", "suite", "'galactic'")
_dataset_case("bad enum", "validate", "pair-split-galactic",
              lambda d: refresh_dataset(edit_json(d / PAIRS, lambda p: p[0].update(split="galactic")).parents[1]),
              PAIRS, "split", "'galactic'")
_dataset_case("wrong type/field", "validate", "manifest-seed-a-string",
              lambda d: edit_json(d / "manifest.json", lambda m: m.update(seed="seven")), "manifest.json", "seed")
_dataset_case("wrong type/field", "show", "subject-records-not-a-list",
              lambda d: refresh_dataset(edit_json(d / SUBJECT, lambda s: s.update(records="none")).parents[2]),
              SUBJECT, "records")


# ---------------------------------------------------------------- dataset-command options


def _dataset_option_case(kind: str, command: str, what: str, extra: list[str], *names: str,
                         env: dict[str, str] | None = None, replace: tuple[str, str] | None = None) -> None:
    def build(ws: Workspace) -> Invocation:
        argv = _dataset_argv(command, ws, ws.dataset())
        if replace is not None:
            argv = [replace[1] if a == replace[0] else a for a in argv]
        return Invocation(argv + extra, names, env or {})

    case(kind, f"{command}/{what}")(build)


_dataset_option_case("bad enum", "show", "unknown-probe", [], "PR-99", replace=("PR-01", "PR-99"))
_dataset_option_case("out-of-range numeric", "show", "sample-zero", ["--sample", "0"], "--sample",
                     replace=("PR-01", "--json"))
_dataset_option_case("wrong type", "show", "seed-not-an-integer", ["--sample", "2", "--seed", "x1"], "--seed",
                     replace=("PR-01", "--json"))
_dataset_option_case("wrong type/field", "show", "sample-and-probe-id", ["--sample", "3"], "--sample")
_dataset_option_case("bad enum", "judge", "unknown-probe", [], "PR-99", replace=("PR-01", "PR-99"))
_dataset_option_case("bad enum", "extract", "unknown-probe", [], "PR-99", replace=("PR-01", "PR-99"))
_dataset_option_case("bad enum", "judge", "unknown-extractor", ["--extractor", "crystal-ball"], "--extractor",
                     "crystal-ball")
_dataset_option_case("bad enum", "extract", "llm-extractor-unknown-provider", ["--extractor", "llm:nowhere/x"],
                     "nowhere")
_dataset_option_case("missing API key", "judge", "llm-extractor-without-key",
                     ["--extractor", "llm:openai/gpt-4o-mini"], "OPENAI_API_KEY", "--api-key-env",
                     env={"OPENAI_API_KEY": "", "SITBENCH_EXTRACTOR_BASE_URL": "",
                          "SITBENCH_EXTRACTOR_API_KEY_ENV": ""})
_dataset_option_case("out-of-range numeric", "tokens", "lengths-zero", ["--lengths", "0"], "--lengths",
                     replace=("5", "0"))
_dataset_option_case("non-finite numeric", "tokens", "lengths-nan", [], "--lengths", replace=("5", "5,nan"))
_dataset_option_case("unbounded resource", "tokens", "lengths-enormous", [], "--lengths",
                     replace=("5", "1e15"))
_dataset_option_case("out-of-range numeric", "tokens", "budget-zero", ["--budget", "0"], "--budget")
_dataset_option_case("unbounded resource", "tokens", "budget-enormous", ["--budget", "100000000000000"], "--budget")


def _batch(ws: Workspace, content: str | bytes, *names: str) -> Invocation:
    path = ws.file("answers.jsonl", content)
    return Invocation(["judge", str(ws.dataset()), "--batch", str(path)], (str(path), *names))


case("missing file", "judge/batch-missing")(
    lambda ws: Invocation(["judge", str(ws.dataset()), "--batch", str(ws.root / "none.jsonl")],
                          (str(ws.root / "none.jsonl"),)))
case("directory instead of file", "judge/batch-is-a-directory")(
    lambda ws: Invocation(["judge", str(ws.dataset()), "--batch", str(ws.directory("answers"))],
                          (str(ws.root / "answers"),)))
case("invalid UTF-8", "judge/batch-invalid-utf8")(
    lambda ws: _batch(ws, b'{"probe": "PR-01", "response": "ok"}\n{"probe": "PR-02", "response": "\xff"}\n',
                      "line 2", "UTF-8"))
case("malformed JSON", "judge/batch-malformed-line")(
    lambda ws: _batch(ws, '{"probe": "PR-01", "response": "ok"}\n{"probe": "PR-02", \n', "2"))
case("lone surrogate", "judge/batch-lone-surrogate")(
    lambda ws: _batch(ws, '{"probe": "PR-01", "response": "\\udc00"}\n', "1", "surrogate"))
case("wrong type/field", "judge/batch-response-not-a-string")(
    lambda ws: _batch(ws, '{"probe": "PR-01", "response": 3}\n', "1", "response"))
case("bad enum", "judge/batch-unknown-probe")(
    lambda ws: _batch(ws, '{"probe": "PR-77", "response": "hi"}\n', "1", "PR-77"))


# ---------------------------------------------------------------- run options


def _run_option(kind: str, what: str, extra: list[str], *names: str, env: dict[str, str] | None = None,
                model: str = "mock/oracle") -> None:
    def build(ws: Workspace) -> Invocation:
        argv = ["run", str(ws.dataset()), "--model", model, "--out", str(ws.root / "out"), *extra]
        return Invocation(argv, names, env or {})

    case(kind, f"run/{what}")(build)


_run_option("out-of-range numeric", "temperature-negative", ["--temperature", "-1"], "--temperature")
_run_option("out-of-range numeric", "top-p-5", ["--top-p", "5"], "--top-p")
_run_option("out-of-range numeric", "max-tokens-zero", ["--max-tokens", "0"], "--max-tokens")
_run_option("out-of-range numeric", "max-connections-zero", ["--max-connections", "0"], "--max-connections")
_run_option("unbounded resource", "max-connections-enormous", ["--max-connections", "100000000"],
            "--max-connections")
_run_option("unbounded resource", "max-tokens-enormous", ["--max-tokens", "10000000000"], "--max-tokens")
_run_option("non-finite numeric", "temperature-nan", ["--temperature", "nan"], "--temperature")
_run_option("non-finite numeric", "timeout-inf", ["--timeout", "inf"], "--timeout")
_run_option("non-finite numeric", "max-drop-rate-nan", ["--max-drop-rate", "nan"], "--max-drop-rate")
_run_option("out-of-range numeric", "max-drop-rate-2", ["--max-drop-rate", "2"], "--max-drop-rate")
_run_option("wrong type", "seed-a-float", ["--seed", "1.5"], "--seed")
_run_option("out-of-range numeric", "seed-negative", ["--seed", "-1"], "--seed")
_run_option("unbounded resource", "seed-beyond-64-bits", ["--seed", str(2**70)], "--seed")
_run_option("out-of-range numeric", "epoch-negative", ["--epoch", "-1"], "--epoch")
_run_option("bad enum", "config-empty-item", ["--config", "A,,B"], "--config")
_run_option("bad enum", "config-unknown-letter", ["--config", "B,Z"], "--config", "Z")
_run_option("bad enum", "handler-unknown", ["--handler", "psychic"], "--handler")
_run_option("bad enum", "shard-not-i-of-n", ["--shard", "three"], "--shard")
_run_option("out-of-range numeric", "shard-beyond-n", ["--shard", "3/2"], "--shard")
_run_option("out-of-range numeric", "shard-zero-of-zero", ["--shard", "0/0"], "--shard")
_run_option("bad enum", "model-unknown-provider", [], "--model", "galactic", model="galactic/x")
_run_option("bad enum", "model-unknown-mock", [], "--model", model="mock/telepath")
_run_option("missing API key", "openai-key-unset", [], "OPENAI_API_KEY", "--api-key-env",
            env={"OPENAI_API_KEY": ""}, model="openai/gpt-4o-mini")
_run_option("missing API key", "anthropic-key-unset", [], "ANTHROPIC_API_KEY", "--api-key-env",
            env={"ANTHROPIC_API_KEY": ""}, model="anthropic/claude-x")
_run_option("missing API key", "named-key-env-unset", ["--api-key-env", "SITBENCH_NO_SUCH_KEY"],
            "SITBENCH_NO_SUCH_KEY", "--api-key-env", env={"SITBENCH_NO_SUCH_KEY": ""}, model="openai/gpt-4o-mini")
_run_option("bad enum", "base-url-not-a-url", ["--base-url", "notaurl"], "--base-url", "notaurl",
            model="openai/m")
case("file instead of directory", "run/out-is-a-file")(
    lambda ws: Invocation(["run", str(ws.dataset()), "--model", "mock/oracle", "--out", str(ws.file("out", "x"))],
                          (str(ws.root / "out"),)))


# ---------------------------------------------------------------- the response cache


def _garbage_cache(ws: Workspace) -> Path:
    return ws.file("responses.sqlite", b"this is not a database\n" * 200)


def _foreign_sqlite(ws: Workspace) -> Path:
    path = ws.root / "foreign.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE responses (id INTEGER, colour TEXT)")
    db.commit()
    db.close()
    return path


for _make, _what in ((_garbage_cache, "not-sqlite"), (_foreign_sqlite, "foreign-sqlite")):
    for _sub in ("stats", "clear"):
        case("wrong SQLite file", f"cache/{_sub}-{_what}")(
            lambda ws, sub=_sub, make=_make: Invocation(["cache", sub, "--cache-path", str(p := make(ws))],
                                                        (str(p),)))
    case("wrong SQLite file", f"run/cache-{_what}")(
        lambda ws, make=_make: Invocation(["run", str(ws.dataset()), "--model", "mock/oracle", "--out",
                                           str(ws.root / "out"), "--cache", "--cache-path", str(p := make(ws))],
                                          (str(p),)))
case("wrong SQLite file", "cache/stats-default-not-sqlite")(
    lambda ws: Invocation(["cache", "stats"], ("responses.sqlite",),
                          {"SITBENCH_CACHE_DIR": str(_garbage_cache(ws).parent)}))
case("directory instead of file", "cache/stats-path-is-a-directory")(
    lambda ws: Invocation(["cache", "stats", "--cache-path", str(ws.directory("db"))], (str(ws.root / "db"),)))
case("unreadable file", "cache/stats-parent-is-a-file")(
    lambda ws: Invocation(["cache", "stats", "--cache-path", str(ws.file("f", "x") / "responses.sqlite")],
                          (str(ws.root / "f"),)))


# ---------------------------------------------------------------- run directories


def _run_argv(command: str, ws: Workspace, run: Path) -> list[str]:
    return {
        "score": ["score", str(run)],
        "rescore": ["rescore", str(run), "--out", str(ws.root / "again")],
        "observe": ["observe", str(run), "--extractor", "rules"],
        "metrics": ["metrics", str(run)],
        "analyze": ["analyze", str(run), "--lineages", "present"],
        "report": ["report", str(run), "--out", str(ws.root / "report.html")],
        "agreement": ["agreement", str(run)],
        "merge": ["merge", str(run), "--out", str(ws.root / "merged")],
        "compare": ["compare", str(run)],
    }[command]


def _run_case(kind: str, command: str, what: str, damage: Callable[[Path], Any], *names: str) -> None:
    def build(ws: Workspace) -> Invocation:
        run = ws.run()
        damage(run)
        return Invocation(_run_argv(command, ws, run), names)

    case(kind, f"{command}/{what}")(build)


for _command in ("score", "rescore", "observe", "metrics", "analyze", "report", "agreement", "merge", "compare"):
    case("missing file", f"{_command}/no-such-run")(
        lambda ws, command=_command: Invocation(_run_argv(command, ws, ws.root / "nowhere"),
                                                (str(ws.root / "nowhere"),)))

for _command in ("score", "metrics", "report"):
    case("file instead of directory", f"{_command}/run-is-a-file")(
        lambda ws, command=_command: Invocation(_run_argv(command, ws, p := ws.file("run.txt", "x")), (str(p),)))

# responses.jsonl (score, rescore, observe, merge)
for _command in ("score", "rescore", "observe", "merge"):
    _run_case("invalid UTF-8", _command, "responses-invalid-utf8",
              lambda r: damage_line(r / "responses.jsonl", 3, lambda b: b.replace(b"PR-", b"PR\xff-", 1)),
              "responses.jsonl", "line 3", "UTF-8")
_run_case("directory instead of file", "score", "responses-is-a-directory",
          lambda r: replace_with_directory(r / "responses.jsonl"), "responses.jsonl")
_run_case("directory instead of file", "merge", "responses-is-a-directory",
          lambda r: replace_with_directory(r / "responses.jsonl"), "responses.jsonl")
_run_case("binary file", "score", "responses-binary", lambda r: (r / "responses.jsonl").write_bytes(BINARY),
          "responses.jsonl")
_run_case("malformed JSON", "score", "responses-broken-middle-line",
          lambda r: damage_line(r / "responses.jsonl", 5, lambda b: b[:50]), "responses.jsonl", "line 5")
_run_case("lone surrogate", "score", "responses-lone-surrogate",
          lambda r: damage_line(r / "responses.jsonl", 2, lambda b: b.replace(b'"B:PR-02"', LONE_SURROGATE, 1)),
          "responses.jsonl", "line 2", "surrogate")
_run_case("wrong type/field", "score", "responses-missing-trial-id",
          lambda r: edit_json_line(r / "responses.jsonl", 4, lambda t: t.pop("trial_id")),
          "responses.jsonl", "line 4", "trial_id")
_run_case("bad enum", "score", "responses-status-maybe",
          lambda r: edit_json_line(r / "responses.jsonl", 6, lambda t: t.update(status="maybe")),
          "responses.jsonl", "line 6", "status")
_run_case("mismatched dataset", "score", "responses-probe-not-in-dataset",
          lambda r: edit_json_line(r / "responses.jsonl", 1, lambda t: t.update(probe_id="PR-999")),
          "responses.jsonl", "B:PR-01", "PR-999")

# manifest.json of the run
for _command in ("score", "rescore", "merge", "observe"):
    _run_case("malformed JSON", _command, "run-manifest-truncated",
              lambda r: (r / "manifest.json").write_text((r / "manifest.json").read_text()[:200]), "manifest.json")
_run_case("invalid UTF-8", "score", "run-manifest-invalid-utf8",
          lambda r: damage_line(r / "manifest.json", 2, lambda b: b + INVALID_UTF8), "manifest.json", "UTF-8")
_run_case("directory instead of file", "score", "run-manifest-is-a-directory",
          lambda r: replace_with_directory(r / "manifest.json"), "manifest.json")
_run_case("wrong type/field", "score", "run-manifest-configs-a-string",
          lambda r: edit_json(r / "manifest.json", lambda m: m.update(configs="B")), "manifest.json", "configs")
_run_case("wrong type/field", "score", "run-manifest-a-list",
          lambda r: (r / "manifest.json").write_text("[]\n"), "manifest.json")
_run_case("bad enum", "score", "run-manifest-handler-psychic",
          lambda r: edit_json(r / "manifest.json", lambda m: m.update(handler="psychic")), "manifest.json", "handler")
_run_case("bad enum", "score", "run-manifest-suite-galactic",
          lambda r: edit_json(r / "manifest.json", lambda m: m["dataset"].update(suite="galactic")),
          "manifest.json", "suite", "'galactic'")
_run_case("bad enum", "score", "run-manifest-config-Z",
          lambda r: edit_json(r / "manifest.json", lambda m: m.update(configs=["B", "Z"])), "manifest.json", "configs")
_run_case("wrong type/field", "score", "run-manifest-dataset-path-missing",
          lambda r: edit_json(r / "manifest.json", lambda m: m["dataset"].pop("path") and None), "manifest.json", "dataset")
_run_case("wrong type/field", "score", "run-manifest-temperature-nan",
          lambda r: (r / "manifest.json").write_text((r / "manifest.json").read_text().replace(
              '"temperature": 0.0', '"temperature": NaN')), "manifest.json", "temperature")

# a run against another dataset
for _command in ("score", "rescore", "observe"):
    case("mismatched dataset", f"{_command}/dataset-option-another-dataset")(
        lambda ws, command=_command: Invocation(
            _run_argv(command, ws, ws.run()) + ["--dataset", str(ws.other_dataset())], (str(ws.root / "other"),)))


@case("mismatched dataset", "score/manifest-points-at-another-dataset")
def _points_elsewhere(ws: Workspace) -> Invocation:
    run, other = ws.run(), ws.other_dataset()
    edit_json(run / "manifest.json", lambda m: m["dataset"].update(path=str(other)))
    return Invocation(["score", str(run)], (str(other),))


_run_case("mismatched dataset", "score", "manifest-dataset-gone",
          lambda r: edit_json(r / "manifest.json", lambda m: m["dataset"].update(path=str(r.parent / "gone"))),
          "gone", "--dataset")
case("mismatched dataset", "score/dataset-option-not-a-dataset")(
    lambda ws: Invocation(["score", str(ws.run()), "--dataset", str(ws.directory("empty"))],
                          (str(ws.root / "empty"),)))



# scores.jsonl (metrics, analyze, report, compare)
for _command in ("metrics", "analyze", "report", "compare"):
    _run_case("invalid UTF-8", _command, "scores-invalid-utf8",
              lambda r: damage_line(r / "scores.jsonl", 2, lambda b: b.replace(b"PR-", b"PR\xc3-", 1)),
              "scores.jsonl", "line 2", "UTF-8")
    _run_case("missing file", _command, "scores-missing", lambda r: (r / "scores.jsonl").unlink(), "scores.jsonl")
    _run_case("malformed JSON", _command, "scores-broken-line",
              lambda r: damage_line(r / "scores.jsonl", 7, lambda b: b[:-9]), "scores.jsonl", "line 7")
_run_case("directory instead of file", "metrics", "scores-is-a-directory",
          lambda r: replace_with_directory(r / "scores.jsonl"), "scores.jsonl")
_run_case("binary file", "analyze", "scores-binary", lambda r: (r / "scores.jsonl").write_bytes(BINARY),
          "scores.jsonl")
_run_case("lone surrogate", "metrics", "scores-lone-surrogate",
          lambda r: damage_line(r / "scores.jsonl", 3, lambda b: b.replace(b'"B:PR-03"', LONE_SURROGATE, 1)),
          "scores.jsonl", "line 3", "surrogate")
_run_case("bad enum", "metrics", "scores-config-Z",
          lambda r: edit_json_line(r / "scores.jsonl", 4, lambda s: s.update(config="Z")), "scores.jsonl", "line 4",
          "config")
_run_case("wrong type/field", "analyze", "scores-category-a-number",
          lambda r: edit_json_line(r / "scores.jsonl", 4, lambda s: s.update(category=7)), "scores.jsonl", "line 4",
          "category")

# analyze options
for _what, _extra, _name in (("resamples-one", ["--resamples", "1"], "--resamples"),
                             ("ci-zero", ["--ci", "0"], "--ci"), ("alpha-two", ["--alpha", "2"], "--alpha"),
                             ("max-exact-100", ["--max-exact", "100"], "--max-exact"),
                             ("seed-negative", ["--seed", "-3"], "--seed")):
    case("out-of-range numeric", f"analyze/{_what}")(
        lambda ws, extra=_extra, name=_name: Invocation(_run_argv("analyze", ws, ws.run()) + extra, (name,)))
case("unbounded resource", "analyze/resamples-enormous")(
    lambda ws: Invocation(_run_argv("analyze", ws, ws.run()) + ["--resamples", "10000000000"], ("--resamples",)))
case("non-finite numeric", "analyze/ci-nan")(
    lambda ws: Invocation(_run_argv("analyze", ws, ws.run()) + ["--ci", "nan"], ("--ci",)))
case("missing file", "analyze/e6-run-missing")(
    lambda ws: Invocation(_run_argv("analyze", ws, ws.run()) + ["--e6-run", str(ws.root / "e6")],
                          (str(ws.root / "e6"),)))

# compare options and runs
for _what, _extra, _name in (("resamples-one", ["--resamples", "1"], "--resamples"),
                             ("ci-zero", ["--ci", "0"], "--ci"), ("alpha-two", ["--alpha", "2"], "--alpha"),
                             ("alpha-one", ["--alpha", "1"], "--alpha"), ("ci-one", ["--ci", "1"], "--ci"),
                             ("seed-negative", ["--seed", "-3"], "--seed"),
                             ("max-changes-negative", ["--max-changes", "-1"], "--max-changes")):
    case("out-of-range numeric", f"compare/{_what}")(
        lambda ws, extra=_extra, name=_name: Invocation(_run_argv("compare", ws, ws.run()) + extra, (name,)))
case("unbounded resource", "compare/resamples-enormous")(
    lambda ws: Invocation(_run_argv("compare", ws, ws.run()) + ["--resamples", "10000000000"], ("--resamples",)))
case("non-finite numeric", "compare/alpha-nan")(
    lambda ws: Invocation(_run_argv("compare", ws, ws.run()) + ["--alpha", "nan"], ("--alpha",)))
case("bad enum", "compare/baseline-unknown")(
    lambda ws: Invocation(_run_argv("compare", ws, ws.run()) + ["--baseline", "run:Z"], ("--baseline", "run:B")))


@case("mismatched dataset", "compare/runs-of-two-datasets")
def _compare_two_datasets(ws: Workspace) -> Invocation:
    run = ws.run()
    other = ws.root / "other"
    shutil.copytree(run, other)
    edit_json(other / "manifest.json", lambda m: m["dataset"].update(manifest_sha256="0" * 64))
    return Invocation(["compare", str(run), str(other)], (str(run), str(other), "sitbench run"))


@case("missing file", "compare/run-not-scored")
def _compare_not_scored(ws: Workspace) -> Invocation:
    run = ws.run()
    other = ws.root / "other"
    shutil.copytree(run, other)
    (other / "scores.jsonl").unlink()
    return Invocation(["compare", str(run), str(other)], (str(other), "sitbench score"))


# report inputs beside the runs
case("out-of-range numeric", "report/max-failed-negative")(
    lambda ws: Invocation(_run_argv("report", ws, ws.run()) + ["--max-failed", "-1"], ("--max-failed",)))
case("directory instead of file", "report/out-is-a-directory")(
    lambda ws: Invocation(["report", str(ws.run()), "--out", str(ws.directory("page"))], (str(ws.root / "page"),)))
for _option in ("--analysis", "--chi", "--res"):
    _flag = _option.strip("-")
    case("missing file", f"report/{_flag}-missing")(
        lambda ws, option=_option: Invocation(_run_argv("report", ws, ws.run()) + [option, str(ws.root / "no.json")],
                                              (str(ws.root / "no.json"),)))
    case("malformed JSON", f"report/{_flag}-malformed")(
        lambda ws, option=_option: Invocation(_run_argv("report", ws, ws.run()) + [
            option, str(p := ws.file("bad.json", '{"experiments": [1, 2'))], (str(p), "line 1")))
    case("invalid UTF-8", f"report/{_flag}-invalid-utf8")(
        lambda ws, option=_option: Invocation(_run_argv("report", ws, ws.run()) + [
            option, str(p := ws.file("bad.json", b'{"x": "\xff"}'))], (str(p), "UTF-8")))
case("wrong type/field", "report/analysis-not-an-object")(
    lambda ws: Invocation(_run_argv("report", ws, ws.run()) + ["--analysis", str(p := ws.file("a.json", "[1]"))],
                          (str(p),)))
case("wrong type/field", "report/chi-report-wrong-shape")(
    lambda ws: Invocation(_run_argv("report", ws, ws.run()) + ["--chi", str(p := ws.file("c.json", '{"a": 1}'))],
                          (str(p),)))
case("binary file", "report/res-results-binary")(
    lambda ws: Invocation(_run_argv("report", ws, ws.run()) + ["--res", str(p := ws.file("results.jsonl", BINARY))],
                          (str(p),)))


# observations and agreement
def _observed(ws: Workspace) -> Path:
    run = ws.run()
    outcome = execute(Invocation(["observe", str(run), "--extractor", "rules"]))
    assert outcome.code == 0, outcome.err
    return next((run / "observations").glob("*.jsonl"))


case("invalid UTF-8", "agreement/observations-invalid-utf8")(
    lambda ws: Invocation(_run_argv("agreement", ws, ws.run()),
                          (damage_line(_observed(ws), 2, lambda b: b.replace(b"PR-", b"PR\xff-", 1)).name,
                           "line 2", "UTF-8")))
case("malformed JSON", "agreement/observations-broken-line")(
    lambda ws: Invocation(_run_argv("agreement", ws, ws.run()),
                          (damage_line(_observed(ws), 3, lambda b: b[:20]).name, "line 3")))
case("bad enum", "agreement/unknown-reference")(
    lambda ws: Invocation(_run_argv("agreement", ws, ws.run()) + ["--reference", "tea-leaves"], ("tea-leaves",)))
case("missing file", "agreement/only-one-reading")(
    lambda ws: Invocation(_run_argv("agreement", ws, ws.run()), ("observe",)))

# merge of runs that do not belong together
case("mismatched dataset", "merge/runs-of-different-configs")(
    lambda ws: Invocation(["merge", str(ws.run()), str(_other_run(ws)), "--out", str(ws.root / "merged")],
                          ("configs",)))


def _other_run(ws: Workspace) -> Path:
    out = ws.root / "run-I"
    outcome = execute(Invocation(["run", str(ws.dataset()), "--config", "I", "--model", "mock/collapse",
                                  "--out", str(out)]))
    assert outcome.code == 0, outcome.err
    return out


# ---------------------------------------------------------------- stats


def _stats(kind: str, what: str, argv: list[str], *names: str) -> None:
    case(kind, f"stats/{what}")(lambda ws: Invocation(["stats", *argv], names))


_DIFFS = ["--diffs", "0.1,-0.2,0.3"]
_stats("unbounded resource", "bootstrap-resamples-1e10", ["bootstrap", *_DIFFS, "--seed", "1", "--resamples", "1e10"],
       "--resamples")
_stats("unbounded resource", "bootstrap-resamples-10-billion",
       ["bootstrap", *_DIFFS, "--seed", "1", "--resamples", "10000000000"], "--resamples")
_stats("out-of-range numeric", "bootstrap-resamples-one", ["bootstrap", *_DIFFS, "--seed", "1", "--resamples", "1"],
       "--resamples")
_stats("out-of-range numeric", "bootstrap-ci-above-one", ["bootstrap", *_DIFFS, "--seed", "1", "--ci", "1.5"], "--ci")
_stats("non-finite numeric", "bootstrap-ci-nan", ["bootstrap", *_DIFFS, "--seed", "1", "--ci", "nan"], "--ci")
_stats("out-of-range numeric", "bootstrap-seed-negative", ["bootstrap", *_DIFFS, "--seed", "-1"], "--seed")
_stats("wrong type", "bootstrap-seed-a-float", ["bootstrap", *_DIFFS, "--seed", "1.5"], "--seed")
_stats("unbounded resource", "bootstrap-seed-beyond-64-bits", ["bootstrap", *_DIFFS, "--seed", str(2**80)], "--seed")
_stats("non-finite numeric", "bootstrap-diffs-nan", ["bootstrap", "--diffs", "0.1,nan", "--seed", "1"], "--diffs")
_stats("non-finite numeric", "bootstrap-diffs-inf", ["bootstrap", "--diffs", "inf,0.1", "--seed", "1"], "--diffs")
_stats("wrong type", "bootstrap-diffs-word", ["bootstrap", "--diffs", "0.1,big", "--seed", "1"], "--diffs")
_stats("wrong type", "bootstrap-diffs-empty-item", ["bootstrap", "--diffs", "0.1,,0.2", "--seed", "1"], "--diffs")
_stats("unbounded resource", "signflip-draws-enormous", ["signflip", *_DIFFS, "--draws", "1000000000000"], "--draws")
_stats("out-of-range numeric", "signflip-draws-zero", ["signflip", *_DIFFS, "--draws", "0"], "--draws")
_stats("out-of-range numeric", "signflip-max-exact-41", ["signflip", *_DIFFS, "--max-exact", "41"], "--max-exact")
_stats("out-of-range numeric", "signflip-seed-negative", ["signflip", *_DIFFS, "--seed", "-5"], "--seed")
_stats("non-finite numeric", "signflip-diffs-inf", ["signflip", "--diffs", "0.1,-inf"], "--diffs")
_stats("out-of-range numeric", "holm-p-above-one", ["holm", "--p", "0.01,1.5"], "--p")
_stats("out-of-range numeric", "holm-alpha-zero", ["holm", "--p", "0.01,0.2", "--alpha", "0"], "--alpha")
_stats("non-finite numeric", "holm-alpha-nan", ["holm", "--p", "0.01,0.2", "--alpha", "nan"], "--alpha")
_stats("non-finite numeric", "holm-p-nan", ["holm", "--p", "nan,0.2"], "--p")
_stats("wrong type", "holm-p-empty", ["holm", "--p", ""], "--p")


# ---------------------------------------------------------------- RES


def _res_case(kind: str, what: str, damage: Callable[[Path], Any], *names: str, folder: bool = False) -> None:
    def build(ws: Workspace) -> Invocation:
        results = ws.res() / "results.jsonl"
        damage(results)
        return Invocation(["res", "score", str(results.parent if folder else results)], names)

    case(kind, f"res/score-{what}")(build)


case("missing file", "res/score-missing")(
    lambda ws: Invocation(["res", "score", str(ws.root / "results.jsonl")], (str(ws.root / "results.jsonl"),)))
case("missing file", "res/score-folder-without-results")(
    lambda ws: Invocation(["res", "score", str(ws.directory("empty"))], (str(ws.root / "empty"),)))
_res_case("directory instead of file", "results-is-a-directory", replace_with_directory, "results.jsonl",
          folder=True)
_res_case("invalid UTF-8", "results-invalid-utf8",
          lambda p: damage_line(p, 4, lambda b: b.replace(b"res-", b"res\xff-", 1)), "results.jsonl", "line 4",
          "UTF-8")
_res_case("binary file", "results-binary", lambda p: p.write_bytes(BINARY), "results.jsonl")
_res_case("binary file", "results-utf16", lambda p: p.write_bytes(p.read_text().encode("utf-16")), "results.jsonl")
_res_case("malformed JSON", "results-broken-line", lambda p: damage_line(p, 6, lambda b: b[:40]), "results.jsonl",
          "line 6")
_res_case("lone surrogate", "results-lone-surrogate",
          lambda p: damage_line(p, 2, lambda b: b.replace(b'"mock/oracle"', LONE_SURROGATE, 1)), "results.jsonl",
          "line 2", "surrogate")
_res_case("bad enum", "results-condition-galactic",
          lambda p: edit_json_line(p, 3, lambda r: r.update(condition="galactic")), "results.jsonl", "line 3",
          "condition")
_res_case("bad enum", "results-status-unknown",
          lambda p: edit_json_line(p, 3, lambda r: r.update(status="great")), "results.jsonl", "line 3", "status")
_res_case("wrong type/field", "results-missing-model",
          lambda p: edit_json_line(p, 5, lambda r: r.pop("model")), "results.jsonl", "line 5", "model")
_res_case("wrong type/field", "results-line-a-list", lambda p: damage_line(p, 1, lambda b: b"[1]"), "results.jsonl",
          "line 1")
_res_case("mismatched dataset", "results-unknown-scenario",
          lambda p: edit_json_line(p, 2, lambda r: r.update(scenario_id="res-zz-99")), "results.jsonl", "res-zz-99")


def _scenarios(ws: Workspace, content: str | bytes) -> Path:
    return ws.file("scenarios.jsonl", content)


def _packaged_scenarios() -> str:
    from importlib.resources import files

    return files("sitbench.res").joinpath("scenarios.jsonl").read_text(encoding="utf-8")


for _sub in ("score", "show", "run"):
    def _argv(ws: Workspace, path: Path, sub: str = _sub) -> list[str]:
        return {"score": ["res", "score", str(ws.res() / "results.jsonl"), "--scenarios", str(path)],
                "show": ["res", "show", "res-ls-01", "--scenarios", str(path)],
                "run": ["res", "run", "--model", "mock/oracle", "--out", str(ws.root / "res-out"), "--scenarios",
                        str(path)]}[sub]

    case("missing file", f"res/{_sub}-scenarios-missing")(
        lambda ws, argv=_argv: Invocation(argv(ws, ws.root / "none.jsonl"), (str(ws.root / "none.jsonl"),)))
    case("invalid UTF-8", f"res/{_sub}-scenarios-invalid-utf8")(
        lambda ws, argv=_argv: Invocation(argv(ws, p := _scenarios(ws, _packaged_scenarios().encode().replace(
            b"res-ls-02", b"res-ls\xff-02", 1))), (str(p), "line 2", "UTF-8")))
    case("malformed JSON", f"res/{_sub}-scenarios-broken-line")(
        lambda ws, argv=_argv: Invocation(argv(ws, p := _scenarios(ws, _packaged_scenarios().replace(
            "}\n", "\n", 1))), (str(p), "line 1")))
case("directory instead of file", "res/show-scenarios-is-a-directory")(
    lambda ws: Invocation(["res", "show", "res-ls-01", "--scenarios", str(ws.directory("sc"))],
                          (str(ws.root / "sc"),)))
case("bad enum", "res/show-unknown-scenario")(lambda ws: Invocation(["res", "show", "res-zz-01"], ("res-zz-01",)))
case("bad enum", "res/show-condition-galactic")(
    lambda ws: Invocation(["res", "show", "res-ls-01", "--condition", "galactic"], ("--condition",)))


def _res_run(kind: str, what: str, extra: list[str], *names: str) -> None:
    case(kind, f"res/run-{what}")(
        lambda ws: Invocation(["res", "run", "--model", "mock/oracle", "--out", str(ws.root / "res-out"), *extra],
                              names))


_res_run("out-of-range numeric", "concurrency-zero", ["--concurrency", "0"], "--concurrency")
_res_run("unbounded resource", "concurrency-enormous", ["--concurrency", "1000000000"], "--concurrency")
_res_run("out-of-range numeric", "max-tokens-zero", ["--max-tokens", "0"], "--max-tokens")
_res_run("unbounded resource", "max-tokens-enormous", ["--max-tokens", "100000000000"], "--max-tokens")
_res_run("non-finite numeric", "temperature-nan", ["--temperature", "nan"], "--temperature")
_res_run("non-finite numeric", "temperature-inf", ["--temperature", "inf"], "--temperature")
_res_run("out-of-range numeric", "temperature-five", ["--temperature", "5"], "--temperature")
_res_run("bad enum", "model-unknown-provider", ["--model", "galactic/x"], "galactic")
case("file instead of directory", "res/run-out-is-a-file")(
    lambda ws: Invocation(["res", "run", "--model", "mock/oracle", "--out", str(p := ws.file("res-out", "x"))],
                          (str(p),)))


# ---------------------------------------------------------------- CHI


def _chi_score(ws: Workspace, observations: Path | None = None, manifest: Path | None = None,
               extra: tuple[str, ...] = (), names: tuple[str, ...] = ()) -> Invocation:
    folder = ws.chi()
    return Invocation(["chi", "score", str(observations or folder / "observations.jsonl"), "--manifest",
                       str(manifest or folder / "manifest.json"), *extra], names)


def _chi_log(kind: str, what: str, damage: Callable[[Path], Any], *names: str) -> None:
    def build(ws: Workspace) -> Invocation:
        damage(ws.chi() / "observations.jsonl")
        return _chi_score(ws, names=("observations.jsonl", *names))

    case(kind, f"chi/score-{what}")(build)


_chi_log("invalid UTF-8", "log-invalid-utf8", lambda p: damage_line(p, 3, lambda b: b + INVALID_UTF8), "line 3",
         "UTF-8")
_chi_log("binary file", "log-binary", lambda p: p.write_bytes(BINARY))
_chi_log("directory instead of file", "log-is-a-directory", replace_with_directory)
_chi_log("malformed JSON", "log-broken-line", lambda p: damage_line(p, 4, lambda b: b[:30]), "line 4")
_chi_log("lone surrogate", "log-lone-surrogate",
         lambda p: damage_line(p, 2, lambda b: b.replace(b'"run": "', b'"run": ' + LONE_SURROGATE[:-1], 1)), "line 2",
         "surrogate")
_chi_log("wrong type/field", "log-missing-seed", lambda p: edit_json_line(p, 5, lambda r: r.pop("seed")), "line 5",
         "seed")
_chi_log("non-finite numeric", "log-wall-time-nan",
         lambda p: damage_line(p, 2, lambda b: json.dumps({**json.loads(b), "wall_time": 0}).replace(
             '"wall_time": 0', '"wall_time": NaN').encode()), "line 2", "wall_time")
_chi_log("out-of-range numeric", "log-chi-above-100", lambda p: edit_json_line(p, 2, lambda r: r.update(chi=250)),
         "line 2", "chi")
case("missing file", "chi/score-log-missing")(
    lambda ws: _chi_score(ws, observations=ws.root / "none.jsonl", names=(str(ws.root / "none.jsonl"),)))
case("missing file", "chi/score-manifest-missing")(
    lambda ws: _chi_score(ws, manifest=ws.root / "none.json", names=(str(ws.root / "none.json"),)))
case("invalid UTF-8", "chi/score-manifest-invalid-utf8")(
    lambda ws: _chi_score(ws, manifest=damage_line(ws.chi() / "manifest.json", 2, lambda b: b + INVALID_UTF8),
                          names=("manifest.json", "UTF-8")))
case("malformed JSON", "chi/score-manifest-truncated")(
    lambda ws: _chi_score(ws, manifest=ws.file("m.json", (ws.chi() / "manifest.json").read_text()[:100]),
                          names=("m.json",)))
case("bad enum", "chi/score-manifest-evidence-class-unknown")(
    lambda ws: _chi_score(ws, manifest=edit_json(ws.chi() / "manifest.json",
                                                 lambda m: m.update(evidence_class="vibes")),
                          names=("manifest.json", "evidence_class")))
case("unbounded resource", "chi/score-resamples-enormous")(
    lambda ws: _chi_score(ws, extra=("--resamples", "10000000000"), names=("--resamples",)))
case("out-of-range numeric", "chi/score-resamples-too-few")(
    lambda ws: _chi_score(ws, extra=("--resamples", "10"), names=("--resamples",)))
case("out-of-range numeric", "chi/score-seed-negative")(
    lambda ws: _chi_score(ws, extra=("--seed", "-1"), names=("--seed",)))
case("out-of-range numeric", "chi/demo-seed-negative")(lambda ws: Invocation(["chi", "demo", "--seed", "-1"],
                                                                             ("--seed",)))
case("file instead of directory", "chi/demo-out-is-a-file")(
    lambda ws: Invocation(["chi", "demo", "--out", str(p := ws.file("demo", "x"))], (str(p),)))

_CURVE = {"grid": [100, 300], "points": {"100": {"r": 0.9, "t": 0.9, "s": 0.9, "u": 0.9, "i": 0.9, "f": 0.05}}}
for _sub in ("eimc", "similarity"):
    case("missing file", f"chi/{_sub}-missing")(
        lambda ws, sub=_sub: Invocation(["chi", sub, str(ws.root / "none.json")], (str(ws.root / "none.json"),)))
    case("directory instead of file", f"chi/{_sub}-is-a-directory")(
        lambda ws, sub=_sub: Invocation(["chi", sub, str(ws.directory("d"))], (str(ws.root / "d"),)))
    case("invalid UTF-8", f"chi/{_sub}-invalid-utf8")(
        lambda ws, sub=_sub: Invocation(["chi", sub, str(p := ws.file("in.json", b'{"grid": "\xff"}'))],
                                        (str(p), "UTF-8")))
    case("malformed JSON", f"chi/{_sub}-malformed")(
        lambda ws, sub=_sub: Invocation(["chi", sub, str(p := ws.file("in.json", '{\n"grid": [1,\n'))],
                                        (str(p), "line")))
    case("lone surrogate", f"chi/{_sub}-lone-surrogate")(
        lambda ws, sub=_sub: Invocation(["chi", sub, str(p := ws.file("in.json", b'{"\\ud800": 1}'))],
                                        (str(p), "surrogate")))
case("non-finite numeric", "chi/eimc-tau-nan")(
    lambda ws: Invocation(["chi", "eimc", str(p := ws.file("c.json", json.dumps(_CURVE)[:-1] + ', "tau": NaN}'))],
                          (str(p), "tau")))
case("out-of-range numeric", "chi/eimc-rate-above-one")(
    lambda ws: Invocation(["chi", "eimc", str(p := ws.json("c.json", {**_CURVE, "points": {"100": {
        **_CURVE["points"]["100"], "r": 1.7}}}))], (str(p), "points.100.r")))
case("wrong type/field", "chi/eimc-points-a-list")(
    lambda ws: Invocation(["chi", "eimc", str(p := ws.json("c.json", {**_CURVE, "points": [1]}))], (str(p), "points")))
case("bad enum", "chi/similarity-unknown-axis")(
    lambda ws: Invocation(["chi", "similarity", str(p := ws.json("a.json", {"Q": {"h": 0.5}}))], (str(p), "Q")))
case("out-of-range numeric", "chi/similarity-h-negative")(
    lambda ws: Invocation(["chi", "similarity", str(p := ws.json("a.json", {"R": {"h": -0.5}}))], (str(p), "R")))


# ---------------------------------------------------------------- generate, seeds, schema


def _plain(kind: str, what: str, argv: list[str] | Callable[[Workspace], list[str]], *names: str) -> None:
    case(kind, what)(lambda ws: Invocation(argv(ws) if callable(argv) else argv, names))


_plain("bad enum", "generate/suite-galactic", lambda ws: ["generate", "--suite", "galactic", "--out",
                                                          str(ws.root / "g")], "--suite")
_plain("out-of-range numeric", "generate/seed-negative",
       lambda ws: ["generate", "--suite", "dev", "--seed", "-1", "--out", str(ws.root / "g")], "--seed")
_plain("wrong type", "generate/seed-a-word",
       lambda ws: ["generate", "--suite", "dev", "--seed", "seven", "--out", str(ws.root / "g")], "--seed")
_plain("wrong type/field", "generate/pilot-with-seed",
       lambda ws: ["generate", "--suite", "pilot", "--seed", "3", "--out", str(ws.root / "g")], "--seed")
_plain("mismatched dataset", "generate/commitment-mismatch",
       lambda ws: ["generate", "--suite", "dev", "--seed", "3", "--commitment", "ab" * 32, "--out",
                   str(ws.root / "g")], "--commitment")
_plain("file instead of directory", "generate/out-is-a-file",
       lambda ws: ["generate", "--out", str(ws.file("g", "x"))], str(Path("g")))
_plain("out-of-range numeric", "seeds/commit-negative", ["seeds", "commit", "--", "-4"], "SEED")
_plain("wrong type", "seeds/commit-a-word", ["seeds", "commit", "four"], "SEED")
_plain("file instead of directory", "schema/out-is-a-file", lambda ws: ["schema", "--out", str(ws.file("s", "x"))],
       "s")
_plain("bad enum", "cli/unknown-command", ["galactic"], "galactic")
_plain("bad enum", "cli/unknown-option", ["validate", "--colour", "red", "x"], "--colour")


# ---------------------------------------------------------------- the wrong kind of input, environment variables


def _wrong(kind: str, what: str, argv: Callable[[Workspace], list[str]], *names: str,
           env: Callable[[Workspace], dict[str, str]] | None = None) -> None:
    case(kind, what)(lambda ws: Invocation(argv(ws), names, env(ws) if env else {}))


_wrong("wrong type/field", "score/a-dataset-not-a-run", lambda ws: ["score", str(ws.dataset())],
       "is a dataset directory, not a run directory", "sitbench run")
_wrong("wrong type/field", "run/resume-into-a-dataset",
       lambda ws: ["run", str(ws.dataset()), "--model", "mock/oracle", "--out", str(ws.dataset()), "--resume"],
       "is a dataset directory, not a run directory")
_wrong("missing file", "validate/a-run-not-a-dataset", lambda ws: ["validate", str(ws.run())], "visible/subjects")
_wrong("missing file", "tokens/a-run-not-a-dataset", lambda ws: ["stats", "tokens", str(ws.run())], "visible/subjects")
_wrong("missing file", "metrics/a-dataset-not-a-run", lambda ws: ["metrics", str(ws.dataset())],
       "is a dataset directory, not a run directory")
_wrong("missing file", "analyze/e6-run-is-a-dataset",
       lambda ws: ["analyze", str(ws.run()), "--e6-run", str(ws.dataset())], "is a dataset directory")
_wrong("wrong type/field", "res/score-sit-responses",
       lambda ws: ["res", "score", str(ws.run() / "responses.jsonl")], "responses.jsonl", "line 1", "scenario_id")
_wrong("wrong type/field", "chi/eimc-given-a-manifest", lambda ws: ["chi", "eimc", str(ws.chi() / "manifest.json")],
       "manifest.json", "analysis")


def _fields_at_odds(model: type[BaseModel], path: Path) -> tuple[str, ...]:
    """Each field a validator of ``model`` may name first for the JSON object in ``path``, quoted as the error line
    quotes it: the required fields the object lacks, and its keys the model forbids (pydantic 2.13 names the
    forbidden ``models`` of a RES summary read as a CHI report first, 2.14 the missing ``label``)."""
    keys = set(json.loads(path.read_text(encoding="utf-8")))
    lacking = [name for name, info in model.model_fields.items() if info.is_required() and name not in keys]
    forbidden = sorted(keys - set(model.model_fields)) if model.model_config.get("extra") == "forbid" else []
    assert lacking or forbidden, f"{path} is a valid {model.__name__}"
    return tuple(f"field {name!r}" for name in lacking + forbidden)


@case("wrong type/field", "report/res-given-a-chi-report")
def _res_given_a_chi_report(ws: Workspace) -> Invocation:
    chi_report = ws.chi() / "report.json"
    return Invocation(["report", str(ws.run()), "--out", str(ws.root / "r.html"), "--res", str(chi_report)],
                      ("report.json",), any_of=_fields_at_odds(ResScore, chi_report))


@case("wrong type/field", "report/chi-given-a-res-summary")
def _chi_given_a_res_summary(ws: Workspace) -> Invocation:
    summary = ws.res() / "summary.json"
    return Invocation(["report", str(ws.run()), "--out", str(ws.root / "r.html"), "--chi", str(summary)],
                      ("summary.json",), any_of=_fields_at_odds(ChiReport, summary))


_wrong("wrong type/field", "judge/batch-given-run-responses",
       lambda ws: ["judge", str(ws.dataset()), "--batch", str(ws.run() / "responses.jsonl")], "responses.jsonl",
       "probe")
_wrong("wrong SQLite file", "cache/clear-given-a-json-file",
       lambda ws: ["cache", "clear", "--cache-path", str(ws.dataset() / "manifest.json")], "manifest.json")
_wrong("bad enum", "agreement/reference-is-a-path",
       lambda ws: ["agreement", str(ws.run()), "--reference", "../../manifest"], "--reference")
_wrong("bad enum", "score/unknown-extractor",
       lambda ws: ["score", str(ws.run()), "--extractor", "crystal-ball"], "--extractor", "crystal-ball")
_wrong("missing API key", "observe/llm-extractor-without-key",
       lambda ws: ["observe", str(ws.run()), "--extractor", "llm:openai/gpt-4o-mini"], "OPENAI_API_KEY",
       "--api-key-env", env=lambda ws: {"OPENAI_API_KEY": "", "SITBENCH_EXTRACTOR_BASE_URL": "",
                                        "SITBENCH_EXTRACTOR_API_KEY_ENV": ""})
_wrong("bad enum", "judge/extractor-base-url-not-a-url",
       lambda ws: ["judge", str(ws.dataset()), "--probe", "PR-01", "--response", "x", "--extractor", "llm:openai/m"],
       "SITBENCH_EXTRACTOR_BASE_URL", "notaurl", env=lambda ws: {"SITBENCH_EXTRACTOR_BASE_URL": "notaurl"})
_wrong("unreadable file", "run/cache-dir-is-a-file",
       lambda ws: ["run", str(ws.dataset()), "--config", "B", "--model", "mock/oracle", "--out", str(ws.root / "o"),
                   "--cache"], "cache",
       env=lambda ws: {"SITBENCH_CACHE_DIR": str(ws.file("cache", "not a folder"))})
_wrong("mismatched dataset", "rescore/out-is-the-source-run",
       lambda ws: ["rescore", str(ws.run()), "--out", str(ws.run())], "--out")
_wrong("mismatched dataset", "compare/the-same-run-twice",
       lambda ws: ["compare", str(ws.run()), str(ws.run())], "given twice")
_wrong("missing file", "compare/a-dataset-not-a-run", lambda ws: ["compare", str(ws.dataset())],
       "is a dataset directory, not a run directory")
_wrong("mismatched dataset", "merge/the-same-run-twice",
       lambda ws: ["merge", str(ws.run()), str(ws.run()), "--out", str(ws.root / "merged")], "given twice")
_wrong("out-of-range numeric", "run/shard-one-of-zero",
       lambda ws: ["run", str(ws.dataset()), "--model", "mock/oracle", "--out", str(ws.root / "o"), "--shard", "1/0"],
       "--shard")
_wrong("wrong type/field", "show/sample-with-list",
       lambda ws: ["show", str(ws.dataset()), "--list", "--sample", "2"], "--sample")
_wrong("bad enum", "res/run-same-model-twice",
       lambda ws: ["res", "run", "--model", "mock/oracle", "--model", "mock/oracle", "--out", str(ws.root / "r")],
       "--model", "twice")


# Classes kept in modules of their own register into the same table.
from . import cases_disk, cases_hostile, cases_limits, cases_paths, cases_scoring  # noqa: E402,F401
