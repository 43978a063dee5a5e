"""Store 1: candidate-visible evidence. The only store a prompt builder may read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sitbench._names import check_name
from sitbench.errors import InputError
from sitbench.schema import Query, SubjectEvidence
from sitbench.stores._io import iter_jsonl, load_model
from sitbench.stores._layout import QUERIES, SUBJECTS_DIR, require_dataset_dir


@dataclass(frozen=True)
class VisibleStore:
    """Candidate-visible evidence of a dataset: subjects' evidence and the queries."""

    subjects: dict[str, SubjectEvidence]
    """Subject key → evidence."""
    queries: dict[str, Query]
    """Query key → query."""


def load_visible(root: Path) -> VisibleStore:
    """Load store 1 from a dataset directory."""
    root = require_dataset_dir(root)
    subjects_dir = root / SUBJECTS_DIR
    if not subjects_dir.is_dir():
        raise InputError(f"{root / SUBJECTS_DIR}: missing; the dataset has no candidate-visible store")
    subjects: dict[str, SubjectEvidence] = {}
    for path in sorted(subjects_dir.glob("*.json")):
        rel = f"{SUBJECTS_DIR}/{path.name}"
        subject = load_model(path, SubjectEvidence, rel)
        check_name(subject.subject, f"{rel}: subject")
        if f"{subject.subject}.json" != path.name:
            raise InputError(f"{rel}: subject {subject.subject!r} does not match the file name; rename the file")
        subjects[subject.subject] = subject
    queries: dict[str, Query] = {}
    for number, query in iter_jsonl(root / QUERIES, Query, QUERIES):
        # Dataset ids follow the one rule for names that may become paths (subjects and lineage ids are
        # file names of the dataset; query keys and probe ids are held to it too).
        check_name(query.query_key, f"{QUERIES} line {number}: query_key")
        if query.query_key in queries:
            raise InputError(f"{QUERIES} line {number}: query_key {query.query_key!r} is duplicated")
        if query.subject not in subjects:
            raise InputError(f"{QUERIES} line {number}: subject {query.subject!r} has no file in {SUBJECTS_DIR}/")
        queries[query.query_key] = query
    return VisibleStore(subjects=subjects, queries=queries)
