"""Builders for small hand-written run directories (manifest, responses, scores)."""

from __future__ import annotations

import json
from pathlib import Path

from sitbench.candidates import CandidateResponse, DecodingConfig, Message
from sitbench.runs import RunManifest, ScoreRecord, TrialRecord, TurnRecord
from sitbench.schema import Category, CheckResult, ExtractedClaim, Observation, Verdict

CHECKS = ("act", "required", "forbidden", "uncertainty", "provenance", "disclosure", "grounding")
PAIR_OF = {"L-1A": "P1", "L-1B": "P1", "L-2A": "P2", "L-2B": "P2"}


def verdict(failing: tuple[str, ...] = ()) -> Verdict:
    return Verdict(
        valid=not failing,
        checks={
            name: CheckResult(passed=name not in failing, reason=f"{name} failed here" if name in failing else "")
            for name in CHECKS
        },
        verifier_version="test-verifier/1",
    )


def manifest(model: str = "mock/test") -> RunManifest:
    return RunManifest(
        run_id="run-under-test",
        created_at="2026-01-01T00:00:00+00:00",
        package_version="0.0.0",
        dataset={"suite": "pilot", "seed": 7, "manifest_sha256": "ab" * 32},
        configs=["A", "B"],
        candidate={"spec": model, "provider": "mock"},
        decoding=DecodingConfig(temperature=0.0),
        verifier_version="test-verifier/1",
        templates_sha256="cd" * 32,
    )


def trial(trial_id: str, config: str, probe_id: str, response: str | None, prompt: str = "[MESSAGE: hello]") -> TrialRecord:
    return TrialRecord(
        trial_id=trial_id,
        config=config,
        probe_id=probe_id,
        model="mock/test",
        turns=[
            TurnRecord(
                turn=0,
                session=1,
                messages=[Message(role="user", content=prompt)],
                response=CandidateResponse(text=response, status="ok" if response is not None else "drop"),
            )
        ],
        status="completed" if response is not None else "dropped",
        prompt_tokens=len(prompt.split()),
    )


def score(
    trial_id: str,
    config: str,
    probe_id: str,
    lineage: str,
    category: str,
    failing: tuple[str, ...] | None,
    *,
    response: str = "",
    theorem_qualified: bool = False,
    false_memory: bool = False,
) -> ScoreRecord:
    """``failing=None`` makes a dropped trial; ``()`` a valid one."""
    dropped = failing is None
    claims = [ExtractedClaim(prop_id="P-01", polarity=True, provenance="personal_experience", span=(0, min(5, len(response))))]
    return ScoreRecord(
        trial_id=trial_id,
        config=config,
        probe_id=probe_id,
        lineage_id=lineage,
        pair_id=PAIR_OF[lineage],
        category=Category(category),
        theorem_qualified=theorem_qualified,
        capability="IDENTITY_ONLY",
        status="dropped" if dropped else "completed",
        observation=None if dropped else Observation(acts=["ANSWER"], claims=claims, verifier_version="test-verifier/1"),
        verdict=None if dropped else verdict(failing or ()),
        partner=None if dropped or not theorem_qualified else verdict(() if failing else ("act",)),
        false_memory=false_memory,
        prompt_tokens=3,
    )


def write_run(directory: Path, rows: list[tuple[TrialRecord, ScoreRecord]], model: str = "mock/test") -> Path:
    directory.mkdir(parents=True)
    (directory / "manifest.json").write_text(manifest(model).model_dump_json(indent=1), encoding="utf-8")
    (directory / "responses.jsonl").write_text("".join(t.model_dump_json() + "\n" for t, _ in rows), encoding="utf-8")
    (directory / "scores.jsonl").write_text("".join(s.model_dump_json() + "\n" for _, s in rows), encoding="utf-8")
    return directory


def raw_scores(run: Path) -> list[dict]:
    """The score file as plain JSON, independent of the package's loaders."""
    return [json.loads(line) for line in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def small_run(directory: Path, response_b: str = "I lived in Kyoto.") -> Path:
    """Two configurations, two pairs; config B fails twice, one trial dropped."""
    rows = []
    plan = [
        # (config, probe, lineage, category, failing, tq)
        ("A", "PR-01", "L-1A", "A", (), True),
        ("A", "PR-02", "L-1B", "A", (), True),
        ("A", "PR-03", "L-2A", "B", (), False),
        ("A", "PR-04", "L-2B", "B", ("grounding",), False),
        ("B", "PR-01", "L-1A", "A", ("act", "required"), True),
        ("B", "PR-02", "L-1B", "A", (), True),
        ("B", "PR-03", "L-2A", "B", ("forbidden",), False),
        ("B", "PR-04", "L-2B", "B", None, False),
    ]
    for config, probe, lineage, category, failing, tq in plan:
        tid = f"{config}:{probe}"
        text = None if failing is None else (response_b if config == "B" else "Sure.")
        rows.append(
            (
                trial(tid, config, probe, text, prompt=f"[DATE: 2022-06-01] [MESSAGE: question {probe}]"),
                score(tid, config, probe, lineage, category, failing, response=text or "", theorem_qualified=tq,
                      false_memory=category == "B" and bool(failing) and "forbidden" in failing),
            )
        )
    return write_run(directory, rows)
