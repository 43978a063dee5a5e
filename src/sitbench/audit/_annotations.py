"""``audit import``: annotation JSONL files read, validated against their sample, written back canonical.

A line is one :class:`~sitbench.audit.Annotation`. Beyond its own schema it must fit the sample: the
sample id and phase, an item of the sample (once per file), propositions of that item's X_q, spans
inside its response (in code points, as Python indexes strings), an unmapped assertion's text equal
to the response at its span, a slot of the closed-world vocabulary, and one annotator per file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from sitbench.audit._models import Annotation, AuditSample, Span
from sitbench.errors import InputError
from sitbench.stores import iter_jsonl, write_jsonl


def _span_problem(span: Span | None, length: int, field: str) -> str | None:
    if span is None:
        return None
    start, end = span
    if not 0 <= start < end <= length:
        return f"{field} {list(span)} is not inside the response (0 ≤ start < end ≤ {length})"
    return None


def annotation_problems(annotation: Annotation, sample: AuditSample) -> list[str]:
    """What is wrong with one annotation against its sample (empty when it fits)."""
    problems = []
    if annotation.sample_id != sample.sample_id:
        return [f"sample_id {annotation.sample_id!r} is not this sample's ({sample.sample_id}); "
                "the file was made from another sample's sheet"]
    if annotation.phase != sample.phase:
        problems.append(f"phase {annotation.phase!r} differs from the sample's {sample.phase!r}")
    item = sample.item_map().get(annotation.item_id)
    if item is None:
        return problems + [f"item_id {annotation.item_id!r} is not an item of sample {sample.sample_id}"]
    universe = set(item.universe)
    slots = {d.slot for d in sample.vocabulary.closed_world}
    length = len(item.response)
    for i, claim in enumerate(annotation.claims):
        if claim.prop_id not in universe:
            problems.append(f"claims[{i}].prop_id {claim.prop_id!r} is not in this item's X_q")
        if problem := _span_problem(claim.span, length, f"claims[{i}].span"):
            problems.append(problem)
    for i, item_u in enumerate(annotation.unmapped):
        if problem := _span_problem(item_u.span, length, f"unmapped[{i}].span"):
            problems.append(problem)
        elif item.response[item_u.span[0]:item_u.span[1]] != item_u.text:
            problems.append(f"unmapped[{i}].text {item_u.text[:40]!r} is not the response's text at its span")
        if item_u.slot is not None and item_u.slot not in slots:
            problems.append(f"unmapped[{i}].slot {item_u.slot!r} is not a closed-world slot "
                            f"({', '.join(sorted(slots)) or 'none declared'}); use null for an unresolved scope")
    if annotation.status == "skipped" and (annotation.acts or annotation.claims or annotation.unmapped):
        problems.append("status 'skipped' with labels: a skipped item carries no reading (mark it done instead)")
    return problems


def read_annotations(path: Path, sample: AuditSample) -> list[Annotation]:
    """The annotations of one file, validated, in the sample's page order.

    Raises:
        InputError: ``FILE line N: field: problem`` for the first line that does not fit.
    """
    seen: dict[str, int] = {}
    out: list[Annotation] = []
    annotator: str | None = None
    for number, annotation in iter_jsonl(path, Annotation):
        where = f"{path} line {number}"
        problems = annotation_problems(annotation, sample)
        if problems:
            raise InputError(f"{where}: {problems[0]}" + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""))
        if annotator is None:
            annotator = annotation.annotator
        elif annotation.annotator != annotator:
            raise InputError(f"{where}: annotator {annotation.annotator!r} differs from {annotator!r} on an earlier "
                             "line; one file holds one annotator's annotations")
        if annotation.item_id in seen:
            raise InputError(f"{where}: item {annotation.item_id} is annotated twice (also line "
                             f"{seen[annotation.item_id]}); keep one line per item")
        seen[annotation.item_id] = number
        out.append(annotation)
    if not out:
        raise InputError(f"{path}: no annotation lines; export them from the annotation page (Download JSONL)")
    order = {item.item_id: item.position for item in sample.items}
    return sorted(out, key=lambda a: order[a.item_id])


def write_annotations(path: Path, annotations: Iterable[Annotation]) -> None:
    """One canonical line per annotation."""
    write_jsonl(path, annotations)


def load_annotation_files(paths: Sequence[Path], sample: AuditSample) -> dict[str, dict[str, Annotation]]:
    """Annotator → item id → annotation, over several files (each one annotator's).

    Raises:
        InputError: a file is invalid, or two files hold the same annotator.
    """
    out: dict[str, dict[str, Annotation]] = {}
    origin: dict[str, Path] = {}
    for path in paths:
        annotations = read_annotations(path, sample)
        name = annotations[0].annotator
        if name in out:
            raise InputError(f"{path}: annotator {name!r} is also in {origin[name]}; give each annotator's file once")
        origin[name] = path
        out[name] = {a.item_id: a for a in annotations}
    return out
