"""The task's parameters, its registration through Inspect's entry point, and the core's independence
from Inspect (sitbench's commands never import it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason='needs Inspect: pip install -e ".[inspect]" (or ".[dev]")')

from inspect_support import comparable, run_sit, trials_of

from sitbench.cli._runs import execute_run
from sitbench.errors import InputError
from sitbench.integrations.inspect_ai import sit
from sitbench.runs import RunStore


def _python(code: str, cwd: Path, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    env = os.environ | (env_extra or {})
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_core_never_imports_inspect(tmp_path: Path) -> None:
    code = """
import sys
from sitbench.cli import main
assert main(["--help"]) == 0
assert main(["import-inspect", "--help"]) == 0
assert main(["generate", "--suite", "pilot", "--out", "pilot"]) == 0
assert main(["run", "pilot", "--config", "B,H", "--model", "mock/oracle", "--out", "run"]) == 0
assert main(["score", "run"]) == 0
assert main(["metrics", "run", "--json"]) == 0
loaded = sorted(m for m in sys.modules
                if m == "inspect_ai" or m.startswith(("inspect_ai.", "sitbench.integrations.inspect_ai")))
print("LOADED", loaded)
"""
    result = _python(code, tmp_path, {"SITBENCH_CACHE_DIR": str(tmp_path / "cache")})
    assert result.returncode == 0, result.stderr[-2000:]
    assert "import-inspect" in result.stdout  # listed by `sitbench --help`
    assert "LOADED []" in result.stdout


def test_import_inspect_without_inspect_says_how_to_install(tmp_path: Path) -> None:
    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "inspect_ai" or name.startswith("inspect_ai."):
            raise ImportError("No module named 'inspect_ai'")
sys.meta_path.insert(0, Block())
from sitbench.cli import main
sys.exit(main(["import-inspect", "x.eval", "--dataset", ".", "--out", "run"]))
"""
    result = _python(code, tmp_path)
    assert result.returncode == 2, result.stderr
    assert 'pip install "sitbench[inspect]"' in result.stderr


def test_inspect_finds_the_task_and_the_model_api_through_the_entry_point(tmp_path: Path) -> None:
    # A fresh process that never imports sitbench itself: Inspect's registry loads it by name.
    code = """
import sys
from inspect_ai._util.registry import registry_lookup
from inspect_ai.model import get_model
assert "sitbench.integrations.inspect_ai" not in sys.modules
assert registry_lookup("task", "sitbench/sit") is not None
model = get_model("sitbench/mock/oracle")
print("MODEL", model.api.model_name, type(model.api).__module__)
"""
    result = _python(code, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "MODEL mock/oracle sitbench.integrations.inspect_ai._model" in result.stdout


def test_task_parameters(pilot: Path) -> None:
    # No dataset: the reference pilot, generated once into the cache; nine configurations.
    task = sit()
    assert len(task.dataset) == 22 * 9
    assert task.metadata["sitbench"]["dataset"]["suite"] == "pilot"
    assert task.metadata["sitbench"]["configs"] == list("ABCDEFGHI")
    one = sit(dataset=str(pilot), config="d")
    assert len(one.dataset) == 22 and {s.metadata["sitbench"]["config"] for s in one.dataset} == {"D"}
    assert one.metadata["sitbench"]["retriever"] is None  # no E/F: no retriever
    assert sit(dataset=str(pilot), config="B,I").metadata["sitbench"]["configs"] == ["B", "I"]
    assert one.config.temperature == 0.0 and one.config.max_tokens == 512 and one.config.seed == 0
    for bad, message in [
        ({"dataset": str(pilot), "suite": "pilot"}, "not both"),
        ({"suite": "pilot", "seed": 3}, "takes no seed"),
        ({"suite": "galaxy"}, "-T suite=galaxy"),
        ({"dataset": str(pilot / "absent")}, "not a directory"),
        ({"dataset": str(pilot), "config": "Z"}, "unknown"),
        ({"dataset": str(pilot), "handler": "psychic"}, "-T handler=psychic"),
        ({"dataset": str(pilot), "extractor": "crystal-ball"}, "unknown extractor"),
    ]:
        with pytest.raises(InputError, match=message):
            sit(**bad)


def test_a_generated_suite_and_seed() -> None:
    from sitbench.integrations.inspect_ai._context import resolve_dataset
    from sitbench.stores import load_dataset

    root = resolve_dataset(None, "dev", 1)
    manifest = load_dataset(root).manifest
    assert manifest is not None and (manifest.suite, manifest.seed) == ("dev", 1)
    assert root.name == "dev-seed1" and resolve_dataset(None, "dev", 1) == root  # generated once, then cached


def test_perfect_handler_matches_sitbench_run(pilot: Path, tmp_path: Path) -> None:
    log = run_sit(pilot, "D", "sitbench/mock/oracle", tmp_path / "logs", handler="perfect")
    out = tmp_path / "run"
    execute_run(pilot, "mock/oracle", out, "D", "perfect")
    ours, theirs = trials_of(log), {t.trial_id: t for t in RunStore(out).trials()}
    assert ours.keys() == theirs.keys()
    assert all(comparable(ours[k]) == comparable(theirs[k]) for k in theirs)
    assert all(t.handler == "perfect" for t in ours.values())


def test_the_mock_model_refuses_to_answer_outside_the_task(tmp_path: Path) -> None:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample

    [log] = inspect_eval(Task(dataset=[Sample(input="hello")]), model="sitbench/mock/oracle", display="none",
                         log_dir=str(tmp_path), fail_on_error=False)
    assert log.samples and log.samples[0].error is not None
    assert "only inside the sitbench/sit task" in log.samples[0].error.message
    json.dumps(log.eval.metadata or {})


def test_the_register_entry_names_what_is_registered() -> None:
    import yaml

    import sitbench.integrations.inspect_ai as integration

    entry = yaml.safe_load((Path(__file__).resolve().parents[2] / "eval.yaml").read_text())
    [listed] = entry["tasks"]
    assert listed["name"] == "sitbench/sit"
    assert all(callable(getattr(integration, name)) for name in listed["metrics"])
    assert set(listed["task_args"]) == {"dataset", "suite", "seed", "config", "handler", "extractor"}
    assert listed["dataset_samples"] == len(sit().dataset)
    assert entry["source"]["commit"] == "PINNED_COMMIT"  # a placeholder until a release is pinned


def test_another_extractor_reads_off_the_event_loop_and_is_recorded(pilot: Path, tmp_path: Path) -> None:
    import threading

    from inspect_support import score_records_of

    from sitbench.cli import main
    from sitbench.verify import RuleExtractor, register_extractor, verifier_label

    threads: set[str] = set()

    class Watched(RuleExtractor):
        id = "watched-rules"

        def extract(self, response, envelope, vocabulary):  # type: ignore[no-untyped-def]
            threads.add(threading.current_thread().name)
            return super().extract(response, envelope, vocabulary)

    register_extractor("watched", lambda _arg: Watched())
    log = run_sit(pilot, "C", "sitbench/mock/oracle", tmp_path / "logs", extractor="watched")
    assert threads and "MainThread" not in threads  # a blocking extractor never stalls Inspect's loop
    assert log.samples is not None
    assert {s.scores["sit_verifier"].metadata["verifier"] for s in log.samples} == {verifier_label(Watched())}
    out = tmp_path / "run"
    assert main(["import-inspect", log.location, "--dataset", str(pilot), "--out", str(out)]) == 0
    assert main(["score", str(out), "--extractor", "watched"]) == 0
    scored = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    inside = {k: v.model_dump(mode="json") for k, v in score_records_of(log).items()}
    assert {r["trial_id"]: r for r in scored} == inside
