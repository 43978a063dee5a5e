"""Payload-isolation audit of serialized prompts (inv11/inv12), run on every prompt of every run."""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass, field

from sitbench.candidates import Message
from sitbench.errors import SitbenchError
from sitbench.lineage._checks import (
    CONTRACT_FIELD_TOKENS,
    TokenSet,
    isolation_tokens,
)
from sitbench.stores import LoadedDataset


class IsolationError(SitbenchError):
    """A prompt carried an internal id, a contract field or a partner record. The run stops."""

    exit_code = 3


@dataclass
class IsolationAudit:
    """Compiled patterns for one dataset."""

    ids: TokenSet
    fields: TokenSet
    partner_only: dict[str, list[str]]
    """Subject → texts of the partner's records that the subject does not share."""
    _clean_chunks: set[str] = field(default_factory=set, repr=False)
    """Space-separated chunks of prompts already found to hold no id and no contract field."""
    _partner_keys: dict[str, _PartnerIndex] = field(default_factory=dict, repr=False)
    """Subject → its partner records, indexed for :meth:`_clean`."""
    _clean_segments: dict[str, set[str]] = field(default_factory=dict, repr=False)
    """Subject → long prompt segments already found clean for that subject."""
    _segment_chars: int = field(default=0, repr=False)
    _clean_parts: dict[str, set[bytes]] = field(default_factory=dict, repr=False)
    """Subject → digests of long prompt fields already found clean for that subject."""
    _part_count: int = field(default=0, repr=False)

    @classmethod
    def for_dataset(cls, ds: LoadedDataset) -> IsolationAudit:
        partner_only: dict[str, list[str]] = {}
        for pair in ds.pairs.values():
            a, b = (ds.hidden.lineages[m] for m in pair.members)
            for own, other in ((a, b), (b, a)):
                own_texts = {e.text for e in own.events}
                partner_only[own.subject] = [e.text for e in other.events if e.text not in own_texts]
        return cls(TokenSet(isolation_tokens(ds)), TokenSet(CONTRACT_FIELD_TOKENS), partner_only)

    def check(self, trial_id: str, subject: str, messages: list[Message]) -> None:
        """Raise :class:`IsolationError` naming the trial, message and offending token."""
        for n, message in enumerate(messages):
            if message.role == "assistant":
                # The candidate's own earlier replies, sent back by a multi-turn schedule:
                # not harness payload, and ordinary words ("gold", "contract") are not leaks.
                continue
            if not self._clean(subject, message.content):
                self._check_text(trial_id, subject, n, message.content)

    def _clean(self, subject: str, text: str) -> bool:
        # A prompt is its configuration's bracketed fields, "[PROFILE …] [CHRONICLE …] …", and a long
        # field lists records joined by "; " (a chronicle, a projected state): the same items come back
        # in many prompts of a subject, in other selections and numberings. Each segment between "] ["
        # or "; " separators is audited once per subject. Exact: no token ([\w-]+) holds a bracket, a
        # semicolon or a space, and a partner record with none of "[", "]", ";" and no leading space
        # lies inside one segment wherever it occurs; the others are looked for in the whole text.
        partners = self._partners(subject)
        if any(record in text for record in partners.straddling):
            return False
        if len(text) < _SEGMENTED:
            # A short prompt (A-C, a later turn's envelope) is cheaper to scan whole than to cut up.
            chunks = _chunks(text)
            return partners.absent_from(text, chunks) and self._clean_chunks_of(chunks)
        seen = self._clean_segments.setdefault(subject, set())
        parts = self._clean_parts.setdefault(subject, set())
        for part in text.split("] ["):
            digest = None
            if len(part) >= _PART_MIN:
                # A long field (a chronicle, a projected state) comes back whole in most prompts of its
                # subject: it is known clean by its SHA-256, so that its segments are not looked up one
                # by one again (and the field itself is not held).
                digest = hashlib.sha256(part.encode("utf-8", "surrogatepass")).digest()
                if digest in parts:
                    continue
            for segment in part.split("; "):
                if segment in seen:
                    continue
                chunks = _chunks(segment)
                if not (partners.absent_from(segment, chunks) and self._clean_chunks_of(chunks)):
                    return False
                if len(segment) >= _SEGMENT_MIN:
                    if self._segment_chars >= _SEGMENT_CHARS:
                        self._clean_segments.clear()
                        self._segment_chars = 0
                        seen = self._clean_segments.setdefault(subject, set())
                    seen.add(segment)
                    self._segment_chars += len(segment)
            if digest is not None:
                if self._part_count >= _CLEAN_PARTS:
                    self._clean_parts.clear()
                    self._part_count = 0
                    parts = self._clean_parts.setdefault(subject, set())
                parts.add(digest)
                self._part_count += 1
        return True

    def _clean_chunks_of(self, chunks: set[str]) -> bool:
        """Whether no chunk holds an id or a contract field (prompts repeat the same words from trial
        to trial: each chunk is scanned once; exact, since a token never crosses a space or a line break)."""
        clean = self._clean_chunks
        for chunk in chunks:
            if chunk in clean:
                continue
            if self.ids.find(chunk) or self.fields.find(chunk):
                return False
            if len(clean) >= _CLEAN_CHUNKS:
                clean.clear()
            clean.add(chunk)
        return True

    def _partners(self, subject: str) -> _PartnerIndex:
        index = self._partner_keys.get(subject)
        if index is None:
            index = self._partner_keys[subject] = _PartnerIndex(self.partner_only.get(subject, []))
        return index

    def _check_text(self, trial_id: str, subject: str, n: int, text: str) -> None:
        for label, tokens in (("internal identifier", self.ids), ("contract field", self.fields)):
            if found := tokens.find(text):
                raise IsolationError(f"isolation audit: trial {trial_id} message {n} contains the {label} "
                                     f"{found!r}; the run is stopped (fix the template or the dataset)")
        for record in self.partner_only.get(subject, []):
            if record in text:
                raise IsolationError(f"isolation audit: trial {trial_id} message {n} contains a partner "
                                     f"record ({record[:50]!r}…); the run is stopped")


def _chunks(text: str) -> set[str]:
    return set(text.replace("\n", " ").split(" "))


class _PartnerIndex:
    """One subject's partner records, arranged so that a text is searched only for those that can be in it.

    A record without a line break that occurs in a text has spaces on both sides of each of its inner
    chunks there (every word but its first and last), so those are whole chunks of the text. Each such
    record is filed under one of its inner chunks, the longest (long words are rare): a text can hold
    only records filed under one of its own chunks, and only those are searched for. Records with no
    inner chunk (one or two words, or a line break) are searched for in every text at least as long;
    records that may cross a segment separator (one with a bracket or a semicolon, or a leading space)
    are searched for in the whole prompt.
    """

    def __init__(self, records: list[str]) -> None:
        self.straddling: list[str] = []
        self.unanchored: list[str] = []
        self.anchored: dict[str, list[tuple[str, frozenset[str]]]] = {}
        for record in sorted(records, key=len):
            if "[" in record or "]" in record or ";" in record or record.startswith(" ") or not record.strip(" "):
                self.straddling.append(record)
                continue
            inner = frozenset() if "\n" in record else frozenset(record.split(" ")[1:-1])
            if not inner:
                self.unanchored.append(record)
            else:
                self.anchored.setdefault(max(sorted(inner), key=len), []).append((record, inner))
        self._unanchored_lengths = [len(r) for r in self.unanchored]
        self._anchors = frozenset(self.anchored)

    def absent_from(self, text: str, chunks: set[str]) -> bool:
        """Whether no record (but the straddling ones, looked for apart) occurs in ``text`` (whose chunks are ``chunks``)."""
        for record in self.unanchored[:bisect.bisect_right(self._unanchored_lengths, len(text))]:
            if record in text:
                return False
        anchored = self.anchored
        for chunk in self._anchors & chunks:  # in C, over the smaller of the two sets
            for record, inner in anchored[chunk]:
                if len(record) <= len(text) and chunks.issuperset(inner) and record in text:
                    return False
        return True


# Clean chunks remembered before starting again (bounded memory; the audit stays exact).
_CLEAN_CHUNKS = 200_000
# Prompts this long or longer are cut into segments (see IsolationAudit._clean); shorter ones are scanned whole.
_SEGMENTED = 4096
# Segments shorter than this are audited each time (cheap); the longer ones are remembered, up to this
# many characters in all before starting again.
_SEGMENT_MIN = 8
_SEGMENT_CHARS = 16_000_000
# Fields between "] [" separators this long or longer are remembered whole (by digest) once clean, up to
# this many digests before starting again.
_PART_MIN = 2048
_CLEAN_PARTS = 1_000_000
