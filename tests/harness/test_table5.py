"""The paper's Table 5 on the reference pilot: deterministic mocks against the analytical bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.cli._runs import execute_run, score_run
from sitbench.metrics import compute_metrics, load_scores


@pytest.fixture(scope="module")
def runs(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out = {}
    root = tmp_path_factory.mktemp("table5")
    for name, model, handler in [("collapse", "mock/collapse", "native"), ("oracle", "mock/oracle", "native"),
                                 ("perfect", "mock/oracle", "perfect")]:
        run = root / name
        attempted, completed = execute_run(pilot, model, run, "all", handler)
        assert (attempted, completed) == (198, 198)
        score_run(run)
        out[name] = compute_metrics(load_scores(run))
    return out


def test_collapse_under_b_respects_the_profile_collision_bound(runs: dict[str, dict]) -> None:
    """Collapse under B: LAA = IC_wrong = 5/24 ≈ 0.208 here, where the seed's Table 5 reports 0.30 for both.

    The ten theorem-qualified probes of this pilot form five mirrored pairs with identical query text (PR-01/02,
    PR-03/04, PR-05/06, PR-07/08, PR-09/10) and the collapse mock answers both members with the same text.
    Two of those texts match one member's contract (PR-02 and PR-07 correct, their partners PR-01 and PR-08
    wrong identity); the other three fail both contracts (IC_none). Pair-balanced over lineages with 3, 3,
    2 and 2 such probes, every possible LAA is a multiple of 1/24, and 0.30 = 7.2/24 is not one; the trial
    share would be 2/10 = 0.20, and 0.30 would need a third mirrored pair resolved. The seed's fixture
    content and its collapse policy are not in the seed's text (its LAA equations are lost), so its 0.30
    cannot be reproduced; what carries over, and is asserted, is the bound (≤ 0.5) and the mirror
    LAA = IC_wrong that any profile-only policy on identical queries shows.
    """
    b = runs["collapse"]["B"]
    assert b.LAA is not None and b.LAA <= 0.5
    # Hand count: pair 1 correct only on Mara B's Kyoto probe (1 of 3 for one member, 0 for the other),
    # pair 2 only on Aoife A's Lisbon probe (1 of 2 and 0): LAA = (1/6 + 1/4) / 2 = 5/24.
    assert pytest.approx(5 / 24) == b.LAA
    assert b.IC_wrong == pytest.approx(5 / 24)  # the mirror image: the partner's contract accepts the same text
    assert b.IC_none == pytest.approx(1 - 10 / 24)
    # Profile-only text is identical in every configuration, so nothing changes across A–I.
    assert {runs["collapse"][c].LAA for c in "ABCDEFGHI"} == {b.LAA}


def test_oracle_under_i_is_perfect(runs: dict[str, dict]) -> None:
    i = runs["oracle"]["I"]
    assert i.macro_sit == pytest.approx(1.0)
    assert pytest.approx(1.0) == i.LAA
    assert (i.FMR, i.TL, i.UEL) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("config", list("DEFGH"))
def test_perfect_handlers_score_one(runs: dict[str, dict], config: str) -> None:
    m = runs["perfect"][config]
    assert m.macro_sit == pytest.approx(1.0)
    assert pytest.approx(1.0) == m.LAA


def test_profile_only_configs_cannot_attribute(runs: dict[str, dict]) -> None:
    for config in "BC":
        assert runs["oracle"][config].LAA == 0.0  # the oracle has no lineage evidence to go on
