"""What the task, solver and scorer share: the resolved dataset, its audit, retriever and judges, the
opaque sample ids, and the structured view of the turn being answered (for sitbench's mock models).

Nothing here imports Inspect, so the import path (``sitbench import-inspect``) and the tests can use it
without the extra.
"""

from __future__ import annotations

import contextvars
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sitbench.candidates import PromptView
from sitbench.configs import ChronicleRetriever
from sitbench.errors import InputError
from sitbench.lineage import IsolationAudit, run_checks
from sitbench.stores import LoadedDataset, load_dataset
from sitbench.verify import Judge, get_extractor

TRIAL_STORE_KEY = "sitbench_trial"
"""Key of the trial record (``responses.jsonl``'s line) in each sample's Inspect store."""

SAMPLE_METADATA_KEY = "sitbench"
"""Key of sitbench's fields in each sample's metadata (never shown to the model)."""

SUITES_WITH_SEED = ("dev", "heldout", "full", "e6")

_VIEW: contextvars.ContextVar[PromptView | None] = contextvars.ContextVar("sitbench_view", default=None)


def current_view() -> PromptView | None:
    """The structured twin of the prompt being answered now, inside the sitbench solver; else None.

    sitbench's mock models (``sitbench/mock/oracle``, ``sitbench/mock/collapse``) read it instead of
    parsing prose, exactly as ``sitbench run --model mock/...`` does; it holds only what the messages
    show (no contract, no lineage id). Real providers never see it.
    """
    return _VIEW.get()


def set_view(view: PromptView | None) -> contextvars.Token[PromptView | None]:
    """Set :func:`current_view` for the model call about to be made; reset it with the token."""
    return _VIEW.set(view)


def reset_view(token: contextvars.Token[PromptView | None]) -> None:
    _VIEW.reset(token)


def sample_id(manifest_sha256: str | None, trial_id: str) -> str:
    """An opaque, stable sample id for one trial: neither the probe nor the configuration reads off it."""
    digest = hashlib.sha256(f"sitbench-sample\0{manifest_sha256 or ''}\0{trial_id}".encode()).hexdigest()
    return f"s{digest[:15]}"


def _cache_root() -> Path:
    from sitbench.candidates import default_cache_dir

    return default_cache_dir()


def resolve_dataset(dataset: str | os.PathLike[str] | None, suite: str | None, seed: int | None) -> Path:
    """The dataset directory: ``dataset`` as given, or ``suite`` (+ ``seed``) generated once into the cache.

    With neither, the reference pilot. Generated suites are byte-identical for a suite and seed, so the
    cached copy (``$SITBENCH_CACHE_DIR/datasets/SUITE[-seedN]``) is the dataset ``sitbench generate``
    would write.

    Raises:
        InputError: both a path and a suite, a seed for the pilot, or an unknown suite.
    """
    if dataset is not None and (suite is not None or seed is not None):
        raise InputError("sitbench/sit: give -T dataset=DIR or -T suite=SUITE (and -T seed=N), not both")
    if dataset is not None:
        root = Path(dataset).expanduser()
        if not root.is_dir():
            raise InputError(f"-T dataset={dataset}: not a directory; write one with "
                             "`sitbench generate --suite pilot --out DIR`")
        return root
    suite = suite or "pilot"
    if suite == "pilot":
        if seed is not None:
            raise InputError("-T seed: the pilot is hand-authored and takes no seed; use -T suite=dev, heldout, "
                             "full or e6")
        name = "pilot"
    elif suite in SUITES_WITH_SEED:
        seed = 0 if seed is None else int(seed)
        name = f"{suite}-seed{seed}"
    else:
        raise InputError(f"-T suite={suite}: use pilot, {', '.join(SUITES_WITH_SEED)}")
    root = _cache_root() / "datasets" / name
    if (root / "manifest.json").is_file():
        return root
    from sitbench.data import pilot_content, write_dataset

    if suite == "pilot":
        content = pilot_content()
    else:
        from sitbench.data import generate_content

        assert seed is not None, "a generated suite's seed is set with its name above"
        content = generate_content(suite, seed)
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root.parent))
    try:
        write_dataset(content, staging)
        try:
            staging.rename(root)  # another process may have won the race: its copy is the same bytes
        except OSError:
            if not (root / "manifest.json").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return root


@dataclass
class SitContext:
    """One dataset, loaded and checked once per process, with what every sample of it needs."""

    ds: LoadedDataset
    audit: IsolationAudit
    _retriever: ChronicleRetriever | None = None
    _judges: dict[str, Judge] = field(default_factory=dict)

    def retriever(self, configs: list[str], handler: str) -> ChronicleRetriever | None:
        """The dense retriever when configurations E or F run natively (as ``sitbench run`` builds it)."""
        if handler != "native" or not any(c in ("E", "F") for c in configs):
            return None
        if self._retriever is None:
            from sitbench.candidates import default_cache_dir

            self._retriever = ChronicleRetriever(cache_dir=default_cache_dir() / "embeddings")
        return self._retriever

    def judge(self, extractor: str | None) -> Judge:
        """The verifier for this dataset with the named extractor (``rules`` by default), built once."""
        key = extractor or "rules"
        if key not in self._judges:
            self._judges[key] = Judge(self.ds.hidden, self.ds.visible.queries, extractor=get_extractor(key))
        return self._judges[key]


_CONTEXTS: dict[str, SitContext] = {}


def sit_context(root: Path) -> SitContext:
    """The :class:`SitContext` of a dataset directory (cached per resolved path).

    Raises:
        InputError: the dataset fails an integrity check.
    """
    key = str(root.resolve())
    if key not in _CONTEXTS:
        ds = load_dataset(root)
        failed = [r.id for r in run_checks(ds) if not r.passed]
        if failed:
            raise InputError(f"{root}: integrity checks {failed} fail; run `sitbench validate {root}`")
        _CONTEXTS[key] = SitContext(ds=ds, audit=IsolationAudit.for_dataset(ds))
    return _CONTEXTS[key]
