"""One tiny real-model check of the panel harness: SmolLM2 in process behind the stateless baseline.

Slow-marked (the model runs): two R4 probes through the harness. What is checked is the path, not
the model's quality: the reply schema carries R4's probability field, so the grammar-bound reply is
read as a valid object (an abstention or a probability in [0, 1]).
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from sitbench.chi import Episode, make_baseline_factory
from sitbench.chi._memory_env import Checkpoint
from sitbench.chi._panel_harness import PanelHarness
from sitbench.chi._panel_r import R4Abstention

pytestmark = pytest.mark.slow


def test_smollm2_replies_to_r4_probes_through_the_panel_harness(smollm2_path: Path) -> None:
    test = R4Abstention()
    inst = test.generate(1)
    ep = inst.episodes[0]
    tiny = Episode("main", [Checkpoint("main")], ep.probes[:2], ep.preamble)
    factory, _budget, _entry = make_baseline_factory("stateless", "local/smollm2", "equal-budget")
    run = asyncio.run(PanelHarness(factory, test).run_episode(tiny, 0, random.Random(0)))
    assert len(run.records) == 2
    for r in run.records:
        assert r.reply is not None and r.grade.parsed["valid"], r.reply
        assert r.grade.parsed["abstain"] or 0.0 <= r.grade.parsed["probability"] <= 1.0
