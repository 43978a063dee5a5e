"""Theorem 1 (profile collision) as a property of the real harness.

Any deterministic candidate whose answer depends only on what configurations B and C
serialize (profile + policy + envelope) sends the same text to both members of a
theorem-qualified probe pair. One text cannot satisfy both certified-disjoint contracts,
so at most one of the two trials is ``correct`` and LAA ≤ 1/2 for every collision pair.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitbench.candidates import CandidateRequest, CandidateResponse, candidate, get_candidate
from sitbench.metrics import compute_metrics
from sitbench.runs import Runner, RunOptions, TrialRecord, score_trials
from sitbench.stores import LoadedDataset

# Answers that are valid for one member of a pilot pair and invalid for the other.
SIDED_ANSWERS = [
    "When I lived in Kyoto I loved the matcha.",
    "I've never lived in Kyoto.",
    "I worked on robotics.",
    "I worked on cryptography.",
    "We agreed to call it 'Bluefin'.",
    "We agreed to call it 'Kestrel'.",
    "I lived in Lisbon for two years.",
    "I have never lived in Lisbon.",
    "We went with 'Periwinkle'.",
    "We went with 'Saltmarsh'.",
]

# Free text for the pool. Replies of multi-turn probes travel back in later prompts, and the
# isolation audit also reads those (see test_schedules.py), so the words it treats as contract
# fields are kept out here: this file is about Theorem 1, not about the audit.
_AUDIT_WORDS = ("gold", "contract", "SValid")
free_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=80).filter(
    lambda s: not any(w in s for w in _AUDIT_WORDS))


def prompt_key(messages: list[Any]) -> str:
    """The serialized prompt exactly as a remote model would receive it."""
    return json.dumps([[m.role, m.content] for m in messages], ensure_ascii=False)


class HashPoolCandidate:
    """Answers ``pool[sha256(salt + prompt) % len(pool)]``: a function of the prompt messages only."""

    def __init__(self, name: str, salt: str, pool: list[str]) -> None:
        self.name = f"t1/{name}"
        self.salt = salt
        self.pool = pool

    def pick(self, messages: list[Any]) -> str:
        digest = hashlib.sha256((self.salt + prompt_key(messages)).encode("utf-8")).digest()
        return self.pool[int.from_bytes(digest, "big") % len(self.pool)]

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        # request.view is deliberately ignored: only the serialized messages count.
        return CandidateResponse(text=self.pick(request.messages), model_sent=self.name, provider="test")

    def describe(self) -> dict[str, Any]:
        return {"provider": "test", "model": self.name, "salt": self.salt, "pool": len(self.pool)}


class KeyedCandidate:
    """Profile-only too, but picks the answer by the utterance: shows the 1/2 bound is attained."""

    name = "t1/keyed"

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        text = request.messages[-1].content
        for cue, answer in (("Kyoto", 1), ("engineering", 2), ("test rig", 4), ("Lisbon", 6), ("Year 5", 8)):
            if cue in text:
                return CandidateResponse(text=SIDED_ANSWERS[answer], provider="test")
        return CandidateResponse(text="I would rather not say.", provider="test")

    def describe(self) -> dict[str, Any]:
        return {"provider": "test", "model": self.name}


@candidate("t1")
def _t1_factory(name: str, **options: Any) -> HashPoolCandidate | KeyedCandidate:
    if name == "keyed":
        return KeyedCandidate()
    return HashPoolCandidate(name, salt=str(options["salt"]), pool=list(options["pool"]))


def _run(pilot: Path, out: Path, spec: str, **options: Any) -> tuple[LoadedDataset, list[TrialRecord]]:
    runner = Runner(pilot, get_candidate(spec, **options), spec, out, RunOptions(configs=["B", "C"]))
    manifest = asyncio.run(runner.run())
    assert manifest.counts["completed"] == 44
    return runner.ds, runner.store.trials()


def _correct_share_by_pair(ds: LoadedDataset, trials: list[TrialRecord]) -> dict[tuple[str, str], float]:
    """(config, pair) → share of theorem-qualified trials with (verdict, partner) == (valid, invalid)."""
    hits: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for record in score_trials(ds, trials):
        if not record.theorem_qualified:
            continue
        assert record.status == "completed" and record.verdict and record.partner
        outcome = (record.verdict.valid, record.partner.valid)
        assert outcome != (True, True), f"{record.trial_id}: one text valid for both contracts (inv10)"
        hits[(record.config, record.pair_id)].append(outcome == (True, False))
    return {key: sum(v) / len(v) for key, v in hits.items()}


def _scored_prompts(trials: list[TrialRecord]) -> dict[str, str]:
    return {t.trial_id: prompt_key(t.turns[-1].messages) for t in trials}


def _assert_premise(ds: LoadedDataset, trials: list[TrialRecord]) -> int:
    """Both members of every theorem-qualified probe pair got byte-identical scored prompts."""
    prompts = _scored_prompts(trials)
    checked = 0
    for probe in ds.hidden.probes.values():
        if not probe.theorem_qualified:
            continue
        assert probe.partner_probe_id is not None
        for config in "BC":
            mine, theirs = prompts[f"{config}:{probe.probe_id}"], prompts[f"{config}:{probe.partner_probe_id}"]
            assert mine == theirs, f"{config}:{probe.probe_id} and its partner see different prompts"
            checked += 1
    return checked


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(salt=st.text(max_size=16),
       pool=st.lists(st.one_of(st.sampled_from(SIDED_ANSWERS), free_text), min_size=1, max_size=12))
def test_profile_only_candidate_never_beats_one_half(pilot: Path, salt: str, pool: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ds, trials = _run(pilot, Path(tmp) / "run", "t1/hash", salt=salt, pool=pool)
    assert _assert_premise(ds, trials) == 20  # 10 theorem-qualified probes × B, C
    shares = _correct_share_by_pair(ds, trials)
    assert set(shares) == {(c, p) for c in "BC" for p in ("PAIR-1", "PAIR-2")}
    for key, share in shares.items():
        assert share <= 0.5, f"{key}: profile-only LAA share {share} exceeds 1/2"


def test_the_candidate_really_is_a_function_of_the_prompt(pilot: Path, tmp_path: Path) -> None:
    # Same salt and pool, two runs: byte-identical responses; a different salt moves some answer.
    pool = SIDED_ANSWERS
    texts = []
    for n, salt in enumerate(["a", "a", "b"]):
        _, trials = _run(pilot, tmp_path / f"run{n}", "t1/hash", salt=salt, pool=pool)
        texts.append({t.trial_id: t.response_text for t in trials})
    assert texts[0] == texts[1]
    assert texts[0] != texts[2]


def test_bound_is_attained_by_a_sided_profile_only_candidate(pilot: Path, tmp_path: Path) -> None:
    # The keyed candidate answers every probe pair with the text valid for exactly one member, so each
    # pair gets exactly one correct trial out of two: the share is 1/2 on the nose, and the rest of the
    # pair's trials are the mirror outcome (0, 1) — the bound is tight, not vacuous.
    ds, trials = _run(pilot, tmp_path / "run", "t1/keyed")
    _assert_premise(ds, trials)
    shares = _correct_share_by_pair(ds, trials)
    assert shares == {(c, p): 0.5 for c in "BC" for p in ("PAIR-1", "PAIR-2")}
    metrics = compute_metrics(score_trials(ds, trials))
    for config in "BC":
        # Pair-balanced: each pair is 1/2 whichever way its members split the correct answers.
        assert pytest.approx(0.5) == metrics[config].LAA
        assert metrics[config].IC_wrong == pytest.approx(0.5)
        assert metrics[config].IC_none == pytest.approx(0.0)
        assert metrics[config].laa_outcomes.correct == 5
        assert metrics[config].laa_outcomes.wrong_identity == 5
