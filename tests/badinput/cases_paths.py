"""Bad-input classes: names that become paths (nothing is written outside the folder the user named).

``audit import --out DIR`` stores each annotator's file as ``DIR/<annotator>.jsonl``, the name read from
inside the imported file. Every name that is not one path component is refused when the file is read,
before anything is created; so is a target that a symbolic link leads out of ``DIR``. A dataset's ids
(query keys, probe ids, lineage ids, subjects) follow the same rule: lineage ids and subjects are file
names of the dataset, and an id that cannot be one is refused when the dataset is read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._harness import Invocation, Workspace, edit_json, edit_json_line, execute, refresh_dataset
from .cases import PROBES, QUERIES, case

PATHS_KIND = "name that becomes a path"

ANNOTATIONS_OUT = "audit/annotations"
"""The ``--out`` of every import case, relative to the workspace (nothing may appear outside it)."""


def sample(ws: Workspace) -> Path:
    """An audit sample (4 responses, development phase) of the workspace's scored run."""
    path = ws.root / "audit" / "sample.json"
    if not path.exists():
        argv = ["audit", "sample", str(ws.run()), "--n", "4", "--seed", "1", "--phase", "dev", "--out", str(path)]
        outcome = execute(Invocation(argv))
        if outcome.code != 0:
            raise RuntimeError(f"`sitbench {' '.join(argv)}` failed: {outcome.err}")
    return path


def annotation_file(ws: Workspace, annotator: str, name: str = "downloaded.jsonl") -> Path:
    """A valid one-line annotation file of the sample's first item, by ``annotator``."""
    data: dict[str, Any] = json.loads(sample(ws).read_text(encoding="utf-8"))
    line = {"format": "sitbench-audit-annotation/1", "sample_id": data["sample_id"], "phase": data["phase"],
            "annotator": annotator, "item_id": data["items"][0]["item_id"], "status": "done", "acts": [],
            "claims": [], "unmapped": [], "uncertainty": "none", "withheld": False}
    return ws.file(name, json.dumps(line) + "\n")


def import_argv(ws: Workspace, annotations: Path) -> list[str]:
    """``audit import FILE --sample SAMPLE --out WS/audit/annotations``."""
    return ["audit", "import", str(annotations), "--sample", str(sample(ws)), "--out", str(ws.root / ANNOTATIONS_OUT)]


def _annotator_case(what: str, annotator: Any, *names: str) -> None:
    def build(ws: Workspace) -> Invocation:
        value = annotator(ws) if callable(annotator) else annotator
        path = annotation_file(ws, value)
        return Invocation(import_argv(ws, path), (str(path), "line 1", "annotator", *names))

    case(PATHS_KIND, f"audit/import-annotator-{what}")(build)


_annotator_case("dotdot-slash", "../../x", "'../../x'", "a path")
# An absolute path inside the workspace: before the fix such a file was written there, and a test must
# never write to the real root.
_annotator_case("absolute", lambda ws: str(ws.root / "abs" / "x"), "absolute path")
_annotator_case("dotdot", "..", "'..'", "a folder")
_annotator_case("dot", ".", "'.'", "a folder")
_annotator_case("subfolder", "a/b", "'a/b'", "a path")
_annotator_case("backslash", "a\\b", "a path")
_annotator_case("nul", "a\x00b", "NUL")
_annotator_case("newline", "ann\n", "control character")
_annotator_case("leading-dash", "-rf", "begins with '-'")
_annotator_case("hidden", ".profile", "begins with '.'")


@case(PATHS_KIND, "audit/import-out-file-is-a-link")
def _out_file_is_a_link(ws: Workspace) -> Invocation:
    """``--out`` holds ``ann.jsonl`` as a link to another run's ``responses.jsonl``: refused, nothing written."""
    responses = ws.run() / "responses.jsonl"
    out = ws.root / ANNOTATIONS_OUT
    out.mkdir(parents=True)
    (out / "ann.jsonl").symlink_to(responses)
    path = annotation_file(ws, "ann")
    return Invocation(import_argv(ws, path), ("--out", str(out / "ann.jsonl"), "outside"))


def _query_key_case(what: str, key: str, *names: str) -> None:
    """A dataset whose first query (and every probe of it) has the key ``key``, its manifest refreshed."""
    def build(ws: Workspace) -> Invocation:
        data = ws.dataset()
        lines = (data / QUERIES).read_text(encoding="utf-8").splitlines()
        first = json.loads(lines[0])
        old = first["query_key"]
        first["query_key"] = key
        lines[0] = json.dumps(first)
        (data / QUERIES).write_text("\n".join(lines) + "\n", encoding="utf-8")
        probes = data / PROBES
        records = [json.loads(x) for x in probes.read_text(encoding="utf-8").splitlines()]
        for record in records:
            if record["query_key"] == old:
                record["query_key"] = key
        probes.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        refresh_dataset(data)
        return Invocation(["validate", str(data)], (QUERIES, "line 1", "query_key", *names))

    case(PATHS_KIND, f"validate/query-key-{what}")(build)


_query_key_case("dotdot-slash", "../q", "'../q'")
_query_key_case("absolute", "/q", "absolute path")


def _sheet_case(what: str, annotator: str, *names: str) -> None:
    def build(ws: Workspace) -> Invocation:
        argv = ["audit", "sheet", str(sample(ws)), "--out", str(ws.root / "audit" / "sheets"), "--annotator", "ana",
                "--annotator", annotator]
        return Invocation(argv, ("--annotator", *names))

    case(PATHS_KIND, f"audit/sheet-annotator-{what}")(build)


_sheet_case("dotdot-slash", "../../x", "a path")
# A regex anchored with `$` let a name with a trailing newline through (`a\n.html`).
_sheet_case("trailing-newline", "ann\n", "control character")
_sheet_case("reference", "reference", "'reference'")


@case(PATHS_KIND, "validate/probe-id-dotdot-slash")
def _probe_id(ws: Workspace) -> Invocation:
    data = ws.dataset()
    refresh_dataset(edit_json_line(data / PROBES, 1, lambda p: p.update(probe_id="../p")).parents[1])
    return Invocation(["validate", str(data)], (PROBES, "line 1", "probe_id", "'../p'"))


@case(PATHS_KIND, "validate/manifest-file-outside-the-dataset")
def _manifest_file_outside(ws: Workspace) -> Invocation:
    """A manifest that lists ``../../x``: the file would be hashed outside the dataset; refused on reading."""
    data = ws.dataset()
    edit_json(data / "manifest.json", lambda m: m["files"].update({"../../outside.txt": "0" * 64}))
    return Invocation(["validate", str(data)], ("manifest.json", "files", "../../outside.txt"))
