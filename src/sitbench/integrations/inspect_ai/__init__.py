"""sitbench under Inspect (``pip install "sitbench[inspect]"``).

Importing this package registers, with Inspect's registry (Inspect finds it through the ``inspect_ai``
entry point of the sitbench distribution, so nothing needs importing by hand):

- the task ``sitbench/sit`` (``inspect eval sitbench/sit -T dataset=data/pilot -T config=D --model …``);
- its solver ``sit_schedule`` (replays each trial's declared schedule), its scorer ``sit_verifier``
  (sitbench's verifier, per-check breakdown and observation in the score's metadata) and the metrics
  ``category_validity``, ``macro_sit``, ``laa`` and ``leak_rates`` (the numbers of ``sitbench metrics``);
- the model API ``sitbench`` (``--model sitbench/mock/oracle``, ``sitbench/mock/collapse``): sitbench's
  deterministic mock candidates, offline, with an offline token count.

``sitbench import-inspect LOG --dataset DIR --out RUN`` turns a log of the task back into a sitbench run.
The core of sitbench never imports this package.
"""

from __future__ import annotations

try:
    import inspect_ai  # noqa: F401  (absolute: the third-party package, not this one)
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('sitbench.integrations.inspect_ai needs Inspect: pip install "sitbench[inspect]"') from exc

from sitbench.integrations.inspect_ai._context import (
    TRIAL_STORE_KEY,
    current_view,
    sample_id,
)
from sitbench.integrations.inspect_ai._import import import_inspect_log
from sitbench.integrations.inspect_ai._metrics import (
    category_validity,
    laa,
    leak_rates,
    macro_sit,
    score_records,
    sitbench_metrics,
)
from sitbench.integrations.inspect_ai._model import (
    SitbenchMockAPI,
    mock_outputs,
    offline_mockllm,
    offline_token_count,
)
from sitbench.integrations.inspect_ai._task import (
    TASK_VERSION,
    sit,
    sit_schedule,
    sit_verifier,
    trial_samples,
)

__all__ = [
    "TASK_VERSION",
    "TRIAL_STORE_KEY",
    "SitbenchMockAPI",
    "category_validity",
    "current_view",
    "import_inspect_log",
    "laa",
    "leak_rates",
    "macro_sit",
    "mock_outputs",
    "offline_mockllm",
    "offline_token_count",
    "sample_id",
    "score_records",
    "sit",
    "sit_schedule",
    "sit_verifier",
    "sitbench_metrics",
    "trial_samples",
]
