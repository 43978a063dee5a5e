"""Payload-isolation audit of serialized prompts (inv11/inv12), run on every prompt of every run."""

from __future__ import annotations

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
        # Prompts repeat the same words from trial to trial: each space-separated chunk is scanned
        # for ids and fields once. Exact: a token ([\w-]+) never crosses a space or a line break.
        # Partner records hold spaces, so they are looked for in the whole text.
        if any(record in text for record in self.partner_only.get(subject, [])):
            return False
        clean = self._clean_chunks
        for chunk in set(text.replace("\n", " ").split(" ")):
            if chunk in clean:
                continue
            if self.ids.find(chunk) or self.fields.find(chunk):
                return False
            if len(clean) >= _CLEAN_CHUNKS:
                clean.clear()
            clean.add(chunk)
        return True

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
