"""A pilot dataset directory with surgical store edits (load, edit the dict, write back, rehash)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sitbench.data import refresh_manifest
from sitbench.lineage import CheckRow, run_checks
from sitbench.stores import load_dataset

Edit = Callable[[Any], Any]


class PilotDir:
    """A pilot dataset on disk with helpers to edit its store files in place."""

    def __init__(self, root: Path) -> None:
        self.root = root

    # ------------------------------------------------------------ raw file access

    def read_json(self, rel: str) -> Any:
        """Parse one JSON store file."""
        return json.loads((self.root / rel).read_text(encoding="utf-8"))

    def write_json(self, rel: str, data: Any) -> None:
        """Write one JSON store file in the writer's layout (does not touch the manifest)."""
        text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
        (self.root / rel).write_text(text, encoding="utf-8")

    def read_jsonl(self, rel: str) -> list[dict[str, Any]]:
        """Parse a JSONL store file into a list of records, in line order."""
        lines = (self.root / rel).read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def write_jsonl(self, rel: str, records: list[dict[str, Any]]) -> None:
        """Write a JSONL store file, one compact record per line (does not touch the manifest)."""
        text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)
        (self.root / rel).write_text(text, encoding="utf-8")

    def replace_line(self, rel: str, number: int, text: str) -> None:
        """Replace 1-based line ``number`` of a text file with ``text`` (no manifest refresh)."""
        path = self.root / rel
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[number - 1] = text + "\n"
        path.write_text("".join(lines), encoding="utf-8")

    # ------------------------------------------------------------ edits + manifest refresh

    def refresh(self) -> None:
        """Recompute the manifest's file hashes after a deliberate edit."""
        refresh_manifest(self.root)

    def edit_json(self, rel: str, edit: Edit, *, refresh: bool = True) -> None:
        """Load a JSON file, let ``edit`` change the data in place (or return new data), write it back."""
        data = self.read_json(rel)
        result = edit(data)
        self.write_json(rel, data if result is None else result)
        if refresh:
            self.refresh()

    def edit_jsonl(self, rel: str, edit: Callable[[list[dict[str, Any]]], Any], *, refresh: bool = True) -> None:
        """Load a JSONL file as a list, let ``edit`` change it (or return a new list), write it back."""
        records = self.read_jsonl(rel)
        result = edit(records)
        self.write_jsonl(rel, records if result is None else result)
        if refresh:
            self.refresh()

    def edit_lineage(self, lineage_id: str, edit: Edit, *, refresh: bool = True) -> None:
        """Edit ``hidden/lineages/<lineage_id>.json``."""
        self.edit_json(f"hidden/lineages/{lineage_id}.json", edit, refresh=refresh)

    def edit_subject(self, subject: str, edit: Edit, *, refresh: bool = True) -> None:
        """Edit ``visible/subjects/<subject>.json``."""
        self.edit_json(f"visible/subjects/{subject}.json", edit, refresh=refresh)

    def edit_probe(self, probe_id: str, edit: Edit, *, refresh: bool = True) -> None:
        """Edit the one record of ``hidden/probes.jsonl`` with this probe id."""
        self._edit_record("hidden/probes.jsonl", "probe_id", probe_id, edit, refresh)

    def edit_query(self, query_key: str, edit: Edit, *, refresh: bool = True) -> None:
        """Edit the one record of ``visible/queries.jsonl`` with this query key."""
        self._edit_record("visible/queries.jsonl", "query_key", query_key, edit, refresh)

    def _edit_record(self, rel: str, key: str, value: str, edit: Edit, refresh: bool) -> None:
        def apply(records: list[dict[str, Any]]) -> None:
            matches = [r for r in records if r[key] == value]
            assert len(matches) == 1, f"{rel}: expected one record with {key}={value!r}"
            edit(matches[0])

        self.edit_jsonl(rel, apply, refresh=refresh)

    # ------------------------------------------------------------ lookups

    def event(self, lineage: dict[str, Any], event_id: str) -> dict[str, Any]:
        """The event dict with this id inside a loaded lineage dict."""
        matches = [e for e in lineage["events"] if e["event_id"] == event_id]
        assert len(matches) == 1, f"{lineage['lineage_id']}: expected one event {event_id}"
        return matches[0]

    def line_of(self, rel: str, key: str, value: str) -> int:
        """1-based line number of the JSONL record whose ``key`` equals ``value``."""
        for number, record in enumerate(self.read_jsonl(rel), start=1):
            if record[key] == value:
                return number
        raise AssertionError(f"{rel}: no record with {key}={value!r}")

    # ------------------------------------------------------------ checks

    def check_rows(self) -> dict[str, CheckRow]:
        """Run inv1–inv19 on the directory as it is now; rows keyed by check id."""
        return {row.id: row for row in run_checks(load_dataset(self.root))}

    def failing(self) -> set[str]:
        """Ids of the checks that fail on the directory as it is now."""
        return {cid for cid, row in self.check_rows().items() if not row.passed}
