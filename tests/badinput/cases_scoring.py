"""Bad-input classes: the answer cap and resuming a rescore (a trial that cannot be read is never a failure)."""

from __future__ import annotations

from ._harness import Invocation, Workspace
from .cases import _run_option, case

_run_option("out-of-range numeric", "max-response-chars-zero", ["--max-response-chars", "0"],
            "--max-response-chars")
_run_option("unbounded resource", "max-response-chars-enormous", ["--max-response-chars", "10000000000"],
            "--max-response-chars")


@case("wrong type/field", "rescore/resume-into-another-run")
def _resume_into_another_run(ws: Workspace) -> Invocation:
    run = ws.run()
    other = ws.directory("other")
    (other / "manifest.json").write_text((run / "manifest.json").read_text(encoding="utf-8"), encoding="utf-8")
    return Invocation(["rescore", str(run), "--out", str(other), "--resume"], ("--out", "is not a rescore of"))


@case("unbounded resource", "extract/response-over-the-cap")
def _over_the_cap(ws: Workspace) -> Invocation:
    return Invocation(["extract", str(ws.dataset()), "--probe", "PR-01", "--response", "x" * 100_001],
                      ("100,001 characters", "cap"))


@case("empty input", "rescore/responses-empty")
def _rescore_empty(ws: Workspace) -> Invocation:
    run = ws.run()
    (run / "responses.jsonl").write_text("", encoding="utf-8")
    return Invocation(["rescore", str(run), "--out", str(ws.root / "again")], ("responses.jsonl", "no trials"))
