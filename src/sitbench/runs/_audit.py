"""Payload-isolation audit of serialized prompts (inv11/inv12), run on every prompt of every run."""

from __future__ import annotations

from dataclasses import dataclass

from sitbench.candidates import Message
from sitbench.errors import SitbenchError
from sitbench.lineage._checks import (
    CONTRACT_FIELD_TOKENS,
    LoadedDataset,
    TokenSet,
    isolation_tokens,
)


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
            text = message.content
            for label, tokens in (("internal identifier", self.ids), ("contract field", self.fields)):
                if found := tokens.find(text):
                    raise IsolationError(f"isolation audit: trial {trial_id} message {n} contains the {label} "
                                         f"{found!r}; the run is stopped (fix the template or the dataset)")
            for record in self.partner_only.get(subject, []):
                if record in text:
                    raise IsolationError(f"isolation audit: trial {trial_id} message {n} contains a partner "
                                         f"record ({record[:50]!r}…); the run is stopped")
