"""What a run's manifest counts of its trials, accumulated one trial at a time."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from sitbench.runs._records import TrialRecord, TrialTally


@dataclass
class TrialSummary:
    """Counts and distinct model ids and fingerprints of the trials added so far."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("attempted", "completed", "dropped", "retries", "calls", "cache_hits"), 0))
    models_sent: set[str] = field(default_factory=set)
    returned_models: set[str] = field(default_factory=set)
    system_fingerprints: set[str] = field(default_factory=set)

    def add(self, trial: TrialRecord | TrialTally) -> None:
        """Count one trial."""
        counts = self.counts
        counts["attempted"] += 1
        counts["completed"] += trial.status == "completed"
        counts["dropped"] += trial.status == "dropped"
        for turn in trial.turns:
            response = turn.response
            counts["retries"] += response.retries
            counts["calls"] += 1
            counts["cache_hits"] += response.cached
            if response.model_sent:
                self.models_sent.add(response.model_sent)
            if response.returned_model:
                self.returned_models.add(response.returned_model)
            if response.system_fingerprint:
                self.system_fingerprints.add(response.system_fingerprint)

    def merge(self, other: TrialSummary) -> None:
        """Add what ``other`` counted (another process's share of the same run)."""
        for key, value in other.counts.items():
            self.counts[key] = self.counts.get(key, 0) + value
        self.models_sent |= other.models_sent
        self.returned_models |= other.returned_models
        self.system_fingerprints |= other.system_fingerprints

    def fields(self) -> dict[str, object]:
        """The manifest's fields: ``counts``, ``models_sent``, ``returned_models``, ``system_fingerprints``."""
        return {"counts": dict(self.counts), "models_sent": sorted(self.models_sent),
                "returned_models": sorted(self.returned_models),
                "system_fingerprints": sorted(self.system_fingerprints)}

    def to_json(self) -> bytes:
        """One line of JSON (no newline), for :meth:`from_json` in another process."""
        return json.dumps(self.fields(), separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes) -> TrialSummary:
        """The summary :meth:`to_json` wrote."""
        fields = json.loads(data)
        return cls(dict(fields["counts"]), set(fields["models_sent"]), set(fields["returned_models"]),
                   set(fields["system_fingerprints"]))


def summarize_trials(trials: Iterable[TrialRecord] | Iterable[TrialTally]) -> dict[str, object]:
    """Manifest fields computed from the trial records as they are read: counts and distinct model ids
    and fingerprints."""
    summary = TrialSummary()
    for trial in trials:
        summary.add(trial)
    return summary.fields()
