"""Runs: the runner, the run store (manifest, responses, scores) and scoring."""

from sitbench.runs._records import RunManifest, ScoreRecord, TrialRecord, TurnRecord

__all__ = ["RunManifest", "ScoreRecord", "TrialRecord", "TurnRecord"]
