"""Payload-isolation audit of serialized prompts (inv11/inv12), run on every prompt of every run."""

from __future__ import annotations

import bisect
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
    _partner_keys: dict[str, tuple[list[str], list[tuple[str, frozenset[str]]], list[int]]] = field(
        default_factory=dict, repr=False)
    """Subject → its partner records that may cross a segment separator; the others, shortest first,
    each with the chunks it must find whole in a segment that holds it; and their lengths."""
    _clean_segments: dict[str, set[str]] = field(default_factory=dict, repr=False)
    """Subject → long prompt segments already found clean for that subject."""
    _segment_chars: int = field(default=0, repr=False)

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
        # A prompt is its configuration's bracketed fields, "[PROFILE …] [CHRONICLE …] …", and the long
        # ones (a chronicle, a projected state) come back unchanged in many prompts of a subject while
        # the envelope changes: each segment between "] [" separators is audited once per subject.
        # Exact: no token ([\w-]+) holds a bracket or a space, and a partner record with no bracket
        # lies inside one segment wherever it occurs; records with a bracket are looked for in the
        # whole text.
        straddling, partners, lengths = self._partners(subject)
        if any(record in text for record in straddling):
            return False
        if len(text) < _SEGMENTED:
            # A short prompt (A-C, a later turn's envelope) is cheaper to scan whole than to cut up.
            if any(record in text for record, _ in partners[:bisect.bisect_right(lengths, len(text))]):
                return False
            return self._clean_chunks_of(text)
        seen = self._clean_segments.setdefault(subject, set())
        for segment in text.split(_SEPARATOR):
            if segment in seen:
                continue
            # Only records no longer than the segment can be inside it.
            if not self._clean_segment(partners[:bisect.bisect_right(lengths, len(segment))], segment):
                return False
            if len(segment) >= _SEGMENT_MIN:
                if self._segment_chars >= _SEGMENT_CHARS:
                    self._clean_segments.clear()
                    self._segment_chars = 0
                    seen = self._clean_segments.setdefault(subject, set())
                seen.add(segment)
                self._segment_chars += len(segment)
        return True

    def _clean_segment(self, partners: list[tuple[str, frozenset[str]]], segment: str) -> bool:
        # Prompts repeat the same words from trial to trial: each space-separated chunk is scanned
        # for ids and fields once. Exact: a token never crosses a space or a line break.
        chunks = set(segment.replace("\n", " ").split(" "))
        if any(chunks.issuperset(inner) and record in segment for record, inner in partners):
            return False
        return self._clean_chunks_of(segment, chunks)

    def _clean_chunks_of(self, text: str, chunks: set[str] | None = None) -> bool:
        """Whether no space-separated chunk of ``text`` holds an id or a contract field."""
        clean = self._clean_chunks
        for chunk in chunks if chunks is not None else set(text.replace("\n", " ").split(" ")):
            if chunk in clean:
                continue
            if self.ids.find(chunk) or self.fields.find(chunk):
                return False
            if len(clean) >= _CLEAN_CHUNKS:
                clean.clear()
            clean.add(chunk)
        return True

    def _partners(self, subject: str) -> tuple[list[str], list[tuple[str, frozenset[str]]], list[int]]:
        # A record without a line break that occurs in a segment has spaces on both sides of each of
        # its inner chunks there, so those are whole chunks of the segment: a record whose inner
        # chunks are not all among the segment's cannot occur in it, and only the others are searched.
        keys = self._partner_keys.get(subject)
        if keys is None:
            straddling: list[str] = []
            inside: list[tuple[str, frozenset[str]]] = []
            for r in sorted(self.partner_only.get(subject, []), key=len):
                if "[" in r or "]" in r or not r.strip(" "):
                    straddling.append(r)
                else:
                    inside.append((r, frozenset() if "\n" in r else frozenset(r.split(" ")[1:-1])))
            keys = self._partner_keys[subject] = (straddling, inside, [len(r) for r, _ in inside])
        return keys

    def _check_text(self, trial_id: str, subject: str, n: int, text: str) -> None:
        for label, tokens in (("internal identifier", self.ids), ("contract field", self.fields)):
            if found := tokens.find(text):
                raise IsolationError(f"isolation audit: trial {trial_id} message {n} contains the {label} "
                                     f"{found!r}; the run is stopped (fix the template or the dataset)")
        for record in self.partner_only.get(subject, []):
            if record in text:
                raise IsolationError(f"isolation audit: trial {trial_id} message {n} contains a partner "
                                     f"record ({record[:50]!r}…); the run is stopped")


# Clean chunks remembered before starting again (bounded memory; the audit stays exact).
_CLEAN_CHUNKS = 200_000
_SEPARATOR = "] ["
# Prompts this long or longer are cut into segments (see IsolationAudit._clean); shorter ones are scanned whole.
_SEGMENTED = 4096
# Segments shorter than this are audited each time (cheap); the long ones are remembered, up to this
# many characters in all before starting again.
_SEGMENT_MIN = 32
_SEGMENT_CHARS = 16_000_000
