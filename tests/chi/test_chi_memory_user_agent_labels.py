"""A user's agent in the CHI memory report: named as it names itself, and not called a machine baseline."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.cli import main

AGENTS = Path(__file__).resolve().parents[1] / "agents" / "reply_form_agents.py"


def test_the_report_names_a_user_agent_and_does_not_call_it_a_baseline(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "mine"
    assert main(["chi", "memory", "run", "--panel", "m1", "--agent", f"{AGENTS}:dict_form", "--trajectories", "1",
                 "--pre-exposure", "0", "--out", str(run)]) == 0
    capsys.readouterr()
    page = tmp_path / "memory.html"
    assert main(["chi", "memory", "report", str(run), "--out", str(page)]) == 0
    table = capsys.readouterr().out
    assert "FormAgent" in table and str(AGENTS) not in table
    html = page.read_text(encoding="utf-8")
    assert "<title>CHI memory axis — user agents</title>" in html
    assert "Machine baselines, no human calibration" not in html and "User agents, no human calibration" in html
