"""Size and load time of the HTML report of a large run; prints the figures, asserts nothing.

Synthesizes one scored run of N probes × 9 configurations (default 10,000 × 9 = 90,000
trials) with realistic envelope and response lengths and about 40 % failed trials, writes
the report, and opens it in headless Chromium (Debian's ``chromium``) when it is on PATH.

Targets (sitbench issue 10): the report of a 10,000-probe run is under 20 MB and opens in
the browser in under 3 s.

Run: python benchmarks/report.py [--probes 10000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from sitbench.report import write_report

CONFIGS = "ABCDEFGHI"
CATEGORIES = "ABCDEFGH"
CHECKS = ("act", "required", "forbidden", "uncertainty", "provenance", "disclosure", "grounding")
# Typical characters of the scored turn's envelope per configuration (pilot-like: A is the bare
# query, D–H carry the chronicle, retrieved records or structured state).
ENVELOPE_CHARS = {"A": 300, "B": 1_000, "C": 1_600, "D": 8_000, "E": 5_000, "F": 5_000, "G": 8_500, "H": 9_500, "I": 4_000}
WORDS = (
    "I remember moving to Seattle in the summer and joining the robotics team there before the course "
    "started; my sister visited twice and we walked along the water talking about the new job and the "
    "old apartment I had left behind in Bozeman when everything changed"
).split()
SEED = 20260101


def _text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)[:chars]


def _verdict(failing: list[str]) -> dict:
    return {
        "valid": not failing,
        "checks": {c: {"passed": c not in failing, "reason": f"{c}: expected claim not found" if c in failing else ""} for c in CHECKS},
        "verifier_version": "sitbench-verifier/1.0",
    }


def synthesize(run: Path, probes: int, seed: int = SEED) -> dict[str, int]:
    """Write manifest.json, responses.jsonl and scores.jsonl of a synthetic scored run."""
    rng = random.Random(seed)
    run.mkdir(parents=True)
    pairs = max(1, probes // 50)
    manifest = {
        "run_id": "bench-10k",
        "created_at": "2026-01-01T00:00:00+00:00",
        "package_version": "bench",
        "dataset": {"suite": "synthetic", "seed": seed, "manifest_sha256": "0" * 64, "counts": {"probes": probes}},
        "configs": list(CONFIGS),
        "candidate": {"spec": "bench/synthetic", "provider": "bench"},
        "decoding": {"temperature": 0.0, "top_p": 1.0, "max_tokens": 512, "seed": 0},
        "verifier_version": "sitbench-verifier/1.0",
        "templates_sha256": "1" * 64,
        "seeds": {"synthesis": seed},
    }
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    probe_meta = []
    for p in range(probes):
        pair = p % pairs
        lineage = f"L-{pair}{'AB'[(p // pairs) % 2]}"
        probe_meta.append((f"PR-{p:05d}", f"PAIR-{pair}", lineage, CATEGORIES[p % 8], p % 5 < 2))
    failed = 0
    with (run / "responses.jsonl").open("w", encoding="utf-8") as responses, (run / "scores.jsonl").open(
        "w", encoding="utf-8"
    ) as scores:
        for config in CONFIGS:
            p_fail = 0.7 if config in "ABC" else 0.25
            for probe_id, pair_id, lineage, category, tq in probe_meta:
                trial_id = f"{config}:{probe_id}"
                dropped = rng.random() < 0.01
                envelope = "[PROFILE AT 2022-06-01: " + _text(rng, ENVELOPE_CHARS[config]) + "] [MESSAGE: where did you live?]"
                response = None if dropped else _text(rng, rng.randint(150, 1_200))
                trial = {
                    "trial_id": trial_id, "config": config, "probe_id": probe_id, "model": "bench/synthetic",
                    "handler": "native",
                    "turns": [{"turn": 0, "session": 1, "messages": [{"role": "user", "content": envelope}],
                               "response": {"text": response, "status": "drop" if dropped else "ok",
                                            "drop_reason": "timeout after 60s" if dropped else None}}],
                    "persisted": [], "status": "dropped" if dropped else "completed",
                    "drop_reason": "timeout after 60s" if dropped else None, "prompt_tokens": len(envelope.split()),
                }
                responses.write(json.dumps(trial, separators=(",", ":")) + "\n")
                failing = [] if dropped or rng.random() >= p_fail else rng.sample(CHECKS, rng.randint(1, 3))
                failed += bool(failing)
                record = {
                    "trial_id": trial_id, "config": config, "probe_id": probe_id, "lineage_id": lineage,
                    "pair_id": pair_id, "category": category, "stratum": None, "theorem_qualified": tq,
                    "capability": "IDENTITY_ONLY", "status": "dropped" if dropped else "completed",
                    "prompt_tokens": len(envelope.split()),
                }
                if not dropped:
                    assert response is not None
                    record["observation"] = {
                        "acts": ["ANSWER"],
                        "claims": [{"prop_id": "P-01", "polarity": True, "provenance": "personal_experience", "span": [0, 40]}],
                        "unmapped": [{"span": [41, 80], "text": response[41:80], "polarity": True, "provenance": "personal_experience"}],
                        "verifier_version": "sitbench-verifier/1.0",
                    }
                    record["verdict"] = _verdict(failing)
                    if tq:
                        record["partner"] = _verdict([] if failing and rng.random() < 0.5 else ["act"])
                    record["false_memory"] = bool(failing) and category in "BG" and "forbidden" in failing
                scores.write(json.dumps(record, separators=(",", ":")) + "\n")
    return {"trials": probes * len(CONFIGS), "failed": failed}


def _chromium_seconds(chromium: str, url: str, profile: Path, *mode: str) -> tuple[float, str]:
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={profile}", *(mode or ("--dump-dom",)), url]
    t0 = time.perf_counter()
    out = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True).stdout
    return time.perf_counter() - t0, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--probes", type=int, default=10_000, help="Probes per configuration (9 configurations).")
    parser.add_argument("--keep", type=Path, default=None, help="Write the run and report here and keep them.")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="sitbench-report-bench-"))
    try:
        run = base / "run"
        t0 = time.perf_counter()
        counts = synthesize(run, args.probes)
        t_synth = time.perf_counter() - t0
        sizes = {f: (run / f).stat().st_size / 1e6 for f in ("responses.jsonl", "scores.jsonl")}
        print(f"synthetic run: {counts['trials']:,} trials ({args.probes:,} probes x 9 configs), "
              f"{counts['failed']:,} failed; responses.jsonl {sizes['responses.jsonl']:.0f} MB, "
              f"scores.jsonl {sizes['scores.jsonl']:.0f} MB (written in {t_synth:.1f} s)")
        t0 = time.perf_counter()
        report = write_report([run], base / "report" / "report.html")
        t_write = time.perf_counter() - t0
        html_mb = report.stat().st_size / 1e6
        print(f"write_report (load, metrics, drill-down, exports):  {t_write:6.1f} s")
        print(f"report.html size:                                 {html_mb:6.2f} MB  (target < 20 MB)")
        for name in ("metrics.json", "trials.csv"):
            print(f"{name + ' size:':<50} {(report.parent / name).stat().st_size / 1e6:6.2f} MB")
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium is None:
            print("chromium not on PATH: browser load time not measured (apt-get install -y chromium)")
            return
        blank = base / "blank.html"
        blank.write_text("<!DOCTYPE html><title>blank</title><p>blank</p>", encoding="utf-8")
        profile = base / "chromium-profile"
        _chromium_seconds(chromium, blank.as_uri(), profile)  # warm the profile and the disk cache
        t_blank = min(_chromium_seconds(chromium, blank.as_uri(), profile)[0] for _ in range(3))
        runs = [_chromium_seconds(chromium, report.as_uri(), profile) for _ in range(3)]
        t_report = min(t for t, _ in runs)
        dom = runs[0][1]
        marker = 'data-load-ms="'
        load_ms = dom.split(marker, 1)[1].split('"', 1)[0] if marker in dom else "?"
        rows = dom.count('<details class="trial"')
        shot = ("--window-size=1400,900", f"--screenshot={base / 'shot.png'}")
        s_blank = min(_chromium_seconds(chromium, blank.as_uri(), profile, *shot)[0] for _ in range(3))
        s_report = min(_chromium_seconds(chromium, report.as_uri(), profile, *shot)[0] for _ in range(3))
        print(f"chromium --screenshot (first screen painted), blank: {s_blank:5.2f} s, report: {s_report:5.2f} s "
              f"-> report open time {s_report - s_blank:5.2f} s  (best of 3; target < 3 s)")
        print(f"chromium --dump-dom, blank page (startup only):    {t_blank:6.2f} s  (best of 3)")
        print(f"chromium --dump-dom, report:                       {t_report:6.2f} s  (best of 3)")
        print(f"open + serialize the DOM (report minus blank):     {t_report - t_blank:6.2f} s")
        print(f"in-page load event (performance.now at load):      {load_ms:>6} ms")
        print(f"drill-down rows in the DOM:                        {rows:6d}")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
