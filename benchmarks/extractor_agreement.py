"""Agreement of an extractor with the annotated verifier corpus, overall and on the held-out slice.

Run:
    python benchmarks/extractor_agreement.py                       # the rule extractor
    python benchmarks/extractor_agreement.py --extractor llm:openai/gpt-4o-mini
    python benchmarks/extractor_agreement.py --extractor llm:openai/smollm2 \\
        --base-url http://127.0.0.1:8080/v1 --limit 50

Prints one line of figures (acts, claim P/R/F1, polarity, provenance, verdict agreement with
false-reject / false-accept rates, κ) for every case read and for the frozen held-out slice
among them, then the throughput (extract + score, responses/s). ``--base-url`` and
``--api-key-env`` reach an ``llm:`` extractor through ``SITBENCH_EXTRACTOR_BASE_URL`` and
``SITBENCH_EXTRACTOR_API_KEY_ENV``. LLM answers are cached (``$SITBENCH_CACHE_DIR``), so a
second run of the same spec measures the cache, not the model.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType

from sitbench.errors import InputError, SitbenchError
from sitbench.verify import compare, format_figures

CORPUS_TOOL = Path(__file__).resolve().parents[1] / "tests" / "verify" / "corpus" / "corpus_tool.py"


def load_corpus_tool() -> ModuleType:
    """The corpus tool of the test tree, imported by path (it is not part of the package).

    Raises:
        InputError: the file is missing (a checkout without tests/).
    """
    if not CORPUS_TOOL.is_file():
        raise InputError(f"{CORPUS_TOOL} does not exist; run this from a full checkout of the repository")
    spec = importlib.util.spec_from_file_location("corpus_tool", CORPUS_TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(extractor: str, base_url: str | None, api_key_env: str | None, limit: int | None) -> None:
    """Read the corpus with ``extractor`` and print the figures.

    Raises:
        InputError: a bad option (non-positive limit, server options for a non-LLM extractor).
    """
    if limit is not None and limit <= 0:
        raise InputError(f"--limit {limit}: give a positive number of cases, or leave it out for all")
    if (base_url or api_key_env) and not extractor.startswith("llm:"):
        raise InputError(f"--base-url/--api-key-env configure an llm: extractor, not {extractor!r}; "
                         "use e.g. --extractor llm:openai/MODEL")
    if base_url:
        os.environ["SITBENCH_EXTRACTOR_BASE_URL"] = base_url
    if api_key_env:
        os.environ["SITBENCH_EXTRACTOR_API_KEY_ENV"] = api_key_env
    tool = load_corpus_tool()
    cases = tool.load_corpus("all")
    if limit is not None:
        cases = cases[:limit]
    started = time.perf_counter()
    read = tool.readings(cases, extractor)
    elapsed = time.perf_counter() - started
    print(format_figures(f"all ({extractor})", compare(r for _, _, r in read).overall))
    heldout = [r for raw, _, r in read if tool.is_heldout(raw["id"])]
    if heldout:
        print(format_figures("held-out slice", compare(heldout).overall))
    else:
        print("held-out slice               no held-out case among the cases read (raise --limit)")
    rate = len(read) / elapsed if elapsed > 0 else float("inf")
    print(f"responses: {len(read)}  time: {elapsed:.2f} s  throughput: {rate:,.1f} responses/s (extract + score)")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--extractor", default="rules", help="extractor spec: rules (default), llm:MODEL, …")
    parser.add_argument("--base-url", default=None, help="base URL of the llm: extractor's OpenAI-compatible server")
    parser.add_argument("--api-key-env", default=None,
                        help="name of the environment variable holding the llm: extractor's API key")
    parser.add_argument("--limit", type=int, default=None, help="read only the first N corpus cases")
    args = parser.parse_args(argv)
    try:
        run(args.extractor, args.base_url, args.api_key_env, args.limit)
    except SitbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
