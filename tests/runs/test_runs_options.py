"""`sitbench run` refuses out-of-range and non-finite decoding and concurrency options before any trial runs."""

from __future__ import annotations

from pathlib import Path

import pydantic
import pytest

from sitbench.candidates import DecodingConfig
from sitbench.cli import main


@pytest.mark.parametrize(("option", "value", "says"), [
    ("--temperature", "nan", "not a finite number"),
    ("--temperature", "-1", "out of range"),
    ("--temperature", "2.5", "out of range"),
    ("--top-p", "5", "out of range"),
    ("--top-p", "0", "out of range"),
    ("--max-tokens", "0", "out of range"),
    ("--max-connections", "0", "out of range"),
    ("--timeout", "inf", "not a finite number"),
    ("--timeout", "0", "out of range"),
    ("--config", "A,,B", "an empty item"),
])
def test_bad_run_option_exits_2_naming_it(pilot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          option: str, value: str, says: str) -> None:
    out = tmp_path / "run"
    assert main(["run", str(pilot), "--model", "mock/oracle", "--out", str(out), option, value]) == 2
    err = capsys.readouterr().err
    assert option in err and says in err
    assert not (out / "responses.jsonl").exists(), "nothing ran"


def test_decoding_config_refuses_what_the_cli_refuses() -> None:
    for bad in ({"temperature": float("nan")}, {"temperature": -0.1}, {"top_p": 0.0}, {"top_p": 1.5},
                {"max_tokens": 0}):
        with pytest.raises(pydantic.ValidationError):
            DecodingConfig(**bad)
    assert DecodingConfig(temperature=0.7, top_p=0.9, max_tokens=1).max_tokens == 1
