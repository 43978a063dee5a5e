"""The one rule for names that become paths (sitbench.stores.name_problem / check_name / child_path)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from sitbench.errors import InputError
from sitbench.stores import (
    NAME_MAX,
    NAME_RULE,
    PathName,
    RelativePath,
    check_name,
    child_path,
    name_problem,
    relative_path_problem,
)


@pytest.mark.parametrize("name", ["a", "annotator-1", "L-1A", "SB-Q0001", "x.y_z-1", "9", "a" * NAME_MAX, "a..b",
                                  "reference", "a."])
def test_a_good_name_passes(name: str) -> None:
    assert name_problem(name) is None
    assert check_name(name, "--x") == name


# One entry per branch of the rule: the value and the words its problem must hold.
BRANCHES = [
    (42, "not a string"),
    ("", "is empty"),
    ("a" * (NAME_MAX + 1), f"at most {NAME_MAX}"),
    (".", "is a folder"),
    ("..", "is a folder"),
    ("a/b", "a path, not a name"),
    ("../../x", "a path, not a name"),
    ("a\\b", "a path, not a name"),
    ("/abs/x", "absolute path"),
    ("\\\\server\\x", "absolute path"),
    ("a\x00b", "NUL"),
    ("a\nb", "control character"),
    ("ann\n", "control character"),
    ("a\tb", "control character"),
    ("a\x7fb", "control character"),
    ("a\x85b", "control character"),
    ("-rf", "begins with '-'"),
    (".hidden", "begins with '.'"),
    ("_x", "begins with '_'"),
    ("a b", "holds ' '"),
    ("C:x", "holds ':'"),
    ("é", "holds 'é'"),
    ("a*", "holds '*'"),
    ("?", "holds '?'"),
]


@pytest.mark.parametrize(("value", "words"), BRANCHES, ids=[repr(v)[:20] for v, _ in BRANCHES])
def test_each_branch_of_the_rule_refuses(value: object, words: str) -> None:
    problem = name_problem(value)
    assert problem is not None and words in problem
    assert "\n" not in problem and "\x00" not in problem


def test_check_name_raises_one_line_naming_where_and_the_fix() -> None:
    with pytest.raises(InputError) as raised:
        check_name("../x\n", "ann.jsonl line 3: annotator")
    message = str(raised.value)
    assert message.startswith("ann.jsonl line 3: annotator: ")
    assert message.endswith(NAME_RULE)
    assert "\n" not in message


def test_a_record_field_validates_with_the_rule() -> None:
    class Record(BaseModel):
        name: PathName
        file: RelativePath

    assert Record(name="a-1", file="hidden/probes.jsonl").name == "a-1"
    for bad in ({"name": "../a", "file": "x"}, {"name": "a", "file": "../x"}, {"name": "a", "file": "/etc/x"},
                {"name": "a", "file": "a//b"}, {"name": "a", "file": ""}):
        with pytest.raises(ValidationError):
            Record.model_validate(bad)


@pytest.mark.parametrize(("value", "ok"), [("visible/queries.jsonl", True), ("a", True), ("a/../b", False),
                                           ("/a", False), ("a/", False), ("a\\b", False), ("", False)])
def test_relative_path(value: str, ok: bool) -> None:
    assert (relative_path_problem(value) is None) is ok


def test_child_path_is_the_name_inside_the_folder(tmp_path: Path) -> None:
    assert child_path(tmp_path, "ann", "--out", ".jsonl") == tmp_path / "ann.jsonl"
    assert child_path(tmp_path / "not-yet", "ann", "--out") == tmp_path / "not-yet" / "ann"


def test_child_path_refuses_a_bad_name_before_anything_exists(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for name in ("../x", "..", "/x", "a/b", "a\x00b"):
        with pytest.raises(InputError, match=r"^--out: "):
            child_path(out, name, "--out", ".jsonl")
    assert list(tmp_path.iterdir()) == []


def test_child_path_refuses_a_link_that_leads_outside(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "responses.jsonl"
    victim.write_text("keep\n")
    (out / "ann.jsonl").symlink_to(victim)
    with pytest.raises(InputError, match="outside"):
        child_path(out, "ann", "--out", ".jsonl")
    assert victim.read_text() == "keep\n"


def test_child_path_allows_a_folder_that_is_itself_a_link(tmp_path: Path) -> None:
    """The folder the user named may be a link; what counts is that the file lands inside it."""
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "named")
    assert child_path(tmp_path / "named", "ann", "--out", ".jsonl") == tmp_path / "named" / "ann.jsonl"
