"""Execute a run: every (configuration, probe) trial through one candidate, schedules included."""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from sitbench._version import __version__, git_commit
from sitbench.candidates import (
    CachedCandidate,
    Candidate,
    DecodingConfig,
    ResponseCache,
    bypasses_cache,
)
from sitbench.configs import (
    BUDGETED_G,
    CONFIGS,
    SESSION_RESET_POLICY,
    TOKENIZER_NAME,
    ChronicleRetriever,
    MiniLMEmbedder,
    templates_sha256,
)
from sitbench.errors import InputError
from sitbench.lineage import IsolationAudit, run_checks
from sitbench.runs._group_commit import GroupCommitWriter
from sitbench.runs._records import ProbeSelection, RunManifest, TrialRecord
from sitbench.runs._schedule import cap_trial, opening_utterances, run_trial
from sitbench.runs._store import RESUME_HINT, RunStore
from sitbench.runs._summary import TrialSummary, summarize_trials
from sitbench.runs._workers import OnDone, run_forked, run_here, run_workers
from sitbench.stores import MANIFEST, LoadedDataset, load_dataset, make_dirs, output_error, sha256_file
from sitbench.verify import DEFAULT_MAX_RESPONSE_CHARS


@dataclass
class RunOptions:
    """What to run and how."""

    configs: list[str]
    handler: Literal["native", "perfect"] = "native"
    decoding: DecodingConfig = field(default_factory=DecodingConfig)
    max_connections: int = 8
    shard: tuple[int, int] | None = None
    cache_dir: Path | None = None
    response_cache: ResponseCache | None = None
    """Response cache; None runs without one. Mock candidates bypass it."""
    epoch: int = 0
    """Repetition index; part of the cache key, so a new epoch re-samples."""
    workers: int | None = 1
    """Processes that run the trials (forked once the dataset is loaded; see :func:`run_workers`).
    None chooses: one per CPU for a large run of a mock candidate, else 1."""
    max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS
    """The cap on one answer, in characters (:func:`~sitbench.runs.cap_trial`); recorded in the manifest."""
    probes: ProbeSelection | None = None
    """A partial run's probes (``--probes`` / ``--limit``), the same for every configuration; None runs all."""


def parse_configs(value: str) -> list[str]:
    """``all`` (A–I) or a comma list of A–I and ``G_budget`` (budgeted G for E6)."""
    if value.strip().lower() == "all":
        return list(CONFIGS)
    known = {c.upper(): c for c in (*CONFIGS, BUDGETED_G)}
    parts = [c.strip() for c in value.split(",")]
    if any(not c for c in parts):
        raise InputError(f"--config {value!r}: an empty item; use 'all' or a comma list of A–I and {BUDGETED_G}, "
                         "such as B,C,I")
    chosen = [known.get(c.upper(), c) for c in parts]
    bad = [c for c in chosen if c not in known.values()]
    if bad or not chosen:
        raise InputError(f"--config {value!r}: use 'all' or a comma list of A–I and {BUDGETED_G} (unknown: {bad})")
    return list(dict.fromkeys(chosen))


def parse_shard(value: str | None) -> tuple[int, int] | None:
    """``i/n`` with 1 ≤ i ≤ n."""
    if value is None:
        return None
    try:
        i, n = (int(x) for x in value.split("/"))
    except ValueError:
        raise InputError(f"--shard {value!r}: use i/n, e.g. 2/8") from None
    if not 1 <= i <= n:
        raise InputError(f"--shard {value!r}: need 1 ≤ i ≤ n")
    return i, n


def trial_ids(ds: LoadedDataset, configs: Sequence[str], shard: tuple[int, int] | None,
              probes: ProbeSelection | None = None) -> list[tuple[str, str]]:
    """(config, probe_id) in a fixed order; a partial run (``probes``) keeps the selected probes of every
    configuration; a shard takes every n-th trial."""
    chosen = set(probes.probe_ids) if probes is not None else None
    trials = [(c, p) for c in configs for p in ds.hidden.probes if chosen is None or p in chosen]
    if shard:
        i, n = shard
        trials = [t for k, t in enumerate(trials) if k % n == i - 1]
    return trials


def dataset_fields(ds: LoadedDataset) -> dict[str, object]:
    """The ``dataset`` block of a run manifest: where the dataset is, its suite, seed, manifest digest, counts."""
    manifest = ds.manifest
    # An absolute path: a run is scored from wherever the user stands, not only where it was started.
    return {"path": str(ds.root.resolve()), "suite": manifest.suite if manifest else None,
            "seed": manifest.seed if manifest else None,
            "manifest_sha256": sha256_file(ds.root / MANIFEST) if (ds.root / MANIFEST).exists() else None,
            "counts": manifest.counts if manifest else {}}


def verify_run_dataset(ds: LoadedDataset, recorded: dict[str, object], run: Path) -> None:
    """Stop when ``ds`` is not the dataset the run was made with, or was edited since.

    Two checks: the SHA-256 of the dataset's manifest against the one the run recorded, and every
    store file against the hash the dataset's manifest lists for it.

    Raises:
        InputError: naming the file that differs and what to do.
    """
    expected = recorded.get("manifest_sha256")
    actual = dataset_fields(ds).get("manifest_sha256")
    if expected and actual != expected:
        found = f"has {actual}" if actual else f"has no {MANIFEST}"
        raise InputError(f"{run}/manifest.json: dataset.manifest_sha256 is {expected} but {ds.root / MANIFEST} "
                         f"{found}; pass the dataset the run was made with (--dataset DIR)")
    for rel, digest in (ds.manifest.files if ds.manifest else {}).items():
        path = ds.root / rel
        if not path.is_file() or sha256_file(path) != digest:
            raise InputError(f"{path}: {'missing' if not path.is_file() else 'changed'} since the dataset was "
                             f"written (its {MANIFEST} lists SHA-256 {digest}); restore the file, or regenerate the "
                             "dataset and re-run: verdicts against an edited dataset would not be the run's")


class Runner:
    """Runs trials for one dataset and candidate into one run directory."""

    def __init__(self, dataset_dir: Path, candidate: Candidate, model: str, out: Path, options: RunOptions,
                 on_trial: OnDone | None = None, on_stage: Callable[[str], None] | None = None) -> None:
        self.ds = load_dataset(dataset_dir)
        failed = [r.id for r in run_checks(self.ds) if not r.passed]
        if failed:
            raise InputError(f"{dataset_dir}: integrity checks {failed} fail; run `sitbench validate {dataset_dir}`")
        self.cached: CachedCandidate | None = None
        if options.response_cache is not None and not bypasses_cache(candidate):
            self.cached = CachedCandidate(candidate, options.response_cache, options.epoch)
            candidate = self.cached
        self.candidate = candidate
        self.model = model
        self.options = options
        self.store = RunStore(out)
        self.audit = IsolationAudit.for_dataset(self.ds)
        self.on_trial = on_trial
        self.on_stage = on_stage or (lambda _stage: None)
        """Told what the run does before its first trial (a non-empty stage), and when trials start (``""``)."""
        needs_retrieval = any(c in "EF" for c in options.configs) and options.handler == "native"
        # Two onnxruntime threads embed the run's queries about 1.8 times as fast as one, with the same
        # vectors bit for bit (checked by a test); the session is dropped before the first trial.
        self.retriever = ChronicleRetriever(MiniLMEmbedder(intra_op_threads=min(2, os.cpu_count() or 1)),
                                            cache_dir=options.cache_dir) if needs_retrieval else None

    def _cache_fields(self) -> dict[str, object]:
        if self.options.response_cache is None:
            return {"enabled": False}
        if self.cached is None:
            return {"enabled": False, "bypassed": "deterministic mock candidates are never cached"}
        return {"enabled": True, "epoch": self.options.epoch}

    def _check_resumable(self, existing: RunManifest) -> None:
        """A resumed run continues the same experiment: same model, dataset, configurations, handler,
        decoding and shard, or it stops naming what differs."""
        o = self.options
        here = dataset_fields(self.ds)
        differences = []
        if existing.candidate.get("spec") not in (None, self.model):
            differences.append(f"--model {existing.candidate.get('spec')} (now {self.model})")
        if existing.dataset.get("manifest_sha256") not in (None, here.get("manifest_sha256")):
            differences.append(f"the dataset {existing.dataset.get('path')} (manifest SHA-256 "
                               f"{existing.dataset.get('manifest_sha256')}; now {here.get('path')}, "
                               f"{here.get('manifest_sha256')})")
        if list(existing.configs) != list(o.configs):
            differences.append(f"--config {','.join(existing.configs)} (now {','.join(o.configs)})")
        if (existing.max_response_chars or o.max_response_chars) != o.max_response_chars:
            differences.append(f"--max-response-chars {existing.max_response_chars} (now {o.max_response_chars})")
        if existing.handler != o.handler:
            differences.append(f"--handler {existing.handler} (now {o.handler})")
        if existing.decoding != o.decoding:
            differences.append(f"decoding {existing.decoding.model_dump()} (now {o.decoding.model_dump()})")
        shard = f"{o.shard[0]}/{o.shard[1]}" if o.shard else None
        if existing.shard != shard:
            differences.append(f"--shard {existing.shard} (now {shard})")
        if (existing.probes.probe_ids if existing.probes else None) != (o.probes.probe_ids if o.probes else None):
            differences.append(f"the probes ({existing.probes.rule if existing.probes else 'all'}; now "
                               f"{o.probes.rule if o.probes else 'all'})")
        was_epoch = (existing.cache or {}).get("epoch", 0) if (existing.cache or {}).get("enabled") else 0
        epoch = o.epoch if o.response_cache is not None else 0
        if was_epoch != epoch:
            differences.append(f"--epoch {was_epoch} (now {epoch})")
        if differences:
            raise InputError(f"{self.store.root}: --resume continues the same run, which was made with "
                             + "; ".join(differences) + ". Resume with the run's settings, or choose another --out")

    def manifest(self, started: str, existing: RunManifest | None) -> RunManifest:
        o = self.options
        describe = self.candidate.describe()
        return RunManifest(
            run_id=existing.run_id if existing else uuid.uuid4().hex[:12],
            created_at=existing.created_at if existing else started,
            package_version=__version__, git_commit=git_commit(), dataset=dataset_fields(self.ds),
            configs=o.configs, handler=o.handler, candidate={"spec": self.model} | describe,
            provider=str(describe.get("provider")) if describe.get("provider") else None,
            cache=self._cache_fields(),
            decoding=o.decoding, retriever=self.retriever.manifest() if self.retriever else None,
            templates_sha256=templates_sha256(), shard=f"{o.shard[0]}/{o.shard[1]}" if o.shard else None,
            probes=o.probes,
            seeds={"decoding": o.decoding.seed} if o.decoding.seed is not None else {},
            session_reset_policy="; ".join(f"{c}: {SESSION_RESET_POLICY[c]}" for c in o.configs),
            verifier_version=existing.verifier_version if existing else None,
            tokenizer=TOKENIZER_NAME,
            extra=existing.extra if existing else {},
            max_response_chars=o.max_response_chars,
        )

    def _answers_with_cpu(self) -> bool:
        """Whether the candidate's answers are computed in this process (the mocks): forked workers help."""
        return bypasses_cache(self.candidate)

    async def _trial(self, config: str, probe_id: str) -> TrialRecord:
        return await run_trial(self.ds, config, probe_id, self.candidate, model=self.model,
                               handler=self.options.handler, decoding=self.options.decoding,
                               retriever=self.retriever, audit=self.audit,
                               max_response_chars=self.options.max_response_chars)

    async def _capped_trial(self, config: str, probe_id: str) -> TrialRecord:
        """:meth:`_trial` under the answer cap, whatever answered (a candidate, an agent, the cache)."""
        return cap_trial(await self._trial(config, probe_id), self.options.max_response_chars)

    async def run(self, resume: bool = False) -> RunManifest:
        """Run every trial not yet in responses.jsonl; returns the final manifest.

        Holds an exclusive lock on the run directory while it runs (a second
        writer is refused; a killed process releases it). At the end,
        responses.jsonl is rewritten atomically in canonical trial order (when
        arrival order differed), so a resumed run ends with the same file as an
        uninterrupted one.

        Raises:
            OutputError: a file of the run cannot be written (a read-only folder, a full disk), naming
                it and the cause; every trial done before stays in responses.jsonl, and --resume
                continues the run once the cause is fixed.
        """
        make_dirs(self.store.root)
        self.store.refuse_links()
        with _run_lock(self.store.root) as lock:
            self._lock_fd = lock
            return await self._run(resume)

    async def _run(self, resume: bool) -> RunManifest:
        started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        existing = None
        if self.store.has_manifest():
            if not resume:
                raise InputError(f"{self.store.root}: already holds a run; pass --resume to continue it "
                                 "or choose another --out")
            existing = self.store.manifest()
            self._check_resumable(existing)
        elif resume:
            raise InputError(f"{self.store.root}: nothing to resume (no manifest.json)")
        # Read (and repair) the stored trials before the manifest is rewritten: a damaged file stops the
        # resume with the manifest as it was. A dropped trial is not done: resuming re-attempts it.
        stored = [(t.trial_id, t.status) for t in self.store.iter_trials(repair=True)]
        done = {trial_id for trial_id, status in stored if status != "dropped"}
        manifest = self.manifest(started, existing)
        self.store.write_manifest(manifest, RESUME_HINT if existing is not None else "choose another --out")
        todo = [(c, p) for c, p in trial_ids(self.ds, self.options.configs, self.options.shard,
                                                  self.options.probes)
                if f"{c}:{p}" not in done]
        if self.retriever is not None:
            # Every query E and F will retrieve with embedded in batches, and every subject they search
            # indexed, before the first trial; the embedding model is then let go.
            searched = [p for c, p in todo if c in "EF"]
            self.on_stage(f"embedding {len(searched):,} E/F queries and the records they search; cached on disk, "
                          "so only a first run over a dataset embeds")
            self.retriever.prepare((q for p in searched for q in opening_utterances(self.ds, p)),
                                   {s: self.ds.visible.subjects[s] for s in
                                    (self.ds.visible.queries[self.ds.hidden.probes[p].query_key].subject
                                     for p in searched)}.values())
            self.retriever.release()
        processes = run_workers(self.options.workers, len(todo), self._answers_with_cpu())
        self.on_stage("")
        # A fresh run counts its trials as they are done; a resumed one counts the file at the end.
        summary = TrialSummary() if not stored else None
        if processes > 1:
            await run_forked(todo, self._capped_trial, self.options.max_connections, processes,
                             self.store.responses_path, self.on_trial, close_in_workers=[self._lock_fd],
                             summary=summary)
        else:
            async with GroupCommitWriter(self.store.responses_path) as writer:
                await run_here(todo, self._capped_trial, self.options.max_connections, writer, self.on_trial, summary)
        if stored or processes == 1:
            # One line per trial (a re-attempted drop's later record stands), in canonical order; the
            # lines are copied. Forked workers' lines of a fresh run were written in that order.
            order = {f"{c}:{p}": k for k, (c, p) in enumerate(trial_ids(self.ds, self.options.configs,
                                                                        self.options.shard))}
            self.store.rewrite_trials(lambda trial_id: order.get(trial_id, len(order)))
        manifest = manifest.model_copy(update={
            "finished_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            **(summary.fields() if summary is not None else summarize_trials(self.store.iter_trial_tallies()))})
        self.store.write_manifest(manifest, RESUME_HINT)
        return manifest


@contextlib.contextmanager
def _run_lock(root: Path) -> Iterator[int]:
    """Exclusive advisory lock on ``RUN/.lock`` (yields its descriptor); the kernel releases it if the process dies."""
    try:
        fd = os.open(root / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise output_error(root / ".lock", exc) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(f"{root}: another sitbench process is writing this run; wait for it "
                             "or choose another --out") from None
        yield fd
    finally:
        os.close(fd)


