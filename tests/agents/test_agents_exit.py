"""An agent that calls sys.exit drops its trial with the reason; sitbench's exit code stays its own.

A factory or module that exits while the agent is loaded is bad input (one line, exit 2). KeyboardInterrupt
is not turned into a drop: it is the user's Ctrl-C as often as the agent's, and it stops the run (exit 130).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitbench.cli import main
from sitbench.runs import RunStore

_AGENT = '''
import sys

MADE = []


class Agent:
    async def ingest(self, subject):
        {ingest}
        return {{}}

    {respond_def} respond(self, turn):
        {respond}
        return "I do not remember."

    async def end_session(self):
        pass

    def describe(self):
        return {{"name": "exits"}}


def make():
    MADE.append(1)
    {factory}
    return Agent()
'''


def _agent(tmp_path: Path, *, ingest: str = "pass", respond: str = "pass", factory: str = "pass",
           sync_respond: bool = False, top: str = "") -> str:
    path = tmp_path / "exiting_agent.py"
    path.write_text(top + _AGENT.format(ingest=ingest, respond=respond, factory=factory,
                                        respond_def="def" if sync_respond else "async def"), encoding="utf-8")
    return f"{path}:make"


@pytest.mark.parametrize(("where", "kwargs", "reason"), [
    ("respond (async)", {"respond": "sys.exit(3)"}, "respond: agent called sys.exit(3)"),
    ("respond (sync)", {"respond": "sys.exit(3)", "sync_respond": True}, "respond: agent called sys.exit(3)"),
    ("ingest", {"ingest": "sys.exit(3)"}, "ingest: agent called sys.exit(3)"),
    ("factory, after loading", {"factory": "if len(MADE) > 1: sys.exit('bye')"}, "agent called sys.exit('bye')"),
    ("respond, sys.exit()", {"respond": "sys.exit()"}, "agent called sys.exit()"),
])
def test_an_agent_that_exits_drops_its_trials_with_the_reason(pilot: Path, tmp_path: Path, where: str,
                                                              kwargs: dict, reason: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(["run", str(pilot), "--agent", _agent(tmp_path, **kwargs), "--out", str(out),
                 "--agent-state", "reingest", "--max-drop-rate", "1"])
    assert code == 0, where  # every trial dropped, allowed by --max-drop-rate 1: not the isolation audit's 3
    trials = RunStore(out).trials()
    assert len(trials) == 22 and all(t.status == "dropped" for t in trials)
    assert all(reason in (t.drop_reason or "") for t in trials), trials[0].drop_reason
    err = capsys.readouterr().err
    assert "22 of 22 trials dropped" in err and "Exception ignored" not in err


def test_the_drop_rate_still_decides_the_exit_code(pilot: Path, tmp_path: Path) -> None:
    code = main(["run", str(pilot), "--agent", _agent(tmp_path, respond="sys.exit(3)"), "--out", str(tmp_path / "r")])
    assert code == 4


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"factory": "sys.exit(3)"}, "the factory called sys.exit(3) while the agent was loaded"),
    ({"top": "import sys\nsys.exit(3)\n"}, "called sys.exit(3); an agent module must not exit"),
])
def test_an_agent_that_exits_while_loaded_is_bad_input(pilot: Path, tmp_path: Path, kwargs: dict, needle: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(pilot), "--agent", _agent(tmp_path, **kwargs), "--out", str(tmp_path / "r")]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --agent") and needle in lines[0], captured.err
    assert captured.out == ""
    assert not (tmp_path / "r" / "responses.jsonl").exists()


def test_in_a_real_process_an_exiting_agent_prints_no_stray_lines(pilot: Path, tmp_path: Path) -> None:
    """From ``python -m sitbench``: no "Exception ignored in: <coroutine ...>" flood, and not exit code 3."""
    agent = _agent(tmp_path, respond="sys.exit(3)")
    result = subprocess.run([sys.executable, "-m", "sitbench", "run", str(pilot), "--agent", agent, "--out",
                             str(tmp_path / "r")], capture_output=True, text=True, timeout=300, check=False,
                            env={**os.environ, "CI": "true"})
    assert result.returncode == 4, result.stderr[-2000:]
    assert "Exception ignored" not in result.stderr and "Traceback" not in result.stderr
    # The drop summary alone: the warning, the one reason, the advice, "no trial completed" and the exit line.
    assert len(result.stderr.strip().splitlines()) <= 5, result.stderr[-2000:]
    assert "agent called sys.exit(3)" in RunStore(tmp_path / "r").trials()[0].drop_reason


def test_keyboard_interrupt_in_the_agent_stops_the_run(pilot: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C lands wherever the main thread is, often in the agent: it must stop the run, not drop a trial."""
    out = tmp_path / "r"
    agent = _agent(tmp_path, respond="raise KeyboardInterrupt")
    assert main(["run", str(pilot), "--agent", agent, "--out", str(out), "--max-connections", "1"]) == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["aborted"], err  # what a Ctrl-C prints (click's Abort)
    assert not any(t.status == "dropped" for t in RunStore(out).trials())


@pytest.mark.parametrize("url", ["http://::::", "http://", "https://host:99999"])
def test_a_malformed_agent_url_is_one_line(pilot: Path, tmp_path: Path, url: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(pilot), "--agent", url, "--out", str(tmp_path / "r")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --agent {url!r}") and "http://HOST:PORT" in lines[0]
