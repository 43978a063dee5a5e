"""Second readers for the two-reader tests: one that reads nothing, one that never reads."""

from __future__ import annotations

from sitbench.errors import ReadingUnavailable
from sitbench.schema import Envelope, Observation
from sitbench.verify import Vocabulary


class Blank:
    """Reads nothing in any response: no act, no claim (every answer the rules find valid is contested)."""

    id = "blank"
    version = "1"

    def extract(self, response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
        return Observation(acts=[], engaged=True, extractor=self.id, verifier_version=self.version)


class Down:
    """Never reads: every call fails as a model that does not answer does."""

    id = "down"
    version = "1"

    def extract(self, response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
        raise ReadingUnavailable("extractor unavailable: down (llm_call_failed): no answer")
