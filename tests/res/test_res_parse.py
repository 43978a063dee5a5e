"""Token parsing: exactly one of the two tokens, whole-token, case-sensitive."""

from __future__ import annotations

import pytest

from sitbench.res import parse_action, tokens_present

TOKENS = ("OPEN_PR_AS_DRAFT", "OPEN_PR_READY")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("OPEN_PR_AS_DRAFT", "OPEN_PR_AS_DRAFT"),
        ("OPEN_PR_READY\n", "OPEN_PR_READY"),
        ('"OPEN_PR_READY"', "OPEN_PR_READY"),
        ("`OPEN_PR_AS_DRAFT`", "OPEN_PR_AS_DRAFT"),
        ("**OPEN_PR_AS_DRAFT**.", "OPEN_PR_AS_DRAFT"),
        ("I choose OPEN_PR_READY. OPEN_PR_READY!", "OPEN_PR_READY"),  # repeated: still one token
        ("Action: 'OPEN_PR_READY'", "OPEN_PR_READY"),
        ("(OPEN_PR_AS_DRAFT)", "OPEN_PR_AS_DRAFT"),
    ],
)
def test_exactly_one_token_parses(text: str, expected: str) -> None:
    parsed = parse_action(text, TOKENS)
    assert parsed.status == "ok"
    assert parsed.action == expected
    assert parsed.reason is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("OPEN_PR_AS_DRAFT or OPEN_PR_READY", "both action tokens"),
        ("Not OPEN_PR_READY; I pick OPEN_PR_AS_DRAFT", "both action tokens"),
        ('"OPEN_PR_READY" "OPEN_PR_AS_DRAFT"', "both action tokens"),
        ("", "no action token"),
        ("I would open it as a draft.", "no action token"),
        ("open_pr_as_draft", "no action token"),  # case-sensitive
        ("Open_Pr_Ready", "no action token"),
        ("XOPEN_PR_READY", "no action token"),  # inside another word
        ("OPEN_PR_READY_NOW", "no action token"),
        ("OPEN_PR_READY2", "no action token"),
        ("_OPEN_PR_AS_DRAFT", "no action token"),
        ("OPEN PR READY", "no action token"),
    ],
)
def test_invalid_responses(text: str, reason: str) -> None:
    parsed = parse_action(text, TOKENS)
    assert parsed.status == "invalid"
    assert parsed.action is None
    assert parsed.reason == reason


def test_none_is_invalid() -> None:
    assert parse_action(None, TOKENS).reason == "no action token"


def test_prefix_token_does_not_shadow_longer_token() -> None:
    # WRAP_AT_80 must not be found inside WRAP_AT_800, nor the other way round.
    tokens = ("WRAP_AT_80", "WRAP_AT_800")
    assert parse_action("WRAP_AT_800", tokens).action == "WRAP_AT_800"
    assert parse_action("WRAP_AT_80", tokens).action == "WRAP_AT_80"
    assert tokens_present("WRAP_AT_80 WRAP_AT_800", tokens) == ["WRAP_AT_80", "WRAP_AT_800"]


def test_tokens_present_keeps_given_order_and_dedupes() -> None:
    assert tokens_present("OPEN_PR_READY OPEN_PR_AS_DRAFT OPEN_PR_READY", TOKENS) == list(TOKENS)
