"""Run the RES battery: every model × scenario × condition cell once, in seeded order.

RES shares the common run machinery where it fits: candidates are built by
``sitbench.candidates.get_candidate`` with the options ``sitbench run`` passes, the
response cache is :class:`sitbench.candidates.CachedCandidate` over a
:class:`sitbench.candidates.ResponseCache` (mocks bypass it), progress goes through
:func:`sitbench.runs.progress_display`, and the manifest carries the provenance and
accounting fields of :class:`sitbench.runs.RunManifest` under the same names
(``package_version``, ``git_commit``, ``created_at``, ``seeds``, ``cache``, ``counts``,
``models_sent``, ``returned_models``, ``system_fingerprints``). A cell is not a
``runs.Runner`` trial: there is no SIT dataset, configuration or contract behind it, and
its row (``results.jsonl``) is the preregistered RES format, kept as it is.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from sitbench._version import __version__, git_commit
from sitbench.candidates import (
    CachedCandidate,
    Candidate,
    CandidateRequest,
    CandidateResponse,
    DecodingConfig,
    ResponseCache,
    bypasses_cache,
)
from sitbench.res._parse import parse_action
from sitbench.res._prompts import CONDITIONS, Condition, build_messages, build_view
from sitbench.res._results import ResultRow
from sitbench.res._scenarios import ResScenario
from sitbench.res._score import ResScore, score_results
from sitbench.stores import atomic_writer, make_dirs, write_text_atomic

EXECUTION_SEED = 20260910
"""Preregistered shuffle seed for the execution order."""

DEFAULT_MODELS: tuple[str, ...] = ("openai/gpt-5.6-luna", "openai/gpt-5.6-terra")
"""The preregistered models, as candidate specs."""

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
MANIFEST_FILE = "manifest.json"


class Cell(BaseModel):
    """One planned call."""

    model_config = ConfigDict(frozen=True)

    execution_index: int
    """Position in the seeded execution order (0-based)."""
    model: str
    """Candidate spec."""
    scenario_id: str
    """Scenario id."""
    condition: Condition
    """Actor assignment."""


def execution_plan(
    models: Sequence[str], scenarios: Sequence[ResScenario], seed: int = EXECUTION_SEED
) -> list[Cell]:
    """The seeded execution order of all cells.

    The canonical order (models as given, scenarios in file order, conditions
    ``self, peer, fiction, role``) is shuffled once with ``random.Random(seed)``.

    Args:
        models: Candidate specs, in the order given on the command line.
        scenarios: The scenario set.
        seed: Shuffle seed; the preregistration fixes it to 20260910.
    """
    canonical = [
        (model, scenario.scenario_id, condition)
        for model in models
        for scenario in scenarios
        for condition in CONDITIONS
    ]
    random.Random(seed).shuffle(canonical)
    return [
        Cell(execution_index=i, model=m, scenario_id=s, condition=c)
        for i, (m, s, c) in enumerate(canonical)
    ]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _messages_sha256(request: CandidateRequest) -> str:
    payload = json.dumps([m.model_dump() for m in request.messages], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def make_request(cell: Cell, scenario: ResScenario, decoding: DecodingConfig) -> CandidateRequest:
    """The candidate request for one cell."""
    return CandidateRequest(
        trial_id=f"res:{cell.model}:{cell.scenario_id}:{cell.condition}",
        messages=build_messages(scenario, cell.condition),
        decoding=decoding,
        view=build_view(scenario, cell.condition),
    )


def result_row(
    cell: Cell,
    scenario: ResScenario,
    request: CandidateRequest,
    response: CandidateResponse | None,
    failure: str | None = None,
) -> ResultRow:
    """Turn one call's outcome into a results row.

    A ``drop`` response or an exception (``failure``) becomes status ``error``
    with its reason; a text response is parsed against the scenario's tokens.
    """
    base: dict[str, Any] = {
        "model": cell.model,
        "scenario_id": cell.scenario_id,
        "condition": cell.condition,
        "category": scenario.category,
        "execution_index": cell.execution_index,
        "trial_id": request.trial_id,
        "prompt_sha256": _messages_sha256(request),
        "finished_at": _now(),
    }
    if response is not None:
        base.update(
            model_sent=response.model_sent,
            provider=response.provider,
            returned_model=response.returned_model,
            system_fingerprint=response.system_fingerprint,
            usage=response.usage,
            retries=response.retries,
            latency_s=response.latency_s,
            cached=response.cached,
        )
    if response is None or response.status == "drop" or response.text is None:
        reason = failure or (response.drop_reason if response is not None else None)
        return ResultRow(
            **base,
            response=response.text if response is not None else None,
            status="error",
            error=reason or "no response text",
        )
    parsed = parse_action(response.text, [a.token for a in scenario.actions])
    return ResultRow(
        **base,
        response=response.text,
        parsed_action=parsed.action,
        status=parsed.status,
        invalid_reason=parsed.reason,
    )


async def _call(candidate: Candidate, request: CandidateRequest) -> tuple[CandidateResponse | None, str | None]:
    try:
        return await candidate.complete(request), None
    except Exception as exc:  # noqa: BLE001 - a failing call is data, kept with its reason
        return None, f"{type(exc).__name__}: {exc}"


class TextSink(Protocol):
    """Where :func:`run_cells` writes its lines: an open text file, or an atomic writer's handle."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


async def run_cells(
    plan: Sequence[Cell],
    scenarios: Sequence[ResScenario],
    candidates: dict[str, Candidate],
    sink: TextSink,
    *,
    decoding: DecodingConfig,
    concurrency: int = 4,
    on_done: Callable[[ResultRow], None] | None = None,
) -> list[ResultRow]:
    """Execute ``plan`` and write one flushed JSON line per finished cell to ``sink``.

    Cells start in plan order; at most ``concurrency`` calls are in flight, so
    with ``concurrency=1`` the calls happen exactly in the seeded order.

    Returns:
        The rows in completion order (the order they were written).
    """
    by_id = {scenario.scenario_id: scenario for scenario in scenarios}
    queue: asyncio.Queue[Cell] = asyncio.Queue()
    for cell in plan:
        queue.put_nowait(cell)
    written: list[ResultRow] = []

    async def worker() -> None:
        while True:
            try:
                cell = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            scenario = by_id[cell.scenario_id]
            request = make_request(cell, scenario, decoding)
            response, failure = await _call(candidates[cell.model], request)
            row = result_row(cell, scenario, request, response, failure)
            sink.write(row.model_dump_json() + "\n")
            sink.flush()
            written.append(row)
            if on_done is not None:
                on_done(row)

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    return written


def with_cache(
    candidates: dict[str, Candidate], cache: ResponseCache | None, epoch: int = 0
) -> tuple[dict[str, Candidate], dict[str, Any]]:
    """Wrap each candidate in the response cache, as ``sitbench run`` does.

    Args:
        candidates: One built candidate per spec.
        cache: The response cache; ``None`` runs without one.
        epoch: Repetition index (part of the cache key).

    Returns:
        The candidates to call, and the manifest's ``cache`` block (``enabled``, ``epoch``
        and, per spec, why a candidate bypassed the cache).
    """
    if cache is None:
        return dict(candidates), {"enabled": False}
    wrapped: dict[str, Candidate] = {}
    bypassed: dict[str, str] = {}
    for spec, candidate in candidates.items():
        if bypasses_cache(candidate):
            wrapped[spec] = candidate
            bypassed[spec] = "deterministic mock candidates are never cached"
        elif candidate.describe().get("provider") == "agent":
            # An agent is a system with its own state and version: its cells are always answered afresh.
            wrapped[spec] = candidate
            bypassed[spec] = "agents are never cached: every cell asks a fresh agent"
        else:
            wrapped[spec] = CachedCandidate(candidate, cache, epoch)
    fields: dict[str, Any] = {"enabled": len(bypassed) < len(candidates), "epoch": epoch}
    if bypassed:
        fields["bypassed"] = bypassed
    return wrapped, fields


def summarize_rows(rows: Sequence[ResultRow]) -> dict[str, Any]:
    """The manifest's accounting fields, named as in :class:`sitbench.runs.RunManifest`.

    ``counts``: ``attempted`` (cells), ``completed`` (cells with a response text, ``ok``
    or ``invalid``), ``dropped`` (status ``error``: a drop, a timeout or an exception),
    ``retries``, ``calls`` and ``cache_hits``; and the distinct ``models_sent``,
    ``returned_models`` and ``system_fingerprints``.
    """
    counts = {"attempted": len(rows), "completed": 0, "dropped": 0, "retries": 0, "calls": len(rows),
              "cache_hits": 0}
    for row in rows:
        counts["completed"] += row.status != "error"
        counts["dropped"] += row.status == "error"
        counts["retries"] += row.retries
        counts["cache_hits"] += row.cached
    return {
        "counts": counts,
        "models_sent": sorted({r.model_sent for r in rows if r.model_sent}),
        "returned_models": sorted({r.returned_model for r in rows if r.returned_model}),
        "system_fingerprints": sorted({r.system_fingerprint for r in rows if r.system_fingerprint}),
    }


def _write_json(path: Path, payload: Any) -> None:
    write_text_atomic(path, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def _start_manifest(models: Sequence[str], candidates: dict[str, Candidate], scenarios: Sequence[ResScenario],
                    plan: Sequence[Cell], *, scenarios_source: str, scenarios_sha256: str,
                    decoding: DecodingConfig, concurrency: int, cache_fields: dict[str, Any]) -> dict[str, Any]:
    """The RES manifest as written when the battery starts (``finished_at`` null)."""
    providers = {str(p) for p in (candidates[spec].describe().get("provider") for spec in models) if p}
    started = _now()
    return {
        "battery": "res",
        "preregistration": "RES actor-indexed episodic-continuity specificity battery (2026-09-10)",
        "models": list(models),
        "candidates": {spec: candidates[spec].describe() for spec in models},
        "seed": EXECUTION_SEED,
        "conditions": list(CONDITIONS),
        "scenarios_source": scenarios_source,
        "scenarios_sha256": scenarios_sha256,
        "n_scenarios": len(scenarios),
        "n_cells": len(plan),
        "execution_order_sha256": hashlib.sha256(
            "\n".join(f"{c.model}\t{c.scenario_id}\t{c.condition}" for c in plan).encode()
        ).hexdigest(),
        "decoding": decoding.model_dump(),
        "concurrency": concurrency,
        "sitbench_version": __version__,
        "started_at": started,
        "finished_at": None,
        # The same facts under the names of sitbench.runs.RunManifest; the fields above stay for
        # readers of older RES manifests.
        "package_version": __version__,
        "git_commit": git_commit(),
        "created_at": started,
        "provider": providers.pop() if len(providers) == 1 else None,
        "seeds": {"execution": EXECUTION_SEED, **({"decoding": decoding.seed} if decoding.seed is not None else {})},
        "cache": cache_fields,
    }


async def run_battery(
    models: Sequence[str],
    candidates: dict[str, Candidate],
    scenarios: Sequence[ResScenario],
    out_dir: Path,
    *,
    scenarios_source: str,
    scenarios_sha256: str,
    decoding: DecodingConfig,
    concurrency: int = 4,
    progress: bool | None = None,
    response_cache: ResponseCache | None = None,
    epoch: int = 0,
) -> ResScore:
    """Run the battery into ``out_dir`` and score it.

    Writes ``manifest.json`` at the start (with ``finished_at`` null) and again at the end,
    ``results.jsonl`` (a line per cell as it finishes, into a temporary file beside it that replaces
    it once every cell is done) and ``summary.json`` (the score). Every file is written through a
    temporary file and a rename, so none is ever torn.

    Args:
        models: Candidate specs, in command-line order.
        candidates: One built candidate per spec.
        scenarios: The scenario set.
        out_dir: Output folder (created if needed).
        scenarios_source: Where the scenarios came from, for the manifest.
        scenarios_sha256: SHA-256 of the scenario file, for the manifest.
        decoding: Decoding parameters sent with every call.
        concurrency: Maximum calls in flight.
        progress: ``False`` shows nothing; otherwise :func:`sitbench.runs.progress_display`
            (a live bar on a terminal, rate-limited lines in a log), as ``sitbench run``.
        response_cache: Serve repeated requests from this cache and store new answers
            there (mocks bypass it); ``None`` runs without one.
        epoch: Repetition index; part of the cache key, so a new epoch samples afresh.

    Raises:
        OutputError: a file of ``out_dir`` cannot be written (a read-only folder, a full disk),
            naming it and the cause.
    """
    from sitbench.runs import progress_display

    make_dirs(out_dir)
    plan = execution_plan(models, scenarios)
    callers, cache_fields = with_cache(candidates, response_cache, epoch)
    manifest = _start_manifest(models, candidates, scenarios, plan, scenarios_source=scenarios_source,
                               scenarios_sha256=scenarios_sha256, decoding=decoding, concurrency=concurrency,
                               cache_fields=cache_fields)
    _write_json(out_dir / MANIFEST_FILE, manifest)
    with atomic_writer(out_dir / RESULTS_FILE) as sink:
        if progress is not False:
            with progress_display("RES") as bar:
                task = bar.add_task("RES cells", total=len(plan))
                rows = await run_cells(
                    plan,
                    scenarios,
                    callers,
                    sink,
                    decoding=decoding,
                    concurrency=concurrency,
                    on_done=lambda _row: bar.advance(task),
                )
        else:
            rows = await run_cells(
                plan, scenarios, callers, sink, decoding=decoding, concurrency=concurrency
            )
    for candidate in candidates.values():
        # An agent's shared resources (an HTTP agent's connection pool) belong to the event loop that ends here.
        close = getattr(candidate, "aclose", None)
        if callable(close):
            await close()
    score = score_results(rows, scenarios, source=str(out_dir / RESULTS_FILE))
    _write_json(out_dir / SUMMARY_FILE, score.model_dump(mode="json"))
    manifest["finished_at"] = _now()
    manifest["status_counts"] = {
        status: sum(1 for row in rows if row.status == status) for status in ("ok", "invalid", "error")
    }
    manifest.update(summarize_rows(rows))
    _write_json(out_dir / MANIFEST_FILE, manifest)
    return score
