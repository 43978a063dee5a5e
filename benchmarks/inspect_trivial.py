"""Inspect's trivial task, the peer of ``benchmarks/full.py``'s configuration-B figure: N one-turn samples,
one ``generate`` each, an exact-match scorer, answered by Inspect's own ``mockllm/model``.

mockllm counts its tokens with tiktoken, whose encodings are downloaded on first use; the task makes
that count offline (sitbench's WordPiece counter, ``offline_mockllm``) so that it runs with no network.

Run: inspect eval benchmarks/inspect_trivial.py@trivial -T samples=10000 --model mockllm/model
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from sitbench.integrations.inspect_ai import offline_mockllm


@task
def trivial(samples: int = 10_000) -> Task:
    """``samples`` questions, each answered once and scored by exact match."""
    offline_mockllm()
    dataset = MemoryDataset([Sample(input=f"What is {i} plus one?", target=str(i + 1), id=i)
                             for i in range(samples)])
    return Task(dataset=dataset, solver=generate(), scorer=match())
