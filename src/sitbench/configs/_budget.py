"""Budgeted configuration G (``G_budget``) and the named offline tokenizer that E6 counts with.

E6 compares the prompt length of the full chronicle (D) with structured state under an
enforced input-token budget ``B`` (seed §8.1; ``B = 4096`` tokens including the query
envelope and the fixed wrapper). The rules fixed here:

Tokenizer
    The WordPiece tokenizer of all-MiniLM-L6-v2 (the ``bert-base-uncased`` vocabulary,
    lower-cased), read from the ``tokenizer.json`` that ships with sitbench
    (``configs/data``, Apache-2.0) — never downloaded. A prompt's size is the sum over its messages of the word
    pieces of the message text, without ``[CLS]``/``[SEP]`` and without the chat
    template's role markers (those depend on the serving engine, not on the configuration).

Serialization order
    Exactly configuration G's: the checkpoint profile, then the projected state in the
    section order MEMORIES, ACQUIRED KNOWLEDGE, BELIEFS WITH HISTORY, RELATIONSHIPS, each
    section oldest-first (chronicle order), then capability declaration, policies and the
    envelope. With a budget that does not bind, ``G_budget`` is byte-identical to G.

Truncation rule
    Only evidence items are ever dropped: a memory record, an acquisition, a belief (with
    its stance history up to τ) or a relationship. The envelope, the profile, the policy
    texts and the earlier turns of the session are never cut. Items are dropped one by one
    in a fixed sequence until the prompt fits: memories oldest-first, then acquisitions
    oldest-first, then beliefs, then relationships (each by the date of its latest version
    at τ, oldest-first). Raw episodic memory therefore goes before the structured
    pointers (current stances and clearances) that summarise it. When even the bare frame
    exceeds the budget, every item is dropped and the build is marked ``fits = False``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from sitbench.candidates import Message, PromptView
from sitbench.configs._builders import (
    BuildContext,
    PromptBuild,
    _record_line,
    build_prompt,
)
from sitbench.configs._embedder import (
    _TOKENIZER_DISTRIBUTION,
    _TOKENIZER_PACKAGE,
    _TOKENIZER_PARTS,
    _package_file,
)
from sitbench.errors import InputError
from sitbench.schema import Query, SubjectEvidence

BUDGETED_G = "G_budget"
"""Configuration name of G under the enforced input-token budget (as in the E6 registry entry)."""

DEFAULT_TOKEN_BUDGET = 4096
"""The planned budget ``B`` in tokens, including the query envelope and the fixed wrapper."""

TOKENIZER_NAME = "bert-base-uncased WordPiece (all-MiniLM-L6-v2 tokenizer.json)"
"""Human-readable name of the tokenizer E6 counts prompt tokens with."""

SERIALIZATION_ORDER = (
    "profile; projected state sections MEMORIES, ACQUIRED KNOWLEDGE, BELIEFS WITH HISTORY, RELATIONSHIPS, "
    "each oldest-first; capability and policies; envelope (configuration G's template)"
)
"""The fixed serialization order of ``G_budget``, as recorded in each budget record."""

TRUNCATION_RULE = (
    "drop evidence items one by one until the prompt fits: memories oldest-first, then acquisitions "
    "oldest-first, then beliefs, then relationships (by latest version at tau, oldest-first); the envelope, "
    "profile, policies and earlier session turns are never cut"
)
"""The fixed truncation rule of ``G_budget``, as recorded in each budget record."""

Section = Literal["memories", "acquisitions", "beliefs", "relationships"]


@runtime_checkable
class TokenCounter(Protocol):
    """Anything that counts prompt tokens; E6 records its ``name``."""

    @property
    def name(self) -> str:
        """Name of the tokenizer, recorded next to every count."""
        ...

    def count(self, text: str) -> int:
        """Number of tokens of ``text`` (no special tokens)."""
        ...


class WordPieceCounter:
    """Offline WordPiece token counter over the tokenizer file shipped with sitbench.

    The file is read lazily on the first count. Its shipped settings pad and truncate to
    128 word pieces (they serve the embedder); both are switched off here, since a
    truncated count would hide exactly the growth E6 measures.
    """

    def __init__(self) -> None:
        self._tokenizer: Any = None
        self._sha256: str | None = None
        self._lock = threading.Lock()
        # Whether counts add up over space-separated chunks (a BERT normalizer and pre-tokenizer):
        # checked on load.
        self._additive = False
        # Chunk → word pieces, for chunks already counted.
        self._memo: dict[str, int] = {}
        # SHA-256 of a long prompt field → word pieces (see count): a D, G or H field is tens of kB and
        # a run has thousands of distinct ones, too many to hold as text.
        self._fields: dict[bytes, int] = {}
        # Item of a long field → word pieces, and the characters they hold.
        self._items: dict[str, int] = {}
        self._item_chars = 0
        # Word pieces of the ";" of an item separator "; " (BERT's pre-tokenizer isolates punctuation).
        self._semicolon = 0

    @property
    def name(self) -> str:
        """Tokenizer name with the version of sitbench that shipped it."""
        return f"{TOKENIZER_NAME}, {_TOKENIZER_DISTRIBUTION} {_version()}"

    @property
    def sha256(self) -> str:
        """SHA-256 of the tokenizer file actually used."""
        self._load()
        assert self._sha256 is not None
        return self._sha256

    def describe(self) -> dict[str, str]:
        """What a run manifest or an E6 report records about the tokenizer."""
        return {
            "name": TOKENIZER_NAME,
            "package": _TOKENIZER_DISTRIBUTION,
            "package_version": _version(),
            "file": "/".join(_TOKENIZER_PARTS),
            "sha256": self.sha256,
            "counting": "word pieces of each message's text, no special tokens, no chat-template markers",
        }

    def count(self, text: str) -> int:
        """Number of word pieces of ``text``, without ``[CLS]``/``[SEP]`` and without truncation.

        The same number as encoding the whole text at once: BERT's normalizer works character by
        character and its pre-tokenizer splits at every space and line break, so no word piece
        crosses one and a text's count is the sum of its space-separated chunks' counts. Chunks
        are counted once and remembered, so a prompt of words already seen costs lookups."""
        self._load()
        if not self._additive:
            return len(self._tokenizer.encode(text, add_special_tokens=False).ids)
        if len(text) < _FIELD_MIN or _SEPARATOR not in text:
            return sum(self._chunk_counts(_chunks(text)))
        # A prompt is bracketed fields, "[PROFILE …] [CHRONICLE …] …", and a long one comes back
        # unchanged in many prompts: the text is cut at the space inside each "] [" (a chunk
        # boundary, so the counts add up) and a long field's count is remembered.
        segments = text.split(_SEPARATOR)
        last = len(segments) - 1
        total, short = 0, []
        for i, segment in enumerate(segments):
            field = ("[" if i else "") + segment + ("]" if i < last else "")
            if len(field) < _FIELD_MIN:
                short.append(field)
                continue
            digest = hashlib.sha256(field.encode("utf-8", "surrogatepass")).digest()
            count = self._fields.get(digest)
            if count is None:
                count = self._items_count(field)
                if len(self._fields) >= _FIELDS:
                    self._fields.clear()
                self._fields[digest] = count
            total += count
        return total + sum(self._chunk_counts(_chunks(" ".join(short))))

    def _items_count(self, field: str) -> int:
        # A long field lists items joined by "; " (a chronicle's records, a state's memories), and the
        # same items come back in other selections and numberings: each item's count is remembered.
        # The counts add up: the space of "; " is a chunk boundary, and the pre-tokenizer makes the ";"
        # a word piece of its own whatever precedes it.
        # An item's first chunk (a chronicle's "[12]", a state's date) is counted apart and the rest is
        # remembered, so that a record counts once whatever its number in a selection: the space after
        # the first chunk is a chunk boundary.
        items = field.split("; ")
        total = (len(items) - 1) * self._semicolon
        fresh = []
        heads = []
        for item in items:
            head, space, rest = item.partition(" ")
            if space and len(rest) >= _ITEM_MIN:
                heads.append(head)
                item = rest
            count = self._items.get(item)
            if count is None:
                fresh.append(item)
            else:
                total += count
        total += sum(self._chunk_counts([chunk for head in heads for chunk in _chunks(head)]))
        if fresh:
            parts = [_chunks(item) for item in fresh]
            counts = self._chunk_counts([chunk for chunks in parts for chunk in chunks])
            start = 0
            for item, chunks in zip(fresh, parts, strict=True):
                count = sum(counts[start:start + len(chunks)])
                start += len(chunks)
                if len(item) >= _ITEM_MIN:
                    self._remember(item, count)
                total += count
        return total

    def _remember(self, item: str, count: int) -> None:
        if self._item_chars + len(item) > _ITEM_CHARS:
            self._items.clear()
            self._item_chars = 0
        self._items[item] = count
        self._item_chars += len(item)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Word-piece counts of several texts (new chunks batched in the tokenizer)."""
        self._load()
        if not texts:
            return []
        if not self._additive:
            return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts), add_special_tokens=False)]
        parts = [_chunks(text) for text in texts]
        counts = iter(self._chunk_counts([chunk for chunks in parts for chunk in chunks]))
        return [sum(next(counts) for _ in chunks) for chunks in parts]

    def _chunk_counts(self, chunks: list[str]) -> list[int]:
        memo = self._memo
        counts = [memo.get(chunk, -1) for chunk in chunks]
        if -1 not in counts:
            return counts
        new = list(dict.fromkeys(chunk for chunk, n in zip(chunks, counts, strict=True) if n < 0))
        encoded = [len(e.ids) for e in self._tokenizer.encode_batch(new, add_special_tokens=False)]
        fresh = dict(zip(new, encoded, strict=True))
        if len(memo) + len(fresh) > _MEMO_CHUNKS:
            memo.clear()  # bounded memory; counts stay exact, only the savings restart
        memo.update(fresh)
        return [n if n >= 0 else fresh[chunk] for chunk, n in zip(chunks, counts, strict=True)]

    def _load(self) -> None:
        if self._tokenizer is not None:
            return
        with self._lock:
            if self._tokenizer is not None:
                return
            from tokenizers import Tokenizer

            raw = _package_file(_TOKENIZER_PACKAGE, _TOKENIZER_PARTS, _TOKENIZER_DISTRIBUTION)
            tokenizer = Tokenizer.from_str(raw.decode("utf-8"))
            tokenizer.no_padding()
            tokenizer.no_truncation()
            settings = json.loads(raw)
            self._additive = ((settings.get("normalizer") or {}).get("type") == "BertNormalizer"
                              and (settings.get("pre_tokenizer") or {}).get("type") == "BertPreTokenizer")
            self._sha256 = hashlib.sha256(raw).hexdigest()
            self._semicolon = len(tokenizer.encode(";", add_special_tokens=False).ids)
            self._tokenizer = tokenizer


def _version() -> str:
    return importlib.metadata.version(_TOKENIZER_DISTRIBUTION)


_DEFAULT_COUNTER: WordPieceCounter | None = None
# Chunks remembered by a counter before it starts again (a few tens of MB at most).
_MEMO_CHUNKS = 200_000
_SEPARATOR = "] ["
# Fields of a prompt this long or longer are counted item by item and have their counts remembered.
_FIELD_MIN = 256
# Field digests remembered before starting again (about a hundred bytes each).
_FIELDS = 200_000
# Characters of remembered items before starting again.
_ITEM_CHARS = 16_000_000
# Items of a long field this long or longer have their counts remembered (shorter ones cost a lookup per word).
_ITEM_MIN = 16


def _chunks(text: str) -> list[str]:
    # Only U+0020 and line feeds: every tokenizer treats them as word boundaries, while rarer
    # characters that Python calls whitespace (U+001C…) are control characters BERT deletes.
    return text.replace("\n", " ").split(" ")
_DEFAULT_LOCK = threading.Lock()


def wordpiece_counter() -> WordPieceCounter:
    """The shared :class:`WordPieceCounter` (the file is parsed once per process)."""
    global _DEFAULT_COUNTER
    with _DEFAULT_LOCK:
        if _DEFAULT_COUNTER is None:
            _DEFAULT_COUNTER = WordPieceCounter()
        return _DEFAULT_COUNTER


def count_prompt_tokens(messages: Sequence[Message], counter: TokenCounter | None = None) -> int:
    """Total candidate-input tokens of a prompt: the sum over its messages' texts.

    Args:
        messages: the messages of one call.
        counter: the tokenizer; the shared WordPiece counter when ``None``.
    """
    chosen = counter or wordpiece_counter()
    return sum(chosen.count(message.content) for message in messages)


def _count_texts(counter: TokenCounter, texts: list[str]) -> list[int]:
    if isinstance(counter, WordPieceCounter):
        return counter.count_many(texts)
    return [counter.count(text) for text in texts]


class DroppedItem(BaseModel):
    """One evidence item the budget left out."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    section: Section
    """State section the item belongs to."""
    index: int
    """Position of the item in the subject's list for that section (records, acquisitions…)."""
    t: dt.date
    """Date of the item (for beliefs and relationships: the latest version at τ)."""


class BudgetRecord(BaseModel):
    """What the budget did to one prompt: sizes, the rules applied and every dropped item."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    config: str = BUDGETED_G
    """Always ``G_budget``."""
    budget: int
    """Enforced budget ``B`` in tokens (envelope and wrapper included)."""
    tokenizer: str
    """Name of the tokenizer the budget was enforced with."""
    tokens: int
    """Tokens of the prompt actually built."""
    tokens_unbudgeted: int
    """Tokens configuration G would have used on the same inputs (nothing dropped)."""
    frame_tokens: int
    """Tokens with every evidence item dropped: the part the budget can never cut."""
    items_total: int
    """Evidence items G would show at τ (memories, acquisitions, beliefs, relationships)."""
    items_kept: int
    """Evidence items in the budgeted prompt."""
    dropped: list[DroppedItem]
    """Items left out, in the order they were dropped."""
    fits: bool
    """False when even the bare frame exceeds the budget (the envelope is never cut)."""
    serialization_order: str = SERIALIZATION_ORDER
    """The fixed serialization order."""
    truncation_rule: str = TRUNCATION_RULE
    """The fixed truncation rule."""


@dataclass
class BudgetedBuild:
    """A ``G_budget`` prompt, what the budget did, and its timing split."""

    build: PromptBuild
    """The prompt (``view['config'] == 'G_budget'``, ``view['budget']`` holds the record)."""
    record: BudgetRecord
    """Sizes, rules and dropped items (deterministic)."""
    projection_ms: float
    """Time to project the state at τ and list its items (state maintenance/projection)."""
    truncation_ms: float
    """Time spent tokenizing and searching for the largest prefix that fits."""


@dataclass(frozen=True)
class _Item:
    section: Section
    index: int
    t: dt.date


_SECTION_RANK: dict[Section, int] = {"memories": 0, "acquisitions": 1, "beliefs": 2, "relationships": 3}


def _shown_record_indexes(subject: SubjectEvidence, query: Query, turn_index: int, context: BuildContext) -> list[int]:
    # Mirrors configuration G's admissibility in build_prompt: records dated ≤ τ, minus the
    # running session's own record, restricted to the harness's selection when one is given.
    turn = query.turns[turn_index]
    tau = turn.t
    later_sessions = any(t.session > turn.session for t in query.turns)
    admissible = [
        i for i, r in enumerate(subject.records)
        if r.t <= tau and not (later_sessions and r.session_id is not None and r.t >= tau)
    ]
    if context.selected is not None:
        chosen = set(context.selected)
        return [i for i in admissible if i in chosen]
    return admissible


def _state_items(subject: SubjectEvidence, query: Query, turn_index: int, context: BuildContext) -> list[_Item]:
    """Every evidence item G shows at τ, in drop order (first item is dropped first)."""
    tau = query.turns[turn_index].t
    items = [_Item("memories", i, subject.records[i].t)
             for i in _shown_record_indexes(subject, query, turn_index, context)]
    items += [_Item("acquisitions", i, a.t) for i, a in enumerate(subject.acquisitions) if a.t <= tau]
    for i, belief in enumerate(subject.beliefs):
        dates = [s.t for s in belief.stances if s.t <= tau]
        if dates:
            items.append(_Item("beliefs", i, max(dates)))
    for i, relationship in enumerate(subject.relationships):
        dates = [v.t for v in relationship.versions if v.t <= tau]
        if dates:
            items.append(_Item("relationships", i, max(dates)))
    return sorted(items, key=lambda item: (_SECTION_RANK[item.section], item.t, item.index))


def _item_text(subject: SubjectEvidence, item: _Item, tau: dt.date) -> str:
    """The item as G serializes it; used only to estimate where the cut falls."""
    if item.section == "memories":
        return _record_line(subject.records[item.index])
    if item.section == "acquisitions":
        a = subject.acquisitions[item.index]
        return f"{a.t.isoformat()}: {a.topic} (by {a.provenance.value})"
    if item.section == "beliefs":
        b = subject.beliefs[item.index]
        return f"{b.topic}: " + " -> ".join(f"{s.t.isoformat()} {s.stance}" for s in b.stances if s.t <= tau)
    r = subject.relationships[item.index]
    last = [v for v in r.versions if v.t <= tau][-1]
    return f"{r.name} ({last.relation}, cleared for {last.clearance.value})"


def _estimated_cut(full_tokens: int, item_tokens: Sequence[int], budget: int) -> int:
    """Fewest drops whose estimated size fits: each item costs its own tokens plus one separator."""
    total = full_tokens
    for dropped, tokens in enumerate(item_tokens):
        if total <= budget:
            return dropped
        total -= tokens + 1
    return len(item_tokens)


def _fewest_drops(fits: Callable[[int], bool], guess: int, count: int) -> int:
    """Smallest ``j`` in ``1..count`` with ``fits(j)``, given ``fits(0)`` false, ``fits(count)`` true
    and ``fits`` monotone: gallop from the estimate to a bracket, then bisect."""
    guess = min(max(guess, 1), count)
    if fits(guess):
        high, step = guess, 1
        low = high - 1
        while low >= 1 and fits(low):
            high, step = low, step * 2
            low = high - step
        low = max(low, 0)
    else:
        low, step = guess, 1
        high = low + 1
        while high < count and not fits(high):
            low, step = high, step * 2
            high = low + step
        high = min(high, count)
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle
    return high


def _trimmed(subject: SubjectEvidence, kept: Sequence[_Item]) -> SubjectEvidence:
    """The subject reduced to the kept items, each list in its original order."""
    keep: dict[Section, set[int]] = {section: set() for section in _SECTION_RANK}
    for item in kept:
        keep[item.section].add(item.index)
    return subject.model_copy(update={
        "records": [r for i, r in enumerate(subject.records) if i in keep["memories"]],
        "acquisitions": [a for i, a in enumerate(subject.acquisitions) if i in keep["acquisitions"]],
        "beliefs": [b for i, b in enumerate(subject.beliefs) if i in keep["beliefs"]],
        "relationships": [r for i, r in enumerate(subject.relationships) if i in keep["relationships"]],
    })


def build_budgeted_prompt(
    subject: SubjectEvidence,
    query: Query,
    turn_index: int,
    context: BuildContext,
    *,
    budget: int = DEFAULT_TOKEN_BUDGET,
    counter: TokenCounter | None = None,
) -> BudgetedBuild:
    """Serialize one turn under budgeted configuration G (``G_budget``).

    The prompt is configuration G's prompt on the largest set of evidence items that fits
    ``budget`` tokens under the fixed truncation rule (module docstring). Token counts are
    monotone in the number of dropped items, so the cut point is found by binary search
    over the drop sequence with exact re-tokenization of the whole prompt.

    Args:
        subject: the identity's candidate-side evidence.
        query: the query being asked.
        turn_index: which turn of the query's schedule to serialize.
        context: per-trial inputs as for :func:`build_prompt` (session history, a
            harness selection for a perfect handler).
        budget: enforced input-token budget ``B``.
        counter: tokenizer; the shared WordPiece counter when ``None``.

    Returns:
        The prompt, a deterministic record of what was dropped, and the timing split.

    Raises:
        InputError: ``budget`` is not a positive integer.
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InputError(f"budget: {budget!r} must be a positive number of tokens, e.g. {DEFAULT_TOKEN_BUDGET}")
    chosen = counter or wordpiece_counter()
    started = time.perf_counter()
    items = _state_items(subject, query, turn_index, context)
    projection_ms = (time.perf_counter() - started) * 1000
    # The trimmed subject holds only admissible items, so G needs no harness selection.
    plain = BuildContext(retriever=None, selected=None, k=context.k)

    started = time.perf_counter()
    cache: dict[int, tuple[PromptBuild, int]] = {}

    def attempt(dropped: int) -> tuple[PromptBuild, int]:
        if dropped not in cache:
            build = build_prompt("G", _trimmed(subject, items[dropped:]), query, turn_index, plain)
            cache[dropped] = (build, count_prompt_tokens(build.messages, chosen))
        return cache[dropped]

    full_tokens = attempt(0)[1]
    frame_tokens = attempt(len(items))[1]
    if full_tokens <= budget:
        cut = 0
    elif frame_tokens > budget:
        cut = len(items)
    else:
        # Word pieces never span the "; " between items, so per-item counts predict the cut;
        # the exact count of the whole prompt then confirms it (a few tokenizations, not log n).
        tau = query.turns[turn_index].t
        item_tokens = _count_texts(chosen, [_item_text(subject, item, tau) for item in items])
        guess = _estimated_cut(full_tokens, item_tokens, budget)
        cut = _fewest_drops(lambda dropped: attempt(dropped)[1] <= budget, guess, len(items))
    build, tokens = attempt(cut)
    truncation_ms = (time.perf_counter() - started) * 1000

    record = BudgetRecord(
        budget=budget,
        tokenizer=chosen.name,
        tokens=tokens,
        tokens_unbudgeted=full_tokens,
        frame_tokens=frame_tokens,
        items_total=len(items),
        items_kept=len(items) - cut,
        dropped=[DroppedItem(section=item.section, index=item.index, t=item.t) for item in items[:cut]],
        fits=tokens <= budget,
    )
    view: PromptView = {**build.view, "config": BUDGETED_G, "budget": record.model_dump(mode="json")}
    result = PromptBuild(messages=build.messages, view=view,
                         evidence_ms=projection_ms + build.evidence_ms, evidence_count=build.evidence_count)
    return BudgetedBuild(build=result, record=record, projection_ms=projection_ms, truncation_ms=truncation_ms)
