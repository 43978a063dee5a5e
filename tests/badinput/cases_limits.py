"""Bad-input classes: bounds on options that size work, empty inputs, agents that exit or cannot be reached."""

from __future__ import annotations

from pathlib import Path

from ._harness import Invocation, Workspace
from .cases import case

# ---------------------------------------------------------------- options that size processes (defect 3)


@case("unbounded resource", "run/workers-a-million")
def _run_workers(ws: Workspace) -> Invocation:
    return Invocation(["run", str(ws.dataset()), "--config", "B", "--model", "mock/oracle", "--out",
                       str(ws.root / "out"), "--workers", "1000000"], ("--workers 1000000", "at most", "CPUs"))


@case("unbounded resource", "score/workers-a-million")
def _score_workers(ws: Workspace) -> Invocation:
    return Invocation(["score", str(ws.run()), "--workers", "1000000"], ("--workers 1000000", "at most", "CPUs"))


@case("out-of-range numeric", "score/workers-zero")
def _score_workers_zero(ws: Workspace) -> Invocation:
    return Invocation(["score", str(ws.run()), "--workers", "0"], ("--workers 0",))


# ---------------------------------------------------------------- empty inputs (defect 6)


def _emptied(path: Path, content: str = "") -> Path:
    path.write_text(content, encoding="utf-8")
    return path


@case("empty input", "score/responses-empty")
def _score_empty(ws: Workspace) -> Invocation:
    path = _emptied(ws.run() / "responses.jsonl")
    return Invocation(["score", str(ws.run())], (str(path), "no trials", "sitbench run"))


@case("empty input", "observe/responses-blank")
def _observe_blank(ws: Workspace) -> Invocation:
    path = _emptied(ws.run() / "responses.jsonl", "\n\n  \n")
    return Invocation(["observe", str(ws.run()), "--extractor", "rules"], (str(path), "no trials"))


for _command, _content in (("metrics", ""), ("report", ""), ("analyze", "\n \n"), ("agreement", "")):
    def _scores_empty(ws: Workspace, command: str = _command, content: str = _content) -> Invocation:
        path = _emptied(ws.run() / "scores.jsonl", content)
        extra = ["--out", str(ws.root / "page.html")] if command == "report" else []
        return Invocation([command, str(ws.run()), *extra], (str(path), "no score records", "sitbench score"))

    case("empty input", f"{_command}/scores-empty")(_scores_empty)


@case("empty input", "audit/sample-scores-empty")
def _audit_sample_empty(ws: Workspace) -> Invocation:
    path = _emptied(ws.run() / "scores.jsonl")
    return Invocation(["audit", "sample", str(ws.run()), "--phase", "dev", "--out", str(ws.root / "sample.jsonl")],
                      (str(path), "no score records"))


for _what, _content in (("empty", ""), ("all-blank", "\n   \n\t\n")):
    def _batch_empty(ws: Workspace, content: str = _content) -> Invocation:
        path = ws.file("answers.jsonl", content)
        return Invocation(["judge", str(ws.dataset()), "--batch", str(path)], (str(path), "no responses"))

    case("empty input", f"judge/batch-{_what}")(_batch_empty)

case("empty input", "judge/batch-stdin-empty")(
    lambda ws: Invocation(["judge", str(ws.dataset()), "--batch", "-"], ("<stdin>", "no responses"), stdin="\n"))


@case("empty input", "res/score-results-empty")
def _res_empty(ws: Workspace) -> Invocation:
    path = _emptied(ws.res() / "results.jsonl")
    return Invocation(["res", "score", str(path)], (str(path), "no result rows"))


@case("empty input", "res/score-run-folder-results-blank")
def _res_blank(ws: Workspace) -> Invocation:
    path = _emptied(ws.res() / "results.jsonl", "\n\n")
    return Invocation(["res", "score", str(ws.res())], (str(path), "no result rows"))


# ---------------------------------------------------------------- agents that exit or cannot be reached (defect 9)


def _agent_run(ws: Workspace, agent: str, *names: str) -> Invocation:
    return Invocation(["run", str(ws.dataset()), "--agent", agent, "--out", str(ws.root / "out")], names)


for _what, _url in (("colons", "http://::::"), ("no-host", "http://"), ("port-beyond-65535", "http://127.0.0.1:70000")):
    case("bad enum", f"run/agent-url-{_what}")(
        lambda ws, url=_url: _agent_run(ws, url, f"--agent {url!r}", "http://HOST:PORT"))

_EXITING = "import sys\n\n\ndef make():\n    sys.exit(3)\n"

case("bad enum", "run/agent-factory-exits-at-load")(
    lambda ws: _agent_run(ws, f"{ws.file('exits.py', _EXITING)}:make", "--agent", "sys.exit(3)", "factory"))
case("bad enum", "run/agent-module-exits-at-import")(
    lambda ws: _agent_run(ws, f"{ws.file('exits_on_import.py', 'import sys' + chr(10) + 'sys.exit(3)' + chr(10))}:make",
                          "--agent", "importing", "sys.exit(3)"))
