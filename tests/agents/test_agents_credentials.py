"""Credentials in an agent URL are used to connect but written nowhere: no file a run, its resume, its
scoring and its report write holds them, and neither does anything printed."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from sitbench.cli import main


def _sitbench(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue() + err.getvalue()


def test_no_file_or_line_holds_the_password(pilot: Path, tmp_path: Path, http_agent: str) -> None:
    secret = "s3cr3t-pw"
    url = http_agent.replace("http://", f"http://user:{secret}@")
    run = tmp_path / "run"
    printed = []
    for argv in (["run", str(pilot), "--agent", url, "--out", str(run)],
                 ["run", str(pilot), "--agent", url, "--out", str(run), "--resume"],
                 ["score", str(run)],
                 ["report", str(run), "--out", str(tmp_path / "site" / "report.html")]):
        code, text = _sitbench(*argv)
        assert code == 0, text
        printed.append(text)
    # A refused call prints the URL without its password too.
    code, text = _sitbench("run", str(pilot), "--agent", url, "--out", str(tmp_path / "other"), "--config", "A")
    assert code == 2
    printed.append(text)
    assert not [t for t in printed if secret in t], printed
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 5
    holding = [str(p) for p in files if secret.encode() in p.read_bytes()]
    assert not holding, holding
    manifest = (run / "manifest.json").read_text(encoding="utf-8")
    assert http_agent in manifest


def test_the_redacted_form_of_a_url() -> None:
    from sitbench._urls import redact_text, redact_url

    assert redact_url("http://user:pw@127.0.0.1:8000/a?token=x&page=2") == "http://127.0.0.1:8000/a?token=REDACTED&page=2"
    assert redact_url("https://h.example/v1?api_key=k") == "https://h.example/v1?api_key=REDACTED"
    assert redact_url("http://127.0.0.1:8000") == "http://127.0.0.1:8000"
    assert redact_url("examples/keyword_agent.py:make") == "examples/keyword_agent.py:make"
    assert redact_text("--agent 'http://u:p@h:1/x?secret=z': cannot reach") == "--agent 'http://h:1/x?secret=REDACTED': cannot reach"
