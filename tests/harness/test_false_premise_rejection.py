"""The harness's false-premise probes (B and G) end to end: a negated mention of the premise is a
rejection of it, never an adoption — for the texts mock/oracle actually sends back and for the
plain wording the SPEC uses as its example ("I never went to Paris")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sitbench.candidates import get_candidate
from sitbench.runs import Runner, RunOptions
from sitbench.stores import LoadedDataset, load_dataset
from sitbench.verify import Judge

# (probe, false-premise proposition): PR-01 Kyoto, PR-08 Lisbon (B); PR-21 Lisbon, PR-22 Paris (G).
PREMISES = {"PR-01": "P-01", "PR-08": "P-04", "PR-21": "P-04", "PR-22": "P-09"}


@pytest.fixture(scope="module")
def ds(pilot: Path) -> LoadedDataset:
    return load_dataset(pilot)


@pytest.fixture(scope="module")
def judge(ds: LoadedDataset) -> Judge:
    return Judge(ds.hidden, ds.visible.queries)


@pytest.fixture(scope="module")
def oracle_texts(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    runner = Runner(pilot, get_candidate("mock/oracle"), "mock/oracle", tmp_path_factory.mktemp("fp") / "run",
                    RunOptions(configs=["I"]))
    asyncio.run(runner.run())
    return {t.probe_id: t.response_text or "" for t in runner.store.trials()}


def _assert_rejects(judge: Judge, probe_id: str, text: str) -> None:
    prop = PREMISES[probe_id]
    result = judge.judge(probe_id, text)
    claims = {(c.prop_id, c.polarity) for c in result.observation.claims}
    assert (prop, True) not in claims, f"{probe_id}: {text!r} read as affirming {prop}: {sorted(claims)}"
    assert (prop, False) in claims, f"{probe_id}: {text!r} not read as denying {prop}: {sorted(claims)}"
    assert result.verdict.valid, f"{probe_id}: {text!r} fails {result.verdict}"


@pytest.mark.parametrize("probe_id", sorted(PREMISES))
def test_oracle_rejection_is_scored_as_a_rejection(judge: Judge, oracle_texts: dict[str, str],
                                                   probe_id: str) -> None:
    text = oracle_texts[probe_id]
    assert text.startswith("I have never had anything to do with")  # what mock/oracle says to a false premise
    _assert_rejects(judge, probe_id, text)


@pytest.mark.parametrize(("probe_id", "text"), [
    ("PR-22", "I never went to Paris."),
    ("PR-22", "I have never had anything to do with Paris."),
    ("PR-01", "I have never had anything to do with Kyoto."),
    ("PR-08", "I've never lived in Lisbon."),
])
def test_negated_premise_place_is_a_denial(judge: Judge, probe_id: str, text: str) -> None:
    _assert_rejects(judge, probe_id, text)
