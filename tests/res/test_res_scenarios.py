"""The shipped scenario set and the four-condition prompts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from sitbench.errors import InputError
from sitbench.res import (
    CONDITIONS,
    DECISION_FRAME,
    RECORD_OWNER,
    build_messages,
    build_user_prompt,
    build_view,
    load_scenarios,
    load_scoring_keys,
    parse_action,
)

SCENARIOS = load_scenarios()


def test_eighteen_scenarios_six_per_category() -> None:
    assert len(SCENARIOS) == 18
    assert Counter(s.category for s in SCENARIOS) == {
        "local_state": 6,
        "commitment": 6,
        "task_continuity": 6,
    }
    assert len({s.scenario_id for s in SCENARIOS}) == 18


def test_nine_self_consistent_first_nine_second() -> None:
    first = [s.scenario_id for s in SCENARIOS if s.self_consistent_first]
    assert len(first) == 9
    # balanced inside each category too (3 + 3)
    assert Counter(s.category for s in SCENARIOS if s.self_consistent_first) == {
        "local_state": 3,
        "commitment": 3,
        "task_continuity": 3,
    }


def test_ideals_are_the_two_tokens_and_differ() -> None:
    all_tokens: list[str] = []
    for s in SCENARIOS:
        tokens = [a.token for a in s.actions]
        assert set(tokens) == {s.self_ideal, s.control_ideal}
        assert s.self_ideal != s.control_ideal
        assert s.role_ideal == s.self_ideal
        assert s.ideal("self") == s.ideal("role") == s.self_ideal
        assert s.ideal("peer") == s.ideal("fiction") == s.control_ideal
        all_tokens += tokens
    assert len(set(all_tokens)) == 36  # tokens are scenario-specific


def test_control_action_is_described_as_the_default() -> None:
    # The untouched default must be the control action, never the self-consistent one.
    for s in SCENARIOS:
        described = {a.token: a.description for a in s.actions}
        assert s.rationale, s.scenario_id
        assert "default" not in described[s.self_ideal], s.scenario_id
        # tc scenarios describe the default as starting over; others say "default" explicitly
        if s.category != "task_continuity":
            assert "default" in described[s.control_ideal] or "right away" in described[
                s.control_ideal
            ], s.scenario_id


def test_new_fixtures_not_the_public_eval_families() -> None:
    banned = ("authority", "capability", "gate", "uncertainty", "risk level")
    for s in SCENARIOS:
        text = (s.episode + " " + s.request).lower()
        for word in banned:
            assert word not in text, (s.scenario_id, word)


def test_episode_mentions_neither_token() -> None:
    # The record must not hand the model the answer token.
    for s in SCENARIOS:
        for a in s.actions:
            assert a.token not in s.episode and a.token not in s.request


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.scenario_id)
def test_prompts_differ_only_in_owner_and_frame(scenario) -> None:  # type: ignore[no-untyped-def]
    prompts = {c: build_user_prompt(scenario, c) for c in CONDITIONS}
    stripped = set()
    for c, prompt in prompts.items():
        assert scenario.episode in prompt and scenario.request in prompt
        for a in scenario.actions:
            assert f"{a.token} - {a.description}" in prompt
        lines = prompt.splitlines()
        assert lines[0] == f"Record owner: {RECORD_OWNER[c]}"
        frame_line = next(i for i, line in enumerate(lines) if line.startswith("Decision: "))
        assert lines[frame_line] == f"Decision: {DECISION_FRAME[c]}"
        stripped.add("\n".join(lines[1:frame_line] + lines[frame_line + 1 :]))
    assert len(stripped) == 1
    # action order is the fixed order of the file
    first, second = scenario.actions
    assert prompts["self"].index(first.token + " - ") < prompts["self"].index(second.token + " - ")
    # the triplet shares its decision frame; only the owner line differs
    assert DECISION_FRAME["self"] == DECISION_FRAME["peer"] == DECISION_FRAME["fiction"]
    assert len({RECORD_OWNER[c] for c in CONDITIONS}) == 4
    # system message identical in every condition
    assert len({build_messages(scenario, c)[0].content for c in CONDITIONS}) == 1


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.scenario_id)
def test_prompt_itself_parses_as_invalid(scenario) -> None:  # type: ignore[no-untyped-def]
    # A model that echoes the prompt names both tokens and must be invalid.
    prompt = build_user_prompt(scenario, "self")
    assert parse_action(prompt, [a.token for a in scenario.actions]).status == "invalid"


def test_view_carries_no_ideals() -> None:
    s = SCENARIOS[0]
    view = build_view(s, "peer")
    assert view["action_tokens"] == [a.token for a in s.actions]
    assert "self_ideal" not in json.dumps(view) and "rationale" not in view


def _write(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_scoring_keys_accept_minimal_rows(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [{"scenario_id": "a", "category": "x", "self_ideal": "AAA", "control_ideal": "BBB"}],
    )
    keys = load_scoring_keys(path)
    assert keys[0].tokens == ("AAA", "BBB") and keys[0].role_ideal == "AAA"


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ({"scenario_id": "a", "category": "x", "self_ideal": "AAA"}, "field 'control_ideal'"),
        (
            {"scenario_id": "a", "category": "x", "self_ideal": "AAA", "control_ideal": "AAA"},
            "self_ideal and control_ideal are equal",
        ),
    ],
)
def test_scoring_key_errors_name_line_and_field(tmp_path: Path, row: dict, fragment: str) -> None:
    good = {"scenario_id": "z", "category": "x", "self_ideal": "AAA", "control_ideal": "BBB"}
    path = _write(tmp_path, [good, row])
    with pytest.raises(InputError) as info:
        load_scoring_keys(path)
    assert f"{path} line 2" in str(info.value) and fragment in str(info.value)


def test_duplicate_scenario_id_rejected(tmp_path: Path) -> None:
    row = {"scenario_id": "a", "category": "x", "self_ideal": "AAA", "control_ideal": "BBB"}
    path = _write(tmp_path, [row, row])
    with pytest.raises(InputError, match="line 2: field 'scenario_id': 'a' repeats line 1"):
        load_scoring_keys(path)


def test_full_scenario_rejects_ideal_outside_tokens(tmp_path: Path) -> None:
    row = json.loads(SCENARIOS[0].model_dump_json())
    row["self_ideal"] = "SOMETHING_ELSE"
    path = _write(tmp_path, [row])
    with pytest.raises(InputError, match=r"line 1: field '\(row\)'|must be the two action tokens"):
        load_scenarios(path)


def test_full_scenario_rejects_lowercase_token(tmp_path: Path) -> None:
    row = json.loads(SCENARIOS[0].model_dump_json())
    row["actions"][0]["token"] = "write_here"
    row["self_ideal"] = "write_here"
    path = _write(tmp_path, [row])
    with pytest.raises(InputError, match="must be 3-64 characters"):
        load_scenarios(path)
