"""One tiny real-model check of the memory harness: SmolLM2 in process behind the versioned baseline.

Slow-marked (the model runs): M1's 40 study records and two of its delay-0 probes. What is
checked is the path, not the model's quality: every reply is the model's own text, grammar-bound
to the reply schema, so the parser reads it as a valid reply (abstention or answer), and the
costs are counted.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from sitbench.chi import Arm, MemoryHarness, generate_memory_panel, make_baseline_factory

pytestmark = pytest.mark.slow


def test_smollm2_answers_memory_probes_through_a_baseline(smollm2_path: Path) -> None:
    env = generate_memory_panel("m1", 1)
    arm = env.arms[0]
    probes = [p for p in arm.probes if p.checkpoint == "delay_0"][:2]
    tiny = Arm("main", arm.steps[:3], probes)
    factory, budget, entry = make_baseline_factory("versioned", "local/smollm2", "equal-budget")
    assert entry["model_describe"]["n_ctx"] == budget.model_context_window == 8192
    res = asyncio.run(MemoryHarness(factory, budget, pre_exposure=0).run_arm(tiny, 0, random.Random(0)))
    assert len(res.results) == 2
    for r in res.results:
        assert r.reply and r.parsed.valid, (r.reply, r.parsed.error)
        assert r.usage["prompt_tokens"] > 200
    assert res.costs_probe["model_calls"] == 2 and res.costs_ingest["record_turns"] == 40
